// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @shape_change(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.cast' op cast must keep the shape: 'tensor<4xf32>' vs 'tensor<2x2xf16>'}}
  %0 = oneflow.cast %x : tensor<4xf32> to tensor<2x2xf16>
  return
}

// -----

func.func @rank_change(%x: tensor<1xf32>) {
  // expected-error @+1 {{'oneflow.cast' op cast must keep the shape: 'tensor<1xf32>' vs 'tensor<f32>'}}
  %0 = oneflow.cast %x : tensor<1xf32> to tensor<f32>
  return
}

// -----

func.func @to_unsupported(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.cast' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = oneflow.cast %x : tensor<4xf32> to tensor<4xi8>
  return
}

// -----

func.func @from_unsupported(%x: tensor<4xf8E4M3FN>) {
  // expected-error @+1 {{'oneflow.cast' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf8E4M3FN>'}}
  %0 = oneflow.cast %x : tensor<4xf8E4M3FN> to tensor<4xf32>
  return
}

// -----

func.func @to_dynamic(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.cast' op result #0 must be statically shaped tensor}}
  %0 = oneflow.cast %x : tensor<4xf32> to tensor<?xf16>
  return
}
