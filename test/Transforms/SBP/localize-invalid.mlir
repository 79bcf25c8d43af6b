// RUN: oneflow-opt %s -split-input-file -verify-diagnostics --sbp-localize

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {sbp.placement = @m} {
  // expected-error @below {{has no SBP signature to localize (run sbp-infer first)}}
  // expected-note @below {{while localizing for rank 0}}
  %y = oneflow.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<4x6xf32>) -> tensor<6x4xf32> attributes {sbp.placement = @m} {
  // A signature the op's rule does not admit: rows split in and out.
  // expected-error @below {{'oneflow.transpose' cannot run on local pieces under #sbp.sig<(S<0>) -> (S<0>)>}}
  // expected-note @below {{while localizing for rank 0}}
  // expected-error @below {{failed to infer returned types}}
  // expected-error @below {{inferred type(s) 'tensor<6x2xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  %y = oneflow.transpose %x {perm = array<i64: 1, 0>, sbp.placement = @m, sbp.sig = #sbp.sig<([S<0>]) -> ([S<0>])>} : tensor<4x6xf32> -> tensor<6x4xf32>
  %b = sbp.boxing %y from [S<0>] to [B] on @m : tensor<6x4xf32>
  return %b : tensor<6x4xf32>
}

// -----

sbp.mesh @m shape = [4] device = "cpu"
func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> attributes {sbp.placement = @m} {
  // expected-error @below {{dimension 0 of 'tensor<6xf32>' does not divide into 4 pieces for [S<0>]}}
  %b = sbp.boxing %x from [B] to [S<0>] on @m : tensor<6xf32>
  %c = sbp.boxing %b from [S<0>] to [B] on @m : tensor<6xf32>
  return %c : tensor<6xf32>
}
