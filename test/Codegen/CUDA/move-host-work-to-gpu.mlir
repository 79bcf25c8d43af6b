// RUN: oneflow-opt %s --pass-pipeline='builtin.module(func.func(oneflow-move-host-work-to-gpu))' -split-input-file | FileCheck %s

// A full reduction left on the host (the loss of a batch) runs in a launch
// of one block, with the store before it and the scaling after it: the
// 32 iterations are strided over 32 threads and combined by gpu.all_reduce;
// thread 0 stores the initial value, folds the total into the cell and
// stores the scaled loss.
// CHECK-LABEL: func.func @loss_sum
// CHECK: memref.alloc
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads(%[[TX:[^,]*]], {{.*}}) in ({{.*}} = %c32{{[_0-9]*}}, {{.*}})
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TX]]
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %{{.*}}, %[[OUT:.*]][] : memref<f32>
// CHECK: gpu.barrier
// CHECK: %[[PARTIAL:.*]] = scf.for {{.*}} iter_args
// CHECK: gpu.all_reduce add %[[PARTIAL]]
// CHECK: scf.if
// CHECK-NEXT: memref.load %[[OUT]][]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store
// CHECK: gpu.barrier
// CHECK-NEXT: %[[T:.*]] = memref.load %[[OUT]][] : memref<f32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[T]]
// Every thread read the cell: thread 0 overwrites it after a barrier.
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[M]], %[[OUT]][]
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.terminator
// CHECK: memref.dealloc
func.func @loss_sum(%x: memref<32xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.03125 : f32
  %scratch = memref.alloc() : memref<4xf32>
  memref.store %zero, %out[] : memref<f32>
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %x[%i] : memref<32xf32>
    %a = memref.load %out[] : memref<f32>
    %s = arith.addf %v, %a : f32
    memref.store %s, %out[] : memref<f32>
  }
  %t = memref.load %out[] : memref<f32>
  %m = arith.mulf %t, %scale : f32
  memref.store %m, %out[] : memref<f32>
  memref.dealloc %scratch : memref<4xf32>
  return
}

// -----

// A reduction of a whole 2-D buffer into a scalar (reduce_sum with no axes
// kept): one block of 256 threads strided over the flattened 64x100
// iterations.
// CHECK-LABEL: func.func @sum_2d
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256
// CHECK: %[[PARTIAL:.*]] = scf.for %[[I:.*]] = %{{.*}} to %c6400 step %c256{{.*}} iter_args
// CHECK: arith.remui %[[I]], %c100
// CHECK: arith.divui %[[I]], %c100
// CHECK: gpu.all_reduce add %[[PARTIAL]]
// CHECK-NOT: scf.for
// CHECK: gpu.terminator
func.func @sum_2d(%x: memref<64x100xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %out[] : memref<f32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %v = memref.load %x[%i, %j] : memref<64x100xf32>
      %a = memref.load %out[] : memref<f32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %out[] : memref<f32>
    }
  }
  return
}

// -----

// Scalar work with no reduction (a 0-d update) runs in a launch of one
// thread.
// CHECK-LABEL: func.func @scalar_update
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT: memref.load
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.terminator
func.func @scalar_update(%step: memref<f32>) {
  %one = arith.constant 1.0 : f32
  %s = memref.load %step[] : memref<f32>
  %t = arith.addf %s, %one : f32
  memref.store %t, %step[] : memref<f32>
  return
}

// -----

// A loop that reads the cell besides accumulating into it is no reduction
// the threads can share: one thread runs it.
// CHECK-LABEL: func.func @not_a_reduction
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:[^,]*]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NOT: gpu.all_reduce
func.func @not_a_reduction(%x: memref<32xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %half = arith.constant 0.5 : f32
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %x[%i] : memref<32xf32>
    %a = memref.load %out[] : memref<f32>
    %h = arith.mulf %a, %half : f32
    %s = arith.addf %v, %h : f32
    memref.store %s, %out[] : memref<f32>
  }
  return
}

// -----

// A launch capturing a scalar the host computes from a buffer (AdamW's bias
// correction from the step counter) computes it itself; the host keeps no
// load.
// CHECK-LABEL: func.func @captured_scalar
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: %[[STEP:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT: %[[POW:.*]] = math.powf %{{.*}}, %[[STEP]]
// CHECK: arith.divf %{{.*}}, %[[POW]]
func.func @captured_scalar(%step: memref<f32>, %m: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %beta = arith.constant 0.9 : f32
  %s = memref.load %step[] : memref<f32>
  %p = math.powf %beta, %s : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %v = memref.load %m[%tx] : memref<256xf32>
    %d = arith.divf %v, %p : f32
    memref.store %d, %m[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}

// -----

// A constant global read by a launch is read there (outlining then copies
// the global into the GPU module).
// CHECK-LABEL: func.func @global
// CHECK: gpu.launch
// CHECK-NEXT: memref.get_global @mask
memref.global "private" constant @mask : memref<4xi8> = dense<[1, 0, 1, 0]>
func.func @global(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %mask = memref.get_global @mask : memref<4xi8>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %b = memref.load %mask[%tx] : memref<4xi8>
    %f = arith.uitofp %b : i8 to f32
    %v = memref.load %x[%tx] : memref<4xf32>
    %r = arith.mulf %v, %f : f32
    memref.store %r, %x[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// An embedding's gradient (gather_grad) left on the host: rows picked by
// token ids accumulate each token's row. Two tokens may pick one row, so
// the token loop stays in order, but the columns are independent: one
// thread per column (64 threads), each walking the tokens.
// CHECK-LABEL: func.func @scatter_add_rows
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads(%[[TX:[^,]*]], {{.*}}) in ({{.*}} = %c64{{[_0-9]*}}, {{.*}})
// CHECK: %[[COLUMN:.*]] = arith.addi %{{.*}}, %[[TX]]
// CHECK: arith.cmpi ult, %[[COLUMN]], %c64
// CHECK: scf.if
// CHECK: scf.for %[[TOKEN:.*]] = %c0 to %c32 step %c1
// CHECK: memref.load %arg0[%[[TOKEN]]]
// CHECK: %[[ROW:.*]] = arith.minsi
// CHECK: memref.load %arg1[%[[TOKEN]], %{{.*}}]
// CHECK: memref.load %arg2[%[[ROW]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %arg2[%[[ROW]], %{{.*}}]
// CHECK-NOT: scf.for
// CHECK: gpu.terminator
func.func @scatter_add_rows(%ids: memref<32xi64>, %dy: memref<32x64xf32>,
                            %dw: memref<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c127 = arith.constant 127 : index
  scf.for %t = %c0 to %c32 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %id = memref.load %ids[%t] : memref<32xi64>
      %i = arith.index_cast %id : i64 to index
      %lo = arith.maxsi %i, %c0 : index
      %row = arith.minsi %lo, %c127 : index
      %g = memref.load %dy[%t, %j] : memref<32x64xf32>
      %a = memref.load %dw[%row, %j] : memref<128x64xf32>
      %s = arith.addf %a, %g : f32
      memref.store %s, %dw[%row, %j] : memref<128x64xf32>
    }
  }
  return
}

// -----

// A loop whose every iteration reads its neighbour's element (a running
// sum along the columns): no level is independent, one thread runs it.
// CHECK-LABEL: func.func @running_sum
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:[^,]*]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT: scf.for
func.func @running_sum(%x: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c1 to %c64 step %c1 {
    %p = arith.subi %j, %c1 : index
    %a = memref.load %x[%p] : memref<64xf32>
    %b = memref.load %x[%j] : memref<64xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %x[%j] : memref<64xf32>
  }
  return
}
