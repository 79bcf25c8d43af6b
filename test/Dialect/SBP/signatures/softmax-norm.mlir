// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// Softmax never splits its axis.
// CHECK-LABEL: func @softmax
// CHECK-NEXT: oneflow.softmax: ab_->ab_
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>) -> (S<1>)
// CHECK-NEXT: oneflow.log_softmax: a_c->a_c
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (S<2>) -> (S<2>)
func.func @softmax(%a: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = oneflow.softmax %a {axis = 2 : i64} : tensor<2x4x8xf32>
  %1 = oneflow.log_softmax %0 {axis = 1 : i64} : tensor<2x4x8xf32>
  return %1 : tensor<2x4x8xf32>
}

// -----

// Layer norm splits only the leading (non-normalized) axes; scale and bias
// stay whole. It is not linear.
// CHECK-LABEL: func @layer_norm
// CHECK-NEXT: oneflow.layer_norm: ab_,_,_->ab_{{$}}
// CHECK-NEXT:   (B, B, B) -> (B)
// CHECK-NEXT:   (S<0>, B, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, B, B) -> (S<1>)
// CHECK-NOT:    P
func.func @layer_norm(%x: tensor<2x16x64xf32>, %s: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %0 = oneflow.layer_norm %x, %s, %b {axis = 2 : i64} : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

// Inference batch norm splits every axis; its parameters follow channels.
// CHECK-LABEL: func @batch_norm
// CHECK-NEXT: oneflow.batch_norm: abcd,b,b,b,b->abcd{{$}}
// CHECK-NEXT:   (B, B, B, B, B) -> (B)
// CHECK-NEXT:   (S<0>, B, B, B, B) -> (S<0>)
// CHECK-NEXT:   (S<1>, S<0>, S<0>, S<0>, S<0>) -> (S<1>)
// CHECK-NEXT:   (S<2>, B, B, B, B) -> (S<2>)
// CHECK-NEXT:   (S<3>, B, B, B, B) -> (S<3>)
// Training batch norm takes statistics over N, H and W: only channels split.
// CHECK-NEXT: oneflow.batch_norm_train: _a__,a,a,a,a->_a__,a,a,a,a{{$}}
// CHECK-NEXT:   (B, B, B, B, B) -> (B, B, B, B, B)
// CHECK-NEXT:   (S<1>, S<0>, S<0>, S<0>, S<0>) -> (S<1>, S<0>, S<0>, S<0>, S<0>)
func.func @batch_norm(%x: tensor<2x8x4x4xf32>, %p: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  %0 = oneflow.batch_norm %x, %p, %p, %p, %p : tensor<2x8x4x4xf32>, tensor<8xf32>
  %1:5 = oneflow.batch_norm_train %x, %p, %p, %p, %p : tensor<2x8x4x4xf32>, tensor<8xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

// Cross-entropy over [N, C] logits: the class axis stays whole; splitting
// the batch gives a partial-sum loss.
// CHECK-LABEL: func @losses
// CHECK-NEXT: oneflow.softmax_cross_entropy: a_,a->.
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (P)
// CHECK-NEXT: oneflow.softmax_cross_entropy: a_,a->a
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (S<0>)
// With ignore_index the mean needs the global count of kept labels.
// CHECK-NEXT: oneflow.softmax_cross_entropy: __,_->.
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT: oneflow.mse_loss: ab,ab->.
// CHECK-NEXT:   (B, B) -> (B)
// CHECK-NEXT:   (S<0>, S<0>) -> (P)
// CHECK-NEXT:   (S<1>, S<1>) -> (P)
func.func @losses(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>, %p: tensor<8x10xf32>) -> tensor<f32> {
  %0 = oneflow.softmax_cross_entropy %logits, %labels : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<f32>
  %1 = oneflow.softmax_cross_entropy %logits, %labels {reduction = #oneflow.reduction<none>} : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<8xf32>
  %2 = oneflow.softmax_cross_entropy %logits, %labels {ignore_index = -100 : i64} : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<f32>
  %3 = oneflow.mse_loss %logits, %p : (tensor<8x10xf32>, tensor<8x10xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
