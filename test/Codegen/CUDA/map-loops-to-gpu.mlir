// RUN: oneflow-opt %s --oneflow-map-loops-to-gpu -split-input-file | FileCheck %s

// An elementwise nest: one thread per element, 256-thread blocks over the
// flattened 64x100 iteration space (25 blocks), guarded and delinearized.
// CHECK-LABEL: func.func @elementwise
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c25, {{.*}} threads(%[[TX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK: %[[ID:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %{{.*}} : index
// CHECK: scf.if %[[IN]] {
// CHECK: arith.remui %[[ID]]
// CHECK: arith.divui %[[ID]]
// CHECK: math.exp
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
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

// A softmax row nest (oneflow-fuse-row-loops' form): one block per row (64
// blocks) of 128 threads for rows of 128; the row maximum and sum are
// per-thread accumulations combined by gpu.all_reduce and folded into the
// row cell by thread 0; elementwise loops over the row are strided over the
// threads; a barrier follows each step.
// CHECK-LABEL: func.func @softmax
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{(_[0-9]+)?}}, {{.*}} threads(%[[TX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{(_[0-9]+)?}},
// The cell's initial value: thread 0 stores it.
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %{{.*}}
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %{{.*}}, %[[MAX:.*]][%{{.*}}] : memref<64xf32>
// CHECK: gpu.barrier
// CHECK: %[[PARTIAL:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK: arith.maximumf %[[ACC]], %{{.*}} : f32
// CHECK: %[[ROWMAX:.*]] = gpu.all_reduce maximumf %[[PARTIAL]] uniform {
// CHECK: scf.if
// CHECK: %[[OLD:.*]] = memref.load %[[MAX]]
// CHECK: %[[NEW:.*]] = arith.maximumf %[[ROWMAX]], %[[OLD]] : f32
// CHECK: memref.store %[[NEW]], %[[MAX]]
// CHECK: gpu.barrier
// exp(x - max), strided over the threads.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: gpu.all_reduce add
// CHECK: gpu.barrier
// CHECK: arith.divf
// CHECK: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
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

// A reduction over two loops (a global pooling over H and W) into the
// row's cell: the flattened 8x8 iterations are strided over the block's 64
// threads (delinearized into h and w) and combined by gpu.all_reduce;
// thread 0 folds the total into the cell.
// CHECK-LABEL: func.func @pooled
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4{{[_0-9]*}}, {{.*}}) threads(%[[TX:[^,]*]], {{.*}}) in ({{.*}} = %c64
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK: gpu.barrier
// CHECK: %[[PARTIAL:.*]] = scf.for %[[I:.*]] = %[[TX]] to %c64{{[_0-9]*}} step %{{.*}} iter_args
// CHECK: arith.remui %[[I]], %c8
// CHECK: arith.divui %[[I]], %c8
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x8x8xf32>
// CHECK: arith.addf
// CHECK: scf.yield
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %[[PARTIAL]]
// CHECK: scf.if
// CHECK-NEXT: memref.load %{{.*}} : memref<4xf32>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store
// CHECK: gpu.barrier
func.func @pooled(%x: memref<4x8x8xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n) = (%c0) to (%c4) step (%c1) {
    memref.store %zero, %y[%n] : memref<4xf32>
    scf.for %h = %c0 to %c8 step %c1 {
      scf.for %w = %c0 to %c8 step %c1 {
        %v = memref.load %x[%n, %h, %w] : memref<4x8x8xf32>
        %s = memref.load %y[%n] : memref<4xf32>
        %t = arith.addf %v, %s : f32
        memref.store %t, %y[%n] : memref<4xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// A recurrence over two loops (each step reads the cell besides combining
// into it) writes one cell from every iteration: thread 0 runs it, in
// order, never strided over threads that would race on the cell.
// CHECK-LABEL: func.func @recurrence
// CHECK: gpu.launch
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK: gpu.barrier
// CHECK-NOT: gpu.all_reduce
func.func @recurrence(%x: memref<4x8x8xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %half = arith.constant 0.5 : f32
  scf.parallel (%n) = (%c0) to (%c4) step (%c1) {
    scf.for %h = %c0 to %c8 step %c1 {
      scf.for %w = %c0 to %c8 step %c1 {
        %v = memref.load %x[%n, %h, %w] : memref<4x8x8xf32>
        %s = memref.load %y[%n] : memref<4xf32>
        %m = arith.mulf %s, %half : f32
        %t = arith.addf %v, %m : f32
        memref.store %t, %y[%n] : memref<4xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// A loop whose iterations read elements other iterations write (a prefix
// sum along the row) is no independent loop: thread 0 runs it.
// CHECK-LABEL: func.func @prefix
// CHECK: gpu.launch
// CHECK: scf.if
// CHECK-NEXT: scf.for %{{.*}} = %c1 to %c16 step %c1 {
// CHECK: gpu.barrier
func.func @prefix(%y: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%n) = (%c0) to (%c4) step (%c1) {
    scf.for %i = %c1 to %c16 step %c1 {
      %p = arith.subi %i, %c1 : index
      %a = memref.load %y[%n, %p] : memref<4x16xf32>
      %b = memref.load %y[%n, %i] : memref<4x16xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %y[%n, %i] : memref<4x16xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A nest marked oneflow.gpu_thread_per_iteration (a scan along an axis) runs
// one thread per iteration, each running its inner loop alone.
// CHECK-LABEL: func.func @scan
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c8{{[_0-9]*}},
// CHECK: scf.if
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @scan(%x: memref<8x16xf32>, %y: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
    %s = scf.for %i = %c0 to %c16 step %c1 iter_args(%sum = %zero) -> (f32) {
      %v = memref.load %x[%r, %i] : memref<8x16xf32>
      %n = arith.addf %sum, %v : f32
      memref.store %n, %y[%r, %i] : memref<8x16xf32>
      scf.yield %n : f32
    }
    scf.reduce
  } {oneflow.gpu_thread_per_iteration}
  return
}

// -----

// A loop of one iteration around a row's loops (a unit dimension, as a
// layer norm over [N, 1, 1, C] leaves) is its body: the sum over the row
// inside is still strided over the threads and combined by gpu.all_reduce,
// not run by one thread.
// CHECK-LABEL: func.func @unit_dimension
// CHECK: gpu.launch
// CHECK-NOT: scf.for %{{.*}} = %c0{{[_0-9]*}} to %c1{{[_0-9]*}} step
// CHECK: scf.for {{.*}} iter_args
// CHECK: gpu.all_reduce add
// CHECK: gpu.terminator
func.func @unit_dimension(%x: memref<4x1x32xf32>, %y: memref<4x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n) = (%c0) to (%c4) step (%c1) {
    scf.for %u = %c0 to %c1 step %c1 {
      memref.store %zero, %y[%n, %u] : memref<4x1xf32>
      scf.for %c = %c0 to %c32 step %c1 {
        %v = memref.load %x[%n, %u, %c] : memref<4x1x32xf32>
        %s = memref.load %y[%n, %u] : memref<4x1xf32>
        %t = arith.addf %v, %s : f32
        memref.store %t, %y[%n, %u] : memref<4x1xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// A running sum along a row writes a distinct element per iteration but
// reads the previous iteration's: strided over threads, a thread would read
// an element another has not written yet. Thread 0 runs it in order.
// CHECK-LABEL: func.func @running_sum
// CHECK: gpu.launch
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: scf.for %{{.*}} = %c1 to %c64 step %c1 {
// CHECK: gpu.barrier
func.func @running_sum(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    %v0 = memref.load %x[%r, %c0] : memref<4x64xf32>
    memref.store %v0, %y[%r, %c0] : memref<4x64xf32>
    scf.for %c = %c1 to %c64 step %c1 {
      %p = arith.subi %c, %c1 : index
      %prev = memref.load %y[%r, %p] : memref<4x64xf32>
      %v = memref.load %x[%r, %c] : memref<4x64xf32>
      %s = arith.addf %prev, %v : f32
      memref.store %s, %y[%r, %c] : memref<4x64xf32>
    }
    scf.reduce
  }
  return
}
