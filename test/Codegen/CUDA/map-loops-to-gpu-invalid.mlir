// RUN: oneflow-opt %s --oneflow-map-loops-to-gpu -split-input-file -verify-diagnostics

// Dynamic bounds cannot be launched with a static grid.
func.func @dynamic(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{has a dynamic trip count; GPU kernels need static loop bounds}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
