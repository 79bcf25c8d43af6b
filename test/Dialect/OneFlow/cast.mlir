// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @float_casts(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT:    %[[H:.*]] = oneflow.cast %[[X]] : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK-NEXT:    %[[B:.*]] = oneflow.cast %[[H]] : tensor<2x3xf16> to tensor<2x3xbf16>
// CHECK-NEXT:    %[[D:.*]] = oneflow.cast %[[B]] : tensor<2x3xbf16> to tensor<2x3xf64>
// CHECK-NEXT:    return %[[D]]
func.func @float_casts(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {
  %0 = oneflow.cast %x : tensor<2x3xf32> to tensor<2x3xf16>
  %1 = oneflow.cast %0 : tensor<2x3xf16> to tensor<2x3xbf16>
  %2 = oneflow.cast %1 : tensor<2x3xbf16> to tensor<2x3xf64>
  return %2 : tensor<2x3xf64>
}

// -----

// CHECK-LABEL: func @int_bool_casts(
// CHECK-NEXT:    oneflow.cast %{{.*}} : tensor<8xi64> to tensor<8xi32>
// CHECK-NEXT:    oneflow.cast %{{.*}} : tensor<8xi32> to tensor<8xi1>
// CHECK-NEXT:    oneflow.cast %{{.*}} : tensor<8xi1> to tensor<8xf32>
// CHECK-NEXT:    oneflow.cast %{{.*}} : tensor<8xf32> to tensor<8xi64>
func.func @int_bool_casts(%x: tensor<8xi64>) -> tensor<8xi64> {
  %0 = oneflow.cast %x : tensor<8xi64> to tensor<8xi32>
  %1 = oneflow.cast %0 : tensor<8xi32> to tensor<8xi1>
  %2 = oneflow.cast %1 : tensor<8xi1> to tensor<8xf32>
  %3 = oneflow.cast %2 : tensor<8xf32> to tensor<8xi64>
  return %3 : tensor<8xi64>
}

// -----

// A cast to the same type is valid (and folds away, see
// canonicalize-elementwise.mlir); rank-0 and zero-size shapes are kept.
// CHECK-LABEL: func @identity_and_scalar(
// CHECK-NEXT:    oneflow.cast %{{.*}} : tensor<f32> to tensor<f32>
// CHECK-NEXT:    oneflow.cast %{{.*}} : tensor<0x2xi32> to tensor<0x2xf16>
func.func @identity_and_scalar(%x: tensor<f32>, %y: tensor<0x2xi32>) {
  %0 = oneflow.cast %x : tensor<f32> to tensor<f32>
  %1 = oneflow.cast %y : tensor<0x2xi32> to tensor<0x2xf16>
  return
}
