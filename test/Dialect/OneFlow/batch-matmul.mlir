// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @batch_matmul(
// CHECK-SAME:    %[[A:.*]]: tensor<8x16x64xf32>, %[[B:.*]]: tensor<8x64x32xf32>
// CHECK-NEXT:    %[[C:.*]] = oneflow.batch_matmul %[[A]], %[[B]] : (tensor<8x16x64xf32>, tensor<8x64x32xf32>) -> tensor<8x16x32xf32>
// CHECK-NEXT:    return %[[C]]
func.func @batch_matmul(%a: tensor<8x16x64xf32>, %b: tensor<8x64x32xf32>) -> tensor<8x16x32xf32> {
  %0 = oneflow.batch_matmul %a, %b : (tensor<8x16x64xf32>, tensor<8x64x32xf32>) -> tensor<8x16x32xf32>
  return %0 : tensor<8x16x32xf32>
}

// -----

// Batch dimensions broadcast (numpy rules), including against a plain
// matrix; rank-2 operands are a plain matmul.
// CHECK-LABEL: func @broadcast_batch(
// CHECK-NEXT:    oneflow.batch_matmul %{{.*}}, %{{.*}} : (tensor<2x1x4x8xbf16>, tensor<3x8x5xbf16>) -> tensor<2x3x4x5xbf16>
// CHECK-NEXT:    oneflow.batch_matmul %{{.*}}, %{{.*}} : (tensor<3x8x5xbf16>, tensor<5x6xbf16>) -> tensor<3x8x6xbf16>
// CHECK-NEXT:    oneflow.batch_matmul %{{.*}}, %{{.*}} : (tensor<5x6xbf16>, tensor<6x5xbf16>) -> tensor<5x5xbf16>
func.func @broadcast_batch(%a: tensor<2x1x4x8xbf16>, %b: tensor<3x8x5xbf16>, %c: tensor<5x6xbf16>, %d: tensor<6x5xbf16>) {
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x1x4x8xbf16>, tensor<3x8x5xbf16>) -> tensor<2x3x4x5xbf16>
  %1 = oneflow.batch_matmul %b, %c : (tensor<3x8x5xbf16>, tensor<5x6xbf16>) -> tensor<3x8x6xbf16>
  %2 = oneflow.batch_matmul %c, %d : (tensor<5x6xbf16>, tensor<6x5xbf16>) -> tensor<5x5xbf16>
  return
}

// -----

// Attention-style Q * K^T and the transposed-A form.
// CHECK-LABEL: func @transposes(
// CHECK-NEXT:    oneflow.batch_matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>) -> tensor<2x4x16x16xf16>
// CHECK-NEXT:    oneflow.batch_matmul %{{.*}}, %{{.*}} {transpose_a} : (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>) -> tensor<2x4x8x8xf16>
// CHECK-NEXT:    oneflow.batch_matmul %{{.*}}, %{{.*}} {transpose_a, transpose_b} : (tensor<2x4x16x8xf16>, tensor<2x4x8x16xf16>) -> tensor<2x4x8x8xf16>
func.func @transposes(%q: tensor<2x4x16x8xf16>, %kt: tensor<2x4x8x16xf16>) {
  %0 = oneflow.batch_matmul %q, %q {transpose_b} : (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>) -> tensor<2x4x16x16xf16>
  %1 = oneflow.batch_matmul %q, %q {transpose_a} : (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>) -> tensor<2x4x8x8xf16>
  %2 = oneflow.batch_matmul %q, %kt {transpose_a, transpose_b} : (tensor<2x4x16x8xf16>, tensor<2x4x8x16xf16>) -> tensor<2x4x8x8xf16>
  return
}

// -----

// CHECK-LABEL: func @integers(
// CHECK-NEXT:    oneflow.batch_matmul %{{.*}}, %{{.*}} : (tensor<2x3x4xi64>, tensor<1x4x2xi64>) -> tensor<2x3x2xi64>
// CHECK-NEXT:    oneflow.batch_matmul %{{.*}}, %{{.*}} : (tensor<2x3x4xf64>, tensor<2x4x2xf64>) -> tensor<2x3x2xf64>
func.func @integers(%a: tensor<2x3x4xi64>, %b: tensor<1x4x2xi64>, %c: tensor<2x3x4xf64>, %d: tensor<2x4x2xf64>) {
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x3x4xi64>, tensor<1x4x2xi64>) -> tensor<2x3x2xi64>
  %1 = oneflow.batch_matmul %c, %d : (tensor<2x3x4xf64>, tensor<2x4x2xf64>) -> tensor<2x3x2xf64>
  return
}
