// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// scale and bias have the normalized shape x.shape[axis:].

// CHECK-LABEL: func @layer_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<2x16x64xf32>, %[[S:.*]]: tensor<64xf32>, %[[B:.*]]: tensor<64xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.layer_norm %[[X]], %[[S]], %[[B]] {axis = 2 : i64} : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @layer_norm(%x: tensor<2x16x64xf32>, %s: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %0 = oneflow.layer_norm %x, %s, %b {axis = 2} : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

// The bias is optional.
// CHECK-LABEL: func @no_bias(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xbf16>, %[[S:.*]]: tensor<8xbf16>
// CHECK-NEXT:    oneflow.layer_norm %[[X]], %[[S]] {axis = 1 : i64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
func.func @no_bias(%x: tensor<4x8xbf16>, %s: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %0 = oneflow.layer_norm %x, %s {axis = 1, epsilon = 1.0e-6} : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// Normalizing over several trailing axes, or over all of them (axis 0).
// CHECK-LABEL: func @multi_axis(
// CHECK-NEXT:    oneflow.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT:    oneflow.layer_norm %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
func.func @multi_axis(%x: tensor<2x3x4xf64>, %s: tensor<3x4xf64>, %s0: tensor<2x3x4xf64>) {
  %0 = oneflow.layer_norm %x, %s, %s {axis = 1} : (tensor<2x3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<2x3x4xf64>
  %1 = oneflow.layer_norm %x, %s0 {axis = 0} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return
}

// -----

// The parameters may have another float type than the input.
// CHECK-LABEL: func @mixed_precision(
// CHECK-NEXT:    oneflow.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x8xf16>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf16>
func.func @mixed_precision(%x: tensor<2x8xf16>, %s: tensor<8xf32>) -> tensor<2x8xf16> {
  %0 = oneflow.layer_norm %x, %s, %s {axis = 1} : (tensor<2x8xf16>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}
