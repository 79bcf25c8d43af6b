// RUN: oneflow-opt %s --oneflow-fuse -split-input-file | FileCheck %s

// A parameter read by two ops: the forward product and, in the backward
// pass, a product that needs a kernel holding another parameter's update
// (@v's, joined to the kernel computing its gradient). @w's update kernel
// is ready first, but its assign has no value edge from the second read:
// both the kernel computing @w's new value and the assign follow the read.
// CHECK-LABEL: func.func @read_after_other_update
// CHECK:         %[[Y:.*]] = oneflow.matmul %{{.*}}, %[[W:.*]] :
// CHECK:         %[[Q:.*]]:2 = oneflow.fused
// CHECK:           oneflow.sub %[[V:.*]], %{{.*}}
// CHECK:         %[[R:.*]] = oneflow.matmul %[[Q]]#{{[01]}}, %[[W]] {transpose_b}
// CHECK-NEXT:    %[[G:.*]] = oneflow.fused
// CHECK:           oneflow.sub %[[W]], %{{.*}}
// CHECK:         oneflow.assign @w, %[[G]]
// CHECK-NEXT:    oneflow.assign @v, %[[Q]]#{{[01]}}
func.func @read_after_other_update(%x: tensor<4x16xf32>, %dy: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>) {
  %lr = oneflow.constant dense<0.1> : tensor<f32>
  %w = oneflow.variable @w : tensor<16x8xf32>
  %v = oneflow.variable @v : tensor<8x8xf32>
  %y = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["f"])
  %g = oneflow.matmul %x, %dy {transpose_a} : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["b"])
  %gv = oneflow.matmul %dy, %dy {transpose_a} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32> loc(fused<{oneflow.provenance = ["backward", 1, 0]}>["b"])
  %t = oneflow.tanh %gv : tensor<8x8xf32> loc(fused<{oneflow.provenance = ["backward", 1, 0]}>["b"])
  %r = oneflow.matmul %t, %w {transpose_b} : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32> loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["b"])
  %s = oneflow.mul %g, %lr : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %n = oneflow.sub %w, %s : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @w, %n : tensor<16x8xf32>
  %sv = oneflow.mul %gv, %lr : (tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %nv = oneflow.sub %v, %sv : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @v, %nv : tensor<8x8xf32>
  return %y, %r : tensor<4x8xf32>, tensor<8x16xf32>
}

// -----

// A parameter read by three ops, its gradient the sum of their
// contributions. The kernel computing the last contribution also computes
// the operand of a later read of @w (the input gradient dy * w^T): @w's
// update may not join that kernel, which comes before the read. Only the
// new value's computation stays apart, after the read.
// CHECK-LABEL: func.func @update_apart_from_kernel_before_read
// CHECK:         %[[K:.*]]:2 = oneflow.fused
// CHECK:           oneflow.relu
// CHECK:           oneflow.matmul
// CHECK:           oneflow.add
// CHECK:           oneflow.mul
// CHECK:         oneflow.matmul %[[K]]#{{[01]}}, %[[W:.*]] {transpose_b}
// CHECK:         %[[N:.*]] = oneflow.sub %[[W]], %[[K]]#{{[01]}}
// CHECK-NEXT:    oneflow.assign @w, %[[N]]
func.func @update_apart_from_kernel_before_read(%x: tensor<4x16xf32>, %dy: tensor<4x8xf32>, %g1: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32>) {
  %lr = oneflow.constant dense<0.1> : tensor<f32>
  %w = oneflow.variable @w : tensor<16x8xf32>
  %y1 = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["f"])
  %y2 = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 1, 0]}>["f"])
  %p = oneflow.relu %dy : tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", 1, 0]}>["b"])
  %g2 = oneflow.matmul %x, %p {transpose_a} : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["backward", 1, 0]}>["b"])
  %g = oneflow.add %g1, %g2 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["backward", 1, 0]}>["b"])
  %dx = oneflow.matmul %p, %w {transpose_b} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> loc(fused<{oneflow.provenance = ["backward", 1, 0]}>["b"])
  %s = oneflow.mul %g, %lr : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %n = oneflow.sub %w, %s : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @w, %n : tensor<16x8xf32>
  return %y1, %y2, %dx : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32>
}

// -----

// A parameter read by many ops (a scale merged by an exporter): three
// forward products and two input gradients. The last input gradient needs
// the kernel holding @u's update (through a cumsum, which fuses with
// nothing), and @s's gradient is complete before it. Every op reading @s
// comes before the kernel computing its new value, and that before its
// assign: nothing reads @s after it.
// CHECK-LABEL: func.func @many_reads
// CHECK:         %[[S:.*]] = oneflow.variable @s
// CHECK:         %[[C:.*]] = oneflow.cumsum
// CHECK-NEXT:    %[[R:.*]] = oneflow.mul %[[C]], %[[S]]
// CHECK-NEXT:    %[[N:.*]] = oneflow.fused
// CHECK:           oneflow.sub %[[S]],
// CHECK:         oneflow.assign @s, %[[N]]
// CHECK-NOT:     %[[S]]
// CHECK:         return
func.func @many_reads(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) {
  %lr = oneflow.constant dense<0.1> : tensor<f32>
  %s = oneflow.variable @s : tensor<8xf32>
  %u = oneflow.variable @u : tensor<8xf32>
  %m1 = oneflow.mul %x, %s : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["f"])
  %e1 = oneflow.exp %m1 : tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 1, 0]}>["f"])
  %m2 = oneflow.mul %e1, %s : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 2, 0]}>["f"])
  %l2 = oneflow.softmax %m2 {axis = 1 : i64} : tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 3, 0]}>["f"])
  %m3 = oneflow.mul %l2, %s : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 4, 0]}>["f"])
  // @s's gradient, and an input gradient that reads @s.
  %p3 = oneflow.mul %dy, %l2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", 4, 0]}>["b"])
  %g3 = oneflow.reduce_sum %p3 {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<8xf32> loc(fused<{oneflow.provenance = ["backward", 4, 0]}>["b"])
  %d3 = oneflow.mul %dy, %s : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", 4, 0]}>["b"])
  // @u's gradient.
  %gu = oneflow.reduce_sum %d3 {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<8xf32> loc(fused<{oneflow.provenance = ["backward", 3, 0]}>["b"])
  %t = oneflow.tanh %gu : tensor<8xf32> loc(fused<{oneflow.provenance = ["backward", 3, 0]}>["b"])
  %c = oneflow.cumsum %t {axis = 0 : i64} : tensor<8xf32> loc(fused<{oneflow.provenance = ["backward", 2, 0]}>["b"])
  %r = oneflow.mul %c, %s : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["b"])
  %ss = oneflow.mul %g3, %lr : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %ns = oneflow.sub %s, %ss : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @s, %ns : tensor<8xf32>
  %su = oneflow.mul %gu, %lr : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %nu = oneflow.sub %u, %su : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @u, %nu : tensor<8xf32>
  return %m1, %m2, %m3, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>
}
