// RUN: oneflow-opt %s -verify-diagnostics --oneflow-add-loss --oneflow-autodiff --sbp-pipeline-stages="stages=2" --sbp-apply-strategy="mesh=2 strategy=tensor" --sbp-infer --sbp-insert-boxing --sbp-localize --sbp-pipeline-split="stages=2" -o /dev/null
// RUN: not oneflow-opt %s --sbp-pipeline-split="stages=2 schedule=zigzag" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not oneflow-opt %s --sbp-pipeline-split="stages=2" 2>&1 | FileCheck %s --check-prefix=ORDER
// SCHEDULE: error: unknown pipeline schedule 'zigzag' (expected gpipe or 1f1b)
// ORDER: error: split stages after sbp-localize

// A weight read on both stages (tied weights) is kept on each of them and
// updated alike (test/Training/shared-parameters.test), but not yet when
// tensor parallelism splits it over the devices of a stage.
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  // expected-error @+1 {{'oneflow.variable' op is read on 2 pipeline stages and split over the devices of a stage (tensor parallelism): @w cannot be shared between stages yet}}
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h = oneflow.matmul %x, %w {oneflow.stage = 0 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %y = oneflow.matmul %h, %w {oneflow.stage = 1 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
