// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @scale_shape(%x: tensor<2x16x64xf32>, %s: tensor<16xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm' op scale shape must equal the normalized shape [64], got 'tensor<16xf32>'}}
  %0 = oneflow.layer_norm %x, %s {axis = 2} : (tensor<2x16x64xf32>, tensor<16xf32>) -> tensor<2x16x64xf32>
  return
}

// -----

// With axis 1 the normalized shape is 16x64, not 64.
func.func @scale_rank(%x: tensor<2x16x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm' op scale shape must equal the normalized shape [16, 64], got 'tensor<64xf32>'}}
  %0 = oneflow.layer_norm %x, %s {axis = 1} : (tensor<2x16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return
}

// -----

func.func @bias_shape(%x: tensor<2x64xf32>, %s: tensor<64xf32>, %b: tensor<1x64xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm' op bias shape must equal the normalized shape [64], got 'tensor<1x64xf32>'}}
  %0 = oneflow.layer_norm %x, %s, %b {axis = 1} : (tensor<2x64xf32>, tensor<64xf32>, tensor<1x64xf32>) -> tensor<2x64xf32>
  return
}

// -----

// Regression: scale and bias of different types were accepted.
func.func @bias_type(%x: tensor<2x64xf32>, %s: tensor<64xf16>, %b: tensor<64xbf16>) {
  // expected-error @+1 {{'oneflow.layer_norm' op bias type 'tensor<64xbf16>' does not match the scale type 'tensor<64xf16>'}}
  %0 = oneflow.layer_norm %x, %s, %b {axis = 1} : (tensor<2x64xf32>, tensor<64xf16>, tensor<64xbf16>) -> tensor<2x64xf32>
  return
}

// -----

func.func @axis_too_big(%x: tensor<2x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm' op axis 2 is out of range for rank 2}}
  %0 = oneflow.layer_norm %x, %s {axis = 2} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32>
  return
}

// -----

// Axes are non-negative; -1 is not "the last axis".
func.func @axis_negative(%x: tensor<2x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm' op axis -1 is out of range for rank 2}}
  %0 = oneflow.layer_norm %x, %s {axis = -1} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @scalar_input(%x: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'oneflow.layer_norm' op axis 0 is out of range for rank 0}}
  %0 = oneflow.layer_norm %x, %s {axis = 0} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @result_type(%x: tensor<2x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm' op failed to verify that all of {x, y} have same type}}
  %0 = oneflow.layer_norm %x, %s {axis = 1} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf16>
  return
}

// -----

func.func @integer_scale(%x: tensor<2x64xf32>, %s: tensor<64xi32>) {
  // expected-error @+1 {{'oneflow.layer_norm' op operand #1 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<64xi32>'}}
  %0 = oneflow.layer_norm %x, %s {axis = 1} : (tensor<2x64xf32>, tensor<64xi32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @missing_axis(%x: tensor<2x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm' op requires attribute 'axis'}}
  %0 = oneflow.layer_norm %x, %s : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32>
  return
}
