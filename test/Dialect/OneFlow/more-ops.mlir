// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @trig
// CHECK: oneflow.asin %{{.*}} : tensor<4xf32>
// CHECK: oneflow.acos %{{.*}} : tensor<4xf16>
// CHECK: oneflow.atan %{{.*}} : tensor<4xf64>
func.func @trig(%a: tensor<4xf32>, %b: tensor<4xf16>, %c: tensor<4xf64>) {
  %0 = oneflow.asin %a : tensor<4xf32>
  %1 = oneflow.acos %b : tensor<4xf16>
  %2 = oneflow.atan %c : tensor<4xf64>
  return
}

// -----

// CHECK-LABEL: func @gather_elements
// CHECK: oneflow.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x4xf32>, tensor<2x6xi32>) -> tensor<2x6xf32>
func.func @gather_elements(%d: tensor<3x4xf32>, %i: tensor<2x6xi32>) -> tensor<2x6xf32> {
  %0 = oneflow.gather_elements %d, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<2x6xi32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// CHECK-LABEL: func @cumsum
// CHECK: oneflow.cumsum %{{.*}} {axis = 0 : i64} : tensor<5xi64>
// CHECK: oneflow.cumsum %{{.*}} {axis = 1 : i64, exclusive, reverse} : tensor<2x3xf32>
func.func @cumsum(%a: tensor<5xi64>, %b: tensor<2x3xf32>) {
  %0 = oneflow.cumsum %a {axis = 0 : i64} : tensor<5xi64>
  %1 = oneflow.cumsum %b {axis = 1 : i64, exclusive, reverse} : tensor<2x3xf32>
  return
}

// -----

// CHECK-LABEL: func @topk
// CHECK: oneflow.topk %{{.*}} {axis = 1 : i64, k = 3 : i64, sorted} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
// CHECK: oneflow.topk %{{.*}} {axis = 0 : i64, k = 0 : i64, smallest} : tensor<2x8xf32> -> tensor<0x8xf32>, tensor<0x8xi64>
func.func @topk(%x: tensor<2x8xf32>) {
  %v, %i = oneflow.topk %x {axis = 1 : i64, k = 3 : i64, sorted} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
  %v2, %i2 = oneflow.topk %x {axis = 0 : i64, k = 0 : i64, smallest} : tensor<2x8xf32> -> tensor<0x8xf32>, tensor<0x8xi64>
  return
}

// -----

// (5 - 1) * 2 - 1 - 1 + 1 * (3 - 1) + 1 + 1 = 10.
// CHECK-LABEL: func @conv_transpose
// CHECK: oneflow.conv_transpose2d %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x10xf32>
func.func @conv_transpose(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x10x10xf32> {
  %0 = oneflow.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x10xf32>
  return %0 : tensor<1x6x10x10xf32>
}
