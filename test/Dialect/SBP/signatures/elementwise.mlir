// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// Broadcasting: the size-1 (and missing) dimensions of an operand have no
// factor, so that operand stays B when the result splits there.
// CHECK-LABEL: func @add_broadcast
// CHECK-NEXT: oneflow.add: abc,_bc->abc | partial: joint(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<1>) -> (S<1>)
// CHECK-NEXT:   (S<2>, S<2>) -> (S<2>)
// CHECK-NEXT:   (P, P) -> (P)
func.func @add_broadcast(%a: tensor<2x3x4xf32>, %b: tensor<1x3x4xf32>) -> tensor<2x3x4xf32> {
  %c = oneflow.add %a, %b : (tensor<2x3x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3x4xf32>
  return %c : tensor<2x3x4xf32>
}

// -----

// A lower-rank operand aligns with the trailing dimensions (a bias).
// CHECK-LABEL: func @add_bias
// CHECK-NEXT: oneflow.add: ab,b->ab | partial: joint(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<0>) -> (S<1>)
// CHECK-NEXT:   (P, P) -> (P)
func.func @add_bias(%a: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %c = oneflow.add %a, %b : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// A scalar operand is written `.` and is always B.
// CHECK-LABEL: func @mul_scalar
// CHECK-NEXT: oneflow.mul: ab,.->ab | partial: each(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, B) -> (S<1>)
// CHECK-NEXT:   (P, B) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
func.func @mul_scalar(%a: tensor<8x4xf32>, %b: tensor<f32>) -> tensor<8x4xf32> {
  %c = oneflow.mul %a, %b : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// Comparisons and where: the condition is never partial; where is additive in
// its two value operands together.
// CHECK-LABEL: func @compare_where
// CHECK-NEXT: oneflow.less: a,a->a
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (S<0>)
// CHECK-NEXT: oneflow.where: a,a,a->a | partial: joint(1, 2)
// CHECK-NEXT:   (B, B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>, S<0>) -> (S<0>)
// CHECK-NEXT:   (B, P, P) -> (P)
func.func @compare_where(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %c = oneflow.less %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %d = oneflow.where %c, %a, %b : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

// Rank-0 elementwise ops have a single, all-B signature.
// CHECK-LABEL: func @scalar_unary
// CHECK-NEXT: oneflow.exp: .->.
// CHECK-NEXT:   (B) -> (B)
// CHECK-NOT:    ->
func.func @scalar_unary(%a: tensor<f32>) -> tensor<f32> {
  %b = oneflow.exp %a : tensor<f32>
  return %b : tensor<f32>
}
