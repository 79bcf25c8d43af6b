// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @label_shape(%l: tensor<64x10xf32>, %y: tensor<32xi64>) {
  // expected-error @+2 {{labels 'tensor<32xi64>' must have the shape of logits 'tensor<64x10xf32>' without its class axis}}
  // expected-error @+1 {{'oneflow.softmax_cross_entropy' op failed to infer returned types}}
  %0 = oneflow.softmax_cross_entropy %l, %y : (tensor<64x10xf32>, tensor<32xi64>) -> tensor<f32>
  return
}

// -----

// One-hot (or probability) labels are not class indices.
func.func @label_one_hot(%l: tensor<64x10xf32>, %y: tensor<64x10xi64>) {
  // expected-error @+2 {{labels 'tensor<64x10xi64>' must have the shape of logits 'tensor<64x10xf32>' without its class axis}}
  // expected-error @+1 {{'oneflow.softmax_cross_entropy' op failed to infer returned types}}
  %0 = oneflow.softmax_cross_entropy %l, %y : (tensor<64x10xf32>, tensor<64x10xi64>) -> tensor<f32>
  return
}

// -----

func.func @scalar_logits(%l: tensor<f32>, %y: tensor<i64>) {
  // expected-error @+2 {{labels 'tensor<i64>' must have the shape of logits 'tensor<f32>' without its class axis}}
  // expected-error @+1 {{'oneflow.softmax_cross_entropy' op failed to infer returned types}}
  %0 = oneflow.softmax_cross_entropy %l, %y : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @float_labels(%l: tensor<64x10xf32>, %y: tensor<64xf32>) {
  // expected-error @+1 {{'oneflow.softmax_cross_entropy' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<64xf32>'}}
  %0 = oneflow.softmax_cross_entropy %l, %y : (tensor<64x10xf32>, tensor<64xf32>) -> tensor<f32>
  return
}

// -----

func.func @integer_logits(%l: tensor<64x10xi32>, %y: tensor<64xi64>) {
  // expected-error @+1 {{'oneflow.softmax_cross_entropy' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<64x10xi32>'}}
  %0 = oneflow.softmax_cross_entropy %l, %y : (tensor<64x10xi32>, tensor<64xi64>) -> tensor<i32>
  return
}

// -----

func.func @none_reduction_result(%l: tensor<64x10xf32>, %y: tensor<64xi64>) {
  // expected-error @+2 {{'oneflow.softmax_cross_entropy' op inferred type(s) 'tensor<64xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'oneflow.softmax_cross_entropy' op failed to infer returned types}}
  %0 = oneflow.softmax_cross_entropy %l, %y {reduction = #oneflow.reduction<none>} : (tensor<64x10xf32>, tensor<64xi64>) -> tensor<f32>
  return
}

// -----

func.func @mean_reduction_result(%l: tensor<64x10xf32>, %y: tensor<64xi64>) {
  // expected-error @+2 {{'oneflow.softmax_cross_entropy' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<64xf32>'}}
  // expected-error @+1 {{'oneflow.softmax_cross_entropy' op failed to infer returned types}}
  %0 = oneflow.softmax_cross_entropy %l, %y : (tensor<64x10xf32>, tensor<64xi64>) -> tensor<64xf32>
  return
}

// -----

func.func @ignore_index_type(%l: tensor<64x10xf32>, %y: tensor<64xi64>) {
  // expected-error @+1 {{'oneflow.softmax_cross_entropy' op attribute 'ignore_index' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "oneflow.softmax_cross_entropy"(%l, %y) {ignore_index = -100 : i32} : (tensor<64x10xf32>, tensor<64xi64>) -> tensor<f32>
  return
}

// -----

func.func @reduction_unknown(%l: tensor<64x10xf32>, %y: tensor<64xi64>) {
  // expected-error @+2 {{expected ::mlir::oneflow::LossReduction to be one of: none, mean, sum}}
  // expected-error @+1 {{failed to parse OneFlow_LossReductionAttr parameter 'value'}}
  %0 = oneflow.softmax_cross_entropy %l, %y {reduction = #oneflow.reduction<max>} : (tensor<64x10xf32>, tensor<64xi64>) -> tensor<f32>
  return
}

// -----

func.func @mse_shape_mismatch(%x: tensor<8x3xf32>, %t: tensor<8x1xf32>) {
  // expected-error @+1 {{'oneflow.mse_loss' op failed to verify that all of {input, target} have same type}}
  %0 = oneflow.mse_loss %x, %t : (tensor<8x3xf32>, tensor<8x1xf32>) -> tensor<f32>
  return
}

// -----

func.func @mse_type_mismatch(%x: tensor<8xf32>, %t: tensor<8xf16>) {
  // expected-error @+1 {{'oneflow.mse_loss' op failed to verify that all of {input, target} have same type}}
  %0 = oneflow.mse_loss %x, %t : (tensor<8xf32>, tensor<8xf16>) -> tensor<f32>
  return
}

// -----

func.func @mse_none_result(%x: tensor<8xf32>) {
  // expected-error @+2 {{'oneflow.mse_loss' op inferred type(s) 'tensor<8xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'oneflow.mse_loss' op failed to infer returned types}}
  %0 = oneflow.mse_loss %x, %x {reduction = #oneflow.reduction<none>} : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return
}

// -----

func.func @mse_integer(%x: tensor<8xi32>) {
  // expected-error @+1 {{'oneflow.mse_loss' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<8xi32>'}}
  %0 = oneflow.mse_loss %x, %x : (tensor<8xi32>, tensor<8xi32>) -> tensor<i32>
  return
}
