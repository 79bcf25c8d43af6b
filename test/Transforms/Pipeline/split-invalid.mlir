// RUN: not oneflow-opt %s --sbp-pipeline-split="stages=2 schedule=zigzag" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not oneflow-opt %s --sbp-pipeline-split="stages=2" 2>&1 | FileCheck %s --check-prefix=ORDER
// SCHEDULE: error: unknown pipeline schedule 'zigzag' (expected gpipe or 1f1b)
// ORDER: error: split stages after sbp-localize

// The options are checked.
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h = oneflow.matmul %x, %w {oneflow.stage = 0 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %y = oneflow.matmul %h, %w {oneflow.stage = 1 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
