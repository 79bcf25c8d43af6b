// RUN: oneflow-opt %s --convert-oneflow-to-linalg=pooling-calls -split-input-file | FileCheck %s
// RUN: oneflow-opt %s --convert-oneflow-to-linalg -split-input-file | FileCheck %s --check-prefix=LINALG

// With pooling-calls (the CPU kernels' pipeline), f32 and f64 max and average
// pooling call the kernel library: x, y, n, c, h, w, oh, ow, kh, kw, sh, sw,
// the four pads, then the dilations (max) or count_include_pad (average).
// Without it (the CUDA pipeline), they stay linalg pooling ops.
// CHECK-LABEL: func @pools
// CHECK: %[[N:.*]] = arith.constant 2 : i64
// CHECK: %[[C:.*]] = arith.constant 3 : i64
// CHECK: %[[H:.*]] = arith.constant 9 : i64
// CHECK: %[[W:.*]] = arith.constant 9 : i64
// CHECK: %[[OH:.*]] = arith.constant 5 : i64
// CHECK: %[[OW:.*]] = arith.constant 5 : i64
// CHECK: call @oneflow_max_pool2d_f32(%{{.*}}, %{{.*}}, %[[N]], %[[C]], %[[H]], %[[W]], %[[OH]], %[[OW]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[INCLUDE_PAD:.*]] = arith.constant 1 : i64
// CHECK-NEXT: call @oneflow_avg_pool2d_f32({{.*}}, %[[INCLUDE_PAD]])
// CHECK-NOT: linalg.pooling
// LINALG-LABEL: func @pools
// LINALG: linalg.pooling_nchw_max
// LINALG: linalg.pooling_nchw_sum
// LINALG-NOT: call @oneflow_
func.func @pools(%x: tensor<2x3x9x9xf32>) -> (tensor<2x3x5x5xf32>, tensor<2x3x4x4xf32>) {
  %0 = oneflow.max_pool2d %x {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>
  %1 = oneflow.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, count_include_pad} : tensor<2x3x9x9xf32> -> tensor<2x3x4x4xf32>
  return %0, %1 : tensor<2x3x5x5xf32>, tensor<2x3x4x4xf32>
}

// -----

// The library has no bf16 pooling: it stays a linalg op.
// CHECK-LABEL: func @bf16_pool
// CHECK-NOT: call @oneflow_max_pool2d
// CHECK: linalg.pooling_nchw_max
func.func @bf16_pool(%x: tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xbf16> {
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x2x4x4xbf16> -> tensor<1x2x2x2xbf16>
  return %0 : tensor<1x2x2x2xbf16>
}

// -----

// max_pool2d_grad calls the kernel library with pooling-calls: x, dy, dx,
// then the sizes, the pads and the dilations; without it, linalg.
// CHECK-LABEL: func @max_pool_grad
// CHECK: %[[DH:.*]] = arith.constant 2 : i64
// CHECK: call @oneflow_max_pool2d_grad_f32(%{{.*}}, %{{.*}}, %{{.*}}, {{.*}}, %[[DH]], %{{.*}})
// CHECK-NOT: linalg.generic
// LINALG-LABEL: func @max_pool_grad
// LINALG: linalg.generic
// LINALG-NOT: call @oneflow_
func.func @max_pool_grad(%x: tensor<1x2x9x9xf32>, %dy: tensor<1x2x4x4xf32>) -> tensor<1x2x9x9xf32> {
  %0 = oneflow.max_pool2d_grad %x, %dy {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>} : (tensor<1x2x9x9xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x9x9xf32>
  return %0 : tensor<1x2x9x9xf32>
}

// -----

// f32 conv2d_grad_filter with outputs of 8x8 pixels or more calls the
// kernel library's oneDNN backward-weights entry with pooling-calls (x, dy,
// dw, then n, c, h, w, o, kh, kw, oh, ow, strides, top and left pads,
// dilations, groups); smaller outputs and depthwise filters keep the
// generated loops.
// CHECK-LABEL: func @grad_filter
// CHECK: call @oneflow_conv2d_grad_filter_f32({{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
// CHECK-LABEL: func @grad_filter_small
// CHECK-NOT: call @oneflow_conv2d_grad_filter
// CHECK: linalg.generic
// CHECK-LABEL: func @grad_filter_depthwise
// CHECK-NOT: call @oneflow_conv2d_grad_filter
// CHECK: linalg.generic
// LINALG-LABEL: func @grad_filter
// LINALG-NOT: call @oneflow_conv2d_grad_filter
func.func @grad_filter(%x: tensor<2x3x16x16xf32>, %dy: tensor<2x16x8x8xf32>) -> tensor<16x3x3x3xf32> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x3x16x16xf32>, tensor<2x16x8x8xf32>) -> tensor<16x3x3x3xf32>
  return %0 : tensor<16x3x3x3xf32>
}
func.func @grad_filter_small(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x16x4x4xf32>) -> tensor<16x3x3x3xf32> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<2x16x4x4xf32>) -> tensor<16x3x3x3xf32>
  return %0 : tensor<16x3x3x3xf32>
}
func.func @grad_filter_depthwise(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x1x3x3xf32> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x1x3x3xf32>
  return %0 : tensor<4x1x3x3xf32>
}

// -----

// Channels-last pools (oneflow-channels-last) call the library's NHWC
// pools; the scalars still name the dimensions n, c, h, w, oh, ow.
// CHECK-LABEL: func @channels_last_pools
// CHECK: %[[N:.*]] = arith.constant 2 : i64
// CHECK: %[[C:.*]] = arith.constant 3 : i64
// CHECK: %[[H:.*]] = arith.constant 9 : i64
// CHECK: %[[W:.*]] = arith.constant 9 : i64
// CHECK: %[[OH:.*]] = arith.constant 5 : i64
// CHECK: %[[OW:.*]] = arith.constant 5 : i64
// CHECK: call @oneflow_max_pool2d_nhwc_f32(%{{.*}}, %{{.*}}, %[[N]], %[[C]], %[[H]], %[[W]], %[[OH]], %[[OW]],
// CHECK: call @oneflow_avg_pool2d_nhwc_f32(
func.func @channels_last_pools(%x: tensor<2x9x9x3xf32>) -> (tensor<2x5x5x3xf32>, tensor<2x4x4x3xf32>) {
  %0 = oneflow.max_pool2d %x {channels_last, ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<2x9x9x3xf32> -> tensor<2x5x5x3xf32>
  %1 = oneflow.avg_pool2d %x {channels_last, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<2x9x9x3xf32> -> tensor<2x4x4x3xf32>
  return %0, %1 : tensor<2x5x5x3xf32>, tensor<2x4x4x3xf32>
}

// -----

// f32 reductions over consecutive axes that stop before the last one call
// the library's row-wise reductions (x, y, outer, middle, inner): an NHWC
// image's mean over its pixels, a column sum. Reductions over the last
// axis, or over axes with a gap, stay generated loops.
// CHECK-LABEL: func @middle_reductions
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[SIXTEEN:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK: call @oneflow_reduce_middle_mean_f32(%{{.*}}, %{{.*}}, %[[TWO]], %[[SIXTEEN]], %[[EIGHT]])
// CHECK: call @oneflow_reduce_middle_max_f32(
// CHECK: call @oneflow_reduce_middle_sum_f32(
// CHECK-NOT: call @oneflow_reduce_middle
// CHECK: linalg.generic
// CHECK-NOT: call @oneflow_reduce_middle
func.func @middle_reductions(%x: tensor<2x4x4x8xf32>, %m: tensor<5x7xf32>) -> (tensor<2x1x1x8xf32>, tensor<2x8xf32>, tensor<7xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = oneflow.reduce_mean %x {axes = array<i64: 1, 2>, keepdims} : tensor<2x4x4x8xf32> -> tensor<2x1x1x8xf32>
  %1 = oneflow.reduce_max %x {axes = array<i64: 1, 2>} : tensor<2x4x4x8xf32> -> tensor<2x8xf32>
  %2 = oneflow.reduce_sum %m {axes = array<i64: 0>} : tensor<5x7xf32> -> tensor<7xf32>
  %3 = oneflow.reduce_sum %x {axes = array<i64: 1, 3>} : tensor<2x4x4x8xf32> -> tensor<2x4xf32>
  %4 = oneflow.reduce_sum %x {axes = array<i64: 2, 3>} : tensor<2x4x4x8xf32> -> tensor<2x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x1x1x8xf32>, tensor<2x8xf32>, tensor<7xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A kernel's NCHW input transposed to NHWC for channels-last convs only
// calls the library's image transpose (x, y, images, rows, cols): 2 images
// of 3 x (8 * 8). A transpose of a value computed in the kernel, one with
// another user, or not an image transpose, stays a linalg.transpose, which
// the generated loops may fuse with its neighbours.
// CHECK-LABEL: func @input_transposes
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[PIXELS:.*]] = arith.constant 64 : i64
// CHECK: call @oneflow_transpose_images_f32(%{{.*}}, %{{.*}}, %[[TWO]], %[[THREE]], %[[PIXELS]])
// CHECK-NOT: call @oneflow_transpose_images_f32
// CHECK-COUNT-3: linalg.transpose
// CHECK-NOT: call @oneflow_transpose_images_f32
// LINALG-LABEL: func @input_transposes
// LINALG-NOT: call @oneflow_transpose_images_f32
func.func @input_transposes(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %z: tensor<2x3x8x8xf32>) -> (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>, tensor<2x8x8x3xf32>, tensor<2x8x3x8xf32>) {
  %0 = oneflow.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<2x3x8x8xf32> -> tensor<2x8x8x3xf32>
  %1 = oneflow.conv2d_epilogue %0, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<2x8x8x4xf32>
  %n = oneflow.neg %z : tensor<2x3x8x8xf32>
  %2 = oneflow.transpose %n {perm = array<i64: 0, 2, 3, 1>} : tensor<2x3x8x8xf32> -> tensor<2x8x8x3xf32>
  %3 = oneflow.conv2d_epilogue %2, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<2x8x8x4xf32>
  %4 = oneflow.transpose %z {perm = array<i64: 0, 2, 3, 1>} : tensor<2x3x8x8xf32> -> tensor<2x8x8x3xf32>
  %5 = oneflow.transpose %z {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x8x8xf32> -> tensor<2x8x3x8xf32>
  return %1, %3, %4, %5 : tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>, tensor<2x8x8x3xf32>, tensor<2x8x3x8xf32>
}
