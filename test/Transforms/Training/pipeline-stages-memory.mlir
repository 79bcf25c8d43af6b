// RUN: oneflow-opt %s -split-input-file -verify-diagnostics --oneflow-add-loss --oneflow-autodiff --sbp-pipeline-stages="stages=2 memory-limit=2200" -o /dev/null

// A user's cut (stage annotations) must fit the memory limit too: stage 0
// holds w1 and its gradient (2048 bytes) and the activations the backward
// reads.
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @w1 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w2 = oneflow.variable @w2 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  // expected-error @+1 {{starts pipeline stage 0, whose estimated memory}}
  %h = oneflow.matmul %x, %w1 {oneflow.stage = 0 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %a = oneflow.relu %h : tensor<4x16xf32>
  %y = oneflow.matmul %a, %w2 {oneflow.stage = 1 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
