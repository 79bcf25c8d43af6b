// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @where(
// CHECK-SAME:    %[[C:.*]]: tensor<4x8xi1>, %[[T:.*]]: tensor<4x8xf32>, %[[F:.*]]: tensor<4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = oneflow.where %[[C]], %[[T]], %[[F]] : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[R]]
func.func @where(%c: tensor<4x8xi1>, %t: tensor<4x8xf32>, %f: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.where %c, %t, %f : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// All three operands broadcast together: the result is 2x3x4.
// CHECK-LABEL: func @where_broadcast(
// CHECK-NEXT:    oneflow.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x1xi1>, tensor<2x1x4xi64>, tensor<i64>) -> tensor<2x3x4xi64>
func.func @where_broadcast(%c: tensor<3x1xi1>, %t: tensor<2x1x4xi64>, %f: tensor<i64>) -> tensor<2x3x4xi64> {
  %0 = oneflow.where %c, %t, %f : (tensor<3x1xi1>, tensor<2x1x4xi64>, tensor<i64>) -> tensor<2x3x4xi64>
  return %0 : tensor<2x3x4xi64>
}

// -----

// The selected values may themselves be booleans.
// CHECK-LABEL: func @where_bool(
// CHECK-NEXT:    oneflow.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<5xi1>, tensor<5xi1>, tensor<1xi1>) -> tensor<5xi1>
func.func @where_bool(%c: tensor<5xi1>, %f: tensor<1xi1>) -> tensor<5xi1> {
  %0 = oneflow.where %c, %c, %f : (tensor<5xi1>, tensor<5xi1>, tensor<1xi1>) -> tensor<5xi1>
  return %0 : tensor<5xi1>
}
