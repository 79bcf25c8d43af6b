// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @axis_out_of_range(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{reduction axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{'oneflow.argmax' op failed to infer returned types}}
  %0 = oneflow.argmax %x {axis = 2} : tensor<3x4xf32> -> tensor<3xi64>
  return
}

// -----

func.func @axis_negative(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{reduction axis -1 is out of range [0, 2)}}
  // expected-error @+1 {{'oneflow.argmin' op failed to infer returned types}}
  %0 = oneflow.argmin %x {axis = -1} : tensor<3x4xf32> -> tensor<3xi64>
  return
}

// -----

func.func @scalar_input(%x: tensor<f32>) {
  // expected-error @+2 {{reduction axis 0 is out of range [0, 0)}}
  // expected-error @+1 {{'oneflow.argmax' op failed to infer returned types}}
  %0 = oneflow.argmax %x {axis = 0} : tensor<f32> -> tensor<i64>
  return
}

// -----

func.func @result_i32(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'oneflow.argmax' op result #0 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<3xi32>'}}
  %0 = oneflow.argmax %x {axis = 1} : tensor<3x4xf32> -> tensor<3xi32>
  return
}

// -----

func.func @result_shape(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{'oneflow.argmin' op inferred type(s) 'tensor<3xi64>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{'oneflow.argmin' op failed to infer returned types}}
  %0 = oneflow.argmin %x {axis = 1} : tensor<3x4xf32> -> tensor<4xi64>
  return
}

// -----

func.func @bool_input(%x: tensor<4xi1>) {
  // expected-error @+1 {{'oneflow.argmax' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = oneflow.argmax %x {axis = 0} : tensor<4xi1> -> tensor<i64>
  return
}

// -----

func.func @axis_i32(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.argmax' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "oneflow.argmax"(%x) {axis = 0 : i32} : (tensor<4xf32>) -> tensor<i64>
  return
}
