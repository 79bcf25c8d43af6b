// RUN: oneflow-opt %s -split-input-file -verify-diagnostics --oneflow-add-loss="label=x"
// RUN: not oneflow-opt %s --oneflow-add-loss="loss=hinge" -split-input-file 2>&1 | FileCheck %s --check-prefix=LOSS
// RUN: not oneflow-opt %s --oneflow-add-loss="loss-on=missing label=labels" -split-input-file 2>&1 | FileCheck %s --check-prefix=ON
// LOSS: error: unknown loss 'hinge' (expected cross-entropy or mse)
// ON: error: no output named 'missing' to take the loss on (outputs: logits)

// The label name must be new.
// expected-error @+1 {{the label input 'x' has the name of an existing input; choose another with --label}}
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  return %x : tensor<4x16xf32>
}

// -----

// Cross-entropy needs logits with a class axis.
// expected-error @+1 {{cross-entropy needs logits [..., C], but output 'logits' is a scalar}}
func.func @main(%x: tensor<f32> {onnx.name = "input"}) -> (tensor<f32> {onnx.name = "logits"}) {
  return %x : tensor<f32>
}

// -----

// A loss on integer outputs makes no sense.
// expected-error @+1 {{output 'logits' of type 'tensor<4x3xi64>' is not floating point: no loss can be taken on it}}
func.func @main(%x: tensor<4x3xi64> {onnx.name = "input"}) -> (tensor<4x3xi64> {onnx.name = "logits"}) {
  return %x : tensor<4x3xi64>
}
