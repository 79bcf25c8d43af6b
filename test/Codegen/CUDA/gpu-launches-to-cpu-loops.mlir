// RUN: oneflow-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(oneflow-map-loops-to-gpu),oneflow-gpu-launches-to-cpu-loops)' | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --pass-pipeline='builtin.module(oneflow-gpu-launches-to-cpu-loops)' | FileCheck %s --check-prefix=HAND
// RUN: oneflow-opt %s -split-input-file --pass-pipeline='builtin.module(oneflow-gpu-launches-to-cpu-loops{reverse-threads=1})' | FileCheck %s --check-prefix=REV

// The GPU mapping of an elementwise nest (25 blocks of 256 threads) run on
// the CPU: a loop over the blocks, inside it a loop over the threads (no
// barrier: one phase), the guard and delinearization per thread.
// CHECK-LABEL: func.func @elementwise
// CHECK-NOT: gpu.
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %c25 step
// CHECK: %[[BASE:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %c256 step
// CHECK-NEXT: %[[ID:.*]] = arith.addi %[[BASE]], %[[T]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: math.exp
// CHECK: memref.store
// CHECK-NOT: gpu.
// CHECK: return
func.func @elementwise(%a: memref<64x100xf32>, %out: memref<64x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c100) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<64x100xf32>
    %e = math.exp %x : f32
    memref.store %e, %out[%i, %j] : memref<64x100xf32>
    scf.reduce
  }
  return
}

// -----

// The GPU mapping of a softmax row nest (64 blocks of 128 threads) run on
// the CPU. Each barrier and all-reduce ends a phase: a loop over the 128
// threads. The row maximum's per-thread partials go to a per-thread buffer
// and are folded in thread order after the phase; the fold is uniform (one
// value per block), read by thread 0's update of the row cell in the next
// phase. Likewise the row sum.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: gpu.
// CHECK-DAG: %[[MAXES:.*]] = memref.alloca() : memref<128xf32>
// CHECK-DAG: %[[SUMS:.*]] = memref.alloca() : memref<128xf32>
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %c64{{(_[0-9]+)?}} step
// Thread 0 initializes the row maximum.
// CHECK: scf.for %[[T0:.*]] = %{{.*}} to %c128{{(_[0-9]+)?}} step
// CHECK: arith.cmpi eq, %[[T0]]
// CHECK: memref.store
// Each thread's strided maximum, kept per thread.
// CHECK: scf.for %[[T1:.*]] = %{{.*}} to %c128{{(_[0-9]+)?}} step
// CHECK: %[[PARTIAL:.*]] = scf.for {{.*}} iter_args
// CHECK: arith.maximumf
// CHECK: memref.store %[[PARTIAL]], %[[MAXES]][%[[T1]]] : memref<128xf32>
// The all-reduce: thread 0's value, then threads 1..127 in order.
// CHECK: %[[FIRST:.*]] = memref.load %[[MAXES]][%c0{{.*}}] : memref<128xf32>
// CHECK-NEXT: %[[ROWMAX:.*]] = scf.for %[[I:.*]] = %c1{{.*}} to %c128{{.*}} step %c1{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (f32) {
// CHECK-NEXT: %[[NEXT:.*]] = memref.load %[[MAXES]][%[[I]]] : memref<128xf32>
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[ACC]], %[[NEXT]] : f32
// CHECK-NEXT: scf.yield %[[M]] : f32
// Thread 0 folds it into the row cell.
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %c128{{(_[0-9]+)?}} step
// CHECK: arith.cmpi eq, %[[T2]]
// CHECK: arith.maximumf %[[ROWMAX]]
// exp(x - max), strided over the threads.
// CHECK: math.exp
// The row sum, the same way.
// CHECK: memref.store %{{.*}}, %[[SUMS]]
// CHECK: scf.for {{.*}} iter_args
// CHECK: memref.load %[[SUMS]]
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK-NOT: gpu.
// CHECK: return
func.func @softmax(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %max = memref.alloc() : memref<64xf32>
  %sum = memref.alloc() : memref<64xf32>
  scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
    memref.store %ninf, %max[%r] : memref<64xf32>
    scf.for %c = %c0 to %c128 step %c1 {
      %v = memref.load %x[%r, %c] : memref<64x128xf32>
      %m = memref.load %max[%r] : memref<64xf32>
      %n = arith.maximumf %v, %m : f32
      memref.store %n, %max[%r] : memref<64xf32>
    }
    scf.for %c = %c0 to %c128 step %c1 {
      %v = memref.load %x[%r, %c] : memref<64x128xf32>
      %m = memref.load %max[%r] : memref<64xf32>
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      memref.store %e, %y[%r, %c] : memref<64x128xf32>
    }
    memref.store %zero, %sum[%r] : memref<64xf32>
    scf.for %c = %c0 to %c128 step %c1 {
      %v = memref.load %y[%r, %c] : memref<64x128xf32>
      %s = memref.load %sum[%r] : memref<64xf32>
      %n = arith.addf %v, %s : f32
      memref.store %n, %sum[%r] : memref<64xf32>
    }
    scf.for %c = %c0 to %c128 step %c1 {
      %v = memref.load %y[%r, %c] : memref<64x128xf32>
      %s = memref.load %sum[%r] : memref<64xf32>
      %q = arith.divf %v, %s : f32
      memref.store %q, %y[%r, %c] : memref<64x128xf32>
    }
    scf.reduce
  }
  memref.dealloc %max : memref<64xf32>
  memref.dealloc %sum : memref<64xf32>
  return
}

// -----

// A launch by hand: 2-D blocks of 16x4 threads, ids from gpu.block_id and
// gpu.thread_id, a per-thread value (the element and its column) used after
// a barrier and after an all-reduce, an all-reduce with a combiner region
// and one over integers; uniform values (a constant) are computed once per
// block.
// HAND-LABEL: func.func @hand
// HAND-NOT: gpu.
// HAND-DAG: %[[V:.*]] = memref.alloca() : memref<64xf32>
// HAND-DAG: %[[COL:.*]] = memref.alloca() : memref<64xindex>
// HAND-DAG: %[[I:.*]] = memref.alloca() : memref<64xi32>
// HAND: scf.for %[[ROW:.*]] = %c0 to %c4 step
// Phase 1: threads (x, y) in CUDA's order, y outer; slot x + 16 * y.
// HAND-NEXT: %[[Z:.*]] = arith.constant 0 : index
// HAND-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// HAND-NEXT: scf.for %[[TY:.*]] = %[[Z]] to %c4 step %[[ONE]] {
// HAND-NEXT: scf.for %[[TX:.*]] = %[[Z]] to %c16 step %[[ONE]] {
// HAND-NEXT: %[[Y16:.*]] = arith.muli %[[TY]], %c16 : index
// HAND-NEXT: %[[SLOT:.*]] = arith.addi %[[TX]], %[[Y16]] : index
// HAND: %[[C:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// HAND-NEXT: %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[C]]]
// HAND-NEXT: memref.store %[[X]], %[[V]][%[[SLOT]]]
// HAND-NEXT: memref.store %[[C]], %[[COL]][%[[SLOT]]]
// The region's combiner, folded in thread order.
// HAND: %[[S0:.*]] = memref.load %[[V]]
// HAND-NEXT: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[S0]])
// HAND-NEXT: %[[NEXT:.*]] = memref.load %[[V]]
// HAND-NEXT: %[[ADD:.*]] = arith.addf %[[ACC]], %[[NEXT]] : f32
// HAND-NEXT: scf.yield %[[ADD]]
// Phase 2 reloads the thread's element and column.
// HAND: scf.for
// HAND: scf.for
// HAND: %[[X2:.*]] = memref.load %[[V]][%[[SLOT2:.*]]] : memref<64xf32>
// HAND-NEXT: %[[C2:.*]] = memref.load %[[COL]][%[[SLOT2]]] : memref<64xindex>
// HAND-NEXT: %[[Q:.*]] = arith.divf %[[X2]], %[[SUM]] : f32
// HAND-NEXT: memref.store %[[Q]], %arg1[%[[ROW]], %[[C2]]]
// HAND: memref.store %{{.*}}, %[[I]][%[[SLOT2]]] : memref<64xi32>
// HAND: scf.for {{.*}} -> (i32)
// HAND: arith.maxsi
// The constant is uniform: outside the thread loops.
// HAND: %[[ZERO:.*]] = arith.constant 0 : index
// HAND: scf.for
// HAND: scf.for
// HAND: arith.cmpi eq, %{{.*}}, %[[ZERO]] : index
// HAND-NOT: gpu.
// HAND: return

// reverse-threads: each phase's threads run from the last to the first (a
// race between them would change the results); the fold keeps their order.
// REV-LABEL: func.func @hand
// REV: scf.for %[[ROW:.*]] = %c0 to %c4 step
// REV: scf.for %[[TY:.*]] = %{{.*}} to %c4 step %[[ONE:.*]] {
// REV-NEXT: %[[LASTY:.*]] = arith.subi %c4, %[[ONE]] : index
// REV-NEXT: %{{.*}} = arith.subi %[[LASTY]], %[[TY]] : index
// REV-NEXT: scf.for %[[TX:.*]] = %{{.*}} to %c16 step %[[ONE]] {
// REV-NEXT: %[[LASTX:.*]] = arith.subi %c16, %[[ONE]] : index
// REV-NEXT: %{{.*}} = arith.subi %[[LASTX]], %[[TX]] : index
// REV: %[[FIRST:.*]] = memref.load %{{.*}}[%c0{{.*}}] : memref<64xf32>
// REV-NEXT: scf.for %{{.*}} = %c1{{.*}} to %c64 step %c1{{.*}} iter_args(%{{.*}} = %[[FIRST]]) -> (f32) {
func.func @hand(%a: memref<4x64xf32>, %out: memref<4x64xf32>, %s: memref<4xi32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c16, %ny = %c4, %nz = %c1) {
    %row = gpu.block_id x
    %t = gpu.thread_id y
    %w = arith.muli %t, %nx : index
    %col = arith.addi %w, %tx : index
    %v = memref.load %a[%row, %col] : memref<4x64xf32>
    gpu.barrier
    %sum = gpu.all_reduce %v {
    ^bb0(%l: f32, %r: f32):
      %x = arith.addf %l, %r : f32
      gpu.yield %x : f32
    } : (f32) -> f32
    %d = arith.divf %v, %sum : f32
    memref.store %d, %out[%row, %col] : memref<4x64xf32>
    %i = arith.index_cast %col : index to i32
    %m = gpu.all_reduce maxsi %i uniform {} : (i32) -> i32
    %zero = arith.constant 0 : index
    %first = arith.cmpi eq, %col, %zero : index
    scf.if %first {
      memref.store %m, %s[%row] : memref<4xi32>
    }
    gpu.terminator
  }
  return
}
