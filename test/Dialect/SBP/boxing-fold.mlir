// RUN: oneflow-opt %s --canonicalize -split-input-file | FileCheck %s

sbp.mesh @m shape = [2] device = "cpu"

// A boxing to the same SBP is the identity.
// CHECK-LABEL: func @identity
// CHECK-NOT: sbp.boxing
// CHECK: return %arg0
func.func @identity(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sbp.boxing %x from [S<0>] to [S<0>] on @m : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

sbp.mesh @m shape = [2] device = "cpu"

// A real conversion stays; it has no side effects, so an unused one goes.
// CHECK-LABEL: func @kept
// CHECK: %[[B:.*]] = sbp.boxing %arg0 from [P] to [B] on @m
// CHECK-NOT: sbp.boxing
// CHECK: return %[[B]]
func.func @kept(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sbp.boxing %x from [P] to [B] on @m : tensor<8xf32>
  %1 = sbp.boxing %x from [P] to [S<0>] on @m : tensor<8xf32>
  return %0 : tensor<8xf32>
}
