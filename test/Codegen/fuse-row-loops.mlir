// RUN: oneflow-opt %s --oneflow-fuse-row-loops -split-input-file | FileCheck %s

// A softmax over rows of 128 as the kernel pipeline lowers it: initialize
// the row maxima, take them, exponentiate in place, normalize. One parallel
// loop over the rows runs the four steps for each row in turn.
// CHECK-LABEL: func @softmax
// CHECK:         memref.alloc
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT:      scf.for %[[K:.*]] =
// CHECK:             memref.load %arg0[%[[I]], %[[J]], %[[K]]]
// CHECK:           scf.for %[[K2:.*]] =
// CHECK:             memref.store %{{.*}}, %arg0[%[[I]], %[[J]], %[[K2]]]
// CHECK:           scf.for %[[K3:.*]] =
// CHECK:             memref.load %{{.*}}[%[[I]], %[[J]], %c0]
// CHECK:             memref.store %{{.*}}, %arg0[%[[I]], %[[J]], %[[K3]]]
// CHECK:         }
// CHECK-NOT:     scf.parallel
// CHECK:         memref.dealloc
func.func @softmax(%x: memref<8x64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<8x64xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
    memref.store %ninf, %max[%i, %j] : memref<8x64xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
    scf.for %k = %c0 to %c128 step %c1 {
      %v = memref.load %x[%i, %j, %k] : memref<8x64x128xf32>
      %m = memref.load %max[%i, %j] : memref<8x64xf32>
      %n = arith.maximumf %v, %m : f32
      memref.store %n, %max[%i, %j] : memref<8x64xf32>
    }
  }
  %view = memref.expand_shape %max [[0], [1, 2]] output_shape [8, 64, 1] : memref<8x64xf32> into memref<8x64x1xf32>
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c8, %c64, %c128) step (%c1, %c1, %c1) {
    %v = memref.load %x[%i, %j, %k] : memref<8x64x128xf32>
    %m = memref.load %view[%i, %j, %c0] : memref<8x64x1xf32>
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    memref.store %e, %x[%i, %j, %k] : memref<8x64x128xf32>
  }
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c8, %c64, %c128) step (%c1, %c1, %c1) {
    %v = memref.load %x[%i, %j, %k] : memref<8x64x128xf32>
    %m = memref.load %view[%i, %j, %c0] : memref<8x64x1xf32>
    %q = arith.divf %v, %m : f32
    memref.store %q, %x[%i, %j, %k] : memref<8x64x128xf32>
  }
  memref.dealloc %max : memref<8x64xf32>
  return
}

// -----

// The second loop reads the first one's result transposed: row i of the
// second needs column i of the first, so they stay apart.
// CHECK-LABEL: func @transposed_read
// CHECK-COUNT-2: scf.parallel
func.func @transposed_read(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<64x64xf32>
    %n = arith.negf %v : f32
    memref.store %n, %a[%i, %j] : memref<64x64xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %a[%j, %i] : memref<64x64xf32>
    memref.store %v, %b[%i, %j] : memref<64x64xf32>
  }
  return
}

// -----

// Different row counts share no dimension; a call between two loops (it may
// touch their buffers) keeps them apart too.
// CHECK-LABEL: func @apart
// CHECK-COUNT-3: scf.parallel
func.func private @touch(memref<64x32xf32>)
func.func @apart(%a: memref<64x32xf32>, %b: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c32) step (%c1, %c1) {
    memref.store %one, %a[%i, %j] : memref<64x32xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c64) step (%c1, %c1) {
    memref.store %one, %b[%i, %j] : memref<32x64xf32>
  }
  func.call @touch(%a) : (memref<64x32xf32>) -> ()
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c64) step (%c1, %c1) {
    memref.store %one, %b[%i, %j] : memref<32x64xf32>
  }
  return
}

// -----

// Rows longer than max-row would not stay in cache: a row sum over 16384
// columns and its use stay apart. Loops of one shape fuse whole.
// CHECK-LABEL: func @long_rows
// CHECK:         scf.parallel (%{{.*}}) =
// CHECK:           scf.for
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT:      memref.load %arg0[%[[I]], %[[J]]]
// CHECK:           memref.store %{{.*}}, %arg0[%[[I]], %[[J]]]
// CHECK-NEXT:      memref.load %arg0[%[[I]], %[[J]]]
// CHECK-NOT:     scf.parallel
func.func @long_rows(%a: memref<4x16384xf32>, %s: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16384 = arith.constant 16384 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c16384 step %c1 {
      %v = memref.load %a[%i, %j] : memref<4x16384xf32>
      %t = memref.load %s[%i] : memref<4xf32>
      %u = arith.addf %v, %t : f32
      memref.store %u, %s[%i] : memref<4xf32>
    }
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c16384) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x16384xf32>
    %t = memref.load %s[%i] : memref<4xf32>
    %d = arith.divf %v, %t : f32
    memref.store %d, %a[%i, %j] : memref<4x16384xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c16384) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x16384xf32>
    %d = arith.addf %v, %v : f32
    memref.store %d, %a[%i, %j] : memref<4x16384xf32>
  }
  return
}
