// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

// Element type constraints of the unary ops.

func.func @relu_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'oneflow.relu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = oneflow.relu %x : tensor<4xi32>
  return
}

// -----

func.func @exp_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'oneflow.exp' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi1>'}}
  %0 = oneflow.exp %x : tensor<4xi1>
  return
}

// -----

func.func @gelu_i64(%x: tensor<4xi64>) {
  // expected-error @+1 {{'oneflow.gelu' op operand #0 must be statically shaped tensor of 16-bit float}}
  %0 = oneflow.gelu %x : tensor<4xi64>
  return
}

// -----

// i8 is not a oneflow element type.
func.func @neg_i8(%x: tensor<4xi8>) {
  // expected-error @+1 {{'oneflow.neg' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = oneflow.neg %x : tensor<4xi8>
  return
}

// -----

func.func @neg_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'oneflow.neg' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = oneflow.neg %x : tensor<4xi1>
  return
}

// -----

func.func @abs_unsigned(%x: tensor<4xui32>) {
  // expected-error @+1 {{'oneflow.abs' op operand #0 must be statically shaped tensor}}
  %0 = oneflow.abs %x : tensor<4xui32>
  return
}

// -----

func.func @not_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.not' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = oneflow.not %x : tensor<4xf32>
  return
}

// -----

func.func @sigmoid_dynamic(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'oneflow.sigmoid' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<?x4xf32>'}}
  %0 = oneflow.sigmoid %x : tensor<?x4xf32>
  return
}

// -----

// The custom form only parses ranked tensors; the generic form reaches the
// verifier.
func.func @tanh_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{custom op 'oneflow.tanh' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = oneflow.tanh %x : tensor<*xf32>
  return
}

// -----

func.func @tanh_unranked_generic(%x: tensor<*xf32>) {
  // expected-error @+1 {{'oneflow.tanh' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<*xf32>'}}
  %0 = "oneflow.tanh"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @sqrt_memref(%x: memref<4xf32>) {
  // expected-error @+1 {{'oneflow.sqrt' op operand #0 must be statically shaped tensor}}
  %0 = "oneflow.sqrt"(%x) : (memref<4xf32>) -> memref<4xf32>
  return
}

// -----

// Operand and result must have the same type (generic form, where the two
// can differ).
func.func @result_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.log' op requires the same type for all operands and results}}
  %0 = "oneflow.log"(%x) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @result_element_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.abs' op requires the same type for all operands and results}}
  %0 = "oneflow.abs"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @two_operands(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.cos' op requires a single operand}}
  %0 = "oneflow.cos"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @leaky_relu_alpha_f32(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.leaky_relu' op attribute 'alpha' failed to satisfy constraint: 64-bit float attribute}}
  %0 = "oneflow.leaky_relu"(%x) {alpha = 0.2 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @selu_gamma_int(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.selu' op attribute 'gamma' failed to satisfy constraint: 64-bit float attribute}}
  %0 = "oneflow.selu"(%x) {gamma = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gelu_bad_case(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::oneflow::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse OneFlow_GeluApproximationAttr parameter 'value'}}
  %0 = oneflow.gelu %x {approximate = #oneflow.gelu_approximation<erf>} : tensor<4xf32>
  return
}

// -----

// A loss reduction is not a gelu approximation.
func.func @gelu_wrong_enum(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.gelu' op attribute 'approximate' failed to satisfy constraint: how gelu is computed}}
  %0 = "oneflow.gelu"(%x) {approximate = #oneflow.reduction<mean>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gelu_int_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.gelu' op attribute 'approximate' failed to satisfy constraint: how gelu is computed}}
  %0 = "oneflow.gelu"(%x) {approximate = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
