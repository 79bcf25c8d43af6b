// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// conv2d: batch split, output-channel split, and input-channel split (a
// reduction) giving P. The window dimensions stay whole.
// CHECK-LABEL: func @conv
// CHECK-NEXT: oneflow.conv2d: ac__,bc__->ab__ | partial: each(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (B, S<0>) -> (S<1>)
// CHECK-NEXT:   (S<1>, S<1>) -> (P)
// CHECK-NEXT:   (P, B) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<2x16x8x8xf32> {
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x8x8xf32>
  return %0 : tensor<2x16x8x8xf32>
}

// -----

// With a bias, an input-channel split would add the bias on every rank: the
// input channels stay whole and nothing passes P.
// CHECK-LABEL: func @conv_bias
// CHECK-NEXT: oneflow.conv2d: a___,b___,b->ab__{{$}}
// CHECK-NEXT:   (B, B, B) -> (B)
// CHECK-NEXT:   (S<0>, B, B) -> (S<0>)
// CHECK-NEXT:   (B, S<0>, S<0>) -> (S<1>)
// CHECK-NOT:    P
func.func @conv_bias(%x: tensor<2x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<2x16x6x6xf32> {
  %0 = oneflow.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<2x16x6x6xf32>
  return %0 : tensor<2x16x6x6xf32>
}

// -----

// Depthwise: input channel g feeds only output channel g; the channels
// split by whole groups.
// CHECK-LABEL: func @depthwise
// CHECK-NEXT: oneflow.conv2d: ab__,b___->ab__ | partial: each(0, 1) | b in 8
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<0>) -> (S<1>)
func.func @depthwise(%x: tensor<2x8x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<2x8x6x6xf32> {
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 8 : i64} : (tensor<2x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x6x6xf32>
  return %0 : tensor<2x8x6x6xf32>
}

// -----

// Other grouped convolutions too: a split of the channels must cut whole
// groups (sbp-infer checks the number of pieces divides the groups).
// CHECK-LABEL: func @grouped
// CHECK-NEXT: oneflow.conv2d: ab__,b___->ab__ | partial: each(0, 1) | b in 2
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<0>) -> (S<1>)
// CHECK-NEXT:   (P, B) -> (P)
func.func @grouped(%x: tensor<2x8x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<2x4x6x6xf32> {
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x8x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

// Pooling splits batch and channels; averaging is linear, max is not.
// CHECK-LABEL: func @pooling
// CHECK-NEXT: oneflow.max_pool2d: ab__->ab__{{$}}
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>) -> (S<1>)
// CHECK-NEXT: oneflow.avg_pool2d: ab__->ab__ | partial: joint(0)
// CHECK:        (P) -> (P)
// CHECK-NEXT: oneflow.global_avg_pool2d: ab__->ab__ | partial: joint(0)
// CHECK:      oneflow.global_max_pool2d: ab__->ab__{{$}}
func.func @pooling(%x: tensor<2x8x8x8xf32>) -> tensor<2x8x4x4xf32> {
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<2x8x8x8xf32> -> tensor<2x8x4x4xf32>
  %1 = oneflow.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<2x8x8x8xf32> -> tensor<2x8x4x4xf32>
  %2 = oneflow.global_avg_pool2d %x : tensor<2x8x8x8xf32> -> tensor<2x8x1x1xf32>
  %3 = oneflow.global_max_pool2d %x : tensor<2x8x8x8xf32> -> tensor<2x8x1x1xf32>
  return %0 : tensor<2x8x4x4xf32>
}
