// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// conv2d_grad_filter: the batch is a reduction factor (batch-split x and dy
// give a partial-sum weight gradient); output and input channels carry over
// to the weight's dims 0 and 1; the windows stay whole.
// CHECK-LABEL: func @conv_grad_filter
// CHECK-NEXT: oneflow.conv2d_grad_filter: ac__,ab__->bc__ | partial: each(0, 1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (P)
// CHECK-NEXT:   (B, S<1>) -> (S<0>)
// CHECK-NEXT:   (S<1>, B) -> (S<1>)
// CHECK-NEXT:   (P, B) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
func.func @conv_grad_filter(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x16x8x8xf32>) -> tensor<16x3x3x3xf32> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x16x8x8xf32>) -> tensor<16x3x3x3xf32>
  return %0 : tensor<16x3x3x3xf32>
}

// -----

// Depthwise: channel g of x and dy feeds weight g only.
// CHECK-LABEL: func @conv_grad_filter_depthwise
// CHECK-NEXT: oneflow.conv2d_grad_filter: ab__,ab__->b___ | partial: each(0, 1) | b in 4
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (P)
// CHECK-NEXT:   (S<1>, S<1>) -> (S<0>)
// CHECK-NEXT:   (P, B) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
func.func @conv_grad_filter_depthwise(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x1x3x3xf32> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x1x3x3xf32>
  return %0 : tensor<4x1x3x3xf32>
}

// -----

// Other groupings split by whole groups too.
// CHECK-LABEL: func @conv_grad_filter_groups
// CHECK-NEXT: oneflow.conv2d_grad_filter: ab__,ab__->b___ | partial: each(0, 1) | b in 2
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (P)
// CHECK-NEXT:   (S<1>, S<1>) -> (S<0>)
// CHECK-NEXT:   (P, B) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
func.func @conv_grad_filter_groups(%x: tensor<1x4x7x7xf32>, %dy: tensor<1x6x5x5xf32>) -> tensor<6x2x3x3xf32> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x7x7xf32>, tensor<1x6x5x5xf32>) -> tensor<6x2x3x3xf32>
  return %0 : tensor<6x2x3x3xf32>
}

// -----

// Pooling gradients split N and C; they are linear in dy only.
// CHECK-LABEL: func @pool_grads
// CHECK-NEXT: oneflow.max_pool2d_grad: ab__,ab__->ab__ | partial: each(1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<1>) -> (S<1>)
// CHECK-NEXT:   (B, P) -> (P)
// CHECK-NEXT: oneflow.avg_pool2d_grad: ab__->ab__ | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>) -> (S<1>)
// CHECK-NEXT:   (P) -> (P)
func.func @pool_grads(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x3x4x4xf32>) -> (tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>) {
  %0 = oneflow.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  %1 = oneflow.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<2x3x4x4xf32> -> tensor<2x3x8x8xf32>
  return %0, %1 : tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>
}

// -----

// gather_grad (the embedding backward): split indices scatter into the
// whole table, leaving partial sums; the feature dim carries through; the
// gathered axis stays whole.
// CHECK-LABEL: func @gather_grad
// CHECK-NEXT: oneflow.gather_grad: cd,cdb->_b | partial: each(1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (B, S<2>) -> (S<1>)
// CHECK-NEXT:   (S<0>, S<0>) -> (P)
// CHECK-NEXT:   (S<1>, S<1>) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
func.func @gather_grad(%i: tensor<4x7xi64>, %dy: tensor<4x7x16xf32>) -> tensor<100x16xf32> {
  %0 = oneflow.gather_grad %i, %dy : (tensor<4x7xi64>, tensor<4x7x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// gather_elements_grad: off the axis, dims of matching size carry through;
// along it, split indices leave partial sums.
// CHECK-LABEL: func @gather_elements_grad
// CHECK-NEXT: oneflow.gather_elements_grad: ab,ab->a_ | partial: each(1)
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<1>) -> (P)
// CHECK-NEXT:   (B, P) -> (P)
func.func @gather_elements_grad(%i: tensor<3x6xi64>, %dy: tensor<3x6xf32>) -> tensor<3x4xf32> {
  %0 = oneflow.gather_elements_grad %i, %dy {axis = 1 : i64} : (tensor<3x6xi64>, tensor<3x6xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// slice_grad: only the dimension the slice keeps whole splits.
// CHECK-LABEL: func @slice_grad
// CHECK-NEXT: oneflow.slice_grad: _a->_a | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<1>) -> (S<1>)
// CHECK-NEXT:   (P) -> (P)
func.func @slice_grad(%dy: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.slice_grad %dy {starts = array<i64: 1, 0>, limits = array<i64: 3, 8>, steps = array<i64: 1, 1>} : tensor<2x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// softmax_cross_entropy_grad: positions split, classes whole.
// CHECK-LABEL: func @cross_entropy_grad
// CHECK-NEXT: oneflow.softmax_cross_entropy_grad: ab_,ab,ab->ab_ | partial: each(2)
// CHECK-NEXT:   (B, B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>, S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<1>, S<1>) -> (S<1>)
// CHECK-NEXT:   (B, B, P) -> (P)
func.func @cross_entropy_grad(%logits: tensor<4x7x10xf32>, %labels: tensor<4x7xi64>, %dloss: tensor<4x7xf32>) -> tensor<4x7x10xf32> {
  %0 = oneflow.softmax_cross_entropy_grad %logits, %labels, %dloss : (tensor<4x7x10xf32>, tensor<4x7xi64>, tensor<4x7xf32>) -> tensor<4x7x10xf32>
  return %0 : tensor<4x7x10xf32>
}

// -----

// layer_norm_grad: a batch split splits dx and leaves dscale and dbias (sums
// over the batch) partial.
// CHECK-LABEL: func @layer_norm_grad
// CHECK-NEXT: oneflow.layer_norm_grad: ab_,_,ab_->ab_,_,_ | partial: each(2)
// CHECK-NEXT:   (B, B, B) -> (B, B, B)
// CHECK-NEXT:   (S<0>, B, S<0>) -> (S<0>, P, P)
// CHECK-NEXT:   (S<1>, B, S<1>) -> (S<1>, P, P)
// CHECK-NEXT:   (B, B, P) -> (P, P, P)
func.func @layer_norm_grad(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>, %dy: tensor<2x5x8xf32>) -> (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %ds, %db = oneflow.layer_norm_grad %x, %s, %dy {axis = 2 : i64} : tensor<2x5x8xf32>, tensor<8xf32>
  return %dx, %ds, %db : tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// batch_norm_grad: the statistics span N, H and W; only channels split.
// CHECK-LABEL: func @batch_norm_grad
// CHECK-NEXT: oneflow.batch_norm_grad: _a__,a,a,a,_a__->_a__,a,a | partial: each(4)
// CHECK-NEXT:   (B, B, B, B, B) -> (B, B, B)
// CHECK-NEXT:   (S<1>, S<0>, S<0>, S<0>, S<1>) -> (S<1>, S<0>, S<0>)
// CHECK-NEXT:   (B, B, B, B, P) -> (P, P, P)
func.func @batch_norm_grad(%x: tensor<4x3x5x5xf32>, %s: tensor<3xf32>, %dy: tensor<4x3x5x5xf32>) -> (tensor<4x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %ds, %db = oneflow.batch_norm_grad %x, %s, %s, %s, %dy : tensor<4x3x5x5xf32>, tensor<3xf32>
  return %dx, %ds, %db : tensor<4x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>
}
