// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @normal_negative_std() {
  // expected-error @+1 {{normal initializer needs std >= 0, got -1}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<normal, std = -1.0>} : tensor<4xf32>
  return
}

// -----

func.func @uniform_empty() {
  // expected-error @+1 {{uniform initializer needs a < b, got [1, 1)}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<uniform, a = 1.0, b = 1.0>} : tensor<4xf32>
  return
}

// -----

func.func @uniform_reversed() {
  // expected-error @+1 {{uniform initializer needs a < b, got [2, -2)}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<uniform, a = 2.0, b = -2.0>} : tensor<4xf32>
  return
}

// -----

func.func @truncated_zero_std() {
  // expected-error @+1 {{truncated normal initializer needs std > 0, got 0}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<truncated_normal, std = 0.0>} : tensor<4xf32>
  return
}

// -----

func.func @truncated_reversed() {
  // expected-error @+1 {{truncated normal initializer needs a < b, got [2, -2]}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<truncated_normal, a = 2.0, b = -2.0>} : tensor<4xf32>
  return
}

// -----

func.func @truncated_no_mass() {
  // expected-error @+1 {{truncated normal initializer bounds [50, 60] hold no probability mass of normal(0, 1)}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<truncated_normal, a = 50.0, b = 60.0>} : tensor<4xf32>
  return
}

// -----

func.func @not_finite() {
  // expected-error @+1 {{initializer mean must be finite, got inf}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<normal, mean = 0x7FF0000000000000>} : tensor<4xf32>
  return
}

// -----

func.func @unknown_distribution() {
  // expected-error @+1 {{unknown initializer distribution 'xavier' (expected zeros, ones, normal, uniform or truncated_normal)}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<xavier>} : tensor<4xf32>
  return
}

// -----

func.func @parameter_of_another_distribution() {
  // expected-error @+1 {{'std' is not a parameter of a uniform initializer}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<uniform, std = 1.0>} : tensor<4xf32>
  return
}

// -----

func.func @zeros_take_no_seed() {
  // expected-error @+1 {{'seed' is not a parameter of a zeros initializer}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<zeros, seed = 1>} : tensor<4xf32>
  return
}

// -----

func.func @parameter_twice() {
  // expected-error @+1 {{'mean' is given twice}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<normal, mean = 1.0, mean = 2.0>} : tensor<4xf32>
  return
}

// -----

func.func @negative_seed() {
  // expected-error @+1 {{'seed' must be non-negative}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<normal, seed = -1>} : tensor<4xf32>
  return
}

// -----

func.func @integer_literal() {
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<normal, std = 2>} : tensor<4xf32>
  return
}

// -----

func.func @random_integers() {
  // expected-error @+1 {{'oneflow.variable' op cannot draw normal values for 'tensor<4xi64>' (random initializers need a floating-point element type)}}
  %0 = oneflow.variable @w {initializer = #oneflow.init<normal, std = 0.02>} : tensor<4xi64>
  return
}

// -----

func.func @data_and_initializer() {
  // expected-error @+1 {{'oneflow.variable' op has both an initial value and an initializer}}
  %0 = oneflow.variable @w {initial_value = dense<1.0> : tensor<4xf32>, initializer = #oneflow.init<ones>} : tensor<4xf32>
  return
}

// -----

func.func @not_an_initializer() {
  // expected-error @+1 {{'oneflow.variable' op attribute 'initializer' failed to satisfy constraint}}
  %0 = "oneflow.variable"() {var_name = @w, initializer = 1.0 : f32} : () -> tensor<f32>
  return
}
