// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The default reduction (mean) gives a rank-0 loss and is elided.

// CHECK-LABEL: func @cross_entropy(
// CHECK-SAME:    %[[L:.*]]: tensor<64x10xf32>, %[[Y:.*]]: tensor<64xi64>
// CHECK-NEXT:    %[[LOSS:.*]] = oneflow.softmax_cross_entropy %[[L]], %[[Y]] : (tensor<64x10xf32>, tensor<64xi64>) -> tensor<f32>
// CHECK-NEXT:    return %[[LOSS]]
// GENERIC-LABEL: sym_name = "cross_entropy"
// GENERIC:       "oneflow.softmax_cross_entropy"(%{{.*}}, %{{.*}}) <{reduction = #oneflow.reduction<mean>}>
func.func @cross_entropy(%logits: tensor<64x10xf32>, %labels: tensor<64xi64>) -> tensor<f32> {
  %0 = oneflow.softmax_cross_entropy %logits, %labels : (tensor<64x10xf32>, tensor<64xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// reduction none keeps the label shape; sum is rank 0 like mean.
// CHECK-LABEL: func @cross_entropy_reductions(
// CHECK-NEXT:    oneflow.softmax_cross_entropy %{{.*}}, %{{.*}} {reduction = #oneflow.reduction<none>} : (tensor<2x16x50xf16>, tensor<2x16xi32>) -> tensor<2x16xf16>
// CHECK-NEXT:    oneflow.softmax_cross_entropy %{{.*}}, %{{.*}} {reduction = #oneflow.reduction<sum>} : (tensor<2x16x50xf16>, tensor<2x16xi32>) -> tensor<f16>
// CHECK-NEXT:    oneflow.softmax_cross_entropy %{{.*}}, %{{.*}} : (tensor<2x16x50xf16>, tensor<2x16xi32>) -> tensor<f16>
func.func @cross_entropy_reductions(%logits: tensor<2x16x50xf16>, %labels: tensor<2x16xi32>) {
  %0 = oneflow.softmax_cross_entropy %logits, %labels {reduction = #oneflow.reduction<none>} : (tensor<2x16x50xf16>, tensor<2x16xi32>) -> tensor<2x16xf16>
  %1 = oneflow.softmax_cross_entropy %logits, %labels {reduction = #oneflow.reduction<sum>} : (tensor<2x16x50xf16>, tensor<2x16xi32>) -> tensor<f16>
  %2 = oneflow.softmax_cross_entropy %logits, %labels {reduction = #oneflow.reduction<mean>} : (tensor<2x16x50xf16>, tensor<2x16xi32>) -> tensor<f16>
  return
}

// -----

// ignore_index may be any value, negative included; a single sample has
// rank-0 labels.
// CHECK-LABEL: func @cross_entropy_ignore_index(
// CHECK-NEXT:    oneflow.softmax_cross_entropy %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : (tensor<8x4xbf16>, tensor<8xi64>) -> tensor<bf16>
// CHECK-NEXT:    oneflow.softmax_cross_entropy %{{.*}}, %{{.*}} {ignore_index = 0 : i64, reduction = #oneflow.reduction<none>} : (tensor<4xf64>, tensor<i64>) -> tensor<f64>
func.func @cross_entropy_ignore_index(%a: tensor<8x4xbf16>, %la: tensor<8xi64>, %b: tensor<4xf64>, %lb: tensor<i64>) {
  %0 = oneflow.softmax_cross_entropy %a, %la {ignore_index = -100} : (tensor<8x4xbf16>, tensor<8xi64>) -> tensor<bf16>
  %1 = oneflow.softmax_cross_entropy %b, %lb {reduction = #oneflow.reduction<none>, ignore_index = 0} : (tensor<4xf64>, tensor<i64>) -> tensor<f64>
  return
}

// -----

// CHECK-LABEL: func @mse(
// CHECK-NEXT:    oneflow.mse_loss %{{.*}}, %{{.*}} : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<f32>
// CHECK-NEXT:    oneflow.mse_loss %{{.*}}, %{{.*}} {reduction = #oneflow.reduction<none>} : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    oneflow.mse_loss %{{.*}}, %{{.*}} {reduction = #oneflow.reduction<sum>} : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<f32>
// GENERIC-LABEL: sym_name = "mse"
// GENERIC:       "oneflow.mse_loss"(%{{.*}}, %{{.*}}) <{reduction = #oneflow.reduction<mean>}>
func.func @mse(%x: tensor<8x3xf32>, %t: tensor<8x3xf32>) {
  %0 = oneflow.mse_loss %x, %t : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<f32>
  %1 = oneflow.mse_loss %x, %t {reduction = #oneflow.reduction<none>} : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
  %2 = oneflow.mse_loss %x, %t {reduction = #oneflow.reduction<sum>} : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<f32>
  return
}

// -----

// CHECK-LABEL: func @mse_types(
// CHECK-NEXT:    oneflow.mse_loss %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<4xf16>) -> tensor<f16>
// CHECK-NEXT:    oneflow.mse_loss %{{.*}}, %{{.*}} {reduction = #oneflow.reduction<none>} : (tensor<f64>, tensor<f64>) -> tensor<f64>
func.func @mse_types(%a: tensor<4xf16>, %b: tensor<f64>) {
  %0 = oneflow.mse_loss %a, %a : (tensor<4xf16>, tensor<4xf16>) -> tensor<f16>
  %1 = oneflow.mse_loss %b, %b {reduction = #oneflow.reduction<none>} : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return
}
