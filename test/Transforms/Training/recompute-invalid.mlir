// RUN: oneflow-opt %s -split-input-file -verify-diagnostics --oneflow-recompute="mode=full"
// RUN: not oneflow-opt %s --oneflow-autodiff --oneflow-recompute="mode=some" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not oneflow-opt %s --recompute=full 2>&1 | FileCheck %s --check-prefix=TRAIN
// MODE: error: recompute mode must be none, selective or full, got 'some'
// TRAIN: error: --recompute trades memory of a training step: add --train

// Recomputation needs the backward pass that oneflow-autodiff builds.
// expected-error @+1 {{nothing to recompute: the graph has no backward pass (run oneflow-autodiff first)}}
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> tensor<f32> {
  %l = oneflow.reduce_sum %x {axes = array<i64: 0, 1>} : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
