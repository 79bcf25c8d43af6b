// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @perm_too_short(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{perm has 2 entries for a tensor of rank 3}}
  // expected-error @+1 {{'oneflow.transpose' op failed to infer returned types}}
  %0 = oneflow.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return
}

// -----

func.func @perm_duplicate(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{perm is not a permutation of [0, 3)}}
  // expected-error @+1 {{'oneflow.transpose' op failed to infer returned types}}
  %0 = oneflow.transpose %x {perm = array<i64: 0, 0, 1>} : tensor<2x3x4xf32> -> tensor<2x2x3xf32>
  return
}

// -----

func.func @perm_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{perm is not a permutation of [0, 2)}}
  // expected-error @+1 {{'oneflow.transpose' op failed to infer returned types}}
  %0 = oneflow.transpose %x {perm = array<i64: 0, 2>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @perm_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{perm is not a permutation of [0, 2)}}
  // expected-error @+1 {{'oneflow.transpose' op failed to infer returned types}}
  %0 = oneflow.transpose %x {perm = array<i64: -1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

// The result of [1, 2, 0] is 3x4x2; 4x2x3 would be [2, 0, 1].
func.func @inverse_perm_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'oneflow.transpose' op inferred type(s) 'tensor<3x4x2xf32>' are incompatible with return type(s) of operation 'tensor<4x2x3xf32>'}}
  // expected-error @+1 {{'oneflow.transpose' op failed to infer returned types}}
  %0 = oneflow.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return
}

// -----

func.func @missing_perm(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'oneflow.transpose' op requires attribute 'perm'}}
  %0 = "oneflow.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}
