// RUN: oneflow-opt %s --oneflow-fold-gemm-epilogues -split-input-file | FileCheck %s

// A bias broadcast into C, the accumulating product and an in-place ReLU
// become one cuBLASLt call with the RELU_BIAS epilogue.
// CHECK-LABEL: func.func @bias_relu
// CHECK-NOT: linalg.generic
// CHECK: %[[BIAS:.*]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK: %[[B64:.*]] = arith.index_cast %[[BIAS]] : index to i64
// CHECK: call @oneflow_gemm_bias_relu_f32(%{{.*}}, %{{.*}}, %[[B64]], %{{.*}}, %c8_i64, %c128_i64, %c64_i64, %c0_i64, %c1_i64)
// CHECK-NOT: linalg.generic
#cols = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @oneflow_gemm_acc_f32(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @bias_relu(%a: memref<8x64xf32>, %w: memref<128x64xf32>, %bias: memref<128xf32>, %c: memref<8x128xf32>) {
  %c8 = arith.constant 8 : i64
  %c128 = arith.constant 128 : i64
  %c64 = arith.constant 64 : i64
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %zero = arith.constant 0.0 : f32
  %pa = memref.extract_aligned_pointer_as_index %a : memref<8x64xf32> -> index
  %a64 = arith.index_cast %pa : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<128x64xf32> -> index
  %w64 = arith.index_cast %pw : index to i64
  linalg.generic {indexing_maps = [#cols, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<128xf32>) outs(%c : memref<8x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %pc = memref.extract_aligned_pointer_as_index %c : memref<8x128xf32> -> index
  %c64p = arith.index_cast %pc : index to i64
  func.call @oneflow_gemm_acc_f32(%a64, %w64, %c64p, %c8, %c128, %c64, %c0, %c1) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<8x128xf32>) outs(%c : memref<8x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A linear layer on a 3-d input: the batched product with a shared weight
// is one product of batch * m rows, and its bias is the BIAS epilogue.
// CHECK-LABEL: func.func @linear3d
// CHECK-NOT: linalg.generic
// CHECK: call @oneflow_gemm_bias_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c32_i64, %c192_i64{{.*}}, %c64_i64{{.*}}, %c0_i64{{.*}}, %c0_i64
// CHECK-NOT: call @oneflow_batch_gemm
// CHECK: return
#last = affine_map<(d0, d1, d2) -> (d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func private @oneflow_batch_gemm_acc_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @linear3d(%x: memref<2x16x64xf32>, %w: memref<64x192xf32>, %bias: memref<192xf32>, %y: memref<2x16x192xf32>) {
  %c2 = arith.constant 2 : i64
  %c16 = arith.constant 16 : i64
  %c192 = arith.constant 192 : i64
  %c64 = arith.constant 64 : i64
  %c0 = arith.constant 0 : i64
  %c1024 = arith.constant 1024 : i64
  %px = memref.extract_aligned_pointer_as_index %x : memref<2x16x64xf32> -> index
  %x64 = arith.index_cast %px : index to i64
  %pw = memref.extract_aligned_pointer_as_index %w : memref<64x192xf32> -> index
  %w64 = arith.index_cast %pw : index to i64
  linalg.generic {indexing_maps = [#last, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : memref<192xf32>) outs(%y : memref<2x16x192xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %py = memref.extract_aligned_pointer_as_index %y : memref<2x16x192xf32> -> index
  %y64 = arith.index_cast %py : index to i64
  func.call @oneflow_batch_gemm_acc_f32(%x64, %w64, %y64, %c2, %c16, %c192, %c64, %c0, %c0, %c1024, %c0) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  return
}

// -----

// A batched product with its own weights per batch stays batched; a fill
// that is not a bias broadcast stays.
// CHECK-LABEL: func.func @per_batch
// CHECK: linalg.generic
// CHECK: call @oneflow_batch_gemm_acc_f32
#id3b = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func private @oneflow_batch_gemm_acc_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @per_batch(%x: memref<2x16x64xf32>, %w: memref<2x64x16xf32>, %init: memref<2x16x16xf32>, %y: memref<2x16x16xf32>) {
  %c2 = arith.constant 2 : i64
  %c16 = arith.constant 16 : i64
  %c64 = arith.constant 64 : i64
  %c0 = arith.constant 0 : i64
  %c1024 = arith.constant 1024 : i64
  linalg.generic {indexing_maps = [#id3b, #id3b], iterator_types = ["parallel", "parallel", "parallel"]} ins(%init : memref<2x16x16xf32>) outs(%y : memref<2x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %px = memref.extract_aligned_pointer_as_index %x : memref<2x16x64xf32> -> index
  %x64 = arith.index_cast %px : index to i64
  %py = memref.extract_aligned_pointer_as_index %y : memref<2x16x16xf32> -> index
  %y64 = arith.index_cast %py : index to i64
  func.call @oneflow_batch_gemm_acc_f32(%x64, %x64, %y64, %c2, %c16, %c16, %c64, %c0, %c0, %c1024, %c1024) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  return
}
