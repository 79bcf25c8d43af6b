// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3xf32>) {
  // expected-error @+2 {{conv2d weight must be 4-D (OIHW)}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @input_rank(%x: tensor<3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{expected an NCHW input, got 'tensor<3x8x8xf32>'}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<16x6x6xf32>
  return
}

// -----

func.func @channel_mismatch(%x: tensor<1x4x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{input has 4 channels but weight expects 3 per group (1 groups)}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

// With 2 groups, the 8 input channels are 4 per group, not 2.
func.func @group_channel_mismatch(%x: tensor<1x8x5x5xf32>, %w: tensor<6x2x1x1xf32>) {
  // expected-error @+2 {{input has 8 channels but weight expects 2 per group (2 groups)}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2} : (tensor<1x8x5x5xf32>, tensor<6x2x1x1xf32>) -> tensor<1x6x5x5xf32>
  return
}

// -----

func.func @channels_not_divisible(%x: tensor<1x5x5x5xf32>, %w: tensor<4x2x1x1xf32>) {
  // expected-error @+2 {{input has 5 channels but weight expects 2 per group (2 groups)}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2} : (tensor<1x5x5x5xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x5x5xf32>
  return
}

// -----

// Regression: the channel check multiplied weight channels by groups, which
// wrapped to 0 here and accepted an input with 0 channels.
func.func @channel_check_overflow(%x: tensor<1x0x1x1xf32>, %w: tensor<4611686018427387904x4x1x1xf32>) {
  // expected-error @+2 {{input has 0 channels but weight expects 4 per group (4611686018427387904 groups)}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 4611686018427387904} : (tensor<1x0x1x1xf32>, tensor<4611686018427387904x4x1x1xf32>) -> tensor<1x4611686018427387904x1x1xf32>
  return
}

// -----

func.func @groups_not_dividing_outputs(%x: tensor<1x8x5x5xf32>, %w: tensor<6x2x1x1xf32>) {
  // expected-error @+2 {{groups (4) must divide the output channels (6)}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 4} : (tensor<1x8x5x5xf32>, tensor<6x2x1x1xf32>) -> tensor<1x6x5x5xf32>
  return
}

// -----

func.func @groups_zero(%x: tensor<1x8x5x5xf32>, %w: tensor<6x8x1x1xf32>) {
  // expected-error @+2 {{groups (0) must divide the output channels (6)}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 0} : (tensor<1x8x5x5xf32>, tensor<6x8x1x1xf32>) -> tensor<1x6x5x5xf32>
  return
}

// -----

func.func @groups_negative(%x: tensor<1x8x5x5xf32>, %w: tensor<6x8x1x1xf32>) {
  // expected-error @+2 {{groups (-2) must divide the output channels (6)}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = -2} : (tensor<1x8x5x5xf32>, tensor<6x8x1x1xf32>) -> tensor<1x6x5x5xf32>
  return
}

// -----

func.func @strides_length(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'strides' must have 2 entries, got 3}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @stride_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'strides' entries must be >= 1, got 0}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @pads_length(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'pads' must have 4 entries, got 2}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'pads' entries must be >= 0, got -1}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x5xf32>
  return
}

// -----

func.func @dilation_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'dilations' entries must be >= 1, got 0}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @empty_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x0x3xf32>) {
  // expected-error @+2 {{'kernel' entries must be >= 1, got 0}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x0x3xf32>) -> tensor<1x16x9x6xf32>
  return
}

// -----

func.func @kernel_too_big(%x: tensor<1x3x4x4xf32>, %w: tensor<16x3x5x5xf32>) {
  // expected-error @+2 {{window of 5x5 does not fit the input 'tensor<1x3x4x4xf32>'}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<16x3x5x5xf32>) -> tensor<1x16x1x1xf32>
  return
}

// -----

// 3x3 dilated by 2 spans 5 > 4.
func.func @dilated_kernel_too_big(%x: tensor<1x3x4x4xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{window of 3x3 does not fit the input 'tensor<1x3x4x4xf32>'}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x1x1xf32>
  return
}

// -----

// Regression: the padded size wrapped around and looked like a valid 1x4
// output.
func.func @pads_overflow(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x2x1xf32>) {
  // expected-error @+2 {{window sizes overflow on input 'tensor<1x1x4x4xf32>'}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 9223372036854775807, 0, 9223372036854775807, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x2x1xf32>) -> tensor<1x1x1x4xf32>
  return
}

// -----

func.func @wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'oneflow.conv2d' op inferred type(s) 'tensor<1x16x3x3xf32>' are incompatible with return type(s) of operation 'tensor<1x16x4x4xf32>'}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x4x4xf32>
  return
}

// -----

func.func @bias_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{conv2d bias must be [16] of 'f32', got 'tensor<8xf32>'}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<8xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @bias_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+2 {{conv2d bias must be [16] of 'f32', got 'tensor<1x16xf32>'}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<1x16xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

// Regression: the optional bias escaped the element type check.
func.func @bias_element_type(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf16>) {
  // expected-error @+2 {{conv2d bias must be [16] of 'f32', got 'tensor<16xf16>'}}
  // expected-error @+1 {{'oneflow.conv2d' op failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf16>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @element_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xbf16>) {
  // expected-error @+1 {{'oneflow.conv2d' op failed to verify that all of {x, weight, y} have same element type}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xbf16>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @integer_input(%x: tensor<1x3x8x8xi32>, %w: tensor<16x3x3x3xi32>) {
  // expected-error @+1 {{'oneflow.conv2d' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x3x8x8xi32>'}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xi32>, tensor<16x3x3x3xi32>) -> tensor<1x16x6x6xi32>
  return
}

// -----

func.func @missing_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'oneflow.conv2d' op requires attribute 'strides'}}
  %0 = oneflow.conv2d %x, %w {pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}
