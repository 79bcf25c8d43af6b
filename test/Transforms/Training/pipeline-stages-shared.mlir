// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=2" --oneflow-optimizer --sbp-pipeline-stages="stages=2" | FileCheck %s

// One weight read on both stages, 2 micro-batches. Autodiff sums its four
// gradient contributions in one chain, micro-batch after micro-batch, which
// would make micro-batch 1's backward on stage 1 wait for micro-batch 0's
// on stage 0 (interleaved schedules run them the other way round: a
// deadlock). The chain becomes one sum per micro-batch, and the update
// adds the sums.
// CHECK-LABEL: func.func @main(
// CHECK: %[[A0:.*]] = oneflow.matmul {{.*}}oneflow.stage = 1 : i64, transpose_a
// CHECK: %[[B0:.*]] = oneflow.matmul {{.*}}oneflow.stage = 0 : i64, transpose_a
// CHECK: %[[S0:.*]] = oneflow.add %[[A0]], %[[B0]] {oneflow.stage = 0 : i64}
// CHECK: %[[A1:.*]] = oneflow.matmul {{.*}}oneflow.stage = 1 : i64, transpose_a
// CHECK: %[[B1:.*]] = oneflow.matmul {{.*}}oneflow.stage = 0 : i64, transpose_a
// CHECK: %[[S1:.*]] = oneflow.add %[[A1]], %[[B1]] {oneflow.stage = 0 : i64}
// CHECK-NEXT: %[[T:.*]] = oneflow.add %[[S0]], %[[S1]] {oneflow.stage = 0 : i64}
// CHECK: oneflow.mul %[[T]], %{{.*}} {oneflow.stage = 0 : i64}
// CHECK: oneflow.assign @w
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h = oneflow.matmul %x, %w {oneflow.stage = 0 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %r = oneflow.relu %h : tensor<4x16xf32>
  %y = oneflow.matmul %r, %w {oneflow.stage = 1 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
