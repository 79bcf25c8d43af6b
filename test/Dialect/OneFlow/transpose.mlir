// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// Result dimension i is input dimension perm[i].

// CHECK-LABEL: func @transpose(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.transpose %[[X]] {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = oneflow.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// A cyclic permutation is not its own inverse: [1, 2, 0] on 2x3x4 gives
// 3x4x2 and [2, 0, 1] gives 4x2x3.
// CHECK-LABEL: func @rank3(
// CHECK-NEXT:    oneflow.transpose %{{.*}} {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xbf16> -> tensor<3x4x2xbf16>
// CHECK-NEXT:    oneflow.transpose %{{.*}} {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xbf16> -> tensor<4x2x3xbf16>
func.func @rank3(%x: tensor<2x3x4xbf16>) {
  %0 = oneflow.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xbf16> -> tensor<3x4x2xbf16>
  %1 = oneflow.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xbf16> -> tensor<4x2x3xbf16>
  return
}

// -----

// CHECK-LABEL: func @attention_heads(
// CHECK-NEXT:    oneflow.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x8xf16> -> tensor<2x4x16x8xf16>
func.func @attention_heads(%x: tensor<2x16x4x8xf16>) -> tensor<2x4x16x8xf16> {
  %0 = oneflow.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x8xf16> -> tensor<2x4x16x8xf16>
  return %0 : tensor<2x4x16x8xf16>
}

// -----

// Identity permutations (including of a rank-0 tensor) are valid.
// CHECK-LABEL: func @identity(
// CHECK-NEXT:    oneflow.transpose %{{.*}} {perm = array<i64: 0, 1>} : tensor<2x3xi64> -> tensor<2x3xi64>
// CHECK-NEXT:    oneflow.transpose %{{.*}} {perm = array<i64>} : tensor<i1> -> tensor<i1>
func.func @identity(%x: tensor<2x3xi64>, %s: tensor<i1>) {
  %0 = oneflow.transpose %x {perm = array<i64: 0, 1>} : tensor<2x3xi64> -> tensor<2x3xi64>
  %1 = oneflow.transpose %s {perm = array<i64>} : tensor<i1> -> tensor<i1>
  return
}
