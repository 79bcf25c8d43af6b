// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @max_pool(
// CHECK-SAME:    %[[X:.*]]: tensor<1x64x112x112xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.max_pool2d %[[X]] {dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @max_pool(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  return %0 : tensor<1x64x56x56xf32>
}

// -----

// ceil_mode rounds the window count up: 5 with k2 s2 gives 2, or 3.
// CHECK-LABEL: func @max_pool_ceil(
// CHECK-NEXT:    oneflow.max_pool2d %{{.*}} {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x1x5x5xf16> -> tensor<1x1x2x2xf16>
// CHECK-NEXT:    oneflow.max_pool2d %{{.*}} {ceil_mode, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x1x5x5xf16> -> tensor<1x1x3x3xf16>
func.func @max_pool_ceil(%x: tensor<1x1x5x5xf16>) {
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x5x5xf16> -> tensor<1x1x2x2xf16>
  %1 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode} : tensor<1x1x5x5xf16> -> tensor<1x1x3x3xf16>
  return
}

// -----

// With ceil_mode a last window that would start in the end padding is
// dropped: 5 + 1 + 1 padded with k2 s2 would give 4 windows, the 4th
// starting at padded index 6 >= 5 + 1, so there are 3.
// CHECK-LABEL: func @max_pool_ceil_drop(
// CHECK-NEXT:    oneflow.max_pool2d %{{.*}} {ceil_mode, {{.*}}} : tensor<1x1x5x5xbf16> -> tensor<1x1x3x3xbf16>
func.func @max_pool_ceil_drop(%x: tensor<1x1x5x5xbf16>) -> tensor<1x1x3x3xbf16> {
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode} : tensor<1x1x5x5xbf16> -> tensor<1x1x3x3xbf16>
  return %0 : tensor<1x1x3x3xbf16>
}

// -----

// Regression: with a huge stride the ceil computation overflowed and the op
// was rejected; one window fits along H (4 - 2) and three along W.
// CHECK-LABEL: func @max_pool_ceil_huge_stride(
// CHECK-NEXT:    oneflow.max_pool2d %{{.*}} {ceil_mode, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 9223372036854775807, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x1x3xf32>
func.func @max_pool_ceil_huge_stride(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x1x3xf32> {
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 9223372036854775807, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode} : tensor<1x1x4x4xf32> -> tensor<1x1x1x3xf32>
  return %0 : tensor<1x1x1x3xf32>
}

// -----

// A 3x2 kernel dilated by [2, 3]: H = 7 - 5 + 1 = 3, W = 7 - 4 + 1 = 4.
// CHECK-LABEL: func @max_pool_dilated(
// CHECK-NEXT:    oneflow.max_pool2d %{{.*}} {dilations = array<i64: 2, 3>, kernel = array<i64: 3, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x3x7x7xf64> -> tensor<2x3x3x4xf64>
func.func @max_pool_dilated(%x: tensor<2x3x7x7xf64>) -> tensor<2x3x3x4xf64> {
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 3, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 3>} : tensor<2x3x7x7xf64> -> tensor<2x3x3x4xf64>
  return %0 : tensor<2x3x3x4xf64>
}

// -----

// The third pool: H = ceil((8 - 3) / 3) + 1 = 3; W would be
// ceil((10 - 3) / 3) + 1 = 4, but that window starts at 9 >= 8 + 1 (in the
// end padding) and is dropped.
// CHECK-LABEL: func @avg_pool(
// CHECK-NEXT:    oneflow.avg_pool2d %{{.*}} {kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<4x16x8x8xf32> -> tensor<4x16x4x4xf32>
// CHECK-NEXT:    oneflow.avg_pool2d %{{.*}} {count_include_pad, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<4x16x8x8xf32> -> tensor<4x16x8x8xf32>
// CHECK-NEXT:    oneflow.avg_pool2d %{{.*}} {ceil_mode, count_include_pad, kernel = array<i64: 3, 3>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 3, 3>} : tensor<4x16x8x8xf32> -> tensor<4x16x3x3xf32>
func.func @avg_pool(%x: tensor<4x16x8x8xf32>) {
  %0 = oneflow.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<4x16x8x8xf32> -> tensor<4x16x4x4xf32>
  %1 = oneflow.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, count_include_pad} : tensor<4x16x8x8xf32> -> tensor<4x16x8x8xf32>
  %2 = oneflow.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 3, 3>, pads = array<i64: 0, 1, 0, 1>, ceil_mode, count_include_pad} : tensor<4x16x8x8xf32> -> tensor<4x16x3x3xf32>
  return
}

// -----

// CHECK-LABEL: func @global_pools(
// CHECK-SAME:    %[[X:.*]]: tensor<8x512x7x7xf16>, %[[Z:.*]]: tensor<0x3x1x5xbf16>
// CHECK-NEXT:    oneflow.global_avg_pool2d %[[X]] : tensor<8x512x7x7xf16> -> tensor<8x512x1x1xf16>
// CHECK-NEXT:    oneflow.global_max_pool2d %[[X]] : tensor<8x512x7x7xf16> -> tensor<8x512x1x1xf16>
// CHECK-NEXT:    oneflow.global_avg_pool2d %[[Z]] : tensor<0x3x1x5xbf16> -> tensor<0x3x1x1xbf16>
func.func @global_pools(%x: tensor<8x512x7x7xf16>, %z: tensor<0x3x1x5xbf16>) {
  %0 = oneflow.global_avg_pool2d %x : tensor<8x512x7x7xf16> -> tensor<8x512x1x1xf16>
  %1 = oneflow.global_max_pool2d %x : tensor<8x512x7x7xf16> -> tensor<8x512x1x1xf16>
  %2 = oneflow.global_avg_pool2d %z : tensor<0x3x1x5xbf16> -> tensor<0x3x1x1xbf16>
  return
}
