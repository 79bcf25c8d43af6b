// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=4" --oneflow-optimizer --sbp-pipeline-stages="stages=2" --sbp-apply-strategy="mesh=1" --sbp-infer --sbp-insert-boxing --sbp-localize --sbp-pipeline-split="stages=2 schedule=gpipe" | FileCheck %s --check-prefixes=CHECK,GPIPE
// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=4" --oneflow-optimizer --sbp-pipeline-stages="stages=2" --sbp-apply-strategy="mesh=1" --sbp-infer --sbp-insert-boxing --sbp-localize --sbp-pipeline-split="stages=2 schedule=1f1b match-receive-order" | FileCheck %s --check-prefixes=CHECK,ONEF

// Two layers, one per stage, 4 micro-batches. Rank 0 (stage 0) sends each
// micro-batch's activation to rank 1 and receives its gradient back; rank 1
// sends the loss to rank 0, which returns it. Each weight and its update
// live on its stage only.
// GPipe: every forward (4 sends) before any backward (4 receives).
// 1F1B on stage 0 of 2: one forward to fill the pipe, then a forward and a
// backward in turn.
// CHECK: module attributes {{{.*}}sbp.num_ranks = 2
// CHECK-LABEL: func.func @main_rank0(
// CHECK: oneflow.variable @w1
// CHECK-NOT: oneflow.variable @w2
// GPIPE: sbp.send %{{.*}} to 1 {tag = 0 : i64} : tensor<1x16xf32>
// GPIPE: sbp.send %{{.*}} to 1 {tag = 2 : i64} : tensor<1x16xf32>
// GPIPE: sbp.send %{{.*}} to 1 {tag = 4 : i64} : tensor<1x16xf32>
// GPIPE: sbp.send %{{.*}} to 1 {tag = 6 : i64} : tensor<1x16xf32>
// GPIPE: sbp.recv from 1 {tag = 1 : i64} : tensor<1x16xf32>
// GPIPE: sbp.recv from 1 {tag = 3 : i64} : tensor<1x16xf32>
// GPIPE: sbp.recv from 1 {tag = 5 : i64} : tensor<1x16xf32>
// GPIPE: sbp.recv from 1 {tag = 7 : i64} : tensor<1x16xf32>
// ONEF: sbp.send %{{.*}} to 1 {tag = 0 : i64} : tensor<1x16xf32>
// ONEF: sbp.send %{{.*}} to 1 {tag = 2 : i64} : tensor<1x16xf32>
// ONEF: sbp.recv from 1 {tag = 1 : i64} : tensor<1x16xf32>
// ONEF: sbp.send %{{.*}} to 1 {tag = 4 : i64} : tensor<1x16xf32>
// ONEF: sbp.recv from 1 {tag = 3 : i64} : tensor<1x16xf32>
// ONEF: sbp.send %{{.*}} to 1 {tag = 6 : i64} : tensor<1x16xf32>
// With match-receive-order (CUDA plans), receives from a peer come in the
// peer's send order (NCCL matches them by order): the loss before the last
// gradient, as stage 1 sends it.
// ONEF: sbp.recv from 1 {tag = 5 : i64} : tensor<1x16xf32>
// ONEF: %[[LOSS:.*]] = sbp.recv from 1 {tag = 8 : i64} : tensor<f32>
// ONEF-NEXT: sbp.recv from 1 {tag = 7 : i64} : tensor<1x16xf32>
// CHECK: oneflow.assign @w1
// A receive waits for its first use (the comm thread blocks on it): the
// loss, which only the output reads, comes last.
// GPIPE-NEXT: %[[LOSS:.*]] = sbp.recv from 1 {tag = 8 : i64} : tensor<f32>
// CHECK: return %[[LOSS]]
// CHECK-LABEL: func.func @main_rank1(
// CHECK: sbp.recv from 0 {tag = 0 : i64}
// CHECK: oneflow.variable @w2
// CHECK-NOT: oneflow.variable @w1
// CHECK: sbp.send %{{.*}} to 0 {tag = 8 : i64} : tensor<f32>
// CHECK: oneflow.assign @w2
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @w1 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w2 = oneflow.variable @w2 {initial_value = dense<0.25> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %r = oneflow.relu %h : tensor<4x16xf32>
  %y = oneflow.matmul %r, %w2 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
