// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @not_nchw(%x: tensor<64x112x112xf32>) {
  // expected-error @+2 {{expected an NCHW input, got 'tensor<64x112x112xf32>'}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<64x112x112xf32> -> tensor<64x56x56xf32>
  return
}

// -----

func.func @kernel_length(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'kernel' must have 2 entries, got 1}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @kernel_zero(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'kernel' entries must be >= 1, got 0}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 0, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @stride_negative(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'strides' entries must be >= 1, got -2}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: -2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @dilations_length(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'dilations' must have 2 entries, got 0}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64>} : tensor<1x1x8x8xf32> -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @window_too_big(%x: tensor<1x1x2x8xf32>) {
  // expected-error @+2 {{window of 3x3 does not fit the input 'tensor<1x1x2x8xf32>'}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x2x8xf32> -> tensor<1x1x1x6xf32>
  return
}

// -----

// An empty spatial dimension leaves no window even with ceil_mode.
func.func @empty_spatial(%x: tensor<1x1x0x8xf32>) {
  // expected-error @+2 {{window of 1x1 does not fit the input 'tensor<1x1x0x8xf32>'}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode} : tensor<1x1x0x8xf32> -> tensor<1x1x0x8xf32>
  return
}

// -----

// Regression: the dilated kernel extent overflowed int64_t.
func.func @dilation_overflow(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{window sizes overflow on input 'tensor<1x1x4x4xf32>'}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 9223372036854775807, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x1x3xf32>
  return
}

// -----

// Regression: wrapped pads made this look like a valid 1x3 output.
func.func @pads_overflow(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{window sizes overflow on input 'tensor<1x1x4x4xf32>'}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 9223372036854775807, 0, 9223372036854775807, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x1x3xf32>
  return
}

// -----

func.func @max_pool_wrong_result(%x: tensor<1x1x5x5xf32>) {
  // expected-error @+2 {{'oneflow.max_pool2d' op inferred type(s) 'tensor<1x1x2x2xf32>' are incompatible with return type(s) of operation 'tensor<1x1x3x3xf32>'}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x5x5xf32> -> tensor<1x1x3x3xf32>
  return
}

// -----

func.func @max_pool_int(%x: tensor<1x1x4x4xi32>) {
  // expected-error @+1 {{'oneflow.max_pool2d' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x1x4x4xi32>'}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xi32> -> tensor<1x1x2x2xi32>
  return
}

// -----

func.func @max_pool_result_type(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{'oneflow.max_pool2d' op inferred type(s) 'tensor<1x1x2x2xf32>' are incompatible with return type(s) of operation 'tensor<1x1x2x2xf16>'}}
  // expected-error @+1 {{'oneflow.max_pool2d' op failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf16>
  return
}

// -----

func.func @avg_pool_pads_length(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{'pads' must have 4 entries, got 2}}
  // expected-error @+1 {{'oneflow.avg_pool2d' op failed to infer returned types}}
  %0 = oneflow.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @avg_pool_pad_negative(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{'pads' entries must be >= 0, got -1}}
  // expected-error @+1 {{'oneflow.avg_pool2d' op failed to infer returned types}}
  %0 = oneflow.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, -1, 0>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @avg_pool_ceil_result(%x: tensor<1x1x5x5xf32>) {
  // expected-error @+2 {{'oneflow.avg_pool2d' op inferred type(s) 'tensor<1x1x3x3xf32>' are incompatible with return type(s) of operation 'tensor<1x1x2x2xf32>'}}
  // expected-error @+1 {{'oneflow.avg_pool2d' op failed to infer returned types}}
  %0 = oneflow.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode} : tensor<1x1x5x5xf32> -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @avg_pool_missing_kernel(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'oneflow.avg_pool2d' op requires attribute 'kernel'}}
  %0 = "oneflow.avg_pool2d"(%x) {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @global_avg_pool_rank(%x: tensor<8x512xf32>) {
  // expected-error @+2 {{expected an NCHW input, got 'tensor<8x512xf32>'}}
  // expected-error @+1 {{'oneflow.global_avg_pool2d' op failed to infer returned types}}
  %0 = oneflow.global_avg_pool2d %x : tensor<8x512xf32> -> tensor<8x512x1x1xf32>
  return
}

// -----

func.func @global_max_pool_result(%x: tensor<8x512x7x7xf32>) {
  // expected-error @+2 {{'oneflow.global_max_pool2d' op inferred type(s) 'tensor<8x512x1x1xf32>' are incompatible with return type(s) of operation 'tensor<8x512xf32>'}}
  // expected-error @+1 {{'oneflow.global_max_pool2d' op failed to infer returned types}}
  %0 = oneflow.global_max_pool2d %x : tensor<8x512x7x7xf32> -> tensor<8x512xf32>
  return
}

// -----

func.func @global_max_pool_int(%x: tensor<8x512x7x7xi64>) {
  // expected-error @+1 {{'oneflow.global_max_pool2d' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<8x512x7x7xi64>'}}
  %0 = oneflow.global_max_pool2d %x : tensor<8x512x7x7xi64> -> tensor<8x512x1x1xi64>
  return
}
