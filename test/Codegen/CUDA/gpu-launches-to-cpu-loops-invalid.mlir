// RUN: oneflow-opt %s --oneflow-gpu-launches-to-cpu-loops -split-input-file -verify-diagnostics

// A barrier under a condition: the threads would diverge around it (and on
// a GPU it would hang); only top-level barriers split the body.
func.func @nested_barrier(%a: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c256, %ny = %c1, %nz = %c1) {
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      // expected-error @below {{is nested in 'scf.if'; only barriers and all-reduces at the top level of a launch body can be run as CPU loops}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @nested_all_reduce(%a: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c256, %ny = %c1, %nz = %c1) {
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %a[%tx] : memref<256xf32>
      // expected-error @below {{is nested in 'scf.for'}}
      %s = gpu.all_reduce add %v {} : (f32) -> f32
      memref.store %s, %a[%tx] : memref<256xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// Warp-level operations: oneflow-map-loops-to-gpu never makes them.
func.func @shuffle(%a: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c32, %ny = %c1, %nz = %c1) {
    %v = memref.load %a[%tx] : memref<32xf32>
    %o = arith.constant 1 : i32
    %w = arith.constant 32 : i32
    // expected-error @below {{has no CPU loop equivalent (oneflow-map-loops-to-gpu never makes it)}}
    %s, %ok = gpu.shuffle xor %v, %o, %w : f32
    memref.store %s, %a[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @subgroup_reduce(%a: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c32, %ny = %c1, %nz = %c1) {
    %v = memref.load %a[%tx] : memref<32xf32>
    // expected-error @below {{has no CPU loop equivalent}}
    %s = gpu.subgroup_reduce add %v : (f32) -> f32
    memref.store %s, %a[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// Shared memory is not emulated (the mapping uses none).
func.func @workgroup(%a: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  // expected-error @below {{uses shared or private memory attributions; they do not run as CPU loops}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c32, %ny = %c1, %nz = %c1)
             workgroup(%shared : memref<32xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %a[%tx] : memref<32xf32>
    memref.store %v, %shared[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// A per-thread memref cannot be kept across a barrier.
func.func @memref_across_barrier(%a: memref<32x4xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c32, %ny = %c1, %nz = %c1) {
    %row = memref.subview %a[%tx, 0] [1, 4] [1, 1] : memref<32x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    gpu.barrier
    %c0 = arith.constant 0 : index
    // expected-error @below {{uses a per-thread 'memref<4xf32, strided<[1], offset: ?>>' from before a barrier; it cannot be kept in a per-thread buffer}}
    %v = memref.load %row[%c0] : memref<4xf32, strided<[1], offset: ?>>
    gpu.terminator
  }
  return
}
