// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @gather_elements_rank(%d: tensor<3x4xf32>, %i: tensor<6xi64>) {
  // expected-error @+2 {{indices 'tensor<6xi64>' must have the rank of data 'tensor<3x4xf32>'}}
  // expected-error @+1 {{'oneflow.gather_elements' op failed to infer returned types}}
  %0 = oneflow.gather_elements %d, %i : (tensor<3x4xf32>, tensor<6xi64>) -> tensor<6xf32>
  return
}

// -----

func.func @gather_elements_too_wide(%d: tensor<3x4xf32>, %i: tensor<2x5xi64>) {
  // expected-error @+2 {{indices dimension 1 (5) exceeds the data's (4)}}
  // expected-error @+1 {{'oneflow.gather_elements' op failed to infer returned types}}
  %0 = oneflow.gather_elements %d, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x5xi64>) -> tensor<2x5xf32>
  return
}

// -----

func.func @gather_elements_axis(%d: tensor<3x4xf32>, %i: tensor<2x4xi64>) {
  // expected-error @+2 {{gather_elements axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'oneflow.gather_elements' op failed to infer returned types}}
  %0 = oneflow.gather_elements %d, %i {axis = 2 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @cumsum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = oneflow.cumsum %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @topk_k(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{k = 9 is out of range [0, 8]}}
  // expected-error @+1 {{'oneflow.topk' op failed to infer returned types}}
  %v, %i = oneflow.topk %x {axis = 1 : i64, k = 9 : i64} : tensor<2x8xf32> -> tensor<2x9xf32>, tensor<2x9xi64>
  return
}

// -----

func.func @topk_axis(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{topk axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'oneflow.topk' op failed to infer returned types}}
  %v, %i = oneflow.topk %x {axis = 2 : i64, k = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x8xi64>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{weight has 3 input channels but the input has 4}}
  // expected-error @+1 {{'oneflow.conv_transpose2d' op failed to infer returned types}}
  %0 = oneflow.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return
}

// -----

func.func @conv_transpose_pads(%x: tensor<1x4x1x1xf32>, %w: tensor<4x2x1x1xf32>) {
  // expected-error @+2 {{padding leaves no output along spatial dimension 0}}
  // expected-error @+1 {{'oneflow.conv_transpose2d' op failed to infer returned types}}
  %0 = oneflow.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return
}

// -----

func.func @conv_transpose_bias(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{conv_transpose2d bias must be [2] of 'f32', got 'tensor<4xf32>'}}
  // expected-error @+1 {{'oneflow.conv_transpose2d' op failed to infer returned types}}
  %0 = oneflow.conv_transpose2d %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x2x7x7xf32>
  return
}

// -----

func.func @conv_transpose_lists(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{'output_padding' must have 2 entries, got 1}}
  // expected-error @+1 {{'oneflow.conv_transpose2d' op failed to infer returned types}}
  %0 = oneflow.conv_transpose2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return
}
