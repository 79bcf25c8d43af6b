// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{'oneflow.reduce_sum' op failed to infer returned types}}
  %0 = oneflow.reduce_sum %x {axes = array<i64: 2>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @axis_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction axis -1 is out of range [0, 2)}}
  // expected-error @+1 {{'oneflow.reduce_mean' op failed to infer returned types}}
  %0 = oneflow.reduce_mean %x {axes = array<i64: -1>} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @axes_unsorted(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{reduction axes must be sorted and distinct}}
  // expected-error @+1 {{'oneflow.reduce_max' op failed to infer returned types}}
  %0 = oneflow.reduce_max %x {axes = array<i64: 2, 0>} : tensor<2x3x4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @axes_duplicate(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{reduction axes must be sorted and distinct}}
  // expected-error @+1 {{'oneflow.reduce_min' op failed to infer returned types}}
  %0 = oneflow.reduce_min %x {axes = array<i64: 1, 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @scalar_axis(%x: tensor<f32>) {
  // expected-error @+2 {{reduction axis 0 is out of range [0, 0)}}
  // expected-error @+1 {{'oneflow.reduce_prod' op failed to infer returned types}}
  %0 = oneflow.reduce_prod %x {axes = array<i64: 0>} : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @keepdims_result(%x: tensor<64x10xf32>) {
  // expected-error @+2 {{'oneflow.reduce_sum' op inferred type(s) 'tensor<64x1xf32>' are incompatible with return type(s) of operation 'tensor<64xf32>'}}
  // expected-error @+1 {{'oneflow.reduce_sum' op failed to infer returned types}}
  %0 = oneflow.reduce_sum %x {axes = array<i64: 1>, keepdims} : tensor<64x10xf32> -> tensor<64xf32>
  return
}

// -----

func.func @no_keepdims_result(%x: tensor<64x10xf32>) {
  // expected-error @+2 {{'oneflow.reduce_sum' op inferred type(s) 'tensor<64xf32>' are incompatible with return type(s) of operation 'tensor<64x1xf32>'}}
  // expected-error @+1 {{'oneflow.reduce_sum' op failed to infer returned types}}
  %0 = oneflow.reduce_sum %x {axes = array<i64: 1>} : tensor<64x10xf32> -> tensor<64x1xf32>
  return
}

// -----

// Reductions keep the element type (no accumulation type promotion).
func.func @result_element_type(%x: tensor<4xi32>) {
  // expected-error @+2 {{'oneflow.reduce_sum' op inferred type(s) 'tensor<i32>' are incompatible with return type(s) of operation 'tensor<i64>'}}
  // expected-error @+1 {{'oneflow.reduce_sum' op failed to infer returned types}}
  %0 = oneflow.reduce_sum %x {axes = array<i64: 0>} : tensor<4xi32> -> tensor<i64>
  return
}

// -----

func.func @bool_input(%x: tensor<4xi1>) {
  // expected-error @+1 {{'oneflow.reduce_max' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = oneflow.reduce_max %x {axes = array<i64: 0>} : tensor<4xi1> -> tensor<i1>
  return
}

// -----

func.func @axes_not_dense_array(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.reduce_sum' op attribute 'axes' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "oneflow.reduce_sum"(%x) {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @axes_i32_array(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.reduce_sum' op attribute 'axes' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "oneflow.reduce_sum"(%x) {axes = array<i32: 0>} : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @missing_axes(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.reduce_mean' op requires attribute 'axes'}}
  %0 = "oneflow.reduce_mean"(%x) : (tensor<4xf32>) -> tensor<f32>
  return
}
