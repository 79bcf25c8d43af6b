// RUN: oneflow-opt %S/Inputs/more_ops.onnx | FileCheck %s

// ConvTranspose: explicit pads; output_shape (pads derived, the odd one at the
// start); 1-D lifted to 2-D with a unit height.
// CHECK: oneflow.conv_transpose2d %arg0, %{{.*}} {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x9x9xf32>
// CHECK: oneflow.conv_transpose2d %arg0, %{{.*}} {{{.*}}pads = array<i64: 1, 1, 0, 0>{{.*}} -> tensor<1x2x10x10xf32>
// CHECK: %[[SEQ:.*]] = oneflow.reshape %arg1 : tensor<1x4x6xf32> to tensor<1x4x1x6xf32>
// CHECK: %[[DECONV1D:.*]] = oneflow.conv_transpose2d %[[SEQ]], %{{.*}} {{{.*}}output_padding = array<i64: 0, 1>{{.*}}strides = array<i64: 1, 2>} {{.*}} -> tensor<1x3x1x14xf32>
// CHECK: oneflow.reshape %[[DECONV1D]] : tensor<1x3x1x14xf32> to tensor<1x3x14xf32>
// CHECK: oneflow.gather_elements %arg3, %arg2 : (tensor<3x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
// CHECK: oneflow.cumsum %arg3 {axis = 1 : i64, exclusive, reverse} : tensor<3x3xf32>
// CHECK: %values, %indices = oneflow.topk %arg3 {axis = 1 : i64, k = 2 : i64, smallest, sorted} : tensor<3x3xf32> -> tensor<3x2xf32>, tensor<3x2xi64>
// DepthToSpace (DCR, then CRD) and SpaceToDepth are reshape/transpose/reshape.
// CHECK: oneflow.reshape %arg0 : tensor<1x4x5x5xf32> to tensor<1x2x2x1x5x5xf32>
// CHECK-NEXT: oneflow.transpose {{.*}} {perm = array<i64: 0, 3, 4, 1, 5, 2>}
// CHECK-NEXT: oneflow.reshape {{.*}} to tensor<1x1x10x10xf32>
// CHECK: oneflow.reshape %arg0 : tensor<1x4x5x5xf32> to tensor<1x1x2x2x5x5xf32>
// CHECK-NEXT: oneflow.transpose {{.*}} {perm = array<i64: 0, 1, 4, 2, 5, 3>}
// CHECK: oneflow.transpose {{.*}} {perm = array<i64: 0, 3, 5, 1, 2, 4>}
// CHECK-NEXT: oneflow.reshape {{.*}} to tensor<1x16x3x3xf32>
// LRN: the windowed sum of squares over channels is an average pool.
// CHECK: oneflow.avg_pool2d {{.*}} {count_include_pad, kernel = array<i64: 3, 1>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 1>} : tensor<1x1x4x25xf32> -> tensor<1x1x4x25xf32>
// CHECK: oneflow.pow
// MeanVarianceNormalization over [0, 2, 3].
// CHECK: oneflow.reduce_mean %arg0 {axes = array<i64: 0, 2, 3>, keepdims}
// CHECK: oneflow.rsqrt
// CHECK: oneflow.asin
// CHECK: oneflow.acos
// CHECK: oneflow.atan %arg3
// Mod (fmod = 0) in f64: a - b * floor(a / b).
// CHECK: oneflow.floor {{.*}} : tensor<2x3xf64>
// CHECK: oneflow.cast {{.*}} : tensor<2x3xf64> to tensor<2x3xi64>
// Hardmax: one-hot of argmax.
// CHECK: oneflow.argmax %arg3 {axis = 1 : i64, keepdims}
// CHECK: oneflow.cast {{.*}} : tensor<3x3xi1> to tensor<3x3xf32>
// InstanceNormalization over the spatial axes, per-channel affine.
// CHECK: oneflow.reduce_mean %arg0 {axes = array<i64: 2, 3>, keepdims}
// OneHot: negative indices wrap, then compare with an iota.
// CHECK: oneflow.constant dense<{{\[\[\[}}0, 1, 2, 3, 4]]]> : tensor<1x1x5xi64>
// CHECK: oneflow.where {{.*}} -> tensor<2x3x5xf32>
