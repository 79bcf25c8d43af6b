// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=4" --oneflow-optimizer --sbp-pipeline-stages="stages=2 schedule=interleaved virtual-stages=2" --sbp-apply-strategy="mesh=1" --sbp-infer --sbp-insert-boxing --sbp-localize --sbp-pipeline-split="stages=2 schedule=interleaved virtual-stages=2" | FileCheck %s
// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=4" --oneflow-optimizer --sbp-pipeline-stages="stages=2 schedule=interleaved virtual-stages=2" --sbp-apply-strategy="mesh=1" --sbp-infer --sbp-insert-boxing --sbp-localize --sbp-pipeline-split="stages=2 schedule=interleaved virtual-stages=2" | FileCheck %s --check-prefix=VARS

// Four layers cut into 4 chunks on 2 stages: rank 0 holds chunks 0 and 2
// (w1, w3), rank 1 chunks 1 and 3 (w2, w4). Interleaved 1F1B with 4
// micro-batches: rank 0 runs the forwards of micro-batches 0 and 1 through
// chunk 0 (sends to rank 1), then receives each back from chunk 1 and runs
// it through chunk 2 (sends to chunk 3), then micro-batch 2's forward of
// chunk 0, and only then its first backward (chunk 2 of micro-batch 0,
// whose gradient chunk 3 sends).
// CHECK: module attributes {{{.*}}sbp.num_ranks = 2
// VARS-LABEL: func.func @main_rank0(
// VARS-DAG: oneflow.variable @w1
// VARS-DAG: oneflow.variable @w3
// VARS-NOT: oneflow.variable @w2
// VARS-NOT: oneflow.variable @w4
// VARS-LABEL: func.func @main_rank1(
// VARS-DAG: oneflow.variable @w2
// VARS-DAG: oneflow.variable @w4
// VARS-NOT: oneflow.variable @w1
// VARS-NOT: oneflow.variable @w3
// CHECK-LABEL: func.func @main_rank0(
// CHECK: sbp.send %{{.*}} to 1 {tag = [[F0C0:[0-9]+]] : i64}
// CHECK: sbp.send %{{.*}} to 1 {tag = [[F1C0:[0-9]+]] : i64}
// CHECK: sbp.recv from 1 {tag = [[F0C1:[0-9]+]] : i64}
// CHECK: sbp.send %{{.*}} to 1 {tag = [[F0C2:[0-9]+]] : i64}
// CHECK: sbp.recv from 1 {tag = [[F1C1:[0-9]+]] : i64}
// CHECK: sbp.send %{{.*}} to 1 {tag = [[F1C2:[0-9]+]] : i64}
// CHECK: sbp.send %{{.*}} to 1 {tag = [[F2C0:[0-9]+]] : i64}
// CHECK: sbp.recv from 1 {tag = [[B0C3:[0-9]+]] : i64}
// CHECK: oneflow.assign @w1
// CHECK-LABEL: func.func @main_rank1(
// Rank 1 starts with 2 forwards (micro-batches 0 and 1 through chunk 1),
// then micro-batch 0 through chunk 3 and its backward there.
// CHECK: sbp.recv from 0 {tag = [[F0C0]] : i64}
// CHECK: sbp.send %{{.*}} to 0 {tag = [[F0C1]] : i64}
// CHECK: sbp.recv from 0 {tag = [[F1C0]] : i64}
// CHECK: sbp.send %{{.*}} to 0 {tag = [[F1C1]] : i64}
// CHECK: sbp.recv from 0 {tag = [[F0C2]] : i64}
// CHECK: sbp.send %{{.*}} to 0 {tag = [[B0C3]] : i64}
// CHECK: oneflow.assign @w2
func.func @main(%x: tensor<8x16xf32> {onnx.name = "x"}) -> (tensor<8x16xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @w1 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w2 = oneflow.variable @w2 {initial_value = dense<0.25> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w3 = oneflow.variable @w3 {initial_value = dense<0.125> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w4 = oneflow.variable @w4 {initial_value = dense<0.0625> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h1 = oneflow.matmul %x, %w1 {oneflow.stage = 0 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %h2 = oneflow.matmul %h1, %w2 {oneflow.stage = 1 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %h3 = oneflow.matmul %h2, %w3 {oneflow.stage = 2 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %y = oneflow.matmul %h3, %w4 {oneflow.stage = 3 : i64} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
