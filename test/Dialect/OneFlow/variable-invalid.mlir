// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @initial_shape_mismatch() {
  // expected-error @+1 {{'oneflow.variable' op initial value of type 'tensor<4xf32>' does not match the variable type 'tensor<2x2xf32>'}}
  %0 = oneflow.variable @w {initial_value = dense<1.0> : tensor<4xf32>} : tensor<2x2xf32>
  return
}

// -----

func.func @initial_element_mismatch() {
  // expected-error @+1 {{'oneflow.variable' op initial value of type 'tensor<4xf16>' does not match the variable type 'tensor<4xf32>'}}
  %0 = oneflow.variable @w {initial_value = dense<1.0> : tensor<4xf16>} : tensor<4xf32>
  return
}

// -----

func.func @initial_resource_mismatch() {
  // expected-error @+1 {{'oneflow.variable' op initial value of type 'tensor<3xf32>' does not match the variable type 'tensor<2xf32>'}}
  %0 = oneflow.variable @w {initial_value = dense_resource<blob> : tensor<3xf32>} : tensor<2xf32>
  return
}

// -----

func.func @initial_not_elements() {
  // expected-error @+1 {{'oneflow.variable' op attribute 'initial_value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = "oneflow.variable"() {var_name = "w", initial_value = 1.0 : f32} : () -> tensor<f32>
  return
}

// -----

func.func @missing_name() {
  // expected-error @+1 {{'oneflow.variable' op requires attribute 'var_name'}}
  %0 = "oneflow.variable"() : () -> tensor<f32>
  return
}

// -----

func.func @name_not_string() {
  // expected-error @+1 {{'oneflow.variable' op attribute 'var_name' failed to satisfy constraint: string attribute}}
  %0 = "oneflow.variable"() {var_name = 3 : i64} : () -> tensor<f32>
  return
}

// -----

func.func @dynamic_type() {
  // expected-error @+1 {{'oneflow.variable' op result #0 must be statically shaped tensor}}
  %0 = oneflow.variable @w : tensor<?x4xf32>
  return
}

// -----

func.func @unsupported_type() {
  // expected-error @+1 {{'oneflow.variable' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xui8>'}}
  %0 = oneflow.variable @w : tensor<4xui8>
  return
}

// -----

// Regression: an empty name was accepted and printed as the unparseable
// `@<<INVALID EMPTY SYMBOL>>`.
func.func @empty_name() {
  // expected-error @+1 {{'oneflow.variable' op requires a non-empty variable name}}
  %0 = oneflow.variable @"" : tensor<f32>
  return
}

// -----

func.func @empty_name_generic() {
  // expected-error @+1 {{'oneflow.variable' op requires a non-empty variable name}}
  %0 = "oneflow.variable"() {var_name = ""} : () -> tensor<f32>
  return
}
