// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @axis_too_big(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'oneflow.softmax' op axis 2 is out of range for rank 2}}
  %0 = oneflow.softmax %x {axis = 2} : tensor<4x8xf32>
  return
}

// -----

func.func @axis_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'oneflow.log_softmax' op axis -1 is out of range for rank 2}}
  %0 = oneflow.log_softmax %x {axis = -1} : tensor<4x8xf32>
  return
}

// -----

func.func @scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'oneflow.softmax' op axis 0 is out of range for rank 0}}
  %0 = oneflow.softmax %x {axis = 0} : tensor<f32>
  return
}

// -----

func.func @integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'oneflow.softmax' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = oneflow.softmax %x {axis = 0} : tensor<4xi32>
  return
}

// -----

func.func @result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.log_softmax' op requires the same type for all operands and results}}
  %0 = "oneflow.log_softmax"(%x) {axis = 0} : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @missing_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.softmax' op requires attribute 'axis'}}
  %0 = "oneflow.softmax"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
