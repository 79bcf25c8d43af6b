// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// Comparisons broadcast like arithmetic ops and always produce i1.

// CHECK-LABEL: func @equal(
// CHECK-NEXT:    oneflow.equal %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    oneflow.not_equal %{{.*}}, %{{.*}} : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
func.func @equal(%a: tensor<4xf32>, %b: tensor<2x1xi64>, %c: tensor<3xi64>) {
  %0 = oneflow.equal %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = oneflow.not_equal %b, %c : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  return
}

// -----

// Equality, unlike ordering, is defined on booleans.
// CHECK-LABEL: func @equal_bool(
// CHECK-NEXT:    oneflow.equal %{{.*}}, %{{.*}} : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
// CHECK-NEXT:    oneflow.not_equal %{{.*}}, %{{.*}} : (tensor<8xi1>, tensor<i1>) -> tensor<8xi1>
func.func @equal_bool(%a: tensor<8xi1>, %b: tensor<i1>) {
  %0 = oneflow.equal %a, %a : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
  %1 = oneflow.not_equal %a, %b : (tensor<8xi1>, tensor<i1>) -> tensor<8xi1>
  return
}

// -----

// CHECK-LABEL: func @ordering(
// CHECK-NEXT:    oneflow.less %{{.*}}, %{{.*}} : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xi1>
// CHECK-NEXT:    oneflow.less_equal %{{.*}}, %{{.*}} : (tensor<2x3xbf16>, tensor<bf16>) -> tensor<2x3xi1>
// CHECK-NEXT:    oneflow.greater %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi1>
// CHECK-NEXT:    oneflow.greater_equal %{{.*}}, %{{.*}} : (tensor<3xf64>, tensor<2x3xf64>) -> tensor<2x3xi1>
func.func @ordering(%a: tensor<2x3xf16>, %b: tensor<2x3xbf16>, %c: tensor<bf16>,
                    %d: tensor<2x3xi32>, %e: tensor<1x3xi32>, %f: tensor<3xf64>, %g: tensor<2x3xf64>) {
  %0 = oneflow.less %a, %a : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xi1>
  %1 = oneflow.less_equal %b, %c : (tensor<2x3xbf16>, tensor<bf16>) -> tensor<2x3xi1>
  %2 = oneflow.greater %d, %e : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi1>
  %3 = oneflow.greater_equal %f, %g : (tensor<3xf64>, tensor<2x3xf64>) -> tensor<2x3xi1>
  return
}
