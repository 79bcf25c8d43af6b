// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=adamw" --sbp-apply-strategy="mesh=2 strategy=data zero=3" | FileCheck %s --check-prefix=ZERO3
// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=adamw" --sbp-apply-strategy="mesh=2 strategy=data zero=1" | FileCheck %s --check-prefix=ZERO1
// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=adamw" --sbp-apply-strategy="mesh=2 strategy=data zero=0" | FileCheck %s --check-prefix=ZERO0
// RUN: not oneflow-opt %s --sbp-apply-strategy="mesh=2 strategy=data zero=4" 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=adamw" --sbp-apply-strategy="mesh=2 strategy=data zero=0" --sbp-infer --sbp-insert-boxing --cse | FileCheck %s --check-prefix=INFER0
// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=adamw" --sbp-apply-strategy="mesh=2 strategy=data zero=1" --sbp-infer --sbp-insert-boxing --cse | FileCheck %s --check-prefix=INFER1
// RUN: oneflow-opt %s --oneflow-autodiff="microbatches=2" --oneflow-optimizer="optimizer=adamw" --sbp-apply-strategy="mesh=2 strategy=data zero=0" --sbp-infer --sbp-insert-boxing --cse | FileCheck %s --check-prefix=ACCUM

// ZeRO-3: parameters and their optimizer state are split over the data
// axis; each parameter is gathered (S -> B) once for the forward and once
// for the backward, each gather before the first read of its phase; the
// update reads the shard.
// ZERO3-DAG: oneflow.variable @w0.exp_avg {{.*}}sbp.sig = #sbp.sig<() -> (S<0>)>
// ZERO3-DAG: %[[W0:.*]] = oneflow.variable @w0 {{.*}}sbp.sig = #sbp.sig<() -> (S<0>)>
// ZERO3-DAG: %[[W1:.*]] = oneflow.variable @w1 {{.*}}sbp.sig = #sbp.sig<() -> (S<0>)>
// ZERO3: %[[F0:.*]] = sbp.boxing %[[W0]] from [S<0>] to [B] on @mesh {oneflow.gather_for = "forward 0"}
// ZERO3-NEXT: oneflow.matmul %arg0, %[[F0]]
// ZERO3: %[[F1:.*]] = sbp.boxing %[[W1]] from [S<0>] to [B] on @mesh {oneflow.gather_for = "forward 0"}
// ZERO3-NEXT: oneflow.matmul %{{.*}}, %[[F1]]
// ZERO3: %[[B1:.*]] = sbp.boxing %[[W1]] from [S<0>] to [B] on @mesh {oneflow.gather_for = "backward 0"}
// ZERO3-NEXT: oneflow.matmul %{{.*}}, %[[B1]] {transpose_b}
// ZERO3-NOT: sbp.boxing %[[W1]]
// ZERO3: oneflow.mul %[[W1]], %{{.*}}
// ZERO3: oneflow.assign @w1,
// ZERO1: oneflow.variable @w0.exp_avg {{.*}}sbp.sig = #sbp.sig<() -> (S<0>)>
// ZERO1: oneflow.variable @w0 {{.*}}sbp.sig = #sbp.sig<() -> (B)>
// ZERO1-NOT: sbp.boxing
// ZERO0: oneflow.variable @w0.exp_avg {{.*}}sbp.sig = #sbp.sig<() -> (B)>
// ZERO0: oneflow.variable @w0 {{.*}}sbp.sig = #sbp.sig<() -> (B)>
// ZeRO-0 through sbp-infer: each update runs replicated, in the layout of
// its parameter and state (the assigns it flows to); the only boxing of a
// parameter's shape is its gradient's (the bytes of one all-reduce), never
// a gather of the updated parameter or of either AdamW moment.
// INFER0: sbp.boxing %{{.*}} to [B] on @mesh : tensor<16x16xf32>
// INFER0-NOT: sbp.boxing {{.*}}tensor<16x16xf32>
// INFER0: oneflow.assign @w0.exp_avg, {{.*}}sbp.sig = #sbp.sig<(B) -> ()>
// INFER0: oneflow.assign @w0, {{.*}}sbp.sig = #sbp.sig<(B) -> ()>
// INFER0: sbp.boxing %{{.*}} to [B] on @mesh : tensor<16x8xf32>
// INFER0-NOT: sbp.boxing {{.*}}tensor<16x8xf32>
// INFER0: oneflow.assign @w1,
// ZeRO-1: the moments stay split; only the new parameter is gathered.
// INFER1: oneflow.assign @w0.exp_avg, {{.*}}sbp.sig = #sbp.sig<(S<0>) -> ()>
// INFER1: oneflow.assign @w0.exp_avg_sq, {{.*}}sbp.sig = #sbp.sig<(S<0>) -> ()>
// INFER1: %[[GATHERED:.*]] = sbp.boxing %{{.*}} from [S<0>] to [B] on @mesh : tensor<16x16xf32>
// INFER1-NEXT: oneflow.assign @w0, %[[GATHERED]]
// Gradient accumulation over 2 micro-batches: each micro-batch's gradient
// stays a partial sum, the micro-batches' sum too, and it is all-reduced
// once per step, as data-parallel trainers do (not once per micro-batch,
// nor computed split after moving activations).
// ACCUM: oneflow.add {{.*}}sbp.sig = #sbp.sig<(P, P) -> (P)>{{.*}}tensor<16x8xf32>
// ACCUM: oneflow.add {{.*}}sbp.sig = #sbp.sig<(P, P) -> (P)>{{.*}}tensor<16x16xf32>
// ACCUM-NOT: sbp.boxing {{.*}}tensor<16x16xf32>
// ACCUM: sbp.boxing %{{.*}} from [P] to [B] on @mesh : tensor<16x16xf32>
// ACCUM-NOT: sbp.boxing {{.*}}tensor<16x16xf32>
// ACCUM: oneflow.assign @w0,
// ACCUM-NOT: sbp.boxing {{.*}}tensor<16x8xf32>
// ACCUM: sbp.boxing %{{.*}} from [P] to [B] on @mesh : tensor<16x8xf32>
// ACCUM-NOT: sbp.boxing {{.*}}tensor<16x8xf32>
// ACCUM: oneflow.assign @w1,
// STAGE: error: ZeRO stage must be 0, 1, 2 or 3, got 4
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> tensor<f32> {
  %w0 = oneflow.variable @w0 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w1 = oneflow.variable @w1 {initial_value = dense<0.25> : tensor<16x8xf32>} : tensor<16x8xf32>
  %h0 = oneflow.matmul %x, %w0 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %a0 = oneflow.tanh %h0 : tensor<4x16xf32>
  %h1 = oneflow.matmul %a0, %w1 : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %l = oneflow.reduce_sum %h1 {axes = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
