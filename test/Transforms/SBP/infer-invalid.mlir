// RUN: oneflow-opt %s --sbp-infer -split-input-file -verify-diagnostics

sbp.mesh @mesh shape = [4] device = "cpu"
// expected-error @+1 {{argument #0 of type 'tensor<6x8xf32>' cannot be split [S<0>] over the mesh [4]: a split dimension is not divisible}}
func.func @main(%x: tensor<6x8xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> tensor<6x8xf32> attributes {sbp.placement = @mesh} {
  return %x : tensor<6x8xf32>
}

// -----

sbp.mesh @mesh shape = [4] device = "cpu"
func.func @main() -> tensor<6xf32> attributes {sbp.placement = @mesh} {
  // expected-error @+1 {{result #0 of type 'tensor<6xf32>' cannot be split [S<0>] over the mesh: a split dimension is not divisible}}
  %w = oneflow.variable @w {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (S<0>)>} : tensor<6xf32>
  return %w : tensor<6xf32>
}

// -----

// expected-error @+1 {{the graph is not placed on a mesh (run sbp-apply-strategy or set sbp.placement)}}
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
