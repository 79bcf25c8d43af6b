// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// argmax / argmin return i64 indices whatever the input type.

// CHECK-LABEL: func @argmax(
// CHECK-SAME:    %[[X:.*]]: tensor<64x10xf32>
// CHECK-NEXT:    %[[I:.*]] = oneflow.argmax %[[X]] {axis = 1 : i64} : tensor<64x10xf32> -> tensor<64xi64>
// CHECK-NEXT:    return %[[I]]
func.func @argmax(%x: tensor<64x10xf32>) -> tensor<64xi64> {
  %0 = oneflow.argmax %x {axis = 1} : tensor<64x10xf32> -> tensor<64xi64>
  return %0 : tensor<64xi64>
}

// -----

// CHECK-LABEL: func @flags(
// CHECK-NEXT:    oneflow.argmax %{{.*}} {axis = 0 : i64, keepdims} : tensor<3x4xi32> -> tensor<1x4xi64>
// CHECK-NEXT:    oneflow.argmin %{{.*}} {axis = 1 : i64, select_last_index} : tensor<3x4xi32> -> tensor<3xi64>
// CHECK-NEXT:    oneflow.argmin %{{.*}} {axis = 1 : i64, keepdims, select_last_index} : tensor<3x4xi32> -> tensor<3x1xi64>
func.func @flags(%x: tensor<3x4xi32>) {
  %0 = oneflow.argmax %x {axis = 0, keepdims} : tensor<3x4xi32> -> tensor<1x4xi64>
  %1 = oneflow.argmin %x {axis = 1, select_last_index} : tensor<3x4xi32> -> tensor<3xi64>
  %2 = oneflow.argmin %x {axis = 1, keepdims, select_last_index} : tensor<3x4xi32> -> tensor<3x1xi64>
  return
}

// -----

// CHECK-LABEL: func @element_types(
// CHECK-NEXT:    oneflow.argmax %{{.*}} {axis = 0 : i64} : tensor<8xf16> -> tensor<i64>
// CHECK-NEXT:    oneflow.argmin %{{.*}} {axis = 0 : i64} : tensor<8xbf16> -> tensor<i64>
// CHECK-NEXT:    oneflow.argmax %{{.*}} {axis = 2 : i64} : tensor<2x2x8xf64> -> tensor<2x2xi64>
// CHECK-NEXT:    oneflow.argmin %{{.*}} {axis = 0 : i64, keepdims} : tensor<8xi64> -> tensor<1xi64>
func.func @element_types(%a: tensor<8xf16>, %b: tensor<8xbf16>, %c: tensor<2x2x8xf64>, %d: tensor<8xi64>) {
  %0 = oneflow.argmax %a {axis = 0} : tensor<8xf16> -> tensor<i64>
  %1 = oneflow.argmin %b {axis = 0} : tensor<8xbf16> -> tensor<i64>
  %2 = oneflow.argmax %c {axis = 2} : tensor<2x2x8xf64> -> tensor<2x2xi64>
  %3 = oneflow.argmin %d {axis = 0, keepdims} : tensor<8xi64> -> tensor<1xi64>
  return
}
