// RUN: oneflow-opt %S/Inputs/losses.onnx | FileCheck %s

// The plain 2-D cross-entropy is the fused op.
// CHECK: %[[CE:.*]] = oneflow.softmax_cross_entropy %arg0, %arg1 : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
// With ignore_index and the log_prob output it is spelled out: log-softmax,
// a one-hot mask of the labels, and the kept positions weighted 1.
// CHECK: %[[LOGP:.*]] = oneflow.log_softmax %arg0 {axis = 1 : i64} : tensor<4x10xf32>
// CHECK: %[[LBL:.*]] = oneflow.unsqueeze %arg1 {axes = array<i64: 1>} : tensor<4xi64> -> tensor<4x1xi64>
// CHECK: %[[IOTA:.*]] = oneflow.constant dense<{{\[}}[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]> : tensor<1x10xi64>
// CHECK: %[[MASK:.*]] = oneflow.equal %[[LBL]], %[[IOTA]]
// CHECK: %[[PICK:.*]] = oneflow.where %[[MASK]], %[[LOGP]]
// CHECK: %[[SUM:.*]] = oneflow.reduce_sum %[[PICK]] {axes = array<i64: 1>}
// CHECK: %[[NLL:.*]] = oneflow.neg %[[SUM]] : tensor<4xf32>
// CHECK: %[[IGN:.*]] = oneflow.constant dense<-1> : tensor<i64>
// CHECK: %[[KEEP:.*]] = oneflow.not_equal %arg1, %[[IGN]]
// CHECK: %[[W:.*]] = oneflow.where %[[KEEP]]
// CHECK: %[[NONE:.*]] = oneflow.mul %[[NLL]], %[[W]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// Class weights are picked with the same mask; the weighted sum follows.
// CHECK: oneflow.reshape %{{.*}} : tensor<10xf32> to tensor<1x10xf32>
// CHECK: oneflow.reduce_sum {{.*}} : tensor<4xf32> -> tensor<f32>
// N-D NegativeLogLikelihoodLoss with reduction none: [N, C, d] -> [N, d].
// CHECK: oneflow.equal {{.*}} : (tensor<2x1x3xi64>, tensor<1x10x1xi64>) -> tensor<2x10x3xi1>
// CHECK: oneflow.neg {{.*}} : tensor<2x3xf32>
// CHECK: return %[[CE]], %[[NONE]], %[[LOGP]]
