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
