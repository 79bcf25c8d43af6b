// RUN: oneflow-opt %s --pass-pipeline='builtin.module(func.func(oneflow-move-host-work-to-gpu))' -split-input-file | FileCheck %s

// A full reduction left on the host (the loss of a batch) runs in a launch
// of one thread, with the store before it and the scaling after it.
// CHECK-LABEL: func.func @loss_sum
// CHECK: memref.alloc
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT: memref.store
// CHECK-NEXT: scf.for
// CHECK: }
// CHECK-NEXT: memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: memref.store
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
