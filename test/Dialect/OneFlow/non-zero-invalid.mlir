// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @too_many_dims(%x: tensor<1x1x1x1x1x1x1x1x2xf64>) {
  // expected-error @+2 {{non_zero takes tensors of rank up to 8, not 9}}
  // expected-error @+1 {{'oneflow.non_zero' op failed to infer returned types}}
  %y, %n = oneflow.non_zero %x : tensor<1x1x1x1x1x1x1x1x2xf64> -> tensor<9x2xi64>, tensor<i64>
  return
}

// -----

func.func @not_f64(%x: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 64-bit float values}}
  %y, %n = oneflow.non_zero %x : tensor<3xf32> -> tensor<1x3xi64>, tensor<i64>
  return
}
