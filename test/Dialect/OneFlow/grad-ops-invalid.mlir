// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @conv_dy_shape(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x16x8x8xf32>) {
  // expected-error @+1 {{'oneflow.conv2d_grad_filter' op dy type 'tensor<2x16x8x8xf32>' does not match the conv2d(x, dweight) output shape [2, 16, 4, 4]}}
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x16x8x8xf32>) -> tensor<16x3x3x3xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x16x6x6xf32>) {
  // expected-error @+1 {{'oneflow.conv2d_grad_filter' op as conv2d(x, dweight): input has 4 channels but weight expects 3 per group (1 groups)}}
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<2x16x6x6xf32>) -> tensor<16x3x3x3xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x6x6x6xf32>) {
  // expected-error @+1 {{'oneflow.conv2d_grad_filter' op as conv2d(x, dweight): groups (4) must divide the output channels (6)}}
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<2x4x8x8xf32>, tensor<2x6x6x6xf32>) -> tensor<6x1x3x3xf32>
  return
}

// -----

func.func @conv_strides(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x16x6x6xf32>) {
  // expected-error @+1 {{'oneflow.conv2d_grad_filter' op as conv2d(x, dweight): 'strides' must have 2 entries, got 1}}
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x16x6x6xf32>) -> tensor<16x3x3x3xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x16x6x6xf32>) {
  // expected-error @+1 {{'oneflow.conv2d_grad_filter' op as conv2d(x, dweight): conv2d weight must be 4-D (OIHW)}}
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x16x6x6xf32>) -> tensor<16x27xf32>
  return
}

// -----

func.func @conv_element_type(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x16x6x6xf64>) {
  // expected-error @+1 {{'oneflow.conv2d_grad_filter' op failed to verify that all of {x, dy, dweight} have same element type}}
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x16x6x6xf64>) -> tensor<16x3x3x3xf32>
  return
}

// -----

func.func @max_pool_dy_shape(%x: tensor<1x2x5x5xf32>, %dy: tensor<1x2x3x3xf32>) {
  // Without ceil_mode 5x5 pools to 2x2.
  // expected-error @+1 {{'oneflow.max_pool2d_grad' op dy type 'tensor<1x2x3x3xf32>' does not match the max_pool2d(x) output shape [1, 2, 2, 2]}}
  %0 = oneflow.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return
}

// -----

func.func @max_pool_window(%x: tensor<1x2x2x2xf32>, %dy: tensor<1x2x1x1xf32>) {
  // expected-error @+1 {{'oneflow.max_pool2d_grad' op as max_pool2d(x): window of 3x3 does not fit the input 'tensor<1x2x2x2xf32>'}}
  %0 = oneflow.max_pool2d_grad %x, %dy {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @max_pool_dx_type(%x: tensor<1x2x4x4xf32>, %dy: tensor<1x2x2x2xf32>) {
  // expected-error @+1 {{'oneflow.max_pool2d_grad' op failed to verify that all of {x, dx} have same type}}
  %0 = oneflow.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x5xf32>
  return
}

// -----

func.func @avg_pool_dy_shape(%dy: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'oneflow.avg_pool2d_grad' op dy type 'tensor<1x2x4x4xf32>' does not match the avg_pool2d(dx) output shape [1, 2, 3, 3]}}
  %0 = oneflow.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x2x4x4xf32> -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @avg_pool_pads(%dy: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'oneflow.avg_pool2d_grad' op as avg_pool2d(dx): 'pads' entries must be >= 0, got -1}}
  %0 = oneflow.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: -1, 0, 0, 0>} : tensor<1x2x4x4xf32> -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @avg_pool_rank(%dy: tensor<2x4x4xf32>) {
  // expected-error @+1 {{'oneflow.avg_pool2d_grad' op as avg_pool2d(dx): expected an NCHW input, got 'tensor<2x8x8xf32>'}}
  %0 = oneflow.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<2x4x4xf32> -> tensor<2x8x8xf32>
  return
}

// -----

func.func @gather_dy_shape(%i: tensor<4x7xi64>, %dy: tensor<4x16xf32>) {
  // expected-error @+1 {{'oneflow.gather_grad' op dy type 'tensor<4x16xf32>' does not match the gather(ddata, indices) output shape [4, 7, 16]}}
  %0 = oneflow.gather_grad %i, %dy : (tensor<4x7xi64>, tensor<4x16xf32>) -> tensor<100x16xf32>
  return
}

// -----

func.func @gather_axis(%i: tensor<4xi64>, %dy: tensor<4x16xf32>) {
  // expected-error @+1 {{'oneflow.gather_grad' op as gather(ddata, indices): gather axis 2 is out of range for rank 2}}
  %0 = oneflow.gather_grad %i, %dy {axis = 2 : i64} : (tensor<4xi64>, tensor<4x16xf32>) -> tensor<100x16xf32>
  return
}

// -----

func.func @gather_elements_rank(%i: tensor<6xi64>, %dy: tensor<6xf32>) {
  // expected-error @+1 {{'oneflow.gather_elements_grad' op as gather_elements(ddata, indices): indices 'tensor<6xi64>' must have the rank of data 'tensor<3x4xf32>'}}
  %0 = oneflow.gather_elements_grad %i, %dy : (tensor<6xi64>, tensor<6xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_elements_extent(%i: tensor<4x2xi64>, %dy: tensor<4x2xf32>) {
  // expected-error @+1 {{'oneflow.gather_elements_grad' op as gather_elements(ddata, indices): indices dimension 0 (4) exceeds the data's (3)}}
  %0 = oneflow.gather_elements_grad %i, %dy {axis = 1 : i64} : (tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_elements_dy(%i: tensor<2x2xi64>, %dy: tensor<2x3xf32>) {
  // expected-error @+1 {{'oneflow.gather_elements_grad' op dy type 'tensor<2x3xf32>' does not match the gather_elements(ddata, indices) output shape [2, 2]}}
  %0 = oneflow.gather_elements_grad %i, %dy : (tensor<2x2xi64>, tensor<2x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @slice_dy_shape(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{'oneflow.slice_grad' op dy type 'tensor<2x4xf32>' does not match the slice(dx) output shape [2, 3]}}
  %0 = oneflow.slice_grad %dy {starts = array<i64: 0, 1>, limits = array<i64: 4, 7>, steps = array<i64: 2, 2>} : tensor<2x4xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_bounds(%dy: tensor<2x3xf32>) {
  // expected-error @+1 {{'oneflow.slice_grad' op as slice(dx): invalid slice [1:9:2] of dimension 1 of size 8}}
  %0 = oneflow.slice_grad %dy {starts = array<i64: 0, 1>, limits = array<i64: 4, 9>, steps = array<i64: 2, 2>} : tensor<2x3xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_entries(%dy: tensor<2x3xf32>) {
  // expected-error @+1 {{'oneflow.slice_grad' op as slice(dx): starts, limits and steps need one entry per dimension (2)}}
  %0 = oneflow.slice_grad %dy {starts = array<i64: 0>, limits = array<i64: 4>, steps = array<i64: 2>} : tensor<2x3xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @ce_labels(%logits: tensor<4x10xf32>, %labels: tensor<5xi64>, %dloss: tensor<5xf32>) {
  // expected-error @+1 {{'oneflow.softmax_cross_entropy_grad' op labels 'tensor<5xi64>' must have the shape of logits 'tensor<4x10xf32>' without its class axis}}
  %0 = oneflow.softmax_cross_entropy_grad %logits, %labels, %dloss : (tensor<4x10xf32>, tensor<5xi64>, tensor<5xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @ce_dloss_shape(%logits: tensor<4x10xf32>, %labels: tensor<4xi64>, %dloss: tensor<f32>) {
  // expected-error @+1 {{'oneflow.softmax_cross_entropy_grad' op dloss must have the labels' shape and the logits' element type, got 'tensor<f32>'}}
  %0 = oneflow.softmax_cross_entropy_grad %logits, %labels, %dloss : (tensor<4x10xf32>, tensor<4xi64>, tensor<f32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @ce_dloss_type(%logits: tensor<4x10xf32>, %labels: tensor<4xi64>, %dloss: tensor<4xf64>) {
  // expected-error @+1 {{'oneflow.softmax_cross_entropy_grad' op dloss must have the labels' shape and the logits' element type, got 'tensor<4xf64>'}}
  %0 = oneflow.softmax_cross_entropy_grad %logits, %labels, %dloss : (tensor<4x10xf32>, tensor<4xi64>, tensor<4xf64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<2x5x8xf32>, %s: tensor<5x8xf32>, %dy: tensor<2x5x8xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm_grad' op scale must have the normalized shape [8] and the element type of x, got 'tensor<5x8xf32>'}}
  %dx, %ds, %db = oneflow.layer_norm_grad %x, %s, %dy {axis = 2 : i64} : tensor<2x5x8xf32>, tensor<5x8xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>, %dy: tensor<2x5x8xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm_grad' op axis 3 is out of range for rank 3}}
  %dx, %ds, %db = oneflow.layer_norm_grad %x, %s, %dy {axis = 3 : i64} : tensor<2x5x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>, %dy: tensor<2x5x8xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm_grad' op epsilon must be >= 0, got -1}}
  %dx, %ds, %db = oneflow.layer_norm_grad %x, %s, %dy {axis = 2 : i64, epsilon = -1.0 : f64} : tensor<2x5x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_element(%x: tensor<2x5x8xf32>, %s: tensor<8xf64>, %dy: tensor<2x5x8xf32>) {
  // expected-error @+1 {{'oneflow.layer_norm_grad' op scale must have the normalized shape [8] and the element type of x, got 'tensor<8xf64>'}}
  %dx, %ds, %db = oneflow.layer_norm_grad %x, %s, %dy {axis = 2 : i64} : tensor<2x5x8xf32>, tensor<8xf64>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<4x3x5x5xf32>, %s: tensor<4xf32>, %dy: tensor<4x3x5x5xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm_grad' op scale, bias and statistics must be [3], got 'tensor<4xf32>'}}
  %dx, %ds, %db = oneflow.batch_norm_grad %x, %s, %s, %s, %dy : tensor<4x3x5x5xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<4xf32>, %s: tensor<4xf32>, %dy: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm_grad' op input must have rank >= 2 (N, C, ...)}}
  %dx, %ds, %db = oneflow.batch_norm_grad %x, %s, %s, %s, %dy : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_element(%x: tensor<4x3xf32>, %s: tensor<3xf64>, %dy: tensor<4x3xf32>) {
  // expected-error @+1 {{'oneflow.batch_norm_grad' op scale and statistics must have the element type of x, got 'tensor<3xf64>'}}
  %dx, %ds, %db = oneflow.batch_norm_grad %x, %s, %s, %s, %dy : tensor<4x3xf32>, tensor<3xf64>
  return
}
