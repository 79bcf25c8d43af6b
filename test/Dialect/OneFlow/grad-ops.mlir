// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// conv2d(x, dweight) must give dy's shape: 8x8, 3x3, stride 2, pad 1 -> 4x4.
// CHECK-LABEL: func @conv2d_grad_filter(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x8x8xf32>, %[[DY:.*]]: tensor<2x16x4x4xf32>
// CHECK-NEXT:    %[[DW:.*]] = oneflow.conv2d_grad_filter %[[X]], %[[DY]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x16x4x4xf32>) -> tensor<16x3x3x3xf32>
// CHECK-NEXT:    return %[[DW]]
func.func @conv2d_grad_filter(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x16x4x4xf32>) -> tensor<16x3x3x3xf32> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x16x4x4xf32>) -> tensor<16x3x3x3xf32>
  return %0 : tensor<16x3x3x3xf32>
}

// -----

// Grouped, dilated, f64.
// CHECK-LABEL: func @conv2d_grad_filter_groups(
// CHECK:         oneflow.conv2d_grad_filter %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, groups = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x7x7xf64>, tensor<1x6x3x3xf64>) -> tensor<6x2x3x3xf64>
func.func @conv2d_grad_filter_groups(%x: tensor<1x4x7x7xf64>, %dy: tensor<1x6x3x3xf64>) -> tensor<6x2x3x3xf64> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 2 : i64} : (tensor<1x4x7x7xf64>, tensor<1x6x3x3xf64>) -> tensor<6x2x3x3xf64>
  return %0 : tensor<6x2x3x3xf64>
}

// -----

// CHECK-LABEL: func @max_pool2d_grad(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x5x5xf32>, %[[DY:.*]]: tensor<1x2x3x3xf32>
// CHECK-NEXT:    %[[DX:.*]] = oneflow.max_pool2d_grad %[[X]], %[[DY]] {ceil_mode, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
// CHECK-NEXT:    return %[[DX]]
func.func @max_pool2d_grad(%x: tensor<1x2x5x5xf32>, %dy: tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %0 = oneflow.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode} : (tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

// CHECK-LABEL: func @avg_pool2d_grad(
// CHECK-SAME:    %[[DY:.*]]: tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[DX:.*]] = oneflow.avg_pool2d_grad %[[DY]] {count_include_pad, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    return %[[DX]]
func.func @avg_pool2d_grad(%dy: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %0 = oneflow.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad} : tensor<1x2x4x4xf32> -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// The embedding backward: gather(ddata [100, 16], indices [4, 7]) is [4, 7, 16].
// CHECK-LABEL: func @gather_grad(
// CHECK-SAME:    %[[I:.*]]: tensor<4x7xi64>, %[[DY:.*]]: tensor<4x7x16xf32>
// CHECK-NEXT:    %[[DD:.*]] = oneflow.gather_grad %[[I]], %[[DY]] : (tensor<4x7xi64>, tensor<4x7x16xf32>) -> tensor<100x16xf32>
// CHECK-NEXT:    return %[[DD]]
func.func @gather_grad(%i: tensor<4x7xi64>, %dy: tensor<4x7x16xf32>) -> tensor<100x16xf32> {
  %0 = oneflow.gather_grad %i, %dy : (tensor<4x7xi64>, tensor<4x7x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// CHECK-LABEL: func @gather_grad_axis(
// CHECK:         oneflow.gather_grad %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<5xi32>, tensor<3x5x2xf64>) -> tensor<3x9x2xf64>
func.func @gather_grad_axis(%i: tensor<5xi32>, %dy: tensor<3x5x2xf64>) -> tensor<3x9x2xf64> {
  %0 = oneflow.gather_grad %i, %dy {axis = 1 : i64} : (tensor<5xi32>, tensor<3x5x2xf64>) -> tensor<3x9x2xf64>
  return %0 : tensor<3x9x2xf64>
}

// -----

// CHECK-LABEL: func @gather_elements_grad(
// CHECK:         oneflow.gather_elements_grad %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x6xi64>, tensor<2x6xf32>) -> tensor<3x4xf32>
func.func @gather_elements_grad(%i: tensor<2x6xi64>, %dy: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = oneflow.gather_elements_grad %i, %dy {axis = 1 : i64} : (tensor<2x6xi64>, tensor<2x6xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func @slice_grad(
// CHECK-SAME:    %[[DY:.*]]: tensor<2x3xf32>
// CHECK-NEXT:    %[[DX:.*]] = oneflow.slice_grad %[[DY]] {limits = array<i64: 4, 7>, starts = array<i64: 0, 1>, steps = array<i64: 2, 2>} : tensor<2x3xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[DX]]
func.func @slice_grad(%dy: tensor<2x3xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.slice_grad %dy {starts = array<i64: 0, 1>, limits = array<i64: 4, 7>, steps = array<i64: 2, 2>} : tensor<2x3xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @slice_grad_reverse(
// CHECK:         oneflow.slice_grad %{{.*}} {limits = array<i64: -1>, starts = array<i64: 4>, steps = array<i64: -1>} : tensor<5xf32> -> tensor<5xf32>
func.func @slice_grad_reverse(%dy: tensor<5xf32>) -> tensor<5xf32> {
  %0 = oneflow.slice_grad %dy {starts = array<i64: 4>, limits = array<i64: -1>, steps = array<i64: -1>} : tensor<5xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// CHECK-LABEL: func @softmax_cross_entropy_grad(
// CHECK-SAME:    %[[L:.*]]: tensor<4x7x10xf32>, %[[T:.*]]: tensor<4x7xi64>, %[[D:.*]]: tensor<4x7xf32>
// CHECK-NEXT:    %[[G:.*]] = oneflow.softmax_cross_entropy_grad %[[L]], %[[T]], %[[D]] {ignore_index = -100 : i64} : (tensor<4x7x10xf32>, tensor<4x7xi64>, tensor<4x7xf32>) -> tensor<4x7x10xf32>
// CHECK-NEXT:    return %[[G]]
func.func @softmax_cross_entropy_grad(%logits: tensor<4x7x10xf32>, %labels: tensor<4x7xi64>, %dloss: tensor<4x7xf32>) -> tensor<4x7x10xf32> {
  %0 = oneflow.softmax_cross_entropy_grad %logits, %labels, %dloss {ignore_index = -100 : i64} : (tensor<4x7x10xf32>, tensor<4x7xi64>, tensor<4x7xf32>) -> tensor<4x7x10xf32>
  return %0 : tensor<4x7x10xf32>
}

// -----

// CHECK-LABEL: func @layer_norm_grad(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5x8xf32>, %[[S:.*]]: tensor<8xf32>, %[[DY:.*]]: tensor<2x5x8xf32>
// CHECK-NEXT:    %[[DX:.*]], %[[DS:.*]], %[[DB:.*]] = oneflow.layer_norm_grad %[[X]], %[[S]], %[[DY]] {axis = 2 : i64, epsilon = 1.250000e-01 : f64} : tensor<2x5x8xf32>, tensor<8xf32>
// CHECK-NEXT:    return %[[DX]], %[[DS]], %[[DB]]
func.func @layer_norm_grad(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>, %dy: tensor<2x5x8xf32>) -> (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %ds, %db = oneflow.layer_norm_grad %x, %s, %dy {axis = 2 : i64, epsilon = 0.125 : f64} : tensor<2x5x8xf32>, tensor<8xf32>
  return %dx, %ds, %db : tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func @batch_norm_grad(
// CHECK-SAME:    %[[X:.*]]: tensor<4x3x5x5xf64>, %[[S:.*]]: tensor<3xf64>, %[[M:.*]]: tensor<3xf64>, %[[I:.*]]: tensor<3xf64>, %[[DY:.*]]: tensor<4x3x5x5xf64>
// CHECK-NEXT:    %[[DX:.*]], %[[DS:.*]], %[[DB:.*]] = oneflow.batch_norm_grad %[[X]], %[[S]], %[[M]], %[[I]], %[[DY]] : tensor<4x3x5x5xf64>, tensor<3xf64>
// CHECK-NEXT:    return %[[DX]], %[[DS]], %[[DB]]
func.func @batch_norm_grad(%x: tensor<4x3x5x5xf64>, %s: tensor<3xf64>, %m: tensor<3xf64>, %i: tensor<3xf64>, %dy: tensor<4x3x5x5xf64>) -> (tensor<4x3x5x5xf64>, tensor<3xf64>, tensor<3xf64>) {
  %dx, %ds, %db = oneflow.batch_norm_grad %x, %s, %m, %i, %dy : tensor<4x3x5x5xf64>, tensor<3xf64>
  return %dx, %ds, %db : tensor<4x3x5x5xf64>, tensor<3xf64>, tensor<3xf64>
}
