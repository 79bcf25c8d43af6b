// RUN: oneflow-opt %S/Inputs/batchnorm.onnx | FileCheck %s --check-prefix=BN
// RUN: oneflow-opt %S/Inputs/layernorm.onnx | FileCheck %s --check-prefix=LN
// RUN: oneflow-opt %S/Inputs/softmax.onnx | FileCheck %s --check-prefix=SOFTMAX
// RUN: oneflow-opt %S/Inputs/reductions.onnx | FileCheck %s --check-prefix=REDUCE

// BN: %[[S:.*]] = oneflow.variable @bn_scale
// BN: %[[B:.*]] = oneflow.variable @bn_bias
// BN: %[[M:.*]] = oneflow.variable @bn_mean
// BN: %[[V:.*]] = oneflow.variable @bn_var
// BN: oneflow.batch_norm %arg0, %[[S]], %[[B]], %[[M]], %[[V]] {epsilon = 0.0010000000474974513 : f64} : tensor<2x4x5x5xf32>, tensor<4xf32>

// LN: oneflow.layer_norm %arg0, %{{.*}}, %{{.*}} {axis = 2 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
// LN: oneflow.layer_norm %arg0, %{{.*}} {axis = 1 : i64, {{.*}}} : (tensor<2x5x8xf32>, tensor<5x8xf32>) -> tensor<2x5x8xf32>

// Negative axes are normalized; the default axis at opset 13+ is the last.
// SOFTMAX: oneflow.softmax %arg0 {axis = 2 : i64}
// SOFTMAX: oneflow.softmax %arg0 {axis = 1 : i64}
// SOFTMAX: oneflow.log_softmax %arg0 {axis = 2 : i64}
// SOFTMAX: oneflow.softmax %arg0 {axis = 2 : i64}

// Axes from an input (ReduceSum, opset 13) or an attribute; no axes means all.
// The import-time axes leave no constants behind.
// REDUCE-NOT: oneflow.constant
// REDUCE: oneflow.reduce_sum %arg0 {axes = array<i64: 1>, keepdims} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// REDUCE: oneflow.reduce_sum %arg0 {axes = array<i64: 2>} : tensor<2x3x4xf32> -> tensor<2x3xf32>
// REDUCE: oneflow.reduce_sum %arg0 {axes = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<f32>
// REDUCE: oneflow.reduce_mean %arg0 {axes = array<i64: 1, 2>, keepdims}
// REDUCE: oneflow.reduce_max %arg0 {axes = array<i64: 0>, keepdims}
// REDUCE: oneflow.reduce_min
// REDUCE: oneflow.reduce_prod
// L1 = sum(|x|), L2 = sqrt(sum(x^2)).
// REDUCE: %[[ABS:.*]] = oneflow.abs %arg0
// REDUCE-NEXT: oneflow.reduce_sum %[[ABS]]
// REDUCE: %[[SQ:.*]] = oneflow.mul %arg0, %arg0
// REDUCE-NEXT: %[[SUM:.*]] = oneflow.reduce_sum %[[SQ]]
// REDUCE-NEXT: oneflow.sqrt %[[SUM]]
// LogSumExp subtracts the max for stability.
// REDUCE: %[[MAX:.*]] = oneflow.reduce_max %arg0 {axes = array<i64: 2>, keepdims}
// REDUCE-NEXT: %[[SHIFTED:.*]] = oneflow.sub %arg0, %[[MAX]]
// REDUCE-NEXT: oneflow.exp %[[SHIFTED]]
// REDUCE: oneflow.argmax %arg0 {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x4xi64>
// REDUCE: oneflow.argmax %arg0 {axis = 2 : i64, keepdims, select_last_index}
// REDUCE: oneflow.argmin %arg0 {axis = 0 : i64, keepdims}
