// RUN: not oneflow-opt %s --sbp-pipeline-split="stages=2 schedule=zigzag" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not oneflow-opt %s --sbp-pipeline-split="stages=2" 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=2" --sbp-apply-strategy="mesh=1" --sbp-infer --sbp-insert-boxing --sbp-localize --sbp-pipeline-split="stages=4 schedule=interleaved virtual-stages=2" 2>&1 | FileCheck %s --check-prefix=GROUPS
// RUN: not oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=2" --sbp-apply-strategy="mesh=1" --sbp-infer --sbp-insert-boxing --sbp-localize --sbp-pipeline-split="stages=2 schedule=1f1b virtual-stages=2" 2>&1 | FileCheck %s --check-prefix=VIRTUAL
// RUN: not oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=2" --sbp-apply-strategy="mesh=1" --sbp-infer --sbp-insert-boxing --sbp-localize --sbp-pipeline-split="stages=2 schedule=interleaved" 2>&1 | FileCheck %s --check-prefix=ONECHUNK
// SCHEDULE: error: unknown pipeline schedule 'zigzag' (expected gpipe, 1f1b or interleaved)
// ORDER: error: split stages after sbp-localize
// GROUPS: error: the interleaved schedule runs micro-batches in groups of the 4 stages: the micro-batch count 2 must be a multiple of it
// VIRTUAL: error: virtual stages (2) need the interleaved schedule, not 1f1b
// ONECHUNK: error: the interleaved schedule needs at least 2 virtual stages per rank

// The options are checked.
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h = oneflow.matmul %x, %w {oneflow.stage = 0 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %y = oneflow.matmul %h, %w {oneflow.stage = 1 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

