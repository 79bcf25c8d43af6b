// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @condition_not_bool(%c: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.where' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = oneflow.where %c, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @branch_types_differ(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'oneflow.where' op failed to verify that all of {on_true, on_false} have same element type}}
  %0 = oneflow.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @condition_not_broadcastable(%c: tensor<3xi1>, %x: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes are not broadcast-compatible}}
  // expected-error @+1 {{'oneflow.where' op failed to infer returned types}}
  %0 = oneflow.where %c, %x, %x : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// The condition takes part in the broadcast: 2x1 with 4 gives 2x4.
func.func @condition_broadcasts_result(%c: tensor<2x1xi1>, %x: tensor<4xf32>) {
  // expected-error @+2 {{'oneflow.where' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'oneflow.where' op failed to infer returned types}}
  %0 = oneflow.where %c, %x, %x : (tensor<2x1xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @result_element_type(%c: tensor<4xi1>, %x: tensor<4xi32>) {
  // expected-error @+2 {{'oneflow.where' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{'oneflow.where' op failed to infer returned types}}
  %0 = oneflow.where %c, %x, %x : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi64>
  return
}
