// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @mask_too_short(%x: tensor<8x64xf32>, %w: tensor<64x130xf32>, %b: tensor<130xf32>) {
  // expected-error @+1 {{keeps its relu aux as 'tensor<8x8xi32>', not 'tensor<8x4xi32>'}}
  %h, %mask = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x64xf32>, tensor<64x130xf32>, tensor<130xf32>) -> (tensor<8x130xf32>, tensor<8x4xi32>)
  return
}

// -----

func.func @gelu_unpadded(%x: tensor<8x64xf32>, %w: tensor<64x12xf32>, %b: tensor<12xf32>) {
  // expected-error @+1 {{keeps its gelu_tanh aux as 'tensor<8x16xf32>', not 'tensor<8x12xf32>'}}
  %h, %pre = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<gelu_tanh>} : (tensor<8x64xf32>, tensor<64x12xf32>, tensor<12xf32>) -> (tensor<8x12xf32>, tensor<8x12xf32>)
  return
}

// -----

func.func @bias_per_row(%x: tensor<8x64xf32>, %w: tensor<64x16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{adds a bias of 8 values to rows of 16}}
  %h, %pre = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<gelu_tanh>} : (tensor<8x64xf32>, tensor<64x16xf32>, tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return
}

// -----

func.func @inner_sizes(%dy: tensor<8x16xf32>, %w: tensor<15x128xf32>, %mask: tensor<8x4xi32>) {
  // expected-error @+1 {{multiplies op(a) with 16 columns by op(b) with 15 rows}}
  %dx = oneflow.matmul_act_grad %dy, %w, %mask {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<15x128xf32>, tensor<8x4xi32>) -> tensor<8x128xf32>
  return
}

// -----

func.func @transposed_result(%dy: tensor<8x16xf32>, %w: tensor<16x128xf32>, %mask: tensor<8x4xi32>) {
  // expected-error @+1 {{computes a 8x128 product, not 'tensor<128x8xf32>'}}
  %dx = oneflow.matmul_act_grad %dy, %w, %mask {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<16x128xf32>, tensor<8x4xi32>) -> tensor<128x8xf32>
  return
}

// -----

func.func @bias_gradient_length(%dy: tensor<8x16xf32>, %w: tensor<16x128xf32>, %mask: tensor<8x4xi32>) {
  // expected-error @+1 {{sums rows of 128 into a bias gradient of 'tensor<8xf32>'}}
  %dx, %db = oneflow.matmul_act_grad %dy, %w, %mask {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<16x128xf32>, tensor<8x4xi32>) -> (tensor<8x128xf32>, tensor<8xf32>)
  return
}

// -----

func.func @conv_epilogue_nchw_result(%x: tensor<1x8x8x16xf32>, %w: tensor<4x16x3x3xf32>) {
  // expected-error @+1 {{computes [1, 8, 8, 4], not 'tensor<1x4x8x8xf32>'}}
  %y = oneflow.conv2d_epilogue %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x16x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_epilogue_channels(%x: tensor<1x8x8x16xf32>, %w: tensor<4x8x3x3xf32>) {
  // expected-error @+1 {{input has 16 channels but weight expects 8 per group (1 groups)}}
  %y = oneflow.conv2d_epilogue %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x8x3x3xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_epilogue_broadcast_residual(%x: tensor<1x8x8x16xf32>, %w: tensor<4x16x1x1xf32>, %r: tensor<1x1x1x4xf32>) {
  // expected-error @+1 {{adds a residual of 'tensor<1x1x1x4xf32>' to 'tensor<1x8x8x4xf32>'}}
  %y = oneflow.conv2d_epilogue %x, %w residual %r {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x16x1x1xf32>, tensor<1x1x1x4xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_epilogue_bias(%x: tensor<1x8x8x16xf32>, %w: tensor<4x16x1x1xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{adds a bias of 'tensor<16xf32>' to 4 channels}}
  %y = oneflow.conv2d_epilogue %x, %w bias %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x16x1x1xf32>, tensor<16xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_epilogue_clip_bounds(%x: tensor<1x8x8x16xf32>, %w: tensor<4x16x1x1xf32>) {
  // expected-error @+1 {{takes clip_min and clip_max with a clip activation (both) and only then}}
  %y = oneflow.conv2d_epilogue %x, %w {activation = #oneflow.conv_activation<clip>, clip_max = 6.0 : f64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x16x1x1xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_epilogue_relu_bounds(%x: tensor<1x8x8x16xf32>, %w: tensor<4x16x1x1xf32>) {
  // expected-error @+1 {{takes clip_min and clip_max with a clip activation (both) and only then}}
  %y = oneflow.conv2d_epilogue %x, %w {activation = #oneflow.conv_activation<relu>, clip_min = 0.0 : f64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x16x1x1xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_epilogue_empty_clip(%x: tensor<1x8x8x16xf32>, %w: tensor<4x16x1x1xf32>) {
  // expected-error @+1 {{clips to an empty range [6.000000e+00, 0.000000e+00]}}
  %y = oneflow.conv2d_epilogue %x, %w {activation = #oneflow.conv_activation<clip>, clip_min = 6.0 : f64, clip_max = 0.0 : f64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x16x1x1xf32>) -> tensor<1x8x8x4xf32>
  return
}
