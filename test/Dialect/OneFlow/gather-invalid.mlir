// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @axis_range(%d: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{gather axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'oneflow.gather' op failed to infer returned types}}
  %0 = oneflow.gather %d, %i {axis = 2} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x5x3xf32>
  return
}

// -----

func.func @axis_negative(%d: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{gather axis -1 is out of range for rank 2}}
  // expected-error @+1 {{'oneflow.gather' op failed to infer returned types}}
  %0 = oneflow.gather %d, %i {axis = -1} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scalar_data(%d: tensor<f32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{gather axis 0 is out of range for rank 0}}
  // expected-error @+1 {{'oneflow.gather' op failed to infer returned types}}
  %0 = oneflow.gather %d, %i : (tensor<f32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @float_indices(%d: tensor<4x5xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'oneflow.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = oneflow.gather %d, %i : (tensor<4x5xf32>, tensor<3xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @bool_indices(%d: tensor<4x5xf32>, %i: tensor<3xi1>) {
  // expected-error @+1 {{'oneflow.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xi1>'}}
  %0 = oneflow.gather %d, %i : (tensor<4x5xf32>, tensor<3xi1>) -> tensor<3x5xf32>
  return
}

// -----

func.func @result_shape(%d: tensor<4x5xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+2 {{'oneflow.gather' op inferred type(s) 'tensor<4x2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3x5xf32>'}}
  // expected-error @+1 {{'oneflow.gather' op failed to infer returned types}}
  %0 = oneflow.gather %d, %i {axis = 1} : (tensor<4x5xf32>, tensor<2x3xi64>) -> tensor<2x3x5xf32>
  return
}

// -----

// The result has the data's element type, not the indices'.
func.func @result_element_type(%d: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'oneflow.gather' op inferred type(s) 'tensor<3x5xf32>' are incompatible with return type(s) of operation 'tensor<3x5xi64>'}}
  // expected-error @+1 {{'oneflow.gather' op failed to infer returned types}}
  %0 = oneflow.gather %d, %i : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<3x5xi64>
  return
}
