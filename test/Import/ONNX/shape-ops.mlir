// RUN: oneflow-opt %S/Inputs/shape_ops.onnx | FileCheck %s --check-prefix=SHAPE
// RUN: oneflow-opt %S/Inputs/expand_pad_tile.onnx | FileCheck %s --check-prefix=EXPAND
// RUN: oneflow-opt %S/Inputs/slice_gather.onnx | FileCheck %s --check-prefix=SLICE

// Reshape resolves 0 (copy) and -1 (infer).
// SHAPE: oneflow.reshape %arg0 : tensor<2x3x4xf32> to tensor<2x12xf32>
// SHAPE: oneflow.reshape %arg0 : tensor<2x3x4xf32> to tensor<6x4xf32>
// SHAPE: oneflow.transpose %arg0 {perm = array<i64: 2, 0, 1>}
// The default perm reverses the dimensions.
// SHAPE: oneflow.transpose %arg0 {perm = array<i64: 2, 1, 0>}
// SHAPE: oneflow.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
// SHAPE: oneflow.concat %arg0, %arg0, %arg0 {axis = 2 : i64}
// SHAPE: oneflow.split %arg0 {axis = 1 : i64, sizes = array<i64: 1, 2>}
// An even split without sizes.
// SHAPE: oneflow.split %arg0 {axis = 2 : i64, sizes = array<i64: 2, 2>}
// Squeeze without axes removes every unit dimension.
// SHAPE: oneflow.squeeze %arg2 {axes = array<i64: 1, 3>} : tensor<2x1x4x1xf32> -> tensor<2x4xf32>
// SHAPE: oneflow.squeeze %arg2 {axes = array<i64: 1, 3>}
// SHAPE: oneflow.unsqueeze %arg0 {axes = array<i64: 0, 4>} : tensor<2x3x4xf32> -> tensor<1x2x3x4x1xf32>
// SHAPE: oneflow.flatten %arg0 {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
// SHAPE: oneflow.flatten %arg0 {axis = 0 : i64} : tensor<2x3x4xf32> -> tensor<1x24xf32>
// Identity returns its input.
// SHAPE: return {{.*}}, %arg0 :

// Expand broadcasts both ways: the input first gains leading unit dims.
// EXPAND: %[[R:.*]] = oneflow.reshape %arg1 : tensor<3x1xf32> to tensor<1x3x1xf32>
// EXPAND-NEXT: oneflow.expand %[[R]] : tensor<1x3x1xf32> to tensor<2x3x4xf32>
// EXPAND: oneflow.expand %arg1 : tensor<3x1xf32> to tensor<3x5xf32>
// EXPAND: oneflow.pad %arg0 {pads = array<i64: 0, 1, 2, 0, 1, 0>, value = 5.000000e-01 : f64} : tensor<2x3x4xf32> -> tensor<2x5x6xf32>
// EXPAND: oneflow.pad %arg2 {mode = #oneflow.pad_mode<reflect>, pads = array<i64: 1, 2, 1, 2>} : tensor<4x5xf32> -> tensor<6x9xf32>
// EXPAND: oneflow.pad %arg2 {mode = #oneflow.pad_mode<edge>
// EXPAND: oneflow.tile %arg0 {repeats = array<i64: 1, 2, 3>} : tensor<2x3x4xf32> -> tensor<2x6x12xf32>
// Trilu is a where on a constant mask: upper, then lower with k = -1.
// EXPAND: %[[UPPER:.*]] = oneflow.constant dense<{{\[}}[true, true, true, true, true], [false, true, true, true, true], [false, false, true, true, true], [false, false, false, true, true]]> : tensor<4x5xi1>
// EXPAND: oneflow.where %[[UPPER]], %arg2
// EXPAND: %[[LOWER:.*]] = oneflow.constant dense<{{\[}}[false, false, false, false, false], [true, false, false, false, false], [true, true, false, false, false], [true, true, true, false, false]]> : tensor<4x5xi1>
// EXPAND: oneflow.where %[[LOWER]], %arg2
// Inference Dropout is the identity.
// EXPAND: return {{.*}}, %arg0 :

// Slice bounds are clamped and normalized per dimension.
// SLICE: oneflow.slice %arg0 {limits = array<i64: 3, 6, 7>, starts = array<i64: 0, 0, 1>, steps = array<i64: 1, 1, 2>} : tensor<4x6x8xf32> -> tensor<3x6x3xf32>
// SLICE: oneflow.slice %arg0 {limits = array<i64: 4, -1, 8>, starts = array<i64: 0, 5, 0>, steps = array<i64: 1, -1, 1>} : tensor<4x6x8xf32> -> tensor<4x6x8xf32>
// SLICE: oneflow.slice %arg0 {limits = array<i64: 3, 5, 8>, starts = array<i64: 1, 2, 3>, steps = array<i64: 1, 1, 1>}
// SLICE: oneflow.slice %arg0 {limits = array<i64: 4, 6, 0>, starts = array<i64: 0, 0, 6>, steps = array<i64: 1, 1, -2>}
// SLICE: oneflow.gather %{{.*}}, %arg1 : (tensor<16x8xf32>, tensor<2x5xi64>) -> tensor<2x5x8xf32>
// SLICE: oneflow.gather %arg0, %{{.*}} {axis = 1 : i64} : (tensor<4x6x8xf32>, tensor<i64>) -> tensor<4x8xf32>
// Negative indices known at import time are made positive.
// SLICE: %[[IDX:.*]] = oneflow.constant dense<[7, 0]> : tensor<2xi64>
// SLICE: oneflow.gather %arg0, %[[IDX]] {axis = 2 : i64}
