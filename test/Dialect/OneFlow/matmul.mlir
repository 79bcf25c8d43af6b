// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @matmul(
// CHECK-SAME:    %[[A:.*]]: tensor<64x784xf32>, %[[B:.*]]: tensor<784x512xf32>
// CHECK-NEXT:    %[[C:.*]] = oneflow.matmul %[[A]], %[[B]] : (tensor<64x784xf32>, tensor<784x512xf32>) -> tensor<64x512xf32>
// CHECK-NEXT:    return %[[C]]
func.func @matmul(%a: tensor<64x784xf32>, %b: tensor<784x512xf32>) -> tensor<64x512xf32> {
  %0 = oneflow.matmul %a, %b : (tensor<64x784xf32>, tensor<784x512xf32>) -> tensor<64x512xf32>
  return %0 : tensor<64x512xf32>
}

// -----

// The transpose flags select which dimension of each operand is contracted.
// CHECK-LABEL: func @transposes(
// CHECK-NEXT:    oneflow.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<64x784xf16>, tensor<512x784xf16>) -> tensor<64x512xf16>
// CHECK-NEXT:    oneflow.matmul %{{.*}}, %{{.*}} {transpose_a} : (tensor<784x64xf16>, tensor<784x512xf16>) -> tensor<64x512xf16>
// CHECK-NEXT:    oneflow.matmul %{{.*}}, %{{.*}} {transpose_a, transpose_b} : (tensor<784x64xf16>, tensor<512x784xf16>) -> tensor<64x512xf16>
func.func @transposes(%a: tensor<64x784xf16>, %at: tensor<784x64xf16>,
                      %b: tensor<784x512xf16>, %bt: tensor<512x784xf16>) {
  %0 = oneflow.matmul %a, %bt {transpose_b} : (tensor<64x784xf16>, tensor<512x784xf16>) -> tensor<64x512xf16>
  %1 = oneflow.matmul %at, %b {transpose_a} : (tensor<784x64xf16>, tensor<784x512xf16>) -> tensor<64x512xf16>
  %2 = oneflow.matmul %at, %bt {transpose_a, transpose_b} : (tensor<784x64xf16>, tensor<512x784xf16>) -> tensor<64x512xf16>
  return
}

// -----

// CHECK-LABEL: func @element_types(
// CHECK-NEXT:    oneflow.matmul %{{.*}}, %{{.*}} : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>
// CHECK-NEXT:    oneflow.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
// CHECK-NEXT:    oneflow.matmul %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
// CHECK-NEXT:    oneflow.matmul %{{.*}}, %{{.*}} : (tensor<2x3xi64>, tensor<3x4xi64>) -> tensor<2x4xi64>
func.func @element_types(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %c: tensor<2x3xf64>, %d: tensor<3x4xf64>,
                         %e: tensor<2x3xi32>, %f: tensor<3x4xi32>, %g: tensor<2x3xi64>, %h: tensor<3x4xi64>) {
  %0 = oneflow.matmul %a, %b : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>
  %1 = oneflow.matmul %c, %d : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %2 = oneflow.matmul %e, %f : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  %3 = oneflow.matmul %g, %h : (tensor<2x3xi64>, tensor<3x4xi64>) -> tensor<2x4xi64>
  return
}

// -----

// An empty contraction (K = 0) and empty rows are allowed.
// CHECK-LABEL: func @zero_sizes(
// CHECK-NEXT:    oneflow.matmul %{{.*}}, %{{.*}} : (tensor<4x0xf32>, tensor<0x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    oneflow.matmul %{{.*}}, %{{.*}} {transpose_a} : (tensor<0x0xf32>, tensor<0x5xf32>) -> tensor<0x5xf32>
func.func @zero_sizes(%a: tensor<4x0xf32>, %b: tensor<0x5xf32>, %c: tensor<0x0xf32>) {
  %0 = oneflow.matmul %a, %b : (tensor<4x0xf32>, tensor<0x5xf32>) -> tensor<4x5xf32>
  %1 = oneflow.matmul %c, %b {transpose_a} : (tensor<0x0xf32>, tensor<0x5xf32>) -> tensor<0x5xf32>
  return
}
