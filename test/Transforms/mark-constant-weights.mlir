// RUN: oneflow-opt %s --oneflow-mark-constant-weights -split-input-file | FileCheck %s

// Inference: no assign writes @w1 or @w2, so both convolutions read weights
// that never change. The weight computed by a transpose is another buffer,
// which later steps' values may reuse: not marked.
// CHECK-LABEL: func @inference
// CHECK: oneflow.conv2d %{{.*}}, %{{.*}} {constant_weight,
// CHECK: oneflow.conv2d %{{.*}}, %{{.*}} {constant_weight,
// CHECK: oneflow.conv2d
// CHECK-NOT: constant_weight
// CHECK-SAME: -> tensor<1x8x6x6xf32>
func.func @inference(%x: tensor<1x4x8x8xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) {
  %w1 = oneflow.variable @w1 : tensor<8x4x3x3xf32>
  %w2 = oneflow.variable @w2 : tensor<8x4x3x3xf32>
  %0 = oneflow.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = oneflow.conv2d %x, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %t = oneflow.neg %w2 : tensor<8x4x3x3xf32>
  %2 = oneflow.conv2d %x, %t {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0, %1, %2 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
}

// -----

// Training: the optimizer assigns @w, so its convolution is not marked;
// @frozen has no assign (a frozen layer) and is.
// CHECK-LABEL: func @training
// CHECK: oneflow.conv2d %{{.*}}, %[[W:.*]] {dilations
// CHECK-NOT: constant_weight
// CHECK-SAME: -> tensor<1x8x6x6xf32>
// CHECK: oneflow.conv2d %{{.*}}, %{{.*}} {constant_weight,
func.func @training(%x: tensor<1x4x8x8xf32>, %new: tensor<8x4x3x3xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) {
  %w = oneflow.variable @w : tensor<8x4x3x3xf32>
  %f = oneflow.variable @frozen : tensor<8x4x3x3xf32>
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = oneflow.conv2d %x, %f {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  oneflow.assign @w, %new : tensor<8x4x3x3xf32>
  return %0, %1 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
}
