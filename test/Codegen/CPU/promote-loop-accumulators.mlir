// RUN: oneflow-opt %s --oneflow-promote-loop-accumulators -split-input-file | FileCheck %s

// A row sum's accumulator becomes a loop-carried value, stored once after
// the loop; the row's statistic, which the next loop only reads, is loaded
// once before it.
// CHECK-LABEL: func @row_sum_then_scale
// CHECK:         scf.for %[[I:.*]] =
// CHECK:           memref.store %{{.*}}, %[[SUM:.*]][%[[I]]]
// CHECK:           %[[INIT:.*]] = memref.load %[[SUM]][%[[I]]]
// CHECK:           %[[ROW:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NOT:         memref.store
// CHECK:             %[[NEXT:.*]] = arith.addf %[[ACC]]
// CHECK-NEXT:        scf.yield %[[NEXT]]
// CHECK:           memref.store %[[ROW]], %[[SUM]][%[[I]]]
// CHECK:           %[[S:.*]] = memref.load %[[SUM]][%[[I]]]
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.load %arg0
// CHECK-NEXT:        arith.mulf %{{.*}}, %[[S]]
func.func @row_sum_then_scale(%x: memref<4x8xf32> {llvm.noalias}, %out: memref<4x8xf32> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %zero, %sum[%i] : memref<4xf32>
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %a = memref.load %sum[%i] : memref<4xf32>
      %n = arith.addf %a, %v fastmath<reassoc> : f32
      memref.store %n, %sum[%i] : memref<4xf32>
    }
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %k] : memref<4x8xf32>
      %s = memref.load %sum[%i] : memref<4xf32>
      %d = arith.mulf %v, %s : f32
      memref.store %d, %out[%i, %k] : memref<4x8xf32>
    }
  }
  memref.dealloc %sum : memref<4xf32>
  return
}

// -----

// Two accumulators in one loop both become values.
// CHECK-LABEL: func @two_sums
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32) {
// CHECK-NOT:       memref.store
// CHECK:           scf.yield
// CHECK-COUNT-2: memref.store
func.func @two_sums(%x: memref<8xf32> {llvm.noalias}, %s: memref<2xf32> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %v = memref.load %x[%k] : memref<8xf32>
    %a = memref.load %s[%c0] : memref<2xf32>
    %b = memref.load %s[%c1] : memref<2xf32>
    %sq = arith.mulf %v, %v : f32
    %na = arith.addf %a, %v : f32
    %nb = arith.addf %b, %sq : f32
    memref.store %na, %s[%c0] : memref<2xf32>
    memref.store %nb, %s[%c1] : memref<2xf32>
  }
  return
}

// -----

// Left alone: a buffer that may alias the loop's stores (neither argument
// is marked noalias), an accumulator also read at an index that may be its
// own, a loop that calls out, and a loop that may run zero times.
// CHECK-LABEL: func @not_promoted
// CHECK-NOT:     iter_args
// CHECK:         scf.for
// CHECK-NEXT:      memref.load %arg0
// CHECK-NEXT:      memref.store
// CHECK-COUNT-3: scf.for %{{[a-z0-9]*}} = %{{[a-z0-9_]*}} to %{{[a-z0-9_]*}} step %{{[a-z0-9_]*}} {
// CHECK-NOT:     iter_args
func.func @not_promoted(%x: memref<8xf32>, %s: memref<2xf32>, %n: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %acc = memref.alloc() : memref<2xf32>
  // %x may be the memory %s is.
  scf.for %k = %c0 to %c8 step %c1 {
    %a = memref.load %x[%c0] : memref<8xf32>
    memref.store %a, %s[%k] : memref<2xf32>
  }
  // %acc[0] is read at %acc[%j] too.
  scf.for %k = %c0 to %c8 step %c1 {
    %a = memref.load %acc[%c0] : memref<2xf32>
    %b = memref.load %acc[%j] : memref<2xf32>
    %c = arith.addf %a, %b : f32
    memref.store %c, %acc[%c0] : memref<2xf32>
  }
  // A call may touch any buffer.
  scf.for %k = %c0 to %c8 step %c1 {
    %a = memref.load %acc[%c0] : memref<2xf32>
    func.call @touch(%acc) : (memref<2xf32>) -> ()
    memref.store %a, %acc[%c0] : memref<2xf32>
  }
  // Unknown trip count.
  scf.for %k = %c0 to %n step %c1 {
    %a = memref.load %acc[%c0] : memref<2xf32>
    %b = arith.addf %a, %a : f32
    memref.store %b, %acc[%c0] : memref<2xf32>
  }
  memref.dealloc %acc : memref<2xf32>
  return
}
func.func private @touch(memref<2xf32>)
