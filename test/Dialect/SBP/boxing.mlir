// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

sbp.mesh @m shape = [4] device = "cpu"

// Every 1-D conversion of the architecture's table.
// CHECK-LABEL: func @one_d
// CHECK: sbp.boxing %{{.*}} from [P] to [B] on @m : tensor<8x16xf32>
// CHECK: sbp.boxing %{{.*}} from [P] to [S<1>] on @m : tensor<8x16xf32>
// CHECK: sbp.boxing %{{.*}} from [S<0>] to [B] on @m : tensor<8x16xf32>
// CHECK: sbp.boxing %{{.*}} from [S<0>] to [S<1>] on @m : tensor<8x16xf32>
// CHECK: sbp.boxing %{{.*}} from [B] to [S<0>] on @m : tensor<8x16xf32>
// CHECK: sbp.boxing %{{.*}} from [B] to [P] on @m : tensor<8x16xf32>
func.func @one_d(%x: tensor<8x16xf32>) {
  %0 = sbp.boxing %x from [P] to [B] on @m : tensor<8x16xf32>
  %1 = sbp.boxing %x from P to S<1> on @m : tensor<8x16xf32>
  %2 = sbp.boxing %x from [S<0>] to [B] on @m : tensor<8x16xf32>
  %3 = sbp.boxing %x from [S<0>] to [S<1>] on @m : tensor<8x16xf32>
  %4 = sbp.boxing %x from [B] to [S<0>] on @m : tensor<8x16xf32>
  %5 = sbp.boxing %x from [B] to [P] on @m : tensor<8x16xf32>
  return
}

// -----

sbp.mesh @m2 shape = [2, 2] device = "cpu"

// nd-SBP conversions on a 2-D mesh, any element type.
// CHECK-LABEL: func @n_d
// CHECK: sbp.boxing %{{.*}} from [S<0>, P] to [S<0>, B] on @m2 : tensor<64x10xf32>
// CHECK: sbp.boxing %{{.*}} from [P, P] to [B, S<1>] on @m2 : tensor<64x10xf32>
// CHECK: sbp.boxing %{{.*}} from [S<0>, S<0>] to [B, B] on @m2 : tensor<64xi64>
func.func @n_d(%x: tensor<64x10xf32>, %i: tensor<64xi64>) {
  %0 = sbp.boxing %x from [S<0>, P] to [S<0>, B] on @m2 : tensor<64x10xf32>
  %1 = sbp.boxing %x from [P, P] to [B, S<1>] on @m2 : tensor<64x10xf32>
  %2 = sbp.boxing %i from [S<0>, S<0>] to [B, B] on @m2 : tensor<64xi64>
  return
}
