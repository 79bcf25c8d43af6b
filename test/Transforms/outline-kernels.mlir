// RUN: oneflow-opt %s --oneflow-outline-kernels -split-input-file | FileCheck %s

// Every compute op moves into its own kernel; variables and constants stay
// in the graph as registers; the graph calls the kernels in order.
// CHECK-LABEL: func.func private @kernel_0_matmul(
// CHECK-SAME:    %[[A:.*]]: tensor<8x64xf32>, %[[B:.*]]: tensor<64x16xf32>) -> tensor<8x16xf32> attributes {oneflow.kernel}
// CHECK-NEXT:    %[[C:.*]] = oneflow.matmul %[[A]], %[[B]]
// CHECK-NEXT:    return %[[C]]
// CHECK-LABEL: func.func private @kernel_1_relu(
// CHECK:         oneflow.relu
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:.*]]: tensor<8x64xf32>
// CHECK-NEXT:    %[[W:.*]] = oneflow.variable @w
// CHECK-NEXT:    %[[H:.*]] = call @kernel_0_matmul(%[[X]], %[[W]])
// CHECK-NEXT:    %[[Y:.*]] = call @kernel_1_relu(%[[H]])
// CHECK-NEXT:    return %[[Y]]
func.func @main(%x: tensor<8x64xf32>) -> tensor<8x16xf32> {
  %w = oneflow.variable @w : tensor<64x16xf32>
  %h = oneflow.matmul %x, %w : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  %y = oneflow.relu %h : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Multi-result ops keep all their results; constants are not outlined.
// CHECK-LABEL: func.func private @kernel_0_split(
// CHECK-SAME:    -> (tensor<2x4xf32>, tensor<6x4xf32>)
// CHECK-LABEL: func.func @main(
// CHECK:         %[[C:.*]] = oneflow.constant
// CHECK:         %[[S:.*]]:2 = call @kernel_0_split(
// CHECK:         call @kernel_1_add(%[[S]]#0, %[[C]])
func.func @main(%x: tensor<8x4xf32>) -> (tensor<2x4xf32>, tensor<6x4xf32>) {
  %c = oneflow.constant dense<1.0> : tensor<2x4xf32>
  %a, %b = oneflow.split %x {axis = 0 : i64, sizes = array<i64: 2, 6>} : tensor<8x4xf32> -> tensor<2x4xf32>, tensor<6x4xf32>
  %s = oneflow.add %a, %c : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %s, %b : tensor<2x4xf32>, tensor<6x4xf32>
}

// -----

// A missing graph function is an error.
// RUN: not oneflow-opt %s --oneflow-outline-kernels="graph=nope" -split-input-file 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: error: no graph function @nope
func.func @main() {
  return
}
