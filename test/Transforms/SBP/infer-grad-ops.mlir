// RUN: oneflow-opt %s --sbp-infer --sbp-insert-boxing -split-input-file | FileCheck %s

// Data parallelism through the weight gradient of a convolution: batch-split
// x and dy give a partial-sum dweight, reduced by one all-reduce (P -> B).
// CHECK-LABEL: func.func @main
// CHECK: %[[DW:.*]] = oneflow.conv2d_grad_filter {{.*}}sbp.sig = #sbp.sig<(S<0>, S<0>) -> (P)>
// CHECK: %[[R:.*]] = sbp.boxing %[[DW]] from [P] to [B] on @mesh
// CHECK: return %[[R]]
sbp.mesh @mesh shape = [2] device = "cpu"
func.func @main(%x: tensor<8x3x8x8xf32> {sbp.nd = #sbp.nd<[S<0>]>}, %dy: tensor<8x16x8x8xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> tensor<16x3x3x3xf32> attributes {sbp.placement = @mesh} {
  %dw = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<8x3x8x8xf32>, tensor<8x16x8x8xf32>) -> tensor<16x3x3x3xf32>
  return %dw : tensor<16x3x3x3xf32>
}

// -----

// layer_norm_grad under a batch split: dx stays split, dscale and dbias
// (sums over the batch) are partial sums.
// CHECK-LABEL: func.func @main
// CHECK: %[[DX:.*]], %[[DS:.*]], %[[DB:.*]] = oneflow.layer_norm_grad {{.*}}sbp.sig = #sbp.sig<(S<0>, B, S<0>) -> (S<0>, P, P)>
// CHECK-DAG: sbp.boxing %[[DX]] from [S<0>] to [B] on @mesh
// CHECK-DAG: sbp.boxing %[[DS]] from [P] to [B] on @mesh
// CHECK-DAG: sbp.boxing %[[DB]] from [P] to [B] on @mesh
sbp.mesh @mesh shape = [2] device = "cpu"
func.func @main(%x: tensor<8x16x32xf32> {sbp.nd = #sbp.nd<[S<0>]>}, %dy: tensor<8x16x32xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> (tensor<8x16x32xf32>, tensor<32xf32>, tensor<32xf32>) attributes {sbp.placement = @mesh} {
  %s = oneflow.variable @ln.weight {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (B)>} : tensor<32xf32>
  %dx, %ds, %db = oneflow.layer_norm_grad %x, %s, %dy {axis = 2 : i64} : tensor<8x16x32xf32>, tensor<32xf32>
  return %dx, %ds, %db : tensor<8x16x32xf32>, tensor<32xf32>, tensor<32xf32>
}

