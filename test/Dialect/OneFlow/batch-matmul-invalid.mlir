// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @rank_1(%a: tensor<8xf32>, %b: tensor<8x5xf32>) {
  // expected-error @+2 {{batch_matmul operands must have rank >= 2}}
  // expected-error @+1 {{'oneflow.batch_matmul' op failed to infer returned types}}
  %0 = oneflow.batch_matmul %a, %b : (tensor<8xf32>, tensor<8x5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @batch_not_broadcastable(%a: tensor<2x4x8xf32>, %b: tensor<3x8x5xf32>) {
  // expected-error @+2 {{batch dimensions are not broadcast-compatible}}
  // expected-error @+1 {{'oneflow.batch_matmul' op failed to infer returned types}}
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @contraction_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<2x7x5xf32>) {
  // expected-error @+2 {{batch_matmul contraction sizes differ: 8 vs 7}}
  // expected-error @+1 {{'oneflow.batch_matmul' op failed to infer returned types}}
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x7x5xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @transpose_b_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<2x8x5xf32>) {
  // expected-error @+2 {{batch_matmul contraction sizes differ: 8 vs 5}}
  // expected-error @+1 {{'oneflow.batch_matmul' op failed to infer returned types}}
  %0 = oneflow.batch_matmul %a, %b {transpose_b} : (tensor<2x4x8xf32>, tensor<2x8x5xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// The broadcast batch is 2x3, not the batch of either operand.
func.func @batch_not_broadcast_in_result(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) {
  // expected-error @+2 {{'oneflow.batch_matmul' op inferred type(s) 'tensor<2x3x4x5xf32>' are incompatible with return type(s) of operation 'tensor<2x1x4x5xf32>'}}
  // expected-error @+1 {{'oneflow.batch_matmul' op failed to infer returned types}}
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x1x4x5xf32>
  return
}

// -----

func.func @element_mismatch(%a: tensor<2x4x8xbf16>, %b: tensor<2x8x5xf16>) {
  // expected-error @+1 {{'oneflow.batch_matmul' op failed to verify that all of {a, b, c} have same element type}}
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x4x8xbf16>, tensor<2x8x5xf16>) -> tensor<2x4x5xbf16>
  return
}
