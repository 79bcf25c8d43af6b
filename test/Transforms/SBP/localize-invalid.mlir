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
  // expected-error @below {{'oneflow.transpose' cannot run on the local pieces of #sbp.sig<(S<0>) -> (S<0>)>: 'oneflow.transpose' op inferred type(s) 'tensor<6x2xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-note @below {{while localizing for rank 0}}
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

// -----

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<1x6x6x6xf32>) -> tensor<1x6x4x4xf32> attributes {sbp.placement = @m} {
  %w = oneflow.variable @w {sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([S<0>])>} : tensor<6x2x3x3xf32>
  // A pinned split that cuts a group in two: one error at the op, with the
  // signature and the reason.
  // expected-error @below {{'oneflow.conv2d' cannot run on the local pieces of #sbp.sig<(S<1>, S<0>) -> (S<1>)>: input has 3 channels but weight expects 2 per group (3 groups)}}
  // expected-note @below {{while localizing for rank 0}}
  %y = oneflow.conv2d %x, %w {dilations = array<i64: 1, 1>, groups = 3 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, sbp.placement = @m, sbp.sig = #sbp.sig<([S<1>], [S<0>]) -> ([S<1>])>} : (tensor<1x6x6x6xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32>
  %b = sbp.boxing %y from [S<1>] to [B] on @m : tensor<1x6x4x4xf32>
  return %b : tensor<1x6x4x4xf32>
}
