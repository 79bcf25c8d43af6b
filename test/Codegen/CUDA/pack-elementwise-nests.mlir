// RUN: oneflow-opt %s --pass-pipeline='builtin.module(func.func(oneflow-pack-elementwise-nests))' -split-input-file | FileCheck %s
// RUN: oneflow-opt %s --pass-pipeline='builtin.module(func.func(oneflow-pack-elementwise-nests{max-arguments=6}))' -split-input-file | FileCheck %s --check-prefix=BOUND
// RUN: oneflow-opt %s --pass-pipeline='builtin.module(func.func(oneflow-pack-elementwise-nests,oneflow-map-loops-to-gpu))' -split-input-file | FileCheck %s --check-prefix=LAUNCH

// The horizontally fused update of two parameters, as
// oneflow-fuse-row-loops leaves it (a row per output channel): a 4x3x2
// filter, a loop nest per row, and a 4-element bias, one store per row.
// The parts are independent: one nest over both iteration spaces, the
// filter's 24 points rounded up to a block (256), the bias's 4 after them;
// a block runs one part, every point its own thread.
// CHECK-LABEL: func.func @update_two_parameters
// CHECK-NOT: scf.for
// CHECK: scf.parallel (%[[T:.*]]) = (%c0{{[_0-9]*}}) to (%c260) step (%c1{{[_0-9]*}}) {
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi ult, %[[T]], %c256
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[T]], %c24
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[K:.*]] = arith.remui %[[T]], %c2
// CHECK-NEXT: %[[REST:.*]] = arith.divui %[[T]], %c2
// CHECK-NEXT: %[[J:.*]] = arith.remui %[[REST]], %c3
// CHECK-NEXT: %[[C:.*]] = arith.divui %[[REST]], %c3
// CHECK-NEXT: %[[W:.*]] = memref.load %arg0[%[[C]], %[[J]], %[[K]]]
// CHECK-NEXT: %[[G:.*]] = memref.load %arg1[%[[C]], %[[J]], %[[K]]]
// CHECK-NEXT: %[[U:.*]] = arith.subf %[[W]], %[[G]]
// CHECK-NEXT: memref.store %[[U]], %arg4[%[[C]], %[[J]], %[[K]]]
// CHECK: } else {
// CHECK-NEXT: %[[LOCAL:.*]] = arith.subi %[[T]], %c256
// CHECK-NEXT: %[[B:.*]] = memref.load %arg2[%[[LOCAL]]]
// CHECK-NEXT: %[[D:.*]] = memref.load %arg3[%[[LOCAL]]]
// CHECK-NEXT: %[[V:.*]] = arith.subf %[[B]], %[[D]]
// CHECK-NEXT: memref.store %[[V]], %arg5[%[[LOCAL]]]
// CHECK-NOT: scf.parallel
// CHECK: return
// Mapped: one launch of 2 blocks of 256 threads (rather than 4 blocks, one
// per row, walking the filter's loops behind barriers).
// LAUNCH-LABEL: func.func @update_two_parameters
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{[_0-9]*}}, {{.*}})
// LAUNCH-NOT: gpu.barrier
// LAUNCH-NOT: gpu.launch
// LAUNCH: return
func.func @update_two_parameters(%w: memref<4x3x2xf32>, %gw: memref<4x3x2xf32>,
                                 %b: memref<4xf32>, %gb: memref<4xf32>,
                                 %w_out: memref<4x3x2xf32>,
                                 %b_out: memref<4xf32>)
    attributes {oneflow.updates_in_place = array<i64: 0, 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c3 step %c1 {
      scf.for %k = %c0 to %c2 step %c1 {
        %x = memref.load %w[%r, %j, %k] : memref<4x3x2xf32>
        %g = memref.load %gw[%r, %j, %k] : memref<4x3x2xf32>
        %y = arith.subf %x, %g : f32
        memref.store %y, %w_out[%r, %j, %k] : memref<4x3x2xf32>
      }
    }
    %x = memref.load %b[%r] : memref<4xf32>
    %g = memref.load %gb[%r] : memref<4xf32>
    %y = arith.subf %x, %g : f32
    memref.store %y, %b_out[%r] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// The row nests of three parameter groups (16, 32 and 10 output channels in
// the ResNet) and a lone elementwise nest, independent of each other, with
// constants between them: one nest. Each part reads the shared scalar
// (AdamW's bias correction) itself. Under max-arguments=6 the parts fill
// two nests (the scalar and each part's two buffers count: 5 for the first
// two parts, 5 for the last two).
// CHECK-LABEL: func.func @three_groups
// CHECK: %c5{{[_0-9]*}} = arith.constant 5
// CHECK: scf.parallel (%[[T:.*]]) = ({{.*}}) to (%c774) step
// CHECK-COUNT-3: memref.load %arg6[]
// CHECK-NOT: scf.parallel
// CHECK: return
// BOUND-LABEL: func.func @three_groups
// BOUND: scf.parallel ({{.*}}) = ({{.*}}) to (%c258) step
// BOUND: scf.parallel ({{.*}}) = ({{.*}}) to (%c262) step
// BOUND-NOT: scf.parallel
func.func @three_groups(%a: memref<2x8xf32>, %b: memref<4x8xf32>,
                        %c: memref<10xf32>, %d: memref<6xf32>,
                        %a_out: memref<2x8xf32>, %b_out: memref<4x8xf32>,
                        %s: memref<f32>, %c_out: memref<10xf32>,
                        %d_out: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%r) = (%c0) to (%c2) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %a[%r, %j] : memref<2x8xf32>
      %k = memref.load %s[] : memref<f32>
      %y = arith.mulf %x, %k : f32
      memref.store %y, %a_out[%r, %j] : memref<2x8xf32>
    }
    %x = memref.load %b[%r, %c0] : memref<4x8xf32>
    %k = memref.load %s[] : memref<f32>
    %y = arith.mulf %x, %k : f32
    memref.store %y, %b_out[%r, %c0] : memref<4x8xf32>
    scf.reduce
  }
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  scf.parallel (%r) = (%c0) to (%c10) step (%c1) {
    %x = memref.load %c[%r] : memref<10xf32>
    %k = memref.load %s[] : memref<f32>
    %y = arith.mulf %x, %k : f32
    memref.store %y, %c_out[%r] : memref<10xf32>
    scf.reduce
  }
  %c6 = arith.constant 6 : index
  scf.parallel (%r) = (%c0) to (%c6) step (%c1) {
    %x = memref.load %d[%r] : memref<6xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %d_out[%r] : memref<6xf32>
    scf.reduce
  }
  return
}

// -----

// A row nest of one part: a nest over the row and its loop, each point its
// own thread (rather than a block per row walking the loop).
// CHECK-LABEL: func.func @one_part
// BOUND-LABEL: func.func @one_part
// CHECK: scf.parallel (%[[R:.*]], %[[J:.*]]) = (%c0{{[_0-9]*}}, %c0{{[_0-9]*}}) to (%c16{{[_0-9]*}}, %c9{{[_0-9]*}}) step
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0[%[[R]], %[[J]]]
// CHECK-NOT: scf.for
// CHECK: return
func.func @one_part(%x: memref<16x9xf32>, %y: memref<16x9xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%r) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c9 step %c1 {
      %v = memref.load %x[%r, %j] : memref<16x9xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %y[%r, %j] : memref<16x9xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Left alone: a row nest whose second loop reads what the first writes (one
// part of two loops), a row reduction (the loop's points write one cell), a
// lone elementwise nest, and two elementwise nests the second of which reads
// the first's result.
// CHECK-LABEL: func.func @left_alone
// CHECK: scf.parallel
// CHECK-COUNT-2: scf.for
// CHECK: scf.parallel
// CHECK-NEXT: scf.for
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c16{{[_0-9]*}}) step
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c16{{[_0-9]*}}) step
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c16{{[_0-9]*}}) step
// CHECK-NOT: scf.parallel
func.func @left_alone(%x: memref<16x8xf32>, %t: memref<16x8xf32>,
                      %y: memref<16x8xf32>, %sum: memref<16xf32>,
                      %u: memref<16xf32>, %v: memref<16xf32>,
                      %w: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%r) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x[%r, %j] : memref<16x8xf32>
      %e = math.exp %a : f32
      memref.store %e, %t[%r, %j] : memref<16x8xf32>
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %t[%r, %j] : memref<16x8xf32>
      %e = arith.addf %a, %a : f32
      memref.store %e, %y[%r, %j] : memref<16x8xf32>
    }
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x[%r, %j] : memref<16x8xf32>
      %s = memref.load %sum[%r] : memref<16xf32>
      %n = arith.addf %s, %a : f32
      memref.store %n, %sum[%r] : memref<16xf32>
    }
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c16) step (%c1) {
    %a = memref.load %sum[%r] : memref<16xf32>
    memref.store %a, %u[%r] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c16) step (%c1) {
    %a = memref.load %u[%r] : memref<16xf32>
    memref.store %a, %v[%r] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c16) step (%c1) {
    %a = memref.load %v[%r] : memref<16xf32>
    memref.store %a, %w[%r] : memref<16xf32>
    scf.reduce
  }
  return
}

// -----

// A parameter updated in place (result 0, %out, is %w's buffer) whose row
// loop reads a neighbour of the element it writes: its points are not
// independent once %out and %w are one buffer, so the nest stays.
// CHECK-LABEL: func.func @in_place_neighbour
// CHECK: scf.parallel
// CHECK-NEXT: scf.for
func.func @in_place_neighbour(%w: memref<4x8xf32>, %b: memref<4xf32>,
                              %out: memref<4x8xf32>, %b_out: memref<4xf32>)
    attributes {oneflow.updates_in_place = array<i64: 0, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c7 step %c1 {
      %next = arith.addi %j, %c1 : index
      %a = memref.load %w[%r, %next] : memref<4x8xf32>
      memref.store %a, %out[%r, %j] : memref<4x8xf32>
    }
    %x = memref.load %b[%r] : memref<4xf32>
    memref.store %x, %b_out[%r] : memref<4xf32>
    scf.reduce
  }
  return
}
