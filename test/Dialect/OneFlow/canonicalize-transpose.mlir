// RUN: oneflow-opt %s -split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func @identity(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT:    return %[[X]] : tensor<2x3x4xf32>
func.func @identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = oneflow.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @identity_rank0(
// CHECK-SAME:    %[[X:.*]]: tensor<i1>
// CHECK-NEXT:    return %[[X]] : tensor<i1>
func.func @identity_rank0(%x: tensor<i1>) -> tensor<i1> {
  %0 = oneflow.transpose %x {perm = array<i64>} : tensor<i1> -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

// transpose(transpose(x, p), q) = transpose(x, [p[q[0]], p[q[1]], ...]):
// [1, 2, 0] twice is [2, 0, 1].
// CHECK-LABEL: func @compose(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT:    %[[T:.*]] = oneflow.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT:    return %[[T]]
func.func @compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = oneflow.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = oneflow.transpose %0 {perm = array<i64: 1, 2, 0>} : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// The composition order matters: p o q differs from q o p here.
// [0, 2, 1, 3] then [1, 0, 2, 3] is [2, 0, 1, 3] (and not [1, 2, 0, 3]).
// CHECK-LABEL: func @compose_order(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4x5xf16>
// CHECK-NEXT:    %[[T:.*]] = oneflow.transpose %[[X]] {perm = array<i64: 2, 0, 1, 3>} : tensor<2x3x4x5xf16> -> tensor<4x2x3x5xf16>
// CHECK-NEXT:    return %[[T]]
func.func @compose_order(%x: tensor<2x3x4x5xf16>) -> tensor<4x2x3x5xf16> {
  %0 = oneflow.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x5xf16> -> tensor<2x4x3x5xf16>
  %1 = oneflow.transpose %0 {perm = array<i64: 1, 0, 2, 3>} : tensor<2x4x3x5xf16> -> tensor<4x2x3x5xf16>
  return %1 : tensor<4x2x3x5xf16>
}

// -----

// A permutation followed by its inverse cancels.
// CHECK-LABEL: func @inverse(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xi32>
// CHECK-NEXT:    return %[[X]] : tensor<2x3x4xi32>
func.func @inverse(%x: tensor<2x3x4xi32>) -> tensor<2x3x4xi32> {
  %0 = oneflow.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xi32> -> tensor<3x4x2xi32>
  %1 = oneflow.transpose %0 {perm = array<i64: 2, 0, 1>} : tensor<3x4x2xi32> -> tensor<2x3x4xi32>
  return %1 : tensor<2x3x4xi32>
}

// -----

// CHECK-LABEL: func @chain_of_three(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT:    %[[T:.*]] = oneflow.transpose %[[X]] {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-NEXT:    return %[[T]]
func.func @chain_of_three(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = oneflow.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = oneflow.transpose %0 {perm = array<i64: 0, 2, 1>} : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  %2 = oneflow.transpose %1 {perm = array<i64: 1, 0, 2>} : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  return %2 : tensor<4x3x2xf32>
}

// -----

// The inner transpose stays for its other user.
// CHECK-LABEL: func @compose_multi_use(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = oneflow.transpose %[[X]] {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    return %[[T]], %[[X]]
func.func @compose_multi_use(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = oneflow.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = oneflow.transpose %0 {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// Negative: a single non-identity transpose of a runtime value stays, even
// when it does not change the shape; a transpose of a constant folds.
// CHECK-LABEL: func @no_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<3x3xf32>
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<{{\[}}[1, 3], [2, 4]]> : tensor<2x2xi32>
// CHECK-NEXT:    %[[A:.*]] = oneflow.transpose %[[X]] {perm = array<i64: 1, 0>} : tensor<3x3xf32> -> tensor<3x3xf32>
// CHECK-NEXT:    return %[[A]], %[[C]]
func.func @no_fold(%x: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<2x2xi32>) {
  %0 = oneflow.transpose %x {perm = array<i64: 1, 0>} : tensor<3x3xf32> -> tensor<3x3xf32>
  %c = oneflow.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %1 = oneflow.transpose %c {perm = array<i64: 1, 0>} : tensor<2x2xi32> -> tensor<2x2xi32>
  return %0, %1 : tensor<3x3xf32>, tensor<2x2xi32>
}
