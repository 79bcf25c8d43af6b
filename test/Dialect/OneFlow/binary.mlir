// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// Arithmetic binary ops with numpy broadcasting, one element type each.

// CHECK-LABEL: func @add_same_shape(
// CHECK-SAME:    %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = oneflow.add %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[R]]
func.func @add_same_shape(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Operand order is kept: the operands are not commuted.
// CHECK-LABEL: func @sub_broadcast_trailing(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3x4xf16>, %[[B:.*]]: tensor<4xf16>
// CHECK-NEXT:    oneflow.sub %[[A]], %[[B]] : (tensor<2x3x4xf16>, tensor<4xf16>) -> tensor<2x3x4xf16>
// CHECK-NEXT:    oneflow.sub %[[B]], %[[A]] : (tensor<4xf16>, tensor<2x3x4xf16>) -> tensor<2x3x4xf16>
func.func @sub_broadcast_trailing(%a: tensor<2x3x4xf16>, %b: tensor<4xf16>) {
  %0 = oneflow.sub %a, %b : (tensor<2x3x4xf16>, tensor<4xf16>) -> tensor<2x3x4xf16>
  %1 = oneflow.sub %b, %a : (tensor<4xf16>, tensor<2x3x4xf16>) -> tensor<2x3x4xf16>
  return
}

// -----

// Both operands are broadcast: 4x1 and 1x5 give 4x5.
// CHECK-LABEL: func @mul_broadcast_both(
// CHECK-NEXT:    oneflow.mul %{{.*}}, %{{.*}} : (tensor<4x1xbf16>, tensor<1x5xbf16>) -> tensor<4x5xbf16>
func.func @mul_broadcast_both(%a: tensor<4x1xbf16>, %b: tensor<1x5xbf16>) -> tensor<4x5xbf16> {
  %0 = oneflow.mul %a, %b : (tensor<4x1xbf16>, tensor<1x5xbf16>) -> tensor<4x5xbf16>
  return %0 : tensor<4x5xbf16>
}

// -----

// A rank-0 operand broadcasts to anything.
// CHECK-LABEL: func @div_scalar(
// CHECK-NEXT:    oneflow.div %{{.*}}, %{{.*}} : (tensor<3x3xf64>, tensor<f64>) -> tensor<3x3xf64>
// CHECK-NEXT:    oneflow.div %{{.*}}, %{{.*}} : (tensor<f64>, tensor<f64>) -> tensor<f64>
func.func @div_scalar(%a: tensor<3x3xf64>, %b: tensor<f64>) {
  %0 = oneflow.div %a, %b : (tensor<3x3xf64>, tensor<f64>) -> tensor<3x3xf64>
  %1 = oneflow.div %b, %b : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return
}

// -----

// CHECK-LABEL: func @int_ops(
// CHECK-NEXT:    oneflow.div %{{.*}}, %{{.*}} : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
// CHECK-NEXT:    oneflow.pow %{{.*}}, %{{.*}} : (tensor<8xi32>, tensor<1xi32>) -> tensor<8xi32>
// CHECK-NEXT:    oneflow.max %{{.*}}, %{{.*}} : (tensor<2x8xi64>, tensor<8xi64>) -> tensor<2x8xi64>
// CHECK-NEXT:    oneflow.min %{{.*}}, %{{.*}} : (tensor<8xi64>, tensor<2x8xi64>) -> tensor<2x8xi64>
func.func @int_ops(%a: tensor<8xi32>, %b: tensor<1xi32>, %c: tensor<2x8xi64>, %d: tensor<8xi64>) {
  %0 = oneflow.div %a, %a : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %1 = oneflow.pow %a, %b : (tensor<8xi32>, tensor<1xi32>) -> tensor<8xi32>
  %2 = oneflow.max %c, %d : (tensor<2x8xi64>, tensor<8xi64>) -> tensor<2x8xi64>
  %3 = oneflow.min %d, %c : (tensor<8xi64>, tensor<2x8xi64>) -> tensor<2x8xi64>
  return
}

// -----

// Zero-size dimensions broadcast like any other size; 1 broadcasts to 0.
// CHECK-LABEL: func @zero_size(
// CHECK-NEXT:    oneflow.add %{{.*}}, %{{.*}} : (tensor<0x4xf32>, tensor<1x4xf32>) -> tensor<0x4xf32>
func.func @zero_size(%a: tensor<0x4xf32>, %b: tensor<1x4xf32>) -> tensor<0x4xf32> {
  %0 = oneflow.add %a, %b : (tensor<0x4xf32>, tensor<1x4xf32>) -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}
