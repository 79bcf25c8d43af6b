// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// Slice: per dimension ceil((limit - start) / step) elements.

// CHECK-LABEL: func @slice(
// CHECK-SAME:    %[[X:.*]]: tensor<8x6xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.slice %[[X]] {limits = array<i64: 5, 6>, starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : tensor<8x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @slice(%x: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %0 = oneflow.slice %x {starts = array<i64: 1, 0>, limits = array<i64: 5, 6>, steps = array<i64: 1, 1>} : tensor<8x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Strides that do not divide the range round up: [1:8:3] is 1, 4, 7.
// CHECK-LABEL: func @strided(
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64: 8, 6>, starts = array<i64: 1, 0>, steps = array<i64: 3, 2>} : tensor<8x6xbf16> -> tensor<3x3xbf16>
func.func @strided(%x: tensor<8x6xbf16>) -> tensor<3x3xbf16> {
  %0 = oneflow.slice %x {starts = array<i64: 1, 0>, limits = array<i64: 8, 6>, steps = array<i64: 3, 2>} : tensor<8x6xbf16> -> tensor<3x3xbf16>
  return %0 : tensor<3x3xbf16>
}

// -----

// Negative steps walk backwards; limit -1 runs through index 0, so
// [7:-1:-1] reverses all 8 and [7:0:-3] is 7, 4, 1.
// CHECK-LABEL: func @negative_steps(
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64: -1>, starts = array<i64: 7>, steps = array<i64: -1>} : tensor<8xi64> -> tensor<8xi64>
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64: 0>, starts = array<i64: 7>, steps = array<i64: -3>} : tensor<8xi64> -> tensor<3xi64>
func.func @negative_steps(%x: tensor<8xi64>) {
  %0 = oneflow.slice %x {starts = array<i64: 7>, limits = array<i64: -1>, steps = array<i64: -1>} : tensor<8xi64> -> tensor<8xi64>
  %1 = oneflow.slice %x {starts = array<i64: 7>, limits = array<i64: 0>, steps = array<i64: -3>} : tensor<8xi64> -> tensor<3xi64>
  return
}

// -----

// Empty slices (start == limit), slices of empty dimensions and of a
// rank-0 tensor.
// CHECK-LABEL: func @empty(
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64: 3>, starts = array<i64: 3>, steps = array<i64: 1>} : tensor<8xi32> -> tensor<0xi32>
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64: 3>, starts = array<i64: 3>, steps = array<i64: -1>} : tensor<8xi32> -> tensor<0xi32>
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64: 0>, starts = array<i64: 0>, steps = array<i64: 1>} : tensor<0xi32> -> tensor<0xi32>
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64: 0>, starts = array<i64: 0>, steps = array<i64: -1>} : tensor<0xi32> -> tensor<0xi32>
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64>, starts = array<i64>, steps = array<i64>} : tensor<f32> -> tensor<f32>
func.func @empty(%x: tensor<8xi32>, %e: tensor<0xi32>, %s: tensor<f32>) {
  %0 = oneflow.slice %x {starts = array<i64: 3>, limits = array<i64: 3>, steps = array<i64: 1>} : tensor<8xi32> -> tensor<0xi32>
  %1 = oneflow.slice %x {starts = array<i64: 3>, limits = array<i64: 3>, steps = array<i64: -1>} : tensor<8xi32> -> tensor<0xi32>
  %2 = oneflow.slice %e {starts = array<i64: 0>, limits = array<i64: 0>, steps = array<i64: 1>} : tensor<0xi32> -> tensor<0xi32>
  %3 = oneflow.slice %e {starts = array<i64: 0>, limits = array<i64: 0>, steps = array<i64: -1>} : tensor<0xi32> -> tensor<0xi32>
  %4 = oneflow.slice %s {starts = array<i64>, limits = array<i64>, steps = array<i64>} : tensor<f32> -> tensor<f32>
  return
}

// -----

// Regression: steps of +-2^63 overflowed the element count; each of these
// takes exactly the start element.
// CHECK-LABEL: func @huge_steps(
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64: 4>, starts = array<i64: 1>, steps = array<i64: 9223372036854775807>} : tensor<4xf16> -> tensor<1xf16>
// CHECK-NEXT:    oneflow.slice %{{.*}} {limits = array<i64: -1>, starts = array<i64: 3>, steps = array<i64: -9223372036854775808>} : tensor<4xf16> -> tensor<1xf16>
func.func @huge_steps(%x: tensor<4xf16>) {
  %0 = oneflow.slice %x {starts = array<i64: 1>, limits = array<i64: 4>, steps = array<i64: 9223372036854775807>} : tensor<4xf16> -> tensor<1xf16>
  %1 = oneflow.slice %x {starts = array<i64: 3>, limits = array<i64: -1>, steps = array<i64: -9223372036854775808>} : tensor<4xf16> -> tensor<1xf16>
  return
}

// -----

// Gather: data.shape[:axis] + indices.shape + data.shape[axis+1:].

// CHECK-LABEL: func @embedding(
// CHECK-SAME:    %[[T:.*]]: tensor<50257x768xf16>, %[[I:.*]]: tensor<2x16xi64>
// CHECK-NEXT:    %[[E:.*]] = oneflow.gather %[[T]], %[[I]] : (tensor<50257x768xf16>, tensor<2x16xi64>) -> tensor<2x16x768xf16>
// CHECK-NEXT:    return %[[E]]
func.func @embedding(%t: tensor<50257x768xf16>, %i: tensor<2x16xi64>) -> tensor<2x16x768xf16> {
  %0 = oneflow.gather %t, %i : (tensor<50257x768xf16>, tensor<2x16xi64>) -> tensor<2x16x768xf16>
  return %0 : tensor<2x16x768xf16>
}

// -----

// The default axis 0 is elided; i32 indices; scalar indices drop the axis.
// CHECK-LABEL: func @gather_axes(
// CHECK-NEXT:    oneflow.gather %{{.*}}, %{{.*}} : (tensor<4x5x6xf32>, tensor<3xi32>) -> tensor<3x5x6xf32>
// CHECK-NEXT:    oneflow.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x5x6xf32>, tensor<3xi32>) -> tensor<4x3x6xf32>
// CHECK-NEXT:    oneflow.gather %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<4x5x6xf32>, tensor<2x2xi32>) -> tensor<4x5x2x2xf32>
// CHECK-NEXT:    oneflow.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x5x6xf32>, tensor<i64>) -> tensor<4x6xf32>
func.func @gather_axes(%d: tensor<4x5x6xf32>, %i: tensor<3xi32>, %j: tensor<2x2xi32>, %k: tensor<i64>) {
  %0 = oneflow.gather %d, %i {axis = 0} : (tensor<4x5x6xf32>, tensor<3xi32>) -> tensor<3x5x6xf32>
  %1 = oneflow.gather %d, %i {axis = 1} : (tensor<4x5x6xf32>, tensor<3xi32>) -> tensor<4x3x6xf32>
  %2 = oneflow.gather %d, %j {axis = 2} : (tensor<4x5x6xf32>, tensor<2x2xi32>) -> tensor<4x5x2x2xf32>
  %3 = oneflow.gather %d, %k {axis = 1} : (tensor<4x5x6xf32>, tensor<i64>) -> tensor<4x6xf32>
  return
}

// -----

// CHECK-LABEL: func @gather_data_types(
// CHECK-NEXT:    oneflow.gather %{{.*}}, %{{.*}} : (tensor<10xi1>, tensor<4xi64>) -> tensor<4xi1>
// CHECK-NEXT:    oneflow.gather %{{.*}}, %{{.*}} : (tensor<10x2xi64>, tensor<0xi64>) -> tensor<0x2xi64>
func.func @gather_data_types(%a: tensor<10xi1>, %b: tensor<10x2xi64>, %i: tensor<4xi64>, %e: tensor<0xi64>) {
  %0 = oneflow.gather %a, %i : (tensor<10xi1>, tensor<4xi64>) -> tensor<4xi1>
  %1 = oneflow.gather %b, %e : (tensor<10x2xi64>, tensor<0xi64>) -> tensor<0x2xi64>
  return
}
