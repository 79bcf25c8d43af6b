// RUN: oneflow-opt %s --oneflow-serialize-small-parallel-loops="min-work=1000" -split-input-file | FileCheck %s

// 16 x 8 = 128 iterations: not worth threads, becomes nested scf.for.
// CHECK-LABEL: func @small
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[I:.*]] = %c0 to %c16 step %c1
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c8 step %c1
// CHECK-NEXT: memref.load %arg0[%[[I]], %[[J]]]
func.func @small(%a: memref<16x8xf32>, %b: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c8) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<16x8xf32>
    memref.store %v, %b[%i, %j] : memref<16x8xf32>
  }
  return
}

// -----

// 16 rows x a 128-long inner reduction loop = 2048 iterations: stays
// parallel; the work of nested loops counts.
// CHECK-LABEL: func @large
// CHECK: scf.parallel
// CHECK: scf.for
func.func @large(%a: memref<16x128xf32>, %b: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %k = %c0 to %c128 step %c1 {
      %v = memref.load %a[%i, %k] : memref<16x128xf32>
      %acc = memref.load %b[%i] : memref<16xf32>
      %s = arith.addf %v, %acc : f32
      memref.store %s, %b[%i] : memref<16xf32>
    }
  }
  return
}

// -----

// Unknown trip counts count as large.
// CHECK-LABEL: func @dynamic
// CHECK: scf.parallel
func.func @dynamic(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %a[%i] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
  }
  return
}
