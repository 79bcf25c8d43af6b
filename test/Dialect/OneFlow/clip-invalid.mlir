// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @min_exceeds_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.clip' op min 1.000000e+00 exceeds max 0.000000e+00}}
  %0 = oneflow.clip %x {min = 1.0, max = 0.0} : tensor<4xf32>
  return
}

// -----

func.func @min_exceeds_max_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{'oneflow.clip' op min -1.000000e+00 exceeds max -2.000000e+00}}
  %0 = oneflow.clip %x {min = -1.0, max = -2.0} : tensor<4xi64>
  return
}

// -----

func.func @clip_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'oneflow.clip' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = oneflow.clip %x {min = 0.0} : tensor<4xi1>
  return
}

// -----

func.func @clip_int_bound(%x: tensor<4xi32>) {
  // expected-error @+1 {{'oneflow.clip' op attribute 'max' failed to satisfy constraint: 64-bit float attribute}}
  %0 = "oneflow.clip"(%x) {max = 6 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return
}
