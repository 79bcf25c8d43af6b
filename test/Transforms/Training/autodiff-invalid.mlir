// RUN: oneflow-opt %s -split-input-file -verify-diagnostics --oneflow-autodiff
// RUN: not oneflow-opt %s -split-input-file --oneflow-autodiff="freeze=nope" 2>&1 | FileCheck %s --check-prefix=FREEZE
// FREEZE: error: cannot freeze 'nope': the graph has no variable of that name

// Every op on the path without a gradient rule is reported, not only the
// first.
func.func private @helper(tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @main(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<4x8xf32>} : tensor<4x8xf32>
  %y = oneflow.mul %x, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-error @+1 {{'func.call' op has no gradient rule, but the loss depends on it through a trained value}}
  %c = func.call @helper(%y) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-error @+1 {{'oneflow.pad' op has no gradient rule for reflect or edge padding}}
  %p = oneflow.pad %c {pads = array<i64: 0, 1, 0, 1>, mode = #oneflow.pad_mode<reflect>} : tensor<4x8xf32> -> tensor<4x10xf32>
  // expected-error @+1 {{cannot differentiate the loss: see the ops above}}
  %l = oneflow.reduce_sum %p {axes = array<i64: 0, 1>} : tensor<4x10xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{the first result must be the loss: a floating-point tensor of one element}}
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// -----

// The statistics batch_norm_train outputs are not differentiated (as in
// PyTorch): a loss that depends on them is rejected, not silently wrong.
func.func @main(%x: tensor<4x3x2x2xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %s = oneflow.variable @s {initial_value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %rm = oneflow.constant dense<0.0> : tensor<3xf32>
  %rv = oneflow.constant dense<1.0> : tensor<3xf32>
  // expected-error @+1 {{'oneflow.batch_norm_train' op has no gradient rule for its running or saved statistics}}
  %y, %m, %v, %sm, %si = oneflow.batch_norm_train %x, %s, %b, %rm, %rv : tensor<4x3x2x2xf32>, tensor<3xf32>
  %t = oneflow.reduce_sum %y {axes = array<i64: 0, 1, 2, 3>} : tensor<4x3x2x2xf32> -> tensor<f32>
  %u = oneflow.reduce_sum %m {axes = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  // expected-error @+1 {{cannot differentiate the loss: see the ops above}}
  %l = oneflow.add %t, %u : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
