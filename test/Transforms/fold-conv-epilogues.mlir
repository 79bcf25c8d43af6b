// RUN: oneflow-opt %s --pass-pipeline='builtin.module(func.func(oneflow-fold-conv-epilogues))' -split-input-file | FileCheck %s

// ResNet's block end: relu(conv + identity) is one op; the residual, which
// is computed after the conv here, dominates the new op (built at the relu).
// CHECK-LABEL: func @residual_relu
// CHECK-SAME: (%[[X:.*]]: tensor<1x6x6x8xf32>, %[[S:.*]]: tensor<1x6x6x8xf32>)
// CHECK-DAG: %[[W:.*]] = oneflow.variable @w
// CHECK-DAG: %[[B:.*]] = oneflow.variable @b
// CHECK: %[[R:.*]] = oneflow.neg %[[S]]
// CHECK: %[[Y:.*]] = oneflow.conv2d_epilogue %[[X]], %[[W]] bias %[[B]] residual %[[R]] {activation = #oneflow.conv_activation<relu>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>, tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
// CHECK-NOT: oneflow.conv2d %
// CHECK-NOT: oneflow.add
// CHECK-NOT: oneflow.relu
// CHECK: return %[[Y]]
func.func @residual_relu(%x: tensor<1x6x6x8xf32>, %s: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %w = oneflow.variable @w : tensor<8x8x3x3xf32>
  %b = oneflow.variable @b : tensor<8xf32>
  %0 = oneflow.conv2d %x, %w, %b {channels_last, constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
  %r = oneflow.neg %s : tensor<1x6x6x8xf32>
  %1 = oneflow.add %r, %0 : (tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %2 = oneflow.relu %1 : tensor<1x6x6x8xf32>
  return %2 : tensor<1x6x6x8xf32>
}

// -----

// MobileNetV2: relu6 (clip with both bounds) on a depthwise conv; the
// projection's residual add without an activation.
// CHECK-LABEL: func @clip_and_residual
// CHECK: %[[D:.*]] = oneflow.conv2d_epilogue %{{.*}}, %{{.*}} {activation = #oneflow.conv_activation<clip>, clip_max = 6.000000e+00 : f64, clip_min = 0.000000e+00 : f64, dilations = array<i64: 1, 1>, groups = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK: %[[P:.*]] = oneflow.conv2d_epilogue %[[D]], %{{.*}} residual %[[X:.*]] {dilations
// CHECK-NOT: activation
// CHECK-SAME: -> tensor<1x6x6x8xf32>
// CHECK: return %[[P]]
func.func @clip_and_residual(%x: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %wd = oneflow.variable @wd : tensor<8x1x3x3xf32>
  %wp = oneflow.variable @wp : tensor<8x8x1x1xf32>
  %0 = oneflow.conv2d %x, %wd {channels_last, constant_weight, groups = 8 : i64, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x6x6x8xf32>
  %1 = oneflow.clip %0 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x6x6x8xf32>
  %2 = oneflow.conv2d %1, %wp {channels_last, constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x6x6x8xf32>
  %3 = oneflow.add %2, %x : (tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %3 : tensor<1x6x6x8xf32>
}

// -----

// SiLU as PyTorch exports it (y * sigmoid(y), either operand order), the
// silu op, and hard-swish (y * hard_sigmoid(y) with alpha 1/6, beta 1/2).
// CHECK-LABEL: func @gated
// CHECK: %[[A:.*]] = oneflow.conv2d_epilogue %{{.*}}, %{{.*}} {activation = #oneflow.conv_activation<silu>
// CHECK: %[[B:.*]] = oneflow.conv2d_epilogue %[[A]], %{{.*}} {activation = #oneflow.conv_activation<silu>
// CHECK: %[[C:.*]] = oneflow.conv2d_epilogue %[[B]], %{{.*}} {activation = #oneflow.conv_activation<hard_swish>
// CHECK-NOT: oneflow.sigmoid
// CHECK-NOT: oneflow.hard_sigmoid
// CHECK-NOT: oneflow.mul
// CHECK: return %[[C]]
func.func @gated(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %w = oneflow.variable @w : tensor<8x8x1x1xf32>
  %0 = oneflow.conv2d %x, %w {channels_last, constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x4x4x8xf32>
  %1 = oneflow.sigmoid %0 : tensor<1x4x4x8xf32>
  %2 = oneflow.mul %1, %0 : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %3 = oneflow.conv2d %2, %w {channels_last, constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x4x4x8xf32>
  %4 = oneflow.silu %3 : tensor<1x4x4x8xf32>
  %5 = oneflow.conv2d %4, %w {channels_last, constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x4x4x8xf32>
  %6 = oneflow.hard_sigmoid %5 {alpha = 0.1666666716337204 : f64} : tensor<1x4x4x8xf32>
  %7 = oneflow.mul %5, %6 : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %7 : tensor<1x4x4x8xf32>
}

// -----

// Left alone: a conv value used twice (its relu would not be the only
// use), a squeeze-and-excitation gate (the sigmoid multiplies another
// tensor), a hard sigmoid of other slope, a broadcast residual, and NCHW or
// non-constant convs.
// CHECK-LABEL: func @unfolded
// CHECK-NOT: oneflow.conv2d_epilogue
// CHECK: oneflow.relu
// CHECK: oneflow.sigmoid
// CHECK: oneflow.hard_sigmoid
// CHECK: oneflow.add
// CHECK: oneflow.relu
// CHECK: oneflow.relu
// CHECK-NOT: oneflow.conv2d_epilogue
func.func @unfolded(%x: tensor<1x4x4x8xf32>, %g: tensor<1x1x1x8xf32>, %n: tensor<1x8x4x4xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x8x4x4xf32>, tensor<1x4x4x8xf32>) {
  %w = oneflow.variable @w : tensor<8x8x1x1xf32>
  %0 = oneflow.conv2d %x, %w {channels_last, constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x4x4x8xf32>
  %1 = oneflow.relu %0 : tensor<1x4x4x8xf32>
  %2 = oneflow.conv2d %x, %w {channels_last, constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x4x4x8xf32>
  %3 = oneflow.sigmoid %2 : tensor<1x4x4x8xf32>
  %4 = oneflow.mul %3, %x : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %5 = oneflow.conv2d %x, %w {channels_last, constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x4x4x8xf32>
  %6 = oneflow.hard_sigmoid %5 {alpha = 0.2 : f64} : tensor<1x4x4x8xf32>
  %7 = oneflow.mul %5, %6 : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %8 = oneflow.conv2d %x, %w {channels_last, constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x4x4x8xf32>
  %9 = oneflow.add %8, %g : (tensor<1x4x4x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x4x8xf32>
  %10 = oneflow.relu %9 : tensor<1x4x4x8xf32>
  %11 = oneflow.conv2d %n, %w {constant_weight, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %12 = oneflow.relu %11 : tensor<1x8x4x4xf32>
  %13 = oneflow.conv2d %x, %w {channels_last, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x4x4x8xf32>
  %14 = oneflow.relu %13 : tensor<1x4x4x8xf32>
  return %0, %1, %4, %7, %10, %12, %14 : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x8x4x4xf32>, tensor<1x4x4x8xf32>
}
