// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// Embedding lookup: splitting the vocabulary gives P (each rank looks up the
// rows it holds and zeros the rest); splitting the indices splits the rows
// of the result; the table passes P, the indices never.
// CHECK-LABEL: func @gather
// CHECK-NEXT: oneflow.gather: ab,cd->cdb | partial: each(0)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (P)
// CHECK-NEXT:   (S<1>, B) -> (S<2>)
// CHECK-NEXT:   (B, S<0>) -> (S<0>)
// CHECK-NEXT:   (B, S<1>) -> (S<1>)
// CHECK-NEXT:   (P, B) -> (P)
// CHECK-NOT:    (B, P)
func.func @gather(%table: tensor<128x64xf32>, %ids: tensor<2x16xi64>) -> tensor<2x16x64xf32> {
  %0 = oneflow.gather %table, %ids : (tensor<128x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

// Concat and split keep their axis whole.
// CHECK-LABEL: func @concat_split
// CHECK-NEXT: oneflow.concat: a_,a_->a_ | partial: joint(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (S<0>)
// CHECK-NEXT:   (P, P) -> (P)
// CHECK-NEXT: oneflow.split: _b->_b,_b | partial: joint(0)
// CHECK-NEXT:   (B) -> (B, B)
// CHECK-NEXT:   (S<1>) -> (S<1>, S<1>)
// CHECK-NEXT:   (P) -> (P, P)
func.func @concat_split(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>, %c: tensor<6x4xf32>) -> tensor<4x5xf32> {
  %0 = oneflow.concat %a, %b {axis = 1 : i64} : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<4x5xf32>
  %1:2 = oneflow.split %c {axis = 0 : i64, sizes = array<i64: 2, 4>} : tensor<6x4xf32> -> tensor<2x4xf32>, tensor<4x4xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Slice splits the dimensions it takes whole; expand splits every result
// dimension, with the input B where it is stretched; tile splits what it
// does not repeat.
// CHECK-LABEL: func @slice_expand_tile
// CHECK-NEXT: oneflow.slice: a_->a_ | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (P) -> (P)
// CHECK-NEXT: oneflow.expand: _b->ab | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (B) -> (S<0>)
// CHECK-NEXT:   (S<1>) -> (S<1>)
// CHECK-NEXT:   (P) -> (P)
// CHECK-NEXT: oneflow.tile: _a->_a | partial: joint(0)
func.func @slice_expand_tile(%a: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x4xf32> {
  %0 = oneflow.slice %a {starts = array<i64: 0, 2>, limits = array<i64: 4, 6>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x4xf32>
  %1 = oneflow.expand %b : tensor<1x8xf32> to tensor<4x8xf32>
  %2 = oneflow.tile %a {repeats = array<i64: 2, 1>} : tensor<4x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Sources (constants, variables) can be produced in any split.
// CHECK-LABEL: func @sources
// CHECK-NEXT: oneflow.constant: ->ab
// CHECK-NEXT:   () -> (B)
// CHECK-NEXT:   () -> (S<0>)
// CHECK-NEXT:   () -> (S<1>)
// CHECK-NEXT: oneflow.variable: ->ab
// CHECK-NEXT:   () -> (B)
// CHECK-NEXT:   () -> (S<0>)
// CHECK-NEXT:   () -> (S<1>)
func.func @sources() -> tensor<2x4xf32> {
  %0 = oneflow.constant dense<1.0> : tensor<2x4xf32>
  %1 = oneflow.variable @w : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
