// RUN: oneflow-opt %s -split-input-file --oneflow-add-loss="loss=cross-entropy label=labels" | FileCheck %s --check-prefix=CE
// RUN: oneflow-opt %s -split-input-file --oneflow-add-loss="loss=mse label=target loss-on=y" | FileCheck %s --check-prefix=MSE

// The loss of the first output against a new int64 label input; the mean
// is an explicit reduce_mean (so a split batch rescales it); the other
// outputs are dropped.
// CE: module attributes {oneflow.batch_size = 4 : i64, oneflow.loss_output = "loss"}
// CE-LABEL: func.func @main(
// CE-SAME: %[[X:.*]]: tensor<4x16xf32> {onnx.name = "x"}, %[[L:.*]]: tensor<4xi64> {onnx.name = "labels"})
// CE-SAME: -> (tensor<f32> {onnx.name = "loss"})
// CE: %[[LOGITS:.*]] = oneflow.matmul %[[X]]
// CE: %[[PER:.*]] = oneflow.softmax_cross_entropy %[[LOGITS]], %[[L]] {reduction = #oneflow.reduction<none>} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4xf32>
// CE: %[[MEAN:.*]] = oneflow.reduce_mean %[[PER]] {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
// CE: return %[[MEAN]] : tensor<f32>
// MSE-LABEL: func.func @main(
// MSE-SAME: tensor<4x16xf32> {onnx.name = "x"}, %[[T:.*]]: tensor<4x16xf32> {onnx.name = "target"})
// MSE: %[[PER:.*]] = oneflow.mse_loss %[[Y:.*]], %[[T]] {reduction = #oneflow.reduction<none>}
// MSE: oneflow.reduce_mean %[[PER]] {axes = array<i64: 0, 1>} : tensor<4x16xf32> -> tensor<f32>
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x10xf32> {onnx.name = "logits"}, tensor<4x16xf32> {onnx.name = "y"}) {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x10xf32>} : tensor<16x10xf32>
  %logits = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x10xf32>) -> tensor<4x10xf32>
  %y = oneflow.tanh %x : tensor<4x16xf32>
  return %logits, %y : tensor<4x10xf32>, tensor<4x16xf32>
}

// -----

// Logits with several leading axes: labels [B, T], the mean over all
// positions (PyTorch's cross_entropy on flattened logits).
// CE-LABEL: func.func @main(
// CE-SAME: tensor<2x8x5xf32> {onnx.name = "x"}, %[[L:.*]]: tensor<2x8xi64> {onnx.name = "labels"})
// CE: oneflow.softmax_cross_entropy %{{.*}}, %[[L]] {reduction = #oneflow.reduction<none>} : (tensor<2x8x5xf32>, tensor<2x8xi64>) -> tensor<2x8xf32>
// CE: oneflow.reduce_mean %{{.*}} {axes = array<i64: 0, 1>} : tensor<2x8xf32> -> tensor<f32>
// MSE-LABEL: func.func @main(
// MSE: oneflow.mse_loss
func.func @main(%x: tensor<2x8x5xf32> {onnx.name = "x"}) -> (tensor<2x8x5xf32> {onnx.name = "y"}) {
  %y = oneflow.relu %x : tensor<2x8x5xf32>
  return %y : tensor<2x8x5xf32>
}

// -----

// Training mode: batch norm uses batch statistics and stores the updated
// running statistics.
// CE-LABEL: func.func @main(
// CE: %[[Y:.*]], %[[MEAN:.*]], %[[VAR:.*]], %{{.*}}, %{{.*}} = oneflow.batch_norm_train %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :
// CE: oneflow.assign @bn.running_mean, %[[MEAN]] : tensor<3xf32>
// CE: oneflow.assign @bn.running_var, %[[VAR]] : tensor<3xf32>
// CE: oneflow.global_avg_pool2d %[[Y]]
// MSE-LABEL: func.func @main(
// MSE: oneflow.batch_norm_train
func.func @main(%x: tensor<2x3x4x4xf32> {onnx.name = "x"}) -> (tensor<2x3x1x1xf32> {onnx.name = "y"}) {
  %s = oneflow.variable @bn.weight {initial_value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %b = oneflow.variable @bn.bias {initial_value = dense<0.0> : tensor<3xf32>} : tensor<3xf32>
  %m = oneflow.variable @bn.running_mean {initial_value = dense<0.0> : tensor<3xf32>} : tensor<3xf32>
  %v = oneflow.variable @bn.running_var {initial_value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %n = oneflow.batch_norm %x, %s, %b, %m, %v : tensor<2x3x4x4xf32>, tensor<3xf32>
  %p = oneflow.global_avg_pool2d %n : tensor<2x3x4x4xf32> -> tensor<2x3x1x1xf32>
  return %p : tensor<2x3x1x1xf32>
}
