// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// gather_elements: along the axis only the indices (and the result) split;
// off it, data and indices share a factor where their sizes match.
// CHECK-LABEL: func @gather_elements
// CHECK-NEXT: oneflow.gather_elements: _b,ab->ab | partial: each(0)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (B, S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<1>) -> (S<1>)
// CHECK-NEXT:   (P, B) -> (P)
func.func @gather_elements(%d: tensor<5x4xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  %0 = oneflow.gather_elements %d, %i : (tensor<5x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// cumsum and topk keep their axis whole; cumsum is linear.
// CHECK-LABEL: func @scan_ops
// CHECK-NEXT: oneflow.cumsum: a_->a_ | partial: joint(0)
// CHECK:      oneflow.topk: a_->a_,a_{{$}}
// CHECK-NEXT:   (B) -> (B, B)
// CHECK-NEXT:   (S<0>) -> (S<0>, S<0>)
func.func @scan_ops(%x: tensor<2x8xf32>) {
  %0 = oneflow.cumsum %x {axis = 1 : i64} : tensor<2x8xf32>
  %v, %i = oneflow.topk %x {axis = 1 : i64, k = 2 : i64} : tensor<2x8xf32> -> tensor<2x2xf32>, tensor<2x2xi64>
  return
}

// -----

// conv_transpose2d: weight [C_in, C_out, kh, kw]; C_in is the reduction.
// CHECK-LABEL: func @conv_transpose
// CHECK-NEXT: oneflow.conv_transpose2d: ac__,cb__->ab__ | partial: each(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (B, S<1>) -> (S<1>)
// CHECK-NEXT:   (S<1>, S<0>) -> (P)
func.func @conv_transpose(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  %0 = oneflow.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

// Grouped: whole groups split x, weight and the result alike.
// CHECK-LABEL: func @conv_transpose_grouped
// CHECK-NEXT: oneflow.conv_transpose2d: ab__,b___->ab__ | partial: each(0, 1) | b in 2
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<0>) -> (S<1>)
func.func @conv_transpose_grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32> {
  %0 = oneflow.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32>
  return %0 : tensor<1x6x7x7xf32>
}
