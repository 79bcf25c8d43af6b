// RUN: oneflow-opt %s --oneflow-channels-last -split-input-file | FileCheck %s

// A chain conv -> relu6 -> conv -> residual add: one transpose in, one out;
// the activations between the convs stay NHWC (the transposes between them
// cancel), and the clip and the add run on NHWC values.
// CHECK-LABEL: func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x6x6xf32>)
// CHECK: %[[IN:.*]] = oneflow.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x6x6xf32> -> tensor<2x6x6x8xf32>
// CHECK: %[[C1:.*]] = oneflow.conv2d %[[IN]], %{{.*}}, %{{.*}} {channels_last, constant_weight, {{.*}}} : (tensor<2x6x6x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<2x6x6x8xf32>
// CHECK: %[[R:.*]] = oneflow.clip %[[C1]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x6x6x8xf32>
// CHECK: %[[C2:.*]] = oneflow.conv2d %[[R]], %{{.*}} {channels_last, constant_weight, {{.*}}} : (tensor<2x6x6x8xf32>, tensor<8x8x3x3xf32>) -> tensor<2x6x6x8xf32>
// CHECK: %[[A:.*]] = oneflow.add %[[C2]], %[[C1]] : (tensor<2x6x6x8xf32>, tensor<2x6x6x8xf32>) -> tensor<2x6x6x8xf32>
// CHECK: %[[OUT:.*]] = oneflow.transpose %[[A]] {perm = array<i64: 0, 3, 1, 2>} : tensor<2x6x6x8xf32> -> tensor<2x8x6x6xf32>
// CHECK-NOT: oneflow.transpose
// CHECK: return %[[OUT]]
func.func @chain(%x: tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32> {
  %w1 = oneflow.variable @w1 : tensor<8x8x3x3xf32>
  %b1 = oneflow.variable @b1 : tensor<8xf32>
  %w2 = oneflow.variable @w2 : tensor<8x8x3x3xf32>
  %0 = oneflow.conv2d %x, %w1, %b1 {constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
  %1 = oneflow.clip %0 {max = 6.0 : f64, min = 0.0 : f64} : tensor<2x8x6x6xf32>
  %2 = oneflow.conv2d %1, %w2 {constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x6x6xf32>
  %3 = oneflow.add %2, %0 : (tensor<2x8x6x6xf32>, tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  return %3 : tensor<2x8x6x6xf32>
}

// -----

// A squeeze-and-excitation block: the global pool becomes a mean over the
// NHWC value's H and W, the per-channel scale stays [n, 1, 1, c] and
// multiplies the NHWC value; the head's flatten reads a reshape of the
// pooled NHWC value (a transpose of size-1 dimensions is a view).
// CHECK-LABEL: func @squeeze_excite
// CHECK: %[[IN:.*]] = oneflow.transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C:.*]] = oneflow.conv2d %[[IN]], {{.*}}channels_last{{.*}} -> tensor<1x4x4x16xf32>
// CHECK: %[[M:.*]] = oneflow.reduce_mean %[[C]] {axes = array<i64: 1, 2>, keepdims} : tensor<1x4x4x16xf32> -> tensor<1x1x1x16xf32>
// CHECK: %[[S:.*]] = oneflow.conv2d %[[M]], {{.*}}channels_last{{.*}} -> tensor<1x1x1x16xf32>
// CHECK: %[[G:.*]] = oneflow.sigmoid %[[S]] : tensor<1x1x1x16xf32>
// CHECK: %[[E:.*]] = oneflow.mul %[[C]], %[[G]] : (tensor<1x4x4x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK: %[[P:.*]] = oneflow.reduce_mean %[[E]] {axes = array<i64: 1, 2>, keepdims}
// CHECK: %[[V:.*]] = oneflow.reshape %[[P]] : tensor<1x1x1x16xf32> to tensor<1x16x1x1xf32>
// CHECK: oneflow.flatten %[[V]]
// CHECK-NOT: oneflow.transpose
func.func @squeeze_excite(%x: tensor<1x3x4x4xf32>) -> tensor<1x16xf32> {
  %w = oneflow.variable @w : tensor<16x3x3x3xf32>
  %ws = oneflow.variable @ws : tensor<16x16x1x1xf32>
  %0 = oneflow.conv2d %x, %w {constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x4x4xf32>
  %1 = oneflow.global_avg_pool2d %0 : tensor<1x16x4x4xf32> -> tensor<1x16x1x1xf32>
  %2 = oneflow.conv2d %1, %ws {constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x16x1x1xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %3 = oneflow.sigmoid %2 : tensor<1x16x1x1xf32>
  %4 = oneflow.mul %0, %3 : (tensor<1x16x4x4xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %5 = oneflow.global_avg_pool2d %4 : tensor<1x16x4x4xf32> -> tensor<1x16x1x1xf32>
  %6 = oneflow.flatten %5 {axis = 1 : i64} : tensor<1x16x1x1xf32> -> tensor<1x16xf32>
  return %6 : tensor<1x16xf32>
}

// -----

// Concatenated branches (SqueezeNet's fire module) concatenate NHWC along
// channels (axis 3); the max pool after them runs on NHWC too.
// CHECK-LABEL: func @fire
// CHECK: %[[A:.*]] = oneflow.conv2d {{.*}}channels_last{{.*}} -> tensor<1x4x4x8xf32>
// CHECK: %[[B:.*]] = oneflow.conv2d {{.*}}channels_last{{.*}} -> tensor<1x4x4x8xf32>
// CHECK: %[[J:.*]] = oneflow.concat %[[A]], %[[B]] {axis = 3 : i64}
// CHECK-NOT: oneflow.transpose
// CHECK: %[[P:.*]] = oneflow.max_pool2d %[[J]] {channels_last, {{.*}}} : tensor<1x4x4x16xf32> -> tensor<1x2x2x16xf32>
// CHECK-NOT: oneflow.transpose
// CHECK: oneflow.conv2d %[[P]], {{.*}}channels_last
func.func @fire(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32> {
  %wa = oneflow.variable @wa : tensor<8x4x1x1xf32>
  %wb = oneflow.variable @wb : tensor<8x4x3x3xf32>
  %wc = oneflow.variable @wc : tensor<4x16x1x1xf32>
  %0 = oneflow.conv2d %x, %wa {constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x4x4xf32>
  %1 = oneflow.conv2d %x, %wb {constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  %2 = oneflow.concat %0, %1 {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32>
  %3 = oneflow.max_pool2d %2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x16x4x4xf32> -> tensor<1x16x2x2xf32>
  %4 = oneflow.conv2d %3, %wc {constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x16x2x2xf32>, tensor<4x16x1x1xf32>) -> tensor<1x4x2x2xf32>
  return %4 : tensor<1x4x2x2xf32>
}

// -----

// Untouched: convs whose weights a step may write (not marked
// constant_weight) and f64 convs.
// CHECK-LABEL: func @untouched
// CHECK-NOT: channels_last
// CHECK-NOT: oneflow.transpose
// CHECK: return
func.func @untouched(%x: tensor<1x4x4x4xf32>, %y: tensor<1x4x4x4xf64>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf64>) {
  %w = oneflow.variable @w : tensor<4x4x1x1xf32>
  %v = oneflow.variable @v : tensor<4x4x1x1xf64>
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %1 = oneflow.conv2d %y, %v {constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf64>, tensor<4x4x1x1xf64>) -> tensor<1x4x4x4xf64>
  return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf64>
}
