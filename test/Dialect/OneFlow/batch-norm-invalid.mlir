// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @param_size(%x: tensor<2x3x4x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm' op scale, bias and statistics must be [3], got 'tensor<4xf32>'}}
  %0 = oneflow.batch_norm %x, %p, %p, %p, %p : tensor<2x3x4x4xf32>, tensor<4xf32>
  return
}

// -----

// The parameters are per channel (axis 1), not per feature of the last axis.
func.func @param_last_axis(%x: tensor<2x3x5xf32>, %p: tensor<5xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm' op scale, bias and statistics must be [3], got 'tensor<5xf32>'}}
  %0 = oneflow.batch_norm %x, %p, %p, %p, %p : tensor<2x3x5xf32>, tensor<5xf32>
  return
}

// -----

func.func @param_rank(%x: tensor<2x3x4x4xf32>, %p: tensor<3x1xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm' op scale, bias and statistics must be [3], got 'tensor<3x1xf32>'}}
  %0 = oneflow.batch_norm %x, %p, %p, %p, %p : tensor<2x3x4x4xf32>, tensor<3x1xf32>
  return
}

// -----

func.func @input_rank(%x: tensor<3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm' op input must have rank >= 2 (N, C, ...)}}
  %0 = oneflow.batch_norm %x, %p, %p, %p, %p : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

// All four parameters share one type (generic form, where they can differ).
func.func @params_differ(%x: tensor<2x3xf32>, %p: tensor<3xf32>, %q: tensor<3xf16>) {
  // expected-error @+1 {{'oneflow.batch_norm' op failed to verify that all of {scale, bias, mean, variance} have same type}}
  %0 = "oneflow.batch_norm"(%x, %p, %p, %q, %p) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf16>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @result_type(%x: tensor<2x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm' op failed to verify that all of {x, y} have same type}}
  %0 = "oneflow.batch_norm"(%x, %p, %p, %p, %p) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf16>
  return
}

// -----

func.func @integer_input(%x: tensor<2x3xi32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2x3xi32>'}}
  %0 = oneflow.batch_norm %x, %p, %p, %p, %p : tensor<2x3xi32>, tensor<3xf32>
  return
}

// -----

func.func @epsilon_type(%x: tensor<2x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm' op attribute 'epsilon' failed to satisfy constraint: 64-bit float attribute}}
  %0 = "oneflow.batch_norm"(%x, %p, %p, %p, %p) {epsilon = 1.0e-5 : f32} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @train_param_size(%x: tensor<2x3x4x4xf32>, %p: tensor<2xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm_train' op scale, bias and statistics must be [3], got 'tensor<2xf32>'}}
  %0:5 = oneflow.batch_norm_train %x, %p, %p, %p, %p : tensor<2x3x4x4xf32>, tensor<2xf32>
  return
}

// -----

func.func @train_input_rank(%x: tensor<f32>, %p: tensor<1xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm_train' op input must have rank >= 2 (N, C, ...)}}
  %0:5 = oneflow.batch_norm_train %x, %p, %p, %p, %p : tensor<f32>, tensor<1xf32>
  return
}

// -----

// The new statistics must have the parameters' type.
func.func @train_stat_type(%x: tensor<2x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm_train' op failed to verify that all of {scale, bias, running_mean, running_variance, new_running_mean, new_running_variance, saved_mean, saved_inv_std} have same type}}
  %0:5 = "oneflow.batch_norm_train"(%x, %p, %p, %p, %p) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3xf32>)
  return
}

// -----

func.func @train_result_count(%x: tensor<2x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm_train' op expected 5 results}}
  %0 = "oneflow.batch_norm_train"(%x, %p, %p, %p, %p) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}
