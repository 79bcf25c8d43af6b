// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

// Broadcasting, element type and result type errors of the binary ops.

func.func @not_broadcastable(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'oneflow.add' op operands don't have broadcast-compatible shapes}}
  %0 = oneflow.add %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @not_broadcastable_leading(%a: tensor<2x4xi32>, %b: tensor<3x4xi32>) {
  // expected-error @+1 {{'oneflow.mul' op operands don't have broadcast-compatible shapes}}
  %0 = oneflow.mul %a, %b : (tensor<2x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
  return
}

// -----

func.func @element_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'oneflow.sub' op failed to verify that all of {lhs, rhs} have same element type}}
  %0 = oneflow.sub %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @int_width_mismatch(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{'oneflow.max' op failed to verify that all of {lhs, rhs} have same element type}}
  %0 = oneflow.max %a, %b : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

// The result shape is the broadcast shape, not something it broadcasts to.
func.func @result_too_big(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'oneflow.add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error @+1 {{'oneflow.add' op failed to infer returned types}}
  %0 = oneflow.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @result_not_broadcast(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.div' op result type '1' not broadcast compatible with broadcasted operands's shapes '4'}}
  %0 = oneflow.div %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @result_element_type(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'oneflow.pow' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'oneflow.pow' op failed to infer returned types}}
  %0 = oneflow.pow %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @arith_on_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{'oneflow.add' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = oneflow.add %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @rhs_dynamic(%a: tensor<4xf32>, %b: tensor<?xf32>) {
  // expected-error @+1 {{'oneflow.min' op operand #1 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<?xf32>'}}
  %0 = oneflow.min %a, %b : (tensor<4xf32>, tensor<?xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @logical_on_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.and' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = oneflow.and %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @logical_broadcast(%a: tensor<2xi1>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'oneflow.xor' op operands don't have broadcast-compatible shapes}}
  %0 = oneflow.xor %a, %b : (tensor<2xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

// Ordering comparisons are not defined on booleans.
func.func @less_on_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{'oneflow.less' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = oneflow.less %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_result_not_i1(%a: tensor<4xf32>) {
  // expected-error @+2 {{'oneflow.greater' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'oneflow.greater' op failed to infer returned types}}
  %0 = oneflow.greater %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_element_mismatch(%a: tensor<4xi32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.equal' op failed to verify that all of {lhs, rhs} have same element type}}
  %0 = oneflow.equal %a, %b : (tensor<4xi32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_shape(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+1 {{'oneflow.not_equal' op operands don't have broadcast-compatible shapes}}
  %0 = oneflow.not_equal %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @one_operand(%a: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.add' op expected 2 operands, but found 1}}
  %0 = "oneflow.add"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
