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

// Multi-result ops keep all their results. Small constants are compiled
// into the kernels that read them (no argument, no register left when only
// kernels read them); large ones stay registers the kernel takes.
// CHECK-LABEL: func.func private @kernel_0_split(
// CHECK-SAME:    -> (tensor<2x4xf32>, tensor<6x4xf32>)
// CHECK-LABEL: func.func private @kernel_1_add(
// CHECK-SAME:    %[[A:.*]]: tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<1.000000e+00> : tensor<2x4xf32>
// CHECK-NEXT:    oneflow.add %[[A]], %[[C]]
// CHECK-LABEL: func.func private @kernel_2_add(
// CHECK-SAME:    %{{.*}}: tensor<70000xf32>, %{{.*}}: tensor<70000xf32>)
// CHECK-NOT:     oneflow.constant
// CHECK-LABEL: func.func @main(
// CHECK-NOT:     oneflow.constant dense<1.0
// CHECK:         %[[BIG:.*]] = oneflow.constant dense<2.000000e+00> : tensor<70000xf32>
// CHECK:         %[[S:.*]]:2 = call @kernel_0_split(
// CHECK:         call @kernel_1_add(%[[S]]#0)
// CHECK:         call @kernel_2_add(%{{.*}}, %[[BIG]])
func.func @main(%x: tensor<8x4xf32>, %y: tensor<70000xf32>) -> (tensor<2x4xf32>, tensor<6x4xf32>, tensor<70000xf32>) {
  %c = oneflow.constant dense<1.0> : tensor<2x4xf32>
  %big = oneflow.constant dense<2.0> : tensor<70000xf32>
  %a, %b = oneflow.split %x {axis = 0 : i64, sizes = array<i64: 2, 6>} : tensor<8x4xf32> -> tensor<2x4xf32>, tensor<6x4xf32>
  %s = oneflow.add %a, %c : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %t = oneflow.add %y, %big : (tensor<70000xf32>, tensor<70000xf32>) -> tensor<70000xf32>
  return %s, %b, %t : tensor<2x4xf32>, tensor<6x4xf32>, tensor<70000xf32>
}

// -----

// A missing graph function is an error.
// RUN: not oneflow-opt %s --oneflow-outline-kernels="graph=nope" -split-input-file 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: error: no graph function @nope
func.func @main() {
  return
}

// -----

// A fused region becomes one kernel named after its main op, taking the
// values its body reads from above; its yielded values are the results.
// CHECK-LABEL: func.func private @kernel_0_fused_matmul(
// CHECK-SAME:    %[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {oneflow.kernel}
// CHECK-NEXT:    %[[P:.*]] = oneflow.matmul %[[X]], %[[W]]
// CHECK-NEXT:    %[[S:.*]] = oneflow.add %[[P]], %[[B]]
// CHECK-NEXT:    %[[R:.*]] = oneflow.relu %[[S]]
// CHECK-NEXT:    return %[[S]], %[[R]]
// CHECK-LABEL: func.func @main(
// CHECK:         %[[K:.*]]:2 = call @kernel_0_fused_matmul(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT:    %[[N:.*]] = call @kernel_1_neg(%[[K]]#0)
// CHECK-NEXT:    return %[[K]]#1, %[[N]]
func.func @main(%x: tensor<4x16xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = oneflow.variable @w : tensor<16x8xf32>
  %f:2 = oneflow.fused -> tensor<4x8xf32>, tensor<4x8xf32> {
    %p = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %s = oneflow.add %p, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %r = oneflow.relu %s : tensor<4x8xf32>
    oneflow.yield %s, %r : tensor<4x8xf32>, tensor<4x8xf32>
  }
  %n = oneflow.neg %f#0 : tensor<4x8xf32>
  return %f#1, %n : tensor<4x8xf32>, tensor<4x8xf32>
}
