// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// Merging [2, 3, 4] -> [2, 12]: S(1) of the input (the major dimension of
// the merged group) is S(1) of the output; S(2) has no counterpart.
// CHECK-LABEL: func @merge
// CHECK-NEXT: oneflow.reshape: ab_->ab | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>) -> (S<1>)
// CHECK-NEXT:   (P) -> (P)
func.func @merge(%a: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %0 = oneflow.reshape %a : tensor<2x3x4xf32> to tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// Splitting heads, [B, T, H*D] -> [B, T, H, D]: the heads dimension keeps
// the split of the hidden dimension.
// CHECK-LABEL: func @split_heads
// CHECK-NEXT: oneflow.reshape: abc->abc_ | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>) -> (S<1>)
// CHECK-NEXT:   (S<2>) -> (S<2>)
func.func @split_heads(%a: tensor<2x16x64xf32>) -> tensor<2x16x4x16xf32> {
  %0 = oneflow.reshape %a : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
  return %0 : tensor<2x16x4x16xf32>
}

// -----

// Groups that do not line up ([6, 4] -> [4, 6]) share no factor at all;
// size-1 dimensions are never split.
// CHECK-LABEL: func @regroup
// CHECK-NEXT: oneflow.reshape: a_->a_ | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (P) -> (P)
// CHECK-NEXT: oneflow.reshape: _a->a__ | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<1>) -> (S<0>)
func.func @regroup(%a: tensor<6x4xf32>, %b: tensor<1x8xf32>) -> tensor<4x6xf32> {
  %0 = oneflow.reshape %a : tensor<6x4xf32> to tensor<4x6xf32>
  %1 = oneflow.reshape %b : tensor<1x8xf32> to tensor<8x1x1xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Flatten, squeeze and unsqueeze follow the reshape rule.
// CHECK-LABEL: func @reshape_like
// CHECK-NEXT: oneflow.flatten: ab_->ab | partial: joint(0)
// CHECK-NEXT:   (B) -> (B)
// CHECK-NEXT:   (S<0>) -> (S<0>)
// CHECK-NEXT:   (S<1>) -> (S<1>)
// CHECK-NEXT:   (P) -> (P)
// CHECK-NEXT: oneflow.unsqueeze: ab->_ab | partial: joint(0)
// CHECK:      oneflow.squeeze: _a->a | partial: joint(0)
func.func @reshape_like(%a: tensor<2x3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<1x5xf32>) -> tensor<2x12xf32> {
  %0 = oneflow.flatten %a {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %1 = oneflow.unsqueeze %b {axes = array<i64: 0>} : tensor<3x4xf32> -> tensor<1x3x4xf32>
  %2 = oneflow.squeeze %c {axes = array<i64: 0>} : tensor<1x5xf32> -> tensor<5xf32>
  return %0 : tensor<2x12xf32>
}
