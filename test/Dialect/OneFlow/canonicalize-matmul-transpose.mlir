// RUN: oneflow-opt %s -split-input-file --canonicalize | FileCheck %s

// A 2-D operand transposed feeds the product through its flag.
// CHECK-LABEL: func @matmul_transposed_b(
// CHECK-SAME:    %[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<5x3xf32>
// CHECK-NOT:     oneflow.transpose
// CHECK:         oneflow.matmul %[[A]], %[[B]] {transpose_b} : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
func.func @matmul_transposed_b(%a: tensor<4x3xf32>, %b: tensor<5x3xf32>) -> tensor<4x5xf32> {
  %t = oneflow.transpose %b {perm = array<i64: 1, 0>} : tensor<5x3xf32> -> tensor<3x5xf32>
  %c = oneflow.matmul %a, %t : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %c : tensor<4x5xf32>
}

// -----

// An already transposed operand: the flags cancel.
// CHECK-LABEL: func @matmul_transposed_a_twice(
// CHECK-SAME:    %[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4x5xf32>
// CHECK-NEXT:    %[[C:.*]] = oneflow.matmul %[[A]], %[[B]] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    return %[[C]]
func.func @matmul_transposed_a_twice(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %t = oneflow.transpose %a {perm = array<i64: 1, 0>} : tensor<3x4xf32> -> tensor<4x3xf32>
  %c = oneflow.matmul %t, %b {transpose_a} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %c : tensor<3x5xf32>
}

// -----

// Attention's k^T: [B, S, H, D] -> [B, H, D, S] becomes the row-preserving
// [B, H, S, D] and the product's transpose_b.
// CHECK-LABEL: func @attention_scores(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x4x8x16xf32>, %[[K:.*]]: tensor<2x8x4x16xf32>
// CHECK:         %[[KH:.*]] = oneflow.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-NEXT:    oneflow.batch_matmul %[[Q]], %[[KH]] {transpose_b} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
func.func @attention_scores(%q: tensor<2x4x8x16xf32>, %k: tensor<2x8x4x16xf32>) -> tensor<2x4x8x8xf32> {
  %kt = oneflow.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x4x16xf32> -> tensor<2x4x16x8xf32>
  %s = oneflow.batch_matmul %q, %kt : (tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x8x8xf32>
  return %s : tensor<2x4x8x8xf32>
}

// -----

// A transpose that keeps the last two dims in order is left alone, and so
// is one with another user.
// CHECK-LABEL: func @not_folded(
// CHECK:         %[[T:.*]] = oneflow.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>}
// CHECK:         oneflow.batch_matmul %[[T]], %{{.*}} : (
// CHECK:         %[[U:.*]] = oneflow.transpose %{{.*}} {perm = array<i64: 1, 0>}
// CHECK:         oneflow.matmul %{{.*}}, %[[U]] : (
// CHECK:         return
func.func @not_folded(%x: tensor<2x8x4x16xf32>, %w: tensor<2x4x16x3xf32>, %a: tensor<4x3xf32>, %b: tensor<5x3xf32>) -> (tensor<2x4x8x3xf32>, tensor<4x5xf32>, tensor<3x5xf32>) {
  %t = oneflow.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  %p = oneflow.batch_matmul %t, %w : (tensor<2x4x8x16xf32>, tensor<2x4x16x3xf32>) -> tensor<2x4x8x3xf32>
  %u = oneflow.transpose %b {perm = array<i64: 1, 0>} : tensor<5x3xf32> -> tensor<3x5xf32>
  %c = oneflow.matmul %a, %u : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %p, %c, %u : tensor<2x4x8x3xf32>, tensor<4x5xf32>, tensor<3x5xf32>
}
