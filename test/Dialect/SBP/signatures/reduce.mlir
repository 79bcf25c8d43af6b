// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// Splitting a reduced axis of a sum or mean gives P.
// CHECK-LABEL: func @reduce_sum
// CHECK-NEXT: oneflow.reduce_sum: abc->ac | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>) -> (P)
// CHECK-NEXT:   (S<2>) -> (S<1>)
// CHECK-NEXT:   (P) -> (P)
func.func @reduce_sum(%a: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = oneflow.reduce_sum %a {axes = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// keepdims keeps the reduced axis as an unsplittable size-1 dimension.
// CHECK-LABEL: func @reduce_mean_keepdims
// CHECK-NEXT: oneflow.reduce_mean: ab->a_ | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>) -> (P)
// CHECK-NEXT:   (P) -> (P)
func.func @reduce_mean_keepdims(%a: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = oneflow.reduce_mean %a {axes = array<i64: 1>, keepdims} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Full reduction to a scalar: any split gives P.
// CHECK-LABEL: func @reduce_all
// CHECK-NEXT: oneflow.reduce_sum: ab->. | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (P)
// CHECK-NEXT:   (S<1>) -> (P)
// CHECK-NEXT:   (P) -> (P)
func.func @reduce_all(%a: tensor<4x8xf32>) -> tensor<f32> {
  %0 = oneflow.reduce_sum %a {axes = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// max, min, prod and argmax cannot split the reduced axis (there is no
// partial-max SBP) and never take P.
// CHECK-LABEL: func @nonlinear_reductions
// CHECK-NEXT: oneflow.reduce_max: a_->a
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT: oneflow.reduce_min: a_->a
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT: oneflow.reduce_prod: _b->b
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<1>) -> (S<0>)
// CHECK-NEXT: oneflow.argmax: a_->a
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
func.func @nonlinear_reductions(%a: tensor<4x8xf32>) -> tensor<4xi64> {
  %0 = oneflow.reduce_max %a {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %1 = oneflow.reduce_min %a {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %2 = oneflow.reduce_prod %a {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<8xf32>
  %3 = oneflow.argmax %a {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4xi64>
  return %3 : tensor<4xi64>
}
