// RUN: oneflow-opt %s -split-input-file -verify-diagnostics --oneflow-add-loss --oneflow-autodiff --sbp-pipeline-stages="stages=5" -o /dev/null

// More stages than the forward program has ops.
// expected-error @+1 {{cannot cut the graph into 5 stages: its forward program has only 3 ops}}
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @w1 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %y = oneflow.matmul %x, %w1 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A stage annotation that is not a stage.
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @w1 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  // expected-error @+1 {{has stage annotation 5 : i64, which is not a valid stage (0 to 4)}}
  %y = oneflow.matmul %x, %w1 {oneflow.stage = 5 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Annotations must follow the data: a later op on an earlier stage.
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @w1 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h = oneflow.matmul %x, %w1 {oneflow.stage = 1 : i64} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  // expected-error @+1 {{is on stage 0 but uses a value computed on stage 1: stages must follow the data}}
  %y = oneflow.relu %h {oneflow.stage = 0 : i64} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
