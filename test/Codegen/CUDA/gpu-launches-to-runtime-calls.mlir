// RUN: oneflow-opt %s --oneflow-gpu-launches-to-runtime-calls -split-input-file | FileCheck %s

// A launch becomes oneflow_cuda_launch with the kernel's index, the grid,
// the block, no shared memory and its arguments as 8-byte slots: a
// buffer's address, an index, a float's bits in the low bytes. A product
// calls its cuBLASLt version; the GPU module is gone.
// CHECK: module attributes {oneflow.gpu_kernels = ["scale", "zero"]}
// CHECK-LABEL: func.func @kernel_0_body
// CHECK-DAG: %[[ARGS:.*]] = memref.alloca() : memref<3xi64>
// CHECK-DAG: %[[A:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK-DAG: %[[A64:.*]] = arith.index_cast %[[A]] : index to i64
// CHECK-DAG: %[[N64:.*]] = arith.index_cast %arg2 : index to i64
// CHECK-DAG: %[[FBITS:.*]] = arith.bitcast %arg3 : f32 to i32
// CHECK-DAG: %[[F64:.*]] = arith.extui %[[FBITS]] : i32 to i64
// CHECK-DAG: memref.store %[[A64]], %[[ARGS]][%c0
// CHECK-DAG: memref.store %[[N64]], %[[ARGS]][%c1
// CHECK-DAG: memref.store %[[F64]], %[[ARGS]][%c2
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[ARGS]]
// CHECK: %[[PTR64:.*]] = arith.index_cast %[[PTR]] : index to i64
// CHECK: call @oneflow_cuda_launch(%c0_i64{{(_[0-9]+)?}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %c0_i64{{(_[0-9]+)?}}, %[[PTR64]], %c3_i64)
// CHECK: call @oneflow_cuda_gemm_f32(
// The second launch of the same function has the same index; another
// function the next one.
// CHECK: call @oneflow_cuda_launch(%c1_i64,
// CHECK: call @oneflow_cuda_launch(%c0_i64{{(_[0-9]+)?}},
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func private @oneflow_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64)
  func.func @kernel_0_body(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %n: index, %f: f32) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %i4 = arith.constant 4 : i64
    %i0 = arith.constant 0 : i64
    gpu.launch_func @scale::@scale blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%a : memref<4x4xf32>, %n : index, %f : f32)
    %pa = memref.extract_aligned_pointer_as_index %a : memref<4x4xf32> -> index
    %pa64 = arith.index_cast %pa : index to i64
    func.call @oneflow_gemm_f32(%pa64, %pa64, %pa64, %i4, %i4, %i4, %i0, %i0) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
    gpu.launch_func @zero::@zero blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%b : memref<4x4xf32>)
    gpu.launch_func @scale::@scale blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%b : memref<4x4xf32>, %n : index, %f : f32)
    return
  }
  gpu.module @scale {
    gpu.func @scale(%a: memref<4x4xf32>, %n: index, %f: f32) kernel {
      gpu.return
    }
  }
  gpu.module @zero {
    gpu.func @zero(%a: memref<4x4xf32>) kernel {
      gpu.return
    }
  }
}
