// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @contraction_mismatch(%a: tensor<4x8xf32>, %b: tensor<7x5xf32>) {
  // expected-error @+2 {{matmul contraction sizes differ: 8 vs 7}}
  // expected-error @+1 {{'oneflow.matmul' op failed to infer returned types}}
  %0 = oneflow.matmul %a, %b : (tensor<4x8xf32>, tensor<7x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

// Without transpose_b, b = 512x784 contracts 512 against a's 784.
func.func @missing_transpose(%a: tensor<64x784xf32>, %b: tensor<512x784xf32>) {
  // expected-error @+2 {{matmul contraction sizes differ: 784 vs 512}}
  // expected-error @+1 {{'oneflow.matmul' op failed to infer returned types}}
  %0 = oneflow.matmul %a, %b : (tensor<64x784xf32>, tensor<512x784xf32>) -> tensor<64x512xf32>
  return
}

// -----

func.func @transpose_a_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>) {
  // expected-error @+2 {{matmul contraction sizes differ: 4 vs 8}}
  // expected-error @+1 {{'oneflow.matmul' op failed to infer returned types}}
  %0 = oneflow.matmul %a, %b {transpose_a} : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<8x5xf32>
  return
}

// -----

func.func @rank_3(%a: tensor<2x4x8xf32>, %b: tensor<8x5xf32>) {
  // expected-error @+2 {{matmul operands must be 2-D, got 'tensor<2x4x8xf32>' and 'tensor<8x5xf32>'}}
  // expected-error @+1 {{'oneflow.matmul' op failed to infer returned types}}
  %0 = oneflow.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @rank_1(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{matmul operands must be 2-D, got 'tensor<4x8xf32>' and 'tensor<8xf32>'}}
  // expected-error @+1 {{'oneflow.matmul' op failed to infer returned types}}
  %0 = oneflow.matmul %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @wrong_result_shape(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>) {
  // expected-error @+2 {{'oneflow.matmul' op inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<5x4xf32>'}}
  // expected-error @+1 {{'oneflow.matmul' op failed to infer returned types}}
  %0 = oneflow.matmul %a, %b : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<5x4xf32>
  return
}

// -----

func.func @element_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x5xf16>) {
  // expected-error @+1 {{'oneflow.matmul' op failed to verify that all of {a, b, c} have same element type}}
  %0 = oneflow.matmul %a, %b : (tensor<4x8xf32>, tensor<8x5xf16>) -> tensor<4x5xf32>
  return
}

// -----

// The result is not promoted: it has the operands' element type.
func.func @result_element_mismatch(%a: tensor<4x8xi32>, %b: tensor<8x5xi32>) {
  // expected-error @+1 {{'oneflow.matmul' op failed to verify that all of {a, b, c} have same element type}}
  %0 = oneflow.matmul %a, %b : (tensor<4x8xi32>, tensor<8x5xi32>) -> tensor<4x5xi64>
  return
}

// -----

func.func @bool(%a: tensor<4x8xi1>, %b: tensor<8x5xi1>) {
  // expected-error @+1 {{'oneflow.matmul' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xi1>'}}
  %0 = oneflow.matmul %a, %b : (tensor<4x8xi1>, tensor<8x5xi1>) -> tensor<4x5xi1>
  return
}

// -----

func.func @transpose_flag_not_unit(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>) {
  // expected-error @+1 {{'oneflow.matmul' op attribute 'transpose_a' failed to satisfy constraint: unit attribute}}
  %0 = "oneflow.matmul"(%a, %b) {transpose_a = true} : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  return
}
