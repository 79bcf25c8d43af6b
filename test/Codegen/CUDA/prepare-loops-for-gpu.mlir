// RUN: oneflow-opt %s --pass-pipeline='builtin.module(func.func(oneflow-prepare-loops-for-gpu))' -split-input-file | FileCheck %s

// A bias gradient: the reduction loops over (b, s) move inside the parallel
// loop over the columns.
// CHECK-LABEL: func.func @bias_grad
// CHECK: scf.parallel (%[[J:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load %{{.*}}[%[[B]], %[[S]], %[[J]]]
// CHECK-NEXT: memref.load %[[ACC:.*]][%[[J]]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[J]]]
// CHECK-NOT: scf.for %{{.*}} {
func.func @bias_grad(%x: memref<2x16x64xf32>, %acc: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %b = %c0 to %c2 step %c1 {
    scf.for %s = %c0 to %c16 step %c1 {
      scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
        %v = memref.load %x[%b, %s, %j] : memref<2x16x64xf32>
        %a = memref.load %acc[%j] : memref<64xf32>
        %n = arith.addf %v, %a : f32
        memref.store %n, %acc[%j] : memref<64xf32>
        scf.reduce
      }
    }
  }
  return
}

// -----

// Iterations that read another column's element stay as they are.
// CHECK-LABEL: func.func @shifted
// CHECK: scf.for
// CHECK: scf.parallel
func.func @shifted(%acc: memref<65xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.for %b = %c0 to %c2 step %c1 {
    scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
      %k = arith.addi %j, %c1 : index
      %a = memref.load %acc[%k] : memref<65xf32>
      memref.store %a, %acc[%j] : memref<65xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A copy into a strided view becomes an elementwise parallel nest.
// CHECK-LABEL: func.func @copy
// CHECK-NOT: memref.copy
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%c4, %c8)
// CHECK-NEXT: %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]] : memref<4x8xf32, strided<[24, 1], offset: 8>>
func.func @copy(%src: memref<4x8xf32>, %dst: memref<4x24xf32>) {
  %view = memref.subview %dst[0, 8] [4, 8] [1, 1] : memref<4x24xf32> to memref<4x8xf32, strided<[24, 1], offset: 8>>
  memref.copy %src, %view : memref<4x8xf32> to memref<4x8xf32, strided<[24, 1], offset: 8>>
  return
}

// -----

// A running sum along an axis (the CPU library's oneflow_cumsum, which has
// no CUDA version) becomes loops: one thread per position around the axis
// (outer 6 x inner 4), scanning the 4 elements along it in order; exclusive
// stores the sum before adding, reverse walks the axis backwards.
// CHECK-LABEL: func.func @cumsum
// CHECK-NOT: call @oneflow_cumsum_f32
// CHECK: %[[X:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [96], strides: [1] : memref<2x3x4x4xf32> to memref<96xf32>
// CHECK: %[[Y:.*]] = memref.reinterpret_cast
// CHECK: scf.parallel (%[[O:.*]], %[[I:.*]]) = ({{.*}}) to (%c6{{[_0-9]*}}, %c4{{[_0-9]*}})
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %c4{{[_0-9]*}} step %{{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[J:.*]] = arith.subi %c3{{[_0-9]*}}, %[[S]]
// CHECK: %[[V:.*]] = memref.load %[[X]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[SUM]], %[[V]]
// CHECK-NEXT: memref.store %[[SUM]], %[[Y]]
// CHECK-NEXT: scf.yield %[[NEXT]]
// CHECK: } {oneflow.gpu_thread_per_iteration}
func.func private @oneflow_cumsum_f32(i64, i64, i64, i64, i64, i64, i64)
func.func @cumsum(%x: memref<2x3x4x4xf32>, %y: memref<2x3x4x4xf32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %c6 = arith.constant 6 : i64
  %px = memref.extract_aligned_pointer_as_index %x : memref<2x3x4x4xf32> -> index
  %ix = arith.index_cast %px : index to i64
  %py = memref.extract_aligned_pointer_as_index %y : memref<2x3x4x4xf32> -> index
  %iy = arith.index_cast %py : index to i64
  call @oneflow_cumsum_f32(%ix, %iy, %c6, %c4, %c4, %c1, %c1) : (i64, i64, i64, i64, i64, i64, i64) -> ()
  return
}

// -----

// Top-k along an axis (oneflow_topk): one thread per position around the
// axis (outer 24 x inner 1) makes k = 2 selection passes over the 4
// elements, each taking the first element after the previous pick in top-k
// order (larger first, ties by lower index), and stores value and index.
// CHECK-LABEL: func.func @topk
// CHECK-NOT: call @oneflow_topk_f32
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c24{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK: %{{.*}}:2 = scf.for %[[R:.*]] = %{{.*}} to %c2{{[_0-9]*}} step {{.*}} iter_args({{.*}}) -> (f32, index)
// CHECK: %[[PASS:.*]]:2 = scf.for {{.*}} to %c4{{[_0-9]*}} {{.*}} -> (f32, index)
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.select
// CHECK: memref.store %[[PASS]]#0
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[PASS]]#1 : index to i64
// CHECK-NEXT: memref.store %[[INDEX]]
// CHECK: } {oneflow.gpu_thread_per_iteration}
func.func private @oneflow_topk_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @topk(%x: memref<2x3x4x4xf32>, %v: memref<2x3x4x2xf32>, %i: memref<2x3x4x2xi64>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %c24 = arith.constant 24 : i64
  %px = memref.extract_aligned_pointer_as_index %x : memref<2x3x4x4xf32> -> index
  %ix = arith.index_cast %px : index to i64
  %pv = memref.extract_aligned_pointer_as_index %v : memref<2x3x4x2xf32> -> index
  %iv = arith.index_cast %pv : index to i64
  %pi = memref.extract_aligned_pointer_as_index %i : memref<2x3x4x2xi64> -> index
  %ii = arith.index_cast %pi : index to i64
  call @oneflow_topk_f32(%ix, %iv, %ii, %c24, %c4, %c1, %c2, %c0, %c1) : (i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  return
}

// -----

// NonMaxSuppression (no score threshold: a null address) as one thread:
// the selection zeroed, then per batch and class (2 x 3) a round per box
// (5) picks the next candidate in falling score order and checks it
// against the boxes kept so far (a loop up to the running count), storing
// [batch, class, box] when it survives; the total is the count.
// CHECK-LABEL: func.func @non_max_suppression
// CHECK-NOT: call @oneflow_non_max_suppression_f32
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK: scf.for {{.*}} to %c36
// CHECK: %[[TOTAL:.*]] = scf.for {{.*}} to %c6{{[_0-9]*}} {{.*}} -> (index)
// CHECK: scf.for {{.*}} to %c5{{[_0-9]*}} {{.*}} -> (f32, index, index)
// CHECK: scf.for {{.*}} to %c5{{[_0-9]*}} {{.*}} -> (f32, index)
// CHECK: arith.cmpf ord
// CHECK: scf.for {{.*}} -> (i1)
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
// CHECK: scf.if
// CHECK-COUNT-3: memref.store
// CHECK: %[[N:.*]] = arith.index_cast %[[TOTAL]] : index to i64
// CHECK: memref.store %[[N]]
// CHECK: } {oneflow.gpu_thread_per_iteration}
func.func private @oneflow_non_max_suppression_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @non_max_suppression(%boxes: memref<2x5x4xf32>, %scores: memref<2x3x5xf32>, %max: memref<1xi64>, %iou: memref<1xf32>, %selected: memref<12x3xi64>, %count: memref<i64>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c5 = arith.constant 5 : i64
  %p0 = memref.extract_aligned_pointer_as_index %boxes : memref<2x5x4xf32> -> index
  %a0 = arith.index_cast %p0 : index to i64
  %p1 = memref.extract_aligned_pointer_as_index %scores : memref<2x3x5xf32> -> index
  %a1 = arith.index_cast %p1 : index to i64
  %p2 = memref.extract_aligned_pointer_as_index %max : memref<1xi64> -> index
  %a2 = arith.index_cast %p2 : index to i64
  %p3 = memref.extract_aligned_pointer_as_index %iou : memref<1xf32> -> index
  %a3 = arith.index_cast %p3 : index to i64
  %p5 = memref.extract_aligned_pointer_as_index %selected : memref<12x3xi64> -> index
  %a5 = arith.index_cast %p5 : index to i64
  %p6 = memref.extract_aligned_pointer_as_index %count : memref<i64> -> index
  %a6 = arith.index_cast %p6 : index to i64
  call @oneflow_non_max_suppression_f32(%a0, %a1, %a2, %a3, %c0, %a5, %a6, %c2, %c3, %c5, %c2, %c0) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  return
}

// -----

// Unique along an axis ([outer 2, n 4, inner 2]): threads zero y (16) and
// the indices (4), find each entry's first equal one (a loop up to it,
// comparing 4 elements), rank the first occurrences (sorted: by
// comparison), place every entry and copy each distinct one; one thread
// counts.
// CHECK-LABEL: func.func @unique
// CHECK-NOT: call @oneflow_unique_f32
// CHECK: scf.parallel {{.*}} to (%c1{{[_0-9]*}}, %c16{{[_0-9]*}})
// CHECK: scf.parallel {{.*}} to (%c1{{[_0-9]*}}, %c4{{[_0-9]*}})
// CHECK: scf.parallel {{.*}} to (%c1{{[_0-9]*}}, %c4{{[_0-9]*}})
// CHECK: arith.cmpf uno
// CHECK: scf.parallel {{.*}} to (%c1{{[_0-9]*}}, %c4{{[_0-9]*}})
// CHECK: scf.parallel {{.*}} to (%c1{{[_0-9]*}}, %c4{{[_0-9]*}})
// CHECK: scf.if
// CHECK: scf.parallel {{.*}} to (%c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK: } {oneflow.gpu_thread_per_iteration}
// CHECK-NOT: scf.parallel
func.func private @oneflow_unique_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @unique(%x: memref<2x4x2xf32>, %y: memref<2x4x2xf32>, %indices: memref<4xi64>, %inverse: memref<4xi64>, %counts: memref<4xi64>, %n: memref<i64>) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %p0 = memref.extract_aligned_pointer_as_index %x : memref<2x4x2xf32> -> index
  %a0 = arith.index_cast %p0 : index to i64
  %p1 = memref.extract_aligned_pointer_as_index %y : memref<2x4x2xf32> -> index
  %a1 = arith.index_cast %p1 : index to i64
  %p2 = memref.extract_aligned_pointer_as_index %indices : memref<4xi64> -> index
  %a2 = arith.index_cast %p2 : index to i64
  %p3 = memref.extract_aligned_pointer_as_index %inverse : memref<4xi64> -> index
  %a3 = arith.index_cast %p3 : index to i64
  %p4 = memref.extract_aligned_pointer_as_index %counts : memref<4xi64> -> index
  %a4 = arith.index_cast %p4 : index to i64
  %p5 = memref.extract_aligned_pointer_as_index %n : memref<i64> -> index
  %a5 = arith.index_cast %p5 : index to i64
  call @oneflow_unique_f32(%a0, %a1, %a2, %a3, %a4, %a5, %c2, %c4, %c2, %c1) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  return
}
