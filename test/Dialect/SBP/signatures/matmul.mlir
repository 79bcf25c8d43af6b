// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// The six signatures of the architecture: C[m,n] = A[m,k] B[k,n].
// CHECK-LABEL: func @matmul
// CHECK-NEXT: oneflow.matmul: ab,bc->ac | partial: each(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<0>) -> (P)
// CHECK-NEXT:   (B, S<1>) -> (S<1>)
// CHECK-NEXT:   (P, B) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
// CHECK-NOT:    ->
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %c = oneflow.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// Transposed operands move the split axes with them: A^T is [k, m], B^T is
// [n, k].
// CHECK-LABEL: func @matmul_transposed
// CHECK-NEXT: oneflow.matmul: ba,cb->ac | partial: each(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<1>, B) -> (S<0>)
// CHECK-NEXT:   (S<0>, S<1>) -> (P)
// CHECK-NEXT:   (B, S<0>) -> (S<1>)
// CHECK-NEXT:   (P, B) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
func.func @matmul_transposed(%a: tensor<16x8xf32>, %b: tensor<4x16xf32>) -> tensor<8x4xf32> {
  %c = oneflow.matmul %a, %b {transpose_a, transpose_b} : (tensor<16x8xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// Batch dimensions split like parallel factors; a broadcast batch dimension
// (size 1 against 2) keeps that operand whole.
// CHECK-LABEL: func @batch_matmul
// CHECK-NEXT: oneflow.batch_matmul: abcd,_bde->abce | partial: each(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<1>) -> (S<1>)
// CHECK-NEXT:   (S<2>, B) -> (S<2>)
// CHECK-NEXT:   (S<3>, S<2>) -> (P)
// CHECK-NEXT:   (B, S<3>) -> (S<3>)
// CHECK-NEXT:   (P, B) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
func.func @batch_matmul(%a: tensor<2x4x8x16xf32>, %b: tensor<1x4x16x32xf32>) -> tensor<2x4x8x32xf32> {
  %c = oneflow.batch_matmul %a, %b : (tensor<2x4x8x16xf32>, tensor<1x4x16x32xf32>) -> tensor<2x4x8x32xf32>
  return %c : tensor<2x4x8x32xf32>
}
