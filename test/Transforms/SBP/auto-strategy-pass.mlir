// The sbp-auto-strategy pass as declared in ODS (what --sbp-strategy=auto
// runs), with its options: the cluster file it prices on, and a ZeRO stage
// held on the data axes instead of the solve's own optimizer-state layout.
// A step of 4 rows through 16x16 and 16x8 weights on 2 ranks: too small to
// gain from splitting anything, the solve replicates the work (no
// communication) with ZeRO-0; ZeRO-1 splits the optimizer state, ZeRO-3
// the parameters too.
// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=adamw" --sbp-auto-strategy="mesh=2 cluster=%S/../../../clusters/a100-80gb-sxm.json zero=0 data-axes=0" 2>&1 | FileCheck %s --check-prefix=ZERO0
// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=adamw" --sbp-auto-strategy="mesh=2 cluster=%S/../../../clusters/a100-80gb-sxm.json zero=1 data-axes=0" 2>&1 | FileCheck %s --check-prefix=ZERO1
// RUN: oneflow-opt %s --oneflow-autodiff --oneflow-optimizer="optimizer=adamw" --sbp-auto-strategy="mesh=2 cluster=%S/../../../clusters/a100-80gb-sxm.json zero=3 data-axes=0" 2>&1 | FileCheck %s --check-prefix=ZERO3
// RUN: not oneflow-opt %s --sbp-auto-strategy="mesh=2 data-axes=1" 2>&1 | FileCheck %s --check-prefix=AXIS
// RUN: not oneflow-opt %s --sbp-auto-strategy="mesh=2 zero=4 data-axes=0" 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: not oneflow-opt %s --sbp-auto-strategy="mesh=2 device=tpu" 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not oneflow-opt %s --sbp-auto-strategy="mesh=2 cluster=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=CLUSTER

// ZERO0: sbp-auto: mesh [2]: {{.*}} solved exactly; predicted compute {{.*}} s + communication 0 s
// ZERO0-DAG: oneflow.variable @w0.exp_avg {{.*}}sbp.sig = #sbp.sig<() -> (B)>
// ZERO0-DAG: oneflow.variable @w0.exp_avg_sq {{.*}}sbp.sig = #sbp.sig<() -> (B)>
// ZERO0-DAG: oneflow.variable @w0 {{.*}}sbp.sig = #sbp.sig<() -> (B)>
// ZERO0-DAG: oneflow.matmul %arg0, %{{.*}} {{.*}}sbp.sig = #sbp.sig<(B, B) -> (B)>

// ZERO1-DAG: oneflow.variable @w0.exp_avg {{.*}}sbp.sig = #sbp.sig<() -> (S<{{[01]}}>)>
// ZERO1-DAG: oneflow.variable @w1.exp_avg_sq {{.*}}sbp.sig = #sbp.sig<() -> (S<{{[01]}}>)>
// Below stage 3 the parameters' layout is the solve's: at equal time it
// holds fewer bytes, so once the state is split it splits them too.
// ZERO1-DAG: oneflow.variable @w0 {{.*}}sbp.sig = #sbp.sig<() -> (S<1>)>
// ZERO1-DAG: oneflow.variable @w1 {{.*}}sbp.sig = #sbp.sig<() -> (S<0>)>

// ZERO3-DAG: oneflow.variable @w0.exp_avg {{.*}}sbp.sig = #sbp.sig<() -> (S<{{[01]}}>)>
// ZERO3-DAG: oneflow.variable @w0 {{.*}}sbp.sig = #sbp.sig<() -> (S<{{[01]}}>)>
// ZERO3-DAG: oneflow.variable @w1 {{.*}}sbp.sig = #sbp.sig<() -> (S<{{[01]}}>)>

// AXIS: error: sbp-auto: a data axis is not an axis of the mesh [2]
// STAGE: error: sbp-auto: zero must be -1 (the solve's choice) or 0 to 3, not 4
// DEVICE: error: sbp-auto-strategy: device must be cpu or cuda, not 'tpu'
// CLUSTER: error: --simulate: {{.*}}missing.json
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> tensor<f32> {
  %w0 = oneflow.variable @w0 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w1 = oneflow.variable @w1 {initial_value = dense<0.25> : tensor<16x8xf32>} : tensor<16x8xf32>
  %h0 = oneflow.matmul %x, %w0 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %a0 = oneflow.tanh %h0 : tensor<4x16xf32>
  %h1 = oneflow.matmul %a0, %w1 : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %l = oneflow.reduce_sum %h1 {axes = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
