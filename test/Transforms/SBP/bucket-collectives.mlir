// RUN: oneflow-opt %s -split-input-file --sbp-bucket-collectives | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --sbp-bucket-collectives=bucket-bytes=48 | FileCheck %s --check-prefix=SMALL
// RUN: oneflow-opt %s -split-input-file --sbp-bucket-collectives=bucket-bytes=0 | FileCheck %s --check-prefix=OFF
// RUN: oneflow-opt %s -split-input-file --sbp-bucket-collectives=bucket-members=2 | FileCheck %s --check-prefix=MEMBERS

// Three gradient all-reduces of one group become one: the inputs are
// flattened and concatenated, the sum is split back and reshaped. The
// bucket keeps the first member's tag and sits where the last one was.

// CHECK-LABEL: func.func @main_rank0(
// CHECK-SAME: %[[A:.*]]: tensor<4x2xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<2x2xf32>
// CHECK: %[[FA:.*]] = oneflow.reshape %[[A]] : tensor<4x2xf32> to tensor<8xf32>
// CHECK: %[[FC:.*]] = oneflow.reshape %[[C]] : tensor<2x2xf32> to tensor<4xf32>
// CHECK: %[[CAT:.*]] = oneflow.concat %[[FA]], %[[B]], %[[FC]] {axis = 0 : i64} : (tensor<8xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<15xf32>
// CHECK: %[[SUM:.*]] = sbp.collective "all_reduce" %[[CAT]] group = [0, 1] {tag = 3 : i64} : tensor<15xf32> -> tensor<15xf32>
// CHECK: %[[P:.*]]:3 = oneflow.split %[[SUM]] {axis = 0 : i64, sizes = array<i64: 8, 3, 4>}
// CHECK: %[[RA:.*]] = oneflow.reshape %[[P]]#0 : tensor<8xf32> to tensor<4x2xf32>
// CHECK: %[[RC:.*]] = oneflow.reshape %[[P]]#2 : tensor<4xf32> to tensor<2x2xf32>
// CHECK: oneflow.neg %[[RA]]
// CHECK: return %{{.*}}, %[[P]]#1, %[[RC]]
// CHECK-NOT: sbp.collective

// With 48-byte buckets: [A (32 bytes), B (12 bytes)] and [C] alone.
// SMALL-LABEL: func.func @main_rank0(
// SMALL: oneflow.concat {{.*}} -> tensor<11xf32>
// SMALL: sbp.collective "all_reduce" {{.*}} {tag = 3 : i64} : tensor<11xf32>
// SMALL: sbp.collective "all_reduce" {{.*}} {tag = 5 : i64} : tensor<2x2xf32>

// OFF-LABEL: func.func @main_rank0(
// OFF-COUNT-3: sbp.collective "all_reduce"

// At most 2 members per bucket (a CUDA kernel takes at most 544 pointers,
// and the packing kernels one per member): [A, B] and [C] alone.
// MEMBERS-LABEL: func.func @main_rank0(
// MEMBERS: oneflow.concat {{.*}} -> tensor<11xf32>
// MEMBERS: sbp.collective "all_reduce" {{.*}} {tag = 3 : i64} : tensor<11xf32>
// MEMBERS: sbp.collective "all_reduce" {{.*}} {tag = 5 : i64} : tensor<2x2xf32>
func.func @main_rank0(%a: tensor<4x2xf32>, %b: tensor<3xf32>, %c: tensor<2x2xf32>) -> (tensor<4x2xf32>, tensor<3xf32>, tensor<2x2xf32>) {
  %0 = sbp.collective "all_reduce" %a group = [0, 1] {tag = 3 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>
  %1 = oneflow.neg %0 : tensor<4x2xf32>
  %2 = sbp.collective "all_reduce" %b group = [0, 1] {tag = 4 : i64} : tensor<3xf32> -> tensor<3xf32>
  %3 = sbp.collective "all_reduce" %c group = [0, 1] {tag = 5 : i64} : tensor<2x2xf32> -> tensor<2x2xf32>
  return %1, %2, %3 : tensor<4x2xf32>, tensor<3xf32>, tensor<2x2xf32>
}

// -----

// ZeRO: reduce-scatters along axis 0 and along an inner axis share one
// bucket; the inner-axis member is transposed so that each rank's block
// holds its piece of both.

// CHECK-LABEL: func.func @zero(
// CHECK-SAME: %[[G0:.*]]: tensor<4x3xf32>, %[[G1:.*]]: tensor<2x4xf32>
// CHECK: %[[R0:.*]] = oneflow.reshape %[[G0]] : tensor<4x3xf32> to tensor<2x6xf32>
// CHECK: %[[R1:.*]] = oneflow.reshape %[[G1]] : tensor<2x4xf32> to tensor<2x2x2xf32>
// CHECK: %[[T1:.*]] = oneflow.transpose %[[R1]] {perm = array<i64: 1, 0, 2>} : tensor<2x2x2xf32> -> tensor<2x2x2xf32>
// CHECK: %[[F1:.*]] = oneflow.reshape %[[T1]] : tensor<2x2x2xf32> to tensor<2x4xf32>
// CHECK: %[[CAT:.*]] = oneflow.concat %[[R0]], %[[F1]] {axis = 1 : i64} {{.*}} -> tensor<2x10xf32>
// CHECK: %[[RS:.*]] = sbp.collective "reduce_scatter" %[[CAT]] group = [0, 1] {tag = 7 : i64} : tensor<2x10xf32> -> tensor<1x10xf32>
// CHECK: %[[S:.*]]:2 = oneflow.split %[[RS]] {axis = 1 : i64, sizes = array<i64: 6, 4>}
// CHECK: oneflow.reshape %[[S]]#0 : tensor<1x6xf32> to tensor<2x3xf32>
// CHECK: oneflow.reshape %[[S]]#1 : tensor<1x4xf32> to tensor<2x2xf32>
func.func @zero(%g0: tensor<4x3xf32>, %g1: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x2xf32>) {
  %0 = sbp.collective "reduce_scatter" %g0 group = [0, 1] {tag = 7 : i64} : tensor<4x3xf32> -> tensor<2x3xf32>
  %1 = sbp.collective "reduce_scatter" %g1 group = [0, 1] {axis = 1 : i64, tag = 8 : i64} : tensor<2x4xf32> -> tensor<2x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x2xf32>
}

// -----

// All-gathers of updated parameter shards: gathered as [G, Q], split, and
// the inner-axis one transposed back.

// CHECK-LABEL: func.func @gather(
// CHECK: oneflow.concat {{.*}} {axis = 1 : i64} {{.*}} -> tensor<1x10xf32>
// CHECK: %[[AG:.*]] = sbp.collective "all_gather" %{{.*}} group = [0, 1] {tag = 9 : i64} : tensor<1x10xf32> -> tensor<2x10xf32>
// CHECK: %[[S:.*]]:2 = oneflow.split %[[AG]] {axis = 1 : i64, sizes = array<i64: 6, 4>}
// CHECK: oneflow.reshape %[[S]]#0 : tensor<2x6xf32> to tensor<4x3xf32>
// CHECK: %[[R:.*]] = oneflow.reshape %[[S]]#1 : tensor<2x4xf32> to tensor<2x2x2xf32>
// CHECK: %[[T:.*]] = oneflow.transpose %[[R]] {perm = array<i64: 1, 0, 2>}
// CHECK: oneflow.reshape %[[T]] : tensor<2x2x2xf32> to tensor<2x4xf32>
func.func @gather(%p0: tensor<2x3xf32>, %p1: tensor<2x2xf32>) -> (tensor<4x3xf32>, tensor<2x4xf32>) {
  %0 = sbp.collective "all_gather" %p0 group = [0, 1] {tag = 9 : i64} : tensor<2x3xf32> -> tensor<4x3xf32>
  %1 = sbp.collective "all_gather" %p1 group = [0, 1] {axis = 1 : i64, tag = 10 : i64} : tensor<2x2xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<2x4xf32>
}

// -----

// A collective that depends on another's result, another group, another
// kind or another element type does not join its bucket.

// CHECK-LABEL: func.func @apart(
// CHECK: sbp.collective "all_reduce" %{{.*}} group = [0, 1] {tag = 1 : i64} : tensor<2xf32>
// CHECK: sbp.collective "all_reduce" %{{.*}} group = [0, 1] {tag = 2 : i64} : tensor<2xf32>
// CHECK: sbp.collective "all_reduce" %{{.*}} group = [0, 2] {tag = 3 : i64} : tensor<2xf32>
// CHECK: sbp.collective "all_reduce" %{{.*}} group = [0, 1] {tag = 4 : i64} : tensor<2xf64>
// CHECK: sbp.collective "all_to_all"
// CHECK: sbp.collective "all_to_all"
func.func @apart(%x: tensor<2xf32>, %y: tensor<2xf64>, %z: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf64>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = sbp.collective "all_reduce" %x group = [0, 1] {tag = 1 : i64} : tensor<2xf32> -> tensor<2xf32>
  %1 = oneflow.exp %0 : tensor<2xf32>
  %2 = sbp.collective "all_reduce" %1 group = [0, 1] {tag = 2 : i64} : tensor<2xf32> -> tensor<2xf32>
  %3 = sbp.collective "all_reduce" %x group = [0, 2] {tag = 3 : i64} : tensor<2xf32> -> tensor<2xf32>
  %4 = sbp.collective "all_reduce" %y group = [0, 1] {tag = 4 : i64} : tensor<2xf64> -> tensor<2xf64>
  %5 = sbp.collective "all_to_all" %z group = [0, 1] {axis = 0 : i64, concat_axis = 1 : i64, tag = 5 : i64} : tensor<2x2xf32> -> tensor<1x4xf32>
  %6 = sbp.collective "all_to_all" %w group = [0, 1] {axis = 0 : i64, concat_axis = 1 : i64, tag = 6 : i64} : tensor<2x2xf32> -> tensor<1x4xf32>
  %7 = oneflow.reshape %5 : tensor<1x4xf32> to tensor<2x2xf32>
  %8 = oneflow.reshape %6 : tensor<1x4xf32> to tensor<2x2xf32>
  return %2, %3, %4, %7, %8 : tensor<2xf32>, tensor<2xf32>, tensor<2xf64>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A bucket must be the same on every rank that holds its tags: rank 1 runs
// tags 1 and 2 in the other order, so the packed layouts would differ and
// neither rank buckets them.

// CHECK-LABEL: func.func @main_rank0(
// CHECK-COUNT-2: sbp.collective "all_reduce"
func.func @main_rank0(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = sbp.collective "all_reduce" %x group = [0, 1] {tag = 1 : i64} : tensor<2xf32> -> tensor<2xf32>
  %1 = sbp.collective "all_reduce" %y group = [0, 1] {tag = 2 : i64} : tensor<2xf32> -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
func.func @main_rank1(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = oneflow.exp %x : tensor<2xf32>
  %1 = sbp.collective "all_reduce" %y group = [0, 1] {tag = 2 : i64} : tensor<2xf32> -> tensor<2xf32>
  %2 = sbp.collective "all_reduce" %0 group = [0, 1] {tag = 1 : i64} : tensor<2xf32> -> tensor<2xf32>
  return %2, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// A send, a receive or a collective of another group between two
// collectives keeps them apart: peers must meet in the same order.

// CHECK-LABEL: func.func @ordered(
// CHECK: sbp.collective "all_reduce" %{{.*}} {tag = 1 : i64} : tensor<2xf32>
// CHECK: sbp.send
// CHECK: sbp.collective "all_reduce" %{{.*}} {tag = 2 : i64} : tensor<2xf32>
// CHECK: sbp.collective "all_reduce" %{{.*}} group = [0, 2] {tag = 3 : i64}
// CHECK: sbp.collective "all_reduce" %{{.*}} {tag = 4 : i64} : tensor<2xf32>
// CHECK: sbp.recv
// CHECK: sbp.collective "all_reduce" %{{.*}} {tag = 6 : i64} : tensor<2xf32>
func.func @ordered(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = sbp.collective "all_reduce" %x group = [0, 1] {tag = 1 : i64} : tensor<2xf32> -> tensor<2xf32>
  sbp.send %x to 3 {tag = 10} : tensor<2xf32>
  %1 = sbp.collective "all_reduce" %x group = [0, 1] {tag = 2 : i64} : tensor<2xf32> -> tensor<2xf32>
  %2 = sbp.collective "all_reduce" %x group = [0, 2] {tag = 3 : i64} : tensor<2xf32> -> tensor<2xf32>
  %3 = sbp.collective "all_reduce" %x group = [0, 1] {tag = 4 : i64} : tensor<2xf32> -> tensor<2xf32>
  %4 = sbp.recv from 3 {tag = 11} : tensor<2xf32>
  %5 = sbp.collective "all_reduce" %4 group = [0, 1] {tag = 6 : i64} : tensor<2xf32> -> tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
