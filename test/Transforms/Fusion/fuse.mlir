// RUN: oneflow-opt %s --oneflow-fuse -split-input-file | FileCheck %s

// A chain of elementwise and broadcasting ops is one kernel; the value used
// after the chain is its only result.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK:         %[[Y:.*]] = oneflow.fused -> tensor<4x8xf32> {
// CHECK-NEXT:      oneflow.add
// CHECK-NEXT:      oneflow.mul
// CHECK-NEXT:      %[[R:.*]] = oneflow.relu
// CHECK-NEXT:      oneflow.yield %[[R]] : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]
func.func @elementwise_chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = oneflow.mul %0, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = oneflow.relu %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A matrix product takes its bias, activation and residual add as an
// epilogue.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK:         oneflow.fused -> tensor<4x8xf32> {
// CHECK-NEXT:      oneflow.matmul
// CHECK-NEXT:      oneflow.add
// CHECK-NEXT:      oneflow.gelu
// CHECK-NEXT:      oneflow.add
// CHECK-NEXT:      oneflow.yield
// CHECK-NOT:     oneflow.
// CHECK:         return
func.func @matmul_epilogue(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>, %r: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = oneflow.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = oneflow.gelu %1 : tensor<4x8xf32>
  %3 = oneflow.add %2, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// Two products never share a kernel. The first takes the neg computing
// its operand (a prologue) and its relu epilogue, which the second product's
// epilogue also reads, so it is a result.
// CHECK-LABEL: func.func @two_products
// CHECK:         %[[A:.*]] = oneflow.fused -> tensor<4x16xf32> {
// CHECK-NEXT:      oneflow.neg
// CHECK-NEXT:      oneflow.matmul
// CHECK-NEXT:      oneflow.relu
// CHECK-NEXT:      oneflow.yield
// CHECK:         oneflow.fused -> tensor<4x16xf32> {
// CHECK-NEXT:      %[[P:.*]] = oneflow.matmul %[[A]]
// CHECK-NEXT:      %[[S:.*]] = oneflow.add %[[P]], %[[A]]
// CHECK-NEXT:      oneflow.yield %[[S]]
func.func @two_products(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<4x16xf32> {
  %n = oneflow.neg %x : tensor<4x16xf32>
  %0 = oneflow.matmul %n, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %1 = oneflow.relu %0 : tensor<4x16xf32>
  %2 = oneflow.matmul %1, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %3 = oneflow.add %2, %1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}

// -----

// The softmax backward, dx = y * (dy - sum(dy * y)), is one kernel: a
// reduction with its elementwise producer and consumers.
// CHECK-LABEL: func.func @softmax_backward
// CHECK:         oneflow.fused -> tensor<4x8xf32> {
// CHECK-NEXT:      oneflow.mul
// CHECK-NEXT:      oneflow.reduce_sum
// CHECK-NEXT:      oneflow.sub
// CHECK-NEXT:      oneflow.mul
// CHECK-NEXT:      oneflow.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @softmax_backward(%y: tensor<4x8xf32>, %dy: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.mul %dy, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = oneflow.reduce_sum %0 {axes = array<i64: 1>, keepdims} : tensor<4x8xf32> -> tensor<4x1xf32>
  %2 = oneflow.sub %dy, %1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %3 = oneflow.mul %2, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// A residual add, the layer norm after it, the reshape and product fed by
// it and the residual add after the product: one kernel. The first sum is
// read again inside, so it never becomes a register.
// CHECK-LABEL: func.func @layer_norm_block
// CHECK:         %[[F:.*]] = oneflow.fused -> tensor<2x4x8xf32> {
// CHECK-NEXT:      %[[S:.*]] = oneflow.add
// CHECK-NEXT:      oneflow.layer_norm %[[S]]
// CHECK-NEXT:      oneflow.reshape
// CHECK-NEXT:      oneflow.matmul
// CHECK-NEXT:      oneflow.reshape
// CHECK-NEXT:      %[[O:.*]] = oneflow.add %{{.*}}, %[[S]]
// CHECK-NEXT:      oneflow.yield %[[O]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @layer_norm_block(%x: tensor<2x4x8xf32>, %h: tensor<2x4x8xf32>, %g: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<2x4x8xf32> {
  %s = oneflow.add %x, %h : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %n = oneflow.layer_norm %s, %g, %g {axis = 2 : i64, epsilon = 1.0e-05 : f64} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %r = oneflow.reshape %n : tensor<2x4x8xf32> to tensor<8x8xf32>
  %m = oneflow.matmul %r, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %u = oneflow.reshape %m : tensor<8x8xf32> to tensor<2x4x8xf32>
  %o = oneflow.add %u, %s : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Nothing fuses across a collective: the program is cut there.
// CHECK-LABEL: func.func @across_collective
// CHECK:         oneflow.fused
// CHECK:         sbp.collective "all_reduce"
// CHECK-NEXT:    oneflow.fused
// CHECK-NOT:     oneflow.fused
func.func @across_collective(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.exp %x : tensor<4x8xf32>
  %1 = oneflow.neg %0 : tensor<4x8xf32>
  %2 = sbp.collective "all_reduce" %1 group = [0, 1] {tag = 0 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = oneflow.relu %2 : tensor<4x8xf32>
  %4 = oneflow.add %3, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// Nor across a send: a stage boundary.
// CHECK-LABEL: func.func @across_send
// CHECK:         %[[A:.*]] = oneflow.exp
// CHECK-NEXT:    sbp.send %[[A]]
// CHECK-NEXT:    oneflow.neg %[[A]]
func.func @across_send(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.exp %x : tensor<4x8xf32>
  sbp.send %0 to 1 {tag = 0 : i64} : tensor<4x8xf32>
  %1 = oneflow.neg %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A forward op and a backward op are never one kernel, even side by side.
// CHECK-LABEL: func.func @phases
// CHECK-NOT:     oneflow.fused
// CHECK:         return
func.func @phases(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.exp %x : tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["f"])
  %1 = oneflow.neg %0 : tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["b"])
  return %1 : tensor<4x8xf32>
}

// -----

// Merging the exp and the add would need the (opaque) cumsum between them
// inside the kernel: they stay apart, and the order stays valid.
// CHECK-LABEL: func.func @no_cycle
// CHECK:         %[[E:.*]] = oneflow.exp
// CHECK-NEXT:    %[[C:.*]] = oneflow.cumsum %[[E]]
// CHECK-NEXT:    oneflow.add %[[C]], %[[E]]
func.func @no_cycle(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.exp %x : tensor<4x8xf32>
  %1 = oneflow.cumsum %0 {axis = 1 : i64} : tensor<4x8xf32>
  %2 = oneflow.add %1, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// An op between group members that does not depend on the group keeps its
// place; one that reads an early member moves after the group.
// CHECK-LABEL: func.func @reorder
// CHECK:         %[[F:.*]]:2 = oneflow.fused
// CHECK:         oneflow.cumsum %[[F]]#0
// CHECK-NEXT:    return
func.func @reorder(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = oneflow.exp %x : tensor<4x8xf32>
  %1 = oneflow.cumsum %0 {axis = 1 : i64} : tensor<4x8xf32>
  %2 = oneflow.neg %0 : tensor<4x8xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A transpose feeding a product is copied inside the product's kernel, and
// an opaque op (cumsum) stays out of it.
// CHECK-LABEL: func.func @movement_prologue
// CHECK:         %[[C:.*]] = oneflow.cumsum
// CHECK-NEXT:    oneflow.fused -> tensor<2x8x4xf32> {
// CHECK-NEXT:      %[[T:.*]] = oneflow.transpose %[[C]]
// CHECK-NEXT:      oneflow.batch_matmul %[[T]]
// CHECK-NEXT:      oneflow.yield
func.func @movement_prologue(%x: tensor<2x4x8xf32>, %w: tensor<2x4x4xf32>) -> tensor<2x8x4xf32> {
  %c = oneflow.cumsum %x {axis = 1 : i64} : tensor<2x4x8xf32>
  %t = oneflow.transpose %c {perm = array<i64: 0, 2, 1>} : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
  %y = oneflow.batch_matmul %t, %w : (tensor<2x8x4xf32>, tensor<2x4x4xf32>) -> tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}

// -----

// The optimizer's updates of independent parameters are one kernel.
// CHECK-LABEL: func.func @updates
// CHECK:         %[[F:.*]]:2 = oneflow.fused -> tensor<4xf32>, tensor<8xf32> {
// CHECK-NEXT:      oneflow.mul
// CHECK-NEXT:      oneflow.sub
// CHECK-NEXT:      oneflow.mul
// CHECK-NEXT:      oneflow.sub
// CHECK-NEXT:      oneflow.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    oneflow.assign @w1, %[[F]]#0
// CHECK-NEXT:    oneflow.assign @w2, %[[F]]#1
func.func @updates(%g1: tensor<4xf32>, %g2: tensor<8xf32>) {
  %lr = oneflow.constant dense<0.1> : tensor<f32>
  %w1 = oneflow.variable @w1 : tensor<4xf32>
  %w2 = oneflow.variable @w2 : tensor<8xf32>
  %0 = oneflow.mul %g1, %lr : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %1 = oneflow.sub %w1, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @w1, %1 : tensor<4xf32>
  %2 = oneflow.mul %g2, %lr : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %3 = oneflow.sub %w2, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @w2, %3 : tensor<8xf32>
  return
}

// -----

// A gradient that leaves its kernel both as it is and reshaped for a weight
// product: the reshape goes with the product (a view of the kernel's
// argument there) instead of being stored a second time by the first kernel.
// CHECK-LABEL: func.func @reshape_goes_to_product
// CHECK:         %[[G:.*]] = oneflow.fused -> tensor<2x4x8xf32> {
// CHECK-NEXT:      oneflow.batch_matmul
// CHECK-NEXT:      %[[M:.*]] = oneflow.mul
// CHECK-NEXT:      oneflow.yield %[[M]] : tensor<2x4x8xf32>
// CHECK-NEXT:    }
// CHECK:         oneflow.fused -> tensor<16x8xf32> {
// CHECK-NEXT:      oneflow.reshape %[[G]]
// CHECK-NEXT:      oneflow.reshape
// CHECK-NEXT:      oneflow.matmul
func.func @reshape_goes_to_product(%dy: tensor<2x4x16xf32>, %w: tensor<16x8xf32>, %s: tensor<2x4x8xf32>, %x: tensor<2x4x16xf32>) -> (tensor<2x4x8xf32>, tensor<16x8xf32>) {
  %0 = oneflow.batch_matmul %dy, %w : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %1 = oneflow.mul %0, %s : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %2 = oneflow.reshape %1 : tensor<2x4x8xf32> to tensor<8x8xf32>
  %3 = oneflow.reshape %x : tensor<2x4x16xf32> to tensor<8x16xf32>
  %4 = oneflow.matmul %3, %2 {transpose_a} : (tensor<8x16xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  return %1, %4 : tensor<2x4x8xf32>, tensor<16x8xf32>
}

// -----

// A cheap value (x / c) that another kernel reads next to x is computed
// again there instead of being loaded (GELU's x / sqrt(2) in its backward
// kernel). A kernel that reads x / c without x still loads it, so here the
// first kernel keeps yielding it.
// CHECK-LABEL: func.func @cheap_value_recomputed
// CHECK:         %[[F:.*]]:3 = oneflow.fused -> tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> {
// CHECK-NEXT:      %[[H:.*]] = oneflow.matmul
// CHECK-NEXT:      %[[U:.*]] = oneflow.div %[[H]], %{{.*}}
// CHECK-NEXT:      %[[E:.*]] = oneflow.erf %[[U]]
// CHECK-NEXT:      %[[Y:.*]] = oneflow.mul %[[H]], %[[E]]
// CHECK-NEXT:      oneflow.yield %[[H]], %[[U]], %[[Y]]
// CHECK-NEXT:    }
// CHECK:         oneflow.fused -> tensor<4x8xf32> {
// CHECK-NEXT:      oneflow.mul %arg1, %[[F]]#0
// CHECK-NEXT:      %[[U2:.*]] = oneflow.div %[[F]]#0, %{{.*}}
// CHECK-NEXT:      oneflow.mul %[[U2]], %[[U2]]
// CHECK-NEXT:      oneflow.add
// CHECK:         oneflow.fused -> tensor<4x8xf32> {
// CHECK-NEXT:      oneflow.mul %arg1, %[[F]]#1
// CHECK-NEXT:      oneflow.exp
func.func @cheap_value_recomputed(%x: tensor<4x16xf32>, %dy: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = oneflow.constant dense<1.41421354> : tensor<f32>
  %h = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", -1, 0]}>["f"])
  %u = oneflow.div %h, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", -1, 0]}>["f"])
  %e = oneflow.erf %u : tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", -1, 0]}>["f"])
  %y = oneflow.mul %h, %e : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", -1, 0]}>["f"])
  %g = oneflow.mul %dy, %h : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", -1, 0]}>["b"])
  %q = oneflow.mul %u, %u : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", -1, 0]}>["b"])
  %r = oneflow.add %g, %q : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", -1, 0]}>["b"])
  %s = oneflow.mul %dy, %u : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["s"])
  %t = oneflow.exp %s : tensor<4x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["s"])
  return %y, %r, %t : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// In a step of one micro-batch, a weight's update joins the kernel that
// computes its gradient: the gradient is never a kernel result.
// CHECK-LABEL: func.func @update_joins_gradient_kernel
// CHECK:         %[[F:.*]] = oneflow.fused -> tensor<16x8xf32> {
// CHECK-NEXT:      %[[G:.*]] = oneflow.matmul
// CHECK-NEXT:      %[[S:.*]] = oneflow.mul %[[G]]
// CHECK-NEXT:      %[[W:.*]] = oneflow.sub %{{.*}}, %[[S]]
// CHECK-NEXT:      oneflow.yield %[[W]] : tensor<16x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    oneflow.assign @w, %[[F]]
func.func @update_joins_gradient_kernel(%x: tensor<4x16xf32>, %dy: tensor<4x8xf32>) {
  %lr = oneflow.constant dense<0.1> : tensor<f32>
  %w = oneflow.variable @w : tensor<16x8xf32>
  %g = oneflow.matmul %x, %dy {transpose_a} : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["b"])
  %s = oneflow.mul %g, %lr : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %n = oneflow.sub %w, %s : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @w, %n : tensor<16x8xf32>
  return
}

// -----

// With several micro-batches the update stays a kernel of its own
// (pipeline schedules order whole phases).
// CHECK-LABEL: func.func @microbatched_update_apart
// CHECK:         %[[G:.*]] = oneflow.add
// CHECK-NEXT:    %[[F:.*]] = oneflow.fused -> tensor<16x8xf32> {
// CHECK-NEXT:      oneflow.mul %[[G]]
// CHECK-NEXT:      oneflow.sub
// CHECK-NEXT:      oneflow.yield
func.func @microbatched_update_apart(%g0: tensor<16x8xf32>, %g1: tensor<16x8xf32>) {
  %lr = oneflow.constant dense<0.1> : tensor<f32>
  %w = oneflow.variable @w : tensor<16x8xf32>
  %g = oneflow.add %g0, %g1 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["backward", 0, 1]}>["b"])
  %s = oneflow.mul %g, %lr : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %n = oneflow.sub %w, %s : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @w, %n : tensor<16x8xf32>
  return
}

// -----

// A value shared by two updates (AdamW's bias-corrected rate) joins the
// first update in its gradient's kernel A. Kernel B feeds A, so B's update
// must not join B (B would then wait for A's rate while A waits for B): it
// goes to A. Reaching one op of a group reaches its members' users.
// CHECK-LABEL: func.func @shared_update_value_no_cycle
// CHECK:         %[[B:.*]]:2 = oneflow.fused
// CHECK-NEXT:      oneflow.neg
// CHECK-NEXT:      oneflow.matmul
// CHECK-NEXT:      oneflow.exp
// CHECK-NEXT:      oneflow.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A:.*]]:2 = oneflow.fused
// CHECK-NEXT:      %[[DA:.*]] = oneflow.matmul %{{.*}}, %[[B]]#1
// CHECK-NEXT:      %[[R:.*]] = oneflow.mul %arg2
// CHECK-NEXT:      oneflow.mul %[[DA]], %[[R]]
// CHECK-NEXT:      oneflow.sub
// CHECK-NEXT:      oneflow.mul %[[B]]#0, %[[R]]
// CHECK-NEXT:      oneflow.sub
// CHECK-NEXT:      oneflow.yield
func.func @shared_update_value_no_cycle(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %t: tensor<f32>) {
  %c = oneflow.constant dense<0.9> : tensor<f32>
  %wa = oneflow.variable @wa : tensor<8x8xf32>
  %wb = oneflow.variable @wb : tensor<8x8xf32>
  %u = oneflow.neg %dy : tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", 1, 0]}>["b"])
  %db = oneflow.matmul %x, %u {transpose_a} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32> loc(fused<{oneflow.provenance = ["backward", 1, 0]}>["b"])
  %v = oneflow.exp %u : tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["a"])
  %da = oneflow.matmul %x, %v {transpose_a} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32> loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["a"])
  %r = oneflow.mul %t, %c : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %sa = oneflow.mul %da, %r : (tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %na = oneflow.sub %wa, %sa : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @wa, %na : tensor<8x8xf32>
  %sb = oneflow.mul %db, %r : (tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  %nb = oneflow.sub %wb, %sb : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["u"])
  oneflow.assign @wb, %nb : tensor<8x8xf32>
  return
}
