// RUN: oneflow-opt %s | oneflow-opt | FileCheck %s
// RUN: oneflow-opt %s --mlir-print-op-generic | oneflow-opt | FileCheck %s

// CHECK: sbp.mesh @m2x2 shape = [2, 2] device = "cpu"
sbp.mesh @m2x2 shape = [2, 2] device = "cpu"
// CHECK: sbp.mesh @line shape = [4] ranks = [4, 5, 6, 7] device = "cuda"
sbp.mesh @line shape = [4] ranks = [4, 5, 6, 7] device = "cuda"
// CHECK: sbp.mesh @cube shape = [2, 2, 2] device = "cpu"
sbp.mesh @cube shape = [2, 2, 2] device = "cpu"

// 1-D SBP attributes, nd-SBP lists and signatures in every form.
// CHECK-LABEL: func @attributes
// CHECK-SAME: broadcast = #sbp.B
// CHECK-SAME: nd = #sbp.nd<[S<0>, B, P]>
// CHECK-SAME: nd1 = #sbp.nd<[S<1>]>
// CHECK-SAME: partial = #sbp.P
// CHECK-SAME: sig1 = #sbp.sig<(S<0>, B) -> (S<0>)>
// CHECK-SAME: sig2 = #sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>
// CHECK-SAME: sig_bare = #sbp.sig<(P, B) -> (P)>
// CHECK-SAME: sig_empty = #sbp.sig<() -> (B)>
// CHECK-SAME: split = #sbp.S<3>
func.func @attributes() attributes {
  split = #sbp.S<3>, broadcast = #sbp.B, partial = #sbp.P,
  nd = #sbp.nd<[S<0>, B, P]>, nd1 = #sbp.nd<[S<1>]>,
  sig1 = #sbp.sig<([S<0>], [B]) -> ([S<0>])>,
  sig2 = #sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>,
  sig_bare = #sbp.sig<(P, B) -> (P)>,
  sig_empty = #sbp.sig<() -> (B)>
} {
  return
}

// Function arguments and results carry nd-SBPs; ops carry a signature and a
// placement.
// CHECK-LABEL: func @annotated
// CHECK-SAME: (%{{.*}}: tensor<8x16xf32> {sbp.nd = #sbp.nd<[S<0>, B]>}, %{{.*}}: tensor<16x4xf32> {sbp.nd = #sbp.nd<[B, S<1>]>})
// CHECK-SAME: -> (tensor<8x4xf32> {sbp.nd = #sbp.nd<[S<0>, S<1>]>})
// CHECK-SAME: attributes {sbp.placement = @m2x2}
// CHECK: oneflow.matmul
// CHECK-SAME: sbp.placement = @m2x2
// CHECK-SAME: sbp.sig = #sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>
func.func @annotated(%a: tensor<8x16xf32> {sbp.nd = #sbp.nd<[S<0>, B]>},
                     %b: tensor<16x4xf32> {sbp.nd = #sbp.nd<[B, S<1>]>})
    -> (tensor<8x4xf32> {sbp.nd = #sbp.nd<[S<0>, S<1>]>})
    attributes {sbp.placement = @m2x2} {
  %c = oneflow.matmul %a, %b {sbp.placement = @m2x2, sbp.sig = #sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}
