// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @not_a_tensor() {
  // expected-error @+1 {{'oneflow.constant' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'vector<4xf32>'}}
  %0 = oneflow.constant dense<1.0> : vector<4xf32>
  return
}

// -----

func.func @unsupported_element_type() {
  // expected-error @+1 {{'oneflow.constant' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xi8>'}}
  %0 = oneflow.constant dense<1> : tensor<2xi8>
  return
}

// -----

func.func @scalar_value() {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %0 = oneflow.constant 1.0 : f32
  return
}

// -----

func.func @missing_value() {
  // expected-error @+1 {{'oneflow.constant' op requires attribute 'value'}}
  %0 = "oneflow.constant"() : () -> tensor<f32>
  return
}

// -----

func.func @value_type_mismatch() {
  // expected-error @+1 {{'oneflow.constant' op failed to verify that all of {value, output} have same type}}
  %0 = "oneflow.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @value_element_mismatch() {
  // expected-error @+1 {{'oneflow.constant' op failed to verify that all of {value, output} have same type}}
  %0 = "oneflow.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf16>
  return
}

// -----

func.func @operand(%x: tensor<2xf32>) {
  // expected-error @+1 {{'oneflow.constant' op requires zero operands}}
  %0 = "oneflow.constant"(%x) {value = dense<1.0> : tensor<2xf32>} : (tensor<2xf32>) -> tensor<2xf32>
  return
}
