// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @reduce_sum(
// CHECK-SAME:    %[[X:.*]]: tensor<64x10xf32>
// CHECK-NEXT:    %[[K:.*]] = oneflow.reduce_sum %[[X]] {axes = array<i64: 1>, keepdims} : tensor<64x10xf32> -> tensor<64x1xf32>
// CHECK-NEXT:    %[[D:.*]] = oneflow.reduce_sum %[[X]] {axes = array<i64: 1>} : tensor<64x10xf32> -> tensor<64xf32>
// CHECK-NEXT:    return %[[K]], %[[D]]
func.func @reduce_sum(%x: tensor<64x10xf32>) -> (tensor<64x1xf32>, tensor<64xf32>) {
  %0 = oneflow.reduce_sum %x {axes = array<i64: 1>, keepdims} : tensor<64x10xf32> -> tensor<64x1xf32>
  %1 = oneflow.reduce_sum %x {axes = array<i64: 1>} : tensor<64x10xf32> -> tensor<64xf32>
  return %0, %1 : tensor<64x1xf32>, tensor<64xf32>
}

// -----

// Several axes, all axes (down to rank 0) and no axes (identity shape).
// CHECK-LABEL: func @reduce_mean(
// CHECK-NEXT:    oneflow.reduce_mean %{{.*}} {axes = array<i64: 0, 2>} : tensor<2x3x4xf16> -> tensor<3xf16>
// CHECK-NEXT:    oneflow.reduce_mean %{{.*}} {axes = array<i64: 0, 2>, keepdims} : tensor<2x3x4xf16> -> tensor<1x3x1xf16>
// CHECK-NEXT:    oneflow.reduce_mean %{{.*}} {axes = array<i64: 0, 1, 2>} : tensor<2x3x4xf16> -> tensor<f16>
// CHECK-NEXT:    oneflow.reduce_mean %{{.*}} {axes = array<i64>} : tensor<2x3x4xf16> -> tensor<2x3x4xf16>
func.func @reduce_mean(%x: tensor<2x3x4xf16>) {
  %0 = oneflow.reduce_mean %x {axes = array<i64: 0, 2>} : tensor<2x3x4xf16> -> tensor<3xf16>
  %1 = oneflow.reduce_mean %x {axes = array<i64: 0, 2>, keepdims} : tensor<2x3x4xf16> -> tensor<1x3x1xf16>
  %2 = oneflow.reduce_mean %x {axes = array<i64: 0, 1, 2>} : tensor<2x3x4xf16> -> tensor<f16>
  %3 = oneflow.reduce_mean %x {axes = array<i64>} : tensor<2x3x4xf16> -> tensor<2x3x4xf16>
  return
}

// -----

// CHECK-LABEL: func @other_reductions(
// CHECK-NEXT:    oneflow.reduce_max %{{.*}} {axes = array<i64: 0>} : tensor<5x7xbf16> -> tensor<7xbf16>
// CHECK-NEXT:    oneflow.reduce_min %{{.*}} {axes = array<i64: 1>, keepdims} : tensor<5x7xi32> -> tensor<5x1xi32>
// CHECK-NEXT:    oneflow.reduce_prod %{{.*}} {axes = array<i64: 0, 1>, keepdims} : tensor<5x7xi64> -> tensor<1x1xi64>
// CHECK-NEXT:    oneflow.reduce_sum %{{.*}} {axes = array<i64: 1>} : tensor<5x7xf64> -> tensor<5xf64>
func.func @other_reductions(%a: tensor<5x7xbf16>, %b: tensor<5x7xi32>, %c: tensor<5x7xi64>, %d: tensor<5x7xf64>) {
  %0 = oneflow.reduce_max %a {axes = array<i64: 0>} : tensor<5x7xbf16> -> tensor<7xbf16>
  %1 = oneflow.reduce_min %b {axes = array<i64: 1>, keepdims} : tensor<5x7xi32> -> tensor<5x1xi32>
  %2 = oneflow.reduce_prod %c {axes = array<i64: 0, 1>, keepdims} : tensor<5x7xi64> -> tensor<1x1xi64>
  %3 = oneflow.reduce_sum %d {axes = array<i64: 1>} : tensor<5x7xf64> -> tensor<5xf64>
  return
}

// -----

// Reducing a zero-size axis or a rank-0 tensor.
// CHECK-LABEL: func @degenerate(
// CHECK-NEXT:    oneflow.reduce_sum %{{.*}} {axes = array<i64: 0>} : tensor<0x3xf32> -> tensor<3xf32>
// CHECK-NEXT:    oneflow.reduce_max %{{.*}} {axes = array<i64>, keepdims} : tensor<f32> -> tensor<f32>
func.func @degenerate(%a: tensor<0x3xf32>, %b: tensor<f32>) {
  %0 = oneflow.reduce_sum %a {axes = array<i64: 0>} : tensor<0x3xf32> -> tensor<3xf32>
  %1 = oneflow.reduce_max %b {axes = array<i64>, keepdims} : tensor<f32> -> tensor<f32>
  return
}
