// RUN: oneflow-opt %s -emit-bytecode | oneflow-opt | FileCheck %s
// RUN: oneflow-opt %s --verify-roundtrip | FileCheck %s

// Every kind of oneflow property survives the bytecode round trip: enum
// attributes, unit attributes, i64 dense arrays, f64 and i64 attributes,
// optional attributes, symbol names, elements attributes, an optional
// operand and variadic operands and results.

// CHECK-LABEL: func @properties(
// CHECK:         oneflow.gelu %{{.*}} {approximate = #oneflow.gelu_approximation<tanh>} : tensor<2x8xf32>
// CHECK:         oneflow.matmul %{{.*}}, %{{.*}} {transpose_a, transpose_b} : (tensor<8x2xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
// CHECK:         oneflow.reduce_sum %{{.*}} {axes = array<i64: 0, 1>, keepdims} : tensor<2x8xf32> -> tensor<1x1xf32>
// CHECK:         oneflow.clip %{{.*}} {max = 6.000000e+00 : f64} : tensor<2x8xf32>
// CHECK:         oneflow.argmax %{{.*}} {axis = 1 : i64, select_last_index} : tensor<2x8xf32> -> tensor<2xi64>
// CHECK:         oneflow.variable @layer.w {initial_value = dense<{{\[}}[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>} : tensor<1x2xf32>
// CHECK:         oneflow.constant dense<[1, 2]> : tensor<2xi64>
// CHECK:         oneflow.conv2d %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x5x5xf32>
// CHECK:         oneflow.layer_norm %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK:         oneflow.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<6x8xf32>
// CHECK:         oneflow.split %{{.*}} {axis = 1 : i64, sizes = array<i64: 3, 5>} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x5xf32>
// CHECK:         oneflow.pad %{{.*}} {mode = #oneflow.pad_mode<edge>, pads = array<i64: 1, 0, 1, 0>} : tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK:         oneflow.softmax_cross_entropy %{{.*}}, %{{.*}} {ignore_index = -100 : i64, reduction = #oneflow.reduction<sum>} : (tensor<2x8xf32>, tensor<2xi64>) -> tensor<f32>
func.func @properties(%x: tensor<2x8xf32>, %a: tensor<8x2xf32>, %b: tensor<4x8xf32>, %img: tensor<1x4x5x5xf32>,
                      %w: tensor<6x2x3x3xf32>, %bias: tensor<6xf32>, %s: tensor<8xf32>, %labels: tensor<2xi64>) {
  %0 = oneflow.gelu %x {approximate = #oneflow.gelu_approximation<tanh>} : tensor<2x8xf32>
  %1 = oneflow.matmul %a, %b {transpose_a, transpose_b} : (tensor<8x2xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %2 = oneflow.reduce_sum %x {axes = array<i64: 0, 1>, keepdims} : tensor<2x8xf32> -> tensor<1x1xf32>
  %3 = oneflow.clip %x {max = 6.0} : tensor<2x8xf32>
  %4 = oneflow.argmax %x {axis = 1, select_last_index} : tensor<2x8xf32> -> tensor<2xi64>
  %5 = oneflow.variable @layer.w {initial_value = dense<[[1.0, 2.0]]> : tensor<1x2xf32>} : tensor<1x2xf32>
  %6 = oneflow.constant dense<[1, 2]> : tensor<2xi64>
  %7 = oneflow.conv2d %img, %w, %bias {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2} : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x5x5xf32>
  %8 = oneflow.layer_norm %x, %s {axis = 1} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %9 = oneflow.concat %x, %x, %x {axis = 0} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<6x8xf32>
  %10:2 = oneflow.split %x {axis = 1, sizes = array<i64: 3, 5>} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x5xf32>
  %11 = oneflow.pad %x {pads = array<i64: 1, 0, 1, 0>, mode = #oneflow.pad_mode<edge>} : tensor<2x8xf32> -> tensor<4x8xf32>
  %12 = oneflow.softmax_cross_entropy %x, %labels {reduction = #oneflow.reduction<sum>, ignore_index = -100} : (tensor<2x8xf32>, tensor<2xi64>) -> tensor<f32>
  return
}
