// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @concat(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<2x5xf32>
// CHECK-NEXT:    oneflow.concat %[[A]], %[[B]], %[[A]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    oneflow.concat %[[A]], %[[C]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2x5xf32>) {
  %0 = oneflow.concat %a, %b, %a {axis = 0} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<8x3xf32>
  %1 = oneflow.concat %a, %c {axis = 1} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return
}

// -----

// A single input and zero-size inputs are allowed.
// CHECK-LABEL: func @concat_edge_cases(
// CHECK-NEXT:    oneflow.concat %{{.*}} {axis = 0 : i64} : (tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT:    oneflow.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<3xi32>, tensor<0xi32>) -> tensor<3xi32>
// CHECK-NEXT:    oneflow.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x1xi1>, tensor<2x1xi1>) -> tensor<2x2xi1>
func.func @concat_edge_cases(%a: tensor<3xi32>, %e: tensor<0xi32>, %b: tensor<2x1xi1>) {
  %0 = oneflow.concat %a {axis = 0} : (tensor<3xi32>) -> tensor<3xi32>
  %1 = oneflow.concat %a, %e {axis = 0} : (tensor<3xi32>, tensor<0xi32>) -> tensor<3xi32>
  %2 = oneflow.concat %b, %b {axis = 1} : (tensor<2x1xi1>, tensor<2x1xi1>) -> tensor<2x2xi1>
  return
}

// -----

// CHECK-LABEL: func @split(
// CHECK-SAME:    %[[X:.*]]: tensor<6x4xf16>
// CHECK-NEXT:    %[[S:.*]]:3 = oneflow.split %[[X]] {axis = 0 : i64, sizes = array<i64: 1, 2, 3>} : tensor<6x4xf16> -> tensor<1x4xf16>, tensor<2x4xf16>, tensor<3x4xf16>
// CHECK-NEXT:    return %[[S]]#0, %[[S]]#1, %[[S]]#2
func.func @split(%x: tensor<6x4xf16>) -> (tensor<1x4xf16>, tensor<2x4xf16>, tensor<3x4xf16>) {
  %0:3 = oneflow.split %x {axis = 0, sizes = array<i64: 1, 2, 3>} : tensor<6x4xf16> -> tensor<1x4xf16>, tensor<2x4xf16>, tensor<3x4xf16>
  return %0#0, %0#1, %0#2 : tensor<1x4xf16>, tensor<2x4xf16>, tensor<3x4xf16>
}

// -----

// One piece, and a zero-size piece.
// CHECK-LABEL: func @split_edge_cases(
// CHECK-NEXT:    oneflow.split %{{.*}} {axis = 1 : i64, sizes = array<i64: 4>} : tensor<6x4xbf16> -> tensor<6x4xbf16>
// CHECK-NEXT:    oneflow.split %{{.*}} {axis = 1 : i64, sizes = array<i64: 0, 4>} : tensor<6x4xbf16> -> tensor<6x0xbf16>, tensor<6x4xbf16>
func.func @split_edge_cases(%x: tensor<6x4xbf16>) {
  %0 = oneflow.split %x {axis = 1, sizes = array<i64: 4>} : tensor<6x4xbf16> -> tensor<6x4xbf16>
  %1:2 = oneflow.split %x {axis = 1, sizes = array<i64: 0, 4>} : tensor<6x4xbf16> -> tensor<6x0xbf16>, tensor<6x4xbf16>
  return
}
