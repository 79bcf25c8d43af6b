// RUN: oneflow-opt %s -split-input-file -verify-diagnostics --oneflow-autodiff
// RUN: not oneflow-opt %s -split-input-file --oneflow-autodiff="freeze=nope" 2>&1 | FileCheck %s --check-prefix=FREEZE
// FREEZE: error: cannot freeze 'nope': the graph has no variable of that name

// Every op on the path without a gradient rule is reported, not only the
// first.
func.func @main(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<4x8xf32>} : tensor<4x8xf32>
  %y = oneflow.mul %x, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-error @+1 {{'oneflow.topk' op has no gradient rule (route the values' gradient with gather_elements)}}
  %v, %i = oneflow.topk %y {axis = 1 : i64, k = 2 : i64} : tensor<4x8xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  // expected-error @+1 {{'oneflow.pad' op has no gradient rule for reflect or edge padding}}
  %p = oneflow.pad %v {pads = array<i64: 0, 1, 0, 1>, mode = #oneflow.pad_mode<reflect>} : tensor<4x2xf32> -> tensor<4x4xf32>
  // expected-error @+1 {{cannot differentiate the loss: see the ops above}}
  %l = oneflow.reduce_sum %p {axes = array<i64: 0, 1>} : tensor<4x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{the first result must be the loss: a floating-point tensor of one element}}
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}
