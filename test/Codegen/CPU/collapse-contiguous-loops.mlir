// RUN: oneflow-opt %s --oneflow-collapse-contiguous-loops -split-input-file | FileCheck %s

// An SGD-with-momentum update of a 3x3 filter, in place: every index is
// the whole buffer's, in order. One loop over the 576 elements.
// CHECK-LABEL: func @filter_update
// CHECK-DAG: %[[C576:.*]] = arith.constant 576 : index
// CHECK-DAG: %[[W:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<8x8x3x3xf32> into memref<576xf32>
// CHECK-DAG: %[[G:.*]] = memref.collapse_shape %arg1 {{\[}}[0, 1, 2, 3]] : memref<8x8x3x3xf32> into memref<576xf32>
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[C576]]) step (%{{.*}}) {
// CHECK-NEXT: memref.load %[[W]][%[[I]]] : memref<576xf32>
// CHECK-NEXT: memref.load %[[G]][%[[I]]] : memref<576xf32>
// CHECK: memref.store %{{.*}}, %[[W]][%[[I]]] : memref<576xf32>
// CHECK-NOT: scf.parallel
func.func @filter_update(%w: memref<8x8x3x3xf32>, %g: memref<8x8x3x3xf32>,
                         %lr: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%c8, %c8, %c3, %c3)
      step (%c1, %c1, %c1, %c1) {
    %a = memref.load %w[%i, %j, %k, %l] : memref<8x8x3x3xf32>
    %b = memref.load %g[%i, %j, %k, %l] : memref<8x8x3x3xf32>
    %r = memref.load %lr[] : memref<f32>
    %m = arith.mulf %b, %r : f32
    %s = arith.subf %a, %m : f32
    memref.store %s, %w[%i, %j, %k, %l] : memref<8x8x3x3xf32>
  }
  return
}

// -----

// A per-channel bias over NCHW: the channel indexes the bias, so only the
// spatial dimensions merge; the batch and channel stay.
// CHECK-LABEL: func @bias
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<2x4x2x2xf32> into memref<2x4x4xf32>
// CHECK-DAG: %[[Y:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1], [2, 3]] : memref<2x4x2x2xf32> into memref<2x4x4xf32>
// CHECK: scf.parallel (%[[N:.*]], %[[C:.*]], %[[HW:.*]]) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%c2, %c4, %c4{{.*}})
// CHECK-NEXT: memref.load %[[X]][%[[N]], %[[C]], %[[HW]]]
// CHECK-NEXT: memref.load %arg1[%[[C]]]
// CHECK: memref.store %{{.*}}, %[[Y]][%[[N]], %[[C]], %[[HW]]]
func.func @bias(%x: memref<2x4x2x2xf32>, %b: memref<4xf32>,
                %y: memref<2x4x2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c4, %c2, %c2)
      step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<2x4x2x2xf32>
    %d = memref.load %b[%c] : memref<4xf32>
    %s = arith.addf %v, %d : f32
    memref.store %s, %y[%n, %c, %h, %w] : memref<2x4x2x2xf32>
  }
  return
}

// -----

// A transpose: the indices of %b are not in the loop's order. Unchanged.
// CHECK-LABEL: func @transpose
// CHECK-NOT: memref.collapse_shape
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
func.func @transpose(%a: memref<4x8xf32>, %b: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x8xf32>
    memref.store %v, %b[%j, %i] : memref<8x4xf32>
  }
  return
}

// -----

// A loop over part of a buffer (its rows are longer than the loop's), a
// strided buffer, and an index used as a value: none merges.
// CHECK-LABEL: func @not_contiguous
// CHECK-NOT: memref.collapse_shape
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
func.func @not_contiguous(%a: memref<4x16xf32>, %b: memref<4x8xf32>,
                          %s: memref<4x8xf32, strided<[16, 1]>>,
                          %i64: memref<4x8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x16xf32>
    memref.store %v, %b[%i, %j] : memref<4x8xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %s[%i, %j] : memref<4x8xf32, strided<[16, 1]>>
    memref.store %v, %b[%i, %j] : memref<4x8xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    memref.store %j, %i64[%i, %j] : memref<4x8xindex>
  }
  return
}
