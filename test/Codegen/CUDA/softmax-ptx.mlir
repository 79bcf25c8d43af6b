// The softmax row nest through the whole GPU path: block-per-row mapping,
// kernel outlining, NVVM with the bare-pointer convention and libdevice,
// PTX for sm_80 (PTX ISA 8.0). The row reductions are warp shuffles and a
// shared-memory exchange; ptxas accepts the PTX for sm_80 and sm_90 with
// no spills.
// RUN: oneflow-opt %s --pass-pipeline="builtin.module(func.func(oneflow-map-loops-to-gpu),gpu-kernel-outlining,nvvm-attach-target{chip=sm_80 features=+ptx80},gpu.module(lower-affine,convert-scf-to-cf,convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv},canonicalize,reconcile-unrealized-casts),gpu-module-to-binary{format=isa toolkit=%cuda_root})" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.mlir %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 -v %t.ptx -o %t.sm80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 -v %t.ptx -o %t.sm90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK: gpu.launch_func @softmax_kernel::@softmax_kernel blocks in (%{{.*}}) threads in (%{{.*}})
// CHECK: gpu.binary @softmax_kernel [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">
// CHECK-SAME: .version 8.0
// CHECK-SAME: .target sm_80
// CHECK-SAME: .entry softmax_kernel
// CHECK-SAME: .maxntid 128, 1, 1
// CHECK-SAME: .shared
// CHECK-SAME: bar.sync
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: ex2.approx
// CHECK-SAME: add.rn.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-NOT: __nv_

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

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
