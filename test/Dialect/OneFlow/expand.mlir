// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @expand(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.expand %[[X]] : tensor<1x4xf32> to tensor<3x4xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @expand(%x: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %0 = oneflow.expand %x : tensor<1x4xf32> to tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// New leading dimensions, size-1 dimensions broadcast to anything (also 0),
// rank 0 to any shape, and the identity.
// CHECK-LABEL: func @expand_forms(
// CHECK-NEXT:    oneflow.expand %{{.*}} : tensor<4xi32> to tensor<2x3x4xi32>
// CHECK-NEXT:    oneflow.expand %{{.*}} : tensor<3x1xi1> to tensor<2x3x0xi1>
// CHECK-NEXT:    oneflow.expand %{{.*}} : tensor<f16> to tensor<5x5xf16>
// CHECK-NEXT:    oneflow.expand %{{.*}} : tensor<4xi32> to tensor<4xi32>
func.func @expand_forms(%a: tensor<4xi32>, %b: tensor<3x1xi1>, %c: tensor<f16>) {
  %0 = oneflow.expand %a : tensor<4xi32> to tensor<2x3x4xi32>
  %1 = oneflow.expand %b : tensor<3x1xi1> to tensor<2x3x0xi1>
  %2 = oneflow.expand %c : tensor<f16> to tensor<5x5xf16>
  %3 = oneflow.expand %a : tensor<4xi32> to tensor<4xi32>
  return
}
