// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// Logical ops on i1 tensors, with broadcasting.

// CHECK-LABEL: func @logical(
// CHECK-SAME:    %[[A:.*]]: tensor<4x4xi1>, %[[B:.*]]: tensor<4xi1>
// CHECK-NEXT:    %[[AND:.*]] = oneflow.and %[[A]], %[[B]] : (tensor<4x4xi1>, tensor<4xi1>) -> tensor<4x4xi1>
// CHECK-NEXT:    %[[OR:.*]] = oneflow.or %[[B]], %[[A]] : (tensor<4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
// CHECK-NEXT:    %[[XOR:.*]] = oneflow.xor %[[AND]], %[[OR]] : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
// CHECK-NEXT:    return %[[XOR]]
func.func @logical(%a: tensor<4x4xi1>, %b: tensor<4xi1>) -> tensor<4x4xi1> {
  %0 = oneflow.and %a, %b : (tensor<4x4xi1>, tensor<4xi1>) -> tensor<4x4xi1>
  %1 = oneflow.or %b, %a : (tensor<4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
  %2 = oneflow.xor %0, %1 : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
  return %2 : tensor<4x4xi1>
}

// -----

// CHECK-LABEL: func @logical_scalar(
// CHECK-NEXT:    oneflow.and %{{.*}}, %{{.*}} : (tensor<i1>, tensor<i1>) -> tensor<i1>
func.func @logical_scalar(%a: tensor<i1>) -> tensor<i1> {
  %0 = oneflow.and %a, %a : (tensor<i1>, tensor<i1>) -> tensor<i1>
  return %0 : tensor<i1>
}
