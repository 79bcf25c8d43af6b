// RUN: oneflow-opt %s | oneflow-opt | FileCheck %s

// The products with aux epilogues round-trip; the aux is the ReLU bit mask
// in i32 words (rows of n rounded up to 128 bits) or the GELU pre-activation
// (rows of n rounded up to 8 floats).
// CHECK-LABEL: func.func @relu
// CHECK: %{{.*}}, %[[MASK:.*]] = oneflow.matmul_act_aux %arg0, %arg1, %arg2 {activation = #oneflow.epilogue_activation<relu>, transpose_b} : (tensor<8x64xf32>, tensor<300x64xf32>, tensor<300xf32>) -> (tensor<8x300xf32>, tensor<8x12xi32>)
// CHECK: oneflow.matmul_act_grad %arg3, %arg4, %[[MASK]] {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<16x300xf32>, tensor<8x12xi32>) -> (tensor<8x300xf32>, tensor<300xf32>)
func.func @relu(%x: tensor<8x64xf32>, %w: tensor<300x64xf32>, %b: tensor<300xf32>, %dy: tensor<8x16xf32>, %w2: tensor<16x300xf32>) -> (tensor<8x300xf32>, tensor<8x300xf32>, tensor<300xf32>) {
  %h, %mask = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<relu>, transpose_b} : (tensor<8x64xf32>, tensor<300x64xf32>, tensor<300xf32>) -> (tensor<8x300xf32>, tensor<8x12xi32>)
  %dx, %db = oneflow.matmul_act_grad %dy, %w2, %mask {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<16x300xf32>, tensor<8x12xi32>) -> (tensor<8x300xf32>, tensor<300xf32>)
  return %h, %dx, %db : tensor<8x300xf32>, tensor<8x300xf32>, tensor<300xf32>
}

// CHECK-LABEL: func.func @gelu
// CHECK: oneflow.matmul_act_aux {{.*}} -> (tensor<8x300xf32>, tensor<8x304xf32>)
// CHECK: oneflow.matmul_act_grad {{.*}} -> tensor<8x300xf32>
func.func @gelu(%x: tensor<8x64xf32>, %w: tensor<64x300xf32>, %b: tensor<300xf32>, %dy: tensor<16x8xf32>, %w2: tensor<300x16xf32>) -> (tensor<8x300xf32>, tensor<8x300xf32>) {
  %h, %pre = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<gelu_tanh>} : (tensor<8x64xf32>, tensor<64x300xf32>, tensor<300xf32>) -> (tensor<8x300xf32>, tensor<8x304xf32>)
  %dx = oneflow.matmul_act_grad %dy, %w2, %pre {activation = #oneflow.epilogue_activation<gelu_tanh>, transpose_a, transpose_b} : (tensor<16x8xf32>, tensor<300x16xf32>, tensor<8x304xf32>) -> tensor<8x300xf32>
  return %h, %dx : tensor<8x300xf32>, tensor<8x300xf32>
}

// A channels-last conv with its residual and activation round-trips, with
// and without either; strided and grouped shapes check out.
// CHECK-LABEL: func.func @conv_epilogue
// CHECK: oneflow.conv2d_epilogue %arg0, %arg1 bias %arg2 residual %arg3 {activation = #oneflow.conv_activation<relu>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x8x8x16xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>, tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32>
// CHECK: oneflow.conv2d_epilogue %arg0, %arg4 {activation = #oneflow.conv_activation<clip>, clip_max = 6.000000e+00 : f64, clip_min = 0.000000e+00 : f64, dilations = array<i64: 1, 1>, groups = 16 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x8x16xf32>, tensor<16x1x3x3xf32>) -> tensor<2x4x4x16xf32>
// CHECK: oneflow.conv2d_epilogue %arg0, %arg1 residual %arg3 {dilations
func.func @conv_epilogue(%x: tensor<2x8x8x16xf32>, %w: tensor<16x16x3x3xf32>, %b: tensor<16xf32>, %r: tensor<2x8x8x16xf32>, %dw: tensor<16x1x3x3xf32>) -> (tensor<2x8x8x16xf32>, tensor<2x4x4x16xf32>, tensor<2x8x8x16xf32>) {
  %0 = oneflow.conv2d_epilogue %x, %w bias %b residual %r {activation = #oneflow.conv_activation<relu>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x8x8x16xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>, tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32>
  %1 = oneflow.conv2d_epilogue %x, %dw {activation = #oneflow.conv_activation<clip>, clip_min = 0.0 : f64, clip_max = 6.0 : f64, groups = 16 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x8x8x16xf32>, tensor<16x1x3x3xf32>) -> tensor<2x4x4x16xf32>
  %2 = oneflow.conv2d_epilogue %x, %w residual %r {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x8x8x16xf32>, tensor<16x16x3x3xf32>, tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32>
  return %0, %1, %2 : tensor<2x8x8x16xf32>, tensor<2x4x4x16xf32>, tensor<2x8x8x16xf32>
}
