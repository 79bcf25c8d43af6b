// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff --oneflow-optimizer --sbp-pipeline-stages="stages=2" --sbp-apply-strategy="mesh=1" --sbp-infer --sbp-insert-boxing --sbp-localize --sbp-pipeline-split="stages=2" | FileCheck %s

// A weight read on both stages (tied weights) lives on each. Stage 1 sends
// its gradient contribution to stage 0, where the backward sums both; stage
// 0 updates its copy and sends the sum back, and stage 1 runs the same
// update on its own copy.
// CHECK-LABEL: func.func @main_rank0(
// CHECK: %[[W0:.*]] = oneflow.variable @w
// CHECK: %[[C:.*]] = sbp.recv from 1 {tag = [[CONTRIB:[0-9]+]] : i64} : tensor<16x16xf32>
// CHECK: %[[G0:.*]] = oneflow.add %[[C]], %{{.*}}
// CHECK: sbp.send %[[G0]] to 1 {tag = [[SUM:[0-9]+]] : i64} : tensor<16x16xf32>
// CHECK: %[[STEP0:.*]] = oneflow.mul %[[G0]]
// CHECK: %[[NEW0:.*]] = oneflow.sub %[[W0]], %[[STEP0]]
// CHECK: oneflow.assign @w, %[[NEW0]]
// CHECK-LABEL: func.func @main_rank1(
// CHECK: %[[W1:.*]] = oneflow.variable @w
// CHECK: sbp.send %{{.*}} to 0 {tag = [[CONTRIB]] : i64} : tensor<16x16xf32>
// CHECK: %[[G1:.*]] = sbp.recv from 0 {tag = [[SUM]] : i64} : tensor<16x16xf32>
// CHECK: %[[STEP1:.*]] = oneflow.mul %[[G1]]
// CHECK: %[[NEW1:.*]] = oneflow.sub %[[W1]], %[[STEP1]]
// CHECK: oneflow.assign @w, %[[NEW1]]
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x16xf32>, oneflow.trainable} : tensor<16x16xf32>
  %h = oneflow.matmul %x, %w {oneflow.stage = 0 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %y = oneflow.matmul %h, %w {oneflow.stage = 1 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
