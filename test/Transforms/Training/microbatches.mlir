// RUN: oneflow-opt %s -split-input-file -verify-diagnostics --oneflow-autodiff="microbatches=2" | FileCheck %s

// Gradient accumulation: each micro-batch (samples m, m+2, ...) runs its
// forward then its backward; the gradients add up and the loss is the mean
// of the micro-batch losses.
// CHECK-LABEL: func.func @main(
// CHECK: %[[G0:.*]] = oneflow.reshape %[[X:.*]] : tensor<4x16xf32> to tensor<2x2x16xf32>
// CHECK: oneflow.slice %[[G0]] {limits = array<i64: 2, 1, 16>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>}
// CHECK: %[[Y0:.*]] = oneflow.matmul %{{.*}}, %[[W:.*]] : (tensor<2x16xf32>, tensor<16x10xf32>) -> tensor<2x10xf32>
// CHECK: %[[L0:.*]] = oneflow.reduce_mean %[[Y0]]
// CHECK: oneflow.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[DW0:.*]] = oneflow.matmul %{{.*}}, %{{.*}} {transpose_a}
// CHECK: oneflow.slice %{{.*}} {limits = array<i64: 2, 2, 16>, starts = array<i64: 0, 1, 0>
// CHECK: %[[Y1:.*]] = oneflow.matmul
// CHECK: %[[L1:.*]] = oneflow.reduce_mean %[[Y1]]
// CHECK: %[[DW1:.*]] = oneflow.matmul %{{.*}}, %{{.*}} {transpose_a}
// CHECK: %[[DW:.*]] = oneflow.add %[[DW0]], %[[DW1]]
// CHECK: %[[SUM:.*]] = oneflow.add %[[L0]], %[[L1]]
// CHECK: %[[LOSS:.*]] = oneflow.mul %[[SUM]], %{{.*}}
// CHECK: return %[[LOSS]], %[[DW]]
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> tensor<f32> {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x10xf32>} : tensor<16x10xf32>
  %y = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x10xf32>) -> tensor<4x10xf32>
  %l = oneflow.reduce_mean %y {axes = array<i64: 0, 1>} : tensor<4x10xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{argument #0 of type 'tensor<3x8xf32>' cannot be cut into 2 micro-batches along its first axis}}
func.func @main(%x: tensor<3x8xf32>) -> tensor<f32> {
  %l = oneflow.reduce_sum %x {axes = array<i64: 0, 1>} : tensor<3x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
