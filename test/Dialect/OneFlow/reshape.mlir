// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @reshape(
// CHECK-SAME:    %[[X:.*]]: tensor<64x10xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.reshape %[[X]] : tensor<64x10xf32> to tensor<640xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @reshape(%x: tensor<64x10xf32>) -> tensor<640xf32> {
  %0 = oneflow.reshape %x : tensor<64x10xf32> to tensor<640xf32>
  return %0 : tensor<640xf32>
}

// -----

// To and from rank 0, between zero-size shapes, and the identity.
// CHECK-LABEL: func @special_shapes(
// CHECK-NEXT:    oneflow.reshape %{{.*}} : tensor<1x1xi64> to tensor<i64>
// CHECK-NEXT:    oneflow.reshape %{{.*}} : tensor<i64> to tensor<1x1x1xi64>
// CHECK-NEXT:    oneflow.reshape %{{.*}} : tensor<0x4xbf16> to tensor<2x0x3xbf16>
// CHECK-NEXT:    oneflow.reshape %{{.*}} : tensor<2x3xi1> to tensor<2x3xi1>
func.func @special_shapes(%a: tensor<1x1xi64>, %b: tensor<0x4xbf16>, %c: tensor<2x3xi1>) {
  %0 = oneflow.reshape %a : tensor<1x1xi64> to tensor<i64>
  %1 = oneflow.reshape %0 : tensor<i64> to tensor<1x1x1xi64>
  %2 = oneflow.reshape %b : tensor<0x4xbf16> to tensor<2x0x3xbf16>
  %3 = oneflow.reshape %c : tensor<2x3xi1> to tensor<2x3xi1>
  return
}

// -----

// CHECK-LABEL: func @flatten(
// CHECK-NEXT:    oneflow.flatten %{{.*}} {axis = 1 : i64} : tensor<8x512x1x1xf16> -> tensor<8x512xf16>
// CHECK-NEXT:    oneflow.flatten %{{.*}} {axis = 0 : i64} : tensor<8x512x1x1xf16> -> tensor<1x4096xf16>
// CHECK-NEXT:    oneflow.flatten %{{.*}} {axis = 4 : i64} : tensor<8x512x1x1xf16> -> tensor<4096x1xf16>
// CHECK-NEXT:    oneflow.flatten %{{.*}} {axis = 0 : i64} : tensor<i32> -> tensor<1x1xi32>
func.func @flatten(%x: tensor<8x512x1x1xf16>, %s: tensor<i32>) {
  %0 = oneflow.flatten %x {axis = 1} : tensor<8x512x1x1xf16> -> tensor<8x512xf16>
  %1 = oneflow.flatten %x {axis = 0} : tensor<8x512x1x1xf16> -> tensor<1x4096xf16>
  %2 = oneflow.flatten %x {axis = 4} : tensor<8x512x1x1xf16> -> tensor<4096x1xf16>
  %3 = oneflow.flatten %s {axis = 0} : tensor<i32> -> tensor<1x1xi32>
  return
}

// -----

// CHECK-LABEL: func @squeeze(
// CHECK-NEXT:    oneflow.squeeze %{{.*}} {axes = array<i64: 1>} : tensor<2x1x3x1xf64> -> tensor<2x3x1xf64>
// CHECK-NEXT:    oneflow.squeeze %{{.*}} {axes = array<i64: 1, 3>} : tensor<2x1x3x1xf64> -> tensor<2x3xf64>
// CHECK-NEXT:    oneflow.squeeze %{{.*}} {axes = array<i64>} : tensor<2x1x3x1xf64> -> tensor<2x1x3x1xf64>
// CHECK-NEXT:    oneflow.squeeze %{{.*}} {axes = array<i64: 0>} : tensor<1xi1> -> tensor<i1>
func.func @squeeze(%x: tensor<2x1x3x1xf64>, %b: tensor<1xi1>) {
  %0 = oneflow.squeeze %x {axes = array<i64: 1>} : tensor<2x1x3x1xf64> -> tensor<2x3x1xf64>
  %1 = oneflow.squeeze %x {axes = array<i64: 1, 3>} : tensor<2x1x3x1xf64> -> tensor<2x3xf64>
  %2 = oneflow.squeeze %x {axes = array<i64>} : tensor<2x1x3x1xf64> -> tensor<2x1x3x1xf64>
  %3 = oneflow.squeeze %b {axes = array<i64: 0>} : tensor<1xi1> -> tensor<i1>
  return
}

// -----

// Unsqueeze axes are positions in the result.
// CHECK-LABEL: func @unsqueeze(
// CHECK-NEXT:    oneflow.unsqueeze %{{.*}} {axes = array<i64: 0>} : tensor<2x3xf32> -> tensor<1x2x3xf32>
// CHECK-NEXT:    oneflow.unsqueeze %{{.*}} {axes = array<i64: 1, 3>} : tensor<2x3xf32> -> tensor<2x1x3x1xf32>
// CHECK-NEXT:    oneflow.unsqueeze %{{.*}} {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<1x1x2x3xf32>
// CHECK-NEXT:    oneflow.unsqueeze %{{.*}} {axes = array<i64: 0, 1>} : tensor<i64> -> tensor<1x1xi64>
func.func @unsqueeze(%x: tensor<2x3xf32>, %s: tensor<i64>) {
  %0 = oneflow.unsqueeze %x {axes = array<i64: 0>} : tensor<2x3xf32> -> tensor<1x2x3xf32>
  %1 = oneflow.unsqueeze %x {axes = array<i64: 1, 3>} : tensor<2x3xf32> -> tensor<2x1x3x1xf32>
  %2 = oneflow.unsqueeze %x {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<1x1x2x3xf32>
  %3 = oneflow.unsqueeze %s {axes = array<i64: 0, 1>} : tensor<i64> -> tensor<1x1xi64>
  return
}
