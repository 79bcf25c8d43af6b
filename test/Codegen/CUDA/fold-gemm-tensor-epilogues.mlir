// RUN: oneflow-opt %s --oneflow-fold-gemm-tensor-epilogues -split-input-file | FileCheck %s

// A linear layer and GELU in tanh form as PyTorch exports it
// (nn.GELU(approximate="tanh")): the bias is added in the GELU's loop. The
// product, bias and GELU become one cuBLASLt call (GELU_BIAS) and the
// kernel returns its buffer.
// CHECK-LABEL: func.func @tanh_gelu
// CHECK-NOT: linalg.generic
// CHECK: %[[BIAS:.*]] = bufferization.to_buffer %arg2 read_only : tensor<128xf32> to memref<128xf32>
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK: %[[B64:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK: call @oneflow_gemm_bias_gelu_f32(%{{.*}}, %{{.*}}, %[[B64]], %{{.*}}, %c8_i64{{.*}}, %c128_i64{{.*}}, %c64_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}})
// CHECK-NEXT: %[[T:.*]] = bufferization.to_tensor %alloc restrict writable
// CHECK-NOT: linalg.generic
// CHECK: return %[[T]]
// CHECK-NOT: @oneflow_gemm_f32
#map = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func private @oneflow_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @tanh_gelu(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %bias: tensor<128xf32>) -> tensor<8x128xf32> {
  %cst = arith.constant 4.471500e-02 : f32
  %cst_0 = arith.constant 0.797884583 : f32
  %cst_1 = arith.constant 1.000000e+00 : f32
  %cst_2 = arith.constant 5.000000e-01 : f32
  %c1_i64 = arith.constant 1 : i64
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %c128_i64 = arith.constant 128 : i64
  %c8_i64 = arith.constant 8 : i64
  %0 = bufferization.to_buffer %x read_only : tensor<8x64xf32> to memref<8x64xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<8x64xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %w read_only : tensor<128x64xf32> to memref<128x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<128x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x128xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<8x128xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c8_i64, %c128_i64, %c64_i64, %c0_i64, %c1_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %5 = bufferization.to_tensor %alloc restrict writable : memref<8x128xf32> to tensor<8x128xf32>
  %6 = linalg.generic {indexing_maps = [#map, #cols, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %bias : tensor<8x128xf32>, tensor<128xf32>) outs(%5 : tensor<8x128xf32>) {
  ^bb0(%in: f32, %in_5: f32, %out: f32):
    %7 = arith.addf %in, %in_5 : f32
    %8 = arith.mulf %7, %7 : f32
    %9 = arith.mulf %7, %8 : f32
    %10 = arith.mulf %9, %cst : f32
    %11 = arith.addf %7, %10 : f32
    %12 = arith.mulf %11, %cst_0 : f32
    %13 = math.tanh %12 : f32
    %14 = arith.addf %13, %cst_1 : f32
    %15 = arith.mulf %7, %14 : f32
    %16 = arith.mulf %15, %cst_2 : f32
    linalg.yield %16 : f32
  } -> tensor<8x128xf32>
  return %6 : tensor<8x128xf32>
}

// -----

// A linear layer on a 3-d input (a batched product with a shared weight)
// is one product of batch * m rows; the bias comes first in the loop and
// the GELU multiplies in another order (oneflow.gelu's lowering writes
// (0.5 x) (1 + tanh(k (x + c x (x x))))). The loop writes a fresh tensor.
// CHECK-LABEL: func.func @linear3d_tanh_gelu
// CHECK: call @oneflow_gemm_bias_gelu_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c32_i64{{.*}}, %c256_i64{{.*}}, %c64_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}})
// CHECK-NOT: linalg.generic
// CHECK-NOT: oneflow_batch_gemm
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#last = affine_map<(d0, d1, d2) -> (d2)>
func.func private @oneflow_batch_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @linear3d_tanh_gelu(%x: tensor<2x16x64xf32>, %w: tensor<64x256xf32>, %bias: tensor<256xf32>) -> tensor<2x16x256xf32> {
  %half = arith.constant 5.000000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %c = arith.constant 4.471500e-02 : f32
  %k = arith.constant 0.797884583 : f32
  %c1024 = arith.constant 1024 : i64
  %c0 = arith.constant 0 : i64
  %c64 = arith.constant 64 : i64
  %c256 = arith.constant 256 : i64
  %c16 = arith.constant 16 : i64
  %c2 = arith.constant 2 : i64
  %0 = bufferization.to_buffer %x read_only : tensor<2x16x64xf32> to memref<2x16x64xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<2x16x64xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %w read_only : tensor<64x256xf32> to memref<64x256xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<64x256xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x16x256xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<2x16x256xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_batch_gemm_f32(%1, %3, %4, %c2, %c16, %c256, %c64, %c0, %c0, %c1024, %c0) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %5 = bufferization.to_tensor %alloc restrict writable : memref<2x16x256xf32> to tensor<2x16x256xf32>
  %e = tensor.empty() : tensor<2x16x256xf32>
  %6 = linalg.generic {indexing_maps = [#last, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias, %5 : tensor<256xf32>, tensor<2x16x256xf32>) outs(%e : tensor<2x16x256xf32>) {
  ^bb0(%b: f32, %in: f32, %out: f32):
    %s = arith.addf %b, %in : f32
    %hx = arith.mulf %half, %s : f32
    %sq = arith.mulf %s, %s : f32
    %cube = arith.mulf %s, %sq : f32
    %ccube = arith.mulf %c, %cube : f32
    %poly = arith.addf %s, %ccube : f32
    %u = arith.mulf %k, %poly : f32
    %t = math.tanh %u : f32
    %opt = arith.addf %one, %t : f32
    %y = arith.mulf %hx, %opt : f32
    linalg.yield %y : f32
  } -> tensor<2x16x256xf32>
  return %6 : tensor<2x16x256xf32>
}

// -----

// The bias already starts C (an accumulating product after the bias's
// broadcast, the lowering of matmul + bias when the sum has other than
// elementwise users): the GELU reads C alone; the broadcast goes too.
// CHECK-LABEL: func.func @acc_tanh_gelu
// CHECK-NOT: linalg.generic
// CHECK: %[[BIAS:.*]] = bufferization.to_buffer %arg2 read_only
// CHECK-NOT: linalg.generic
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK: %[[B64:.*]] = arith.index_cast %[[P]]
// CHECK: call @oneflow_gemm_bias_gelu_f32(%{{.*}}, %{{.*}}, %[[B64]], %{{.*}}, %c8_i64{{.*}}, %c128_i64{{.*}}, %c64_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}})
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func private @oneflow_gemm_acc_f32(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @acc_tanh_gelu(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %bias: tensor<128xf32>) -> tensor<8x128xf32> {
  %cst = arith.constant 4.471500e-02 : f32
  %cst_0 = arith.constant 0.797884583 : f32
  %cst_1 = arith.constant 1.000000e+00 : f32
  %cst_2 = arith.constant 5.000000e-01 : f32
  %c1_i64 = arith.constant 1 : i64
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %c128_i64 = arith.constant 128 : i64
  %c8_i64 = arith.constant 8 : i64
  %0 = bufferization.to_buffer %x read_only : tensor<8x64xf32> to memref<8x64xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<8x64xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %w read_only : tensor<128x64xf32> to memref<128x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<128x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x128xf32>
  %bb = bufferization.to_buffer %bias read_only : tensor<128xf32> to memref<128xf32>
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bb : memref<128xf32>) outs(%alloc : memref<8x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<8x128xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_acc_f32(%1, %3, %4, %c8_i64, %c128_i64, %c64_i64, %c0_i64, %c1_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %5 = bufferization.to_tensor %alloc restrict writable : memref<8x128xf32> to tensor<8x128xf32>
  %6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8x128xf32>) outs(%5 : tensor<8x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.mulf %in, %in : f32
    %9 = arith.mulf %in, %8 : f32
    %10 = arith.mulf %9, %cst : f32
    %11 = arith.addf %in, %10 : f32
    %12 = arith.mulf %11, %cst_0 : f32
    %13 = math.tanh %12 : f32
    %14 = arith.addf %13, %cst_1 : f32
    %15 = arith.mulf %in, %14 : f32
    %16 = arith.mulf %15, %cst_2 : f32
    linalg.yield %16 : f32
  } -> tensor<8x128xf32>
  return %6 : tensor<8x128xf32>
}

// -----

// GELU in erf form (nn.GELU's default, as PyTorch exports it) is not what
// cuBLASLt computes: nothing changes.
// CHECK-LABEL: func.func @erf_gelu
// CHECK: call @oneflow_gemm_f32
// CHECK: linalg.generic
// CHECK: math.erf
// CHECK-NOT: gelu
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#c2 = affine_map<(d0, d1) -> (d1)>
func.func private @oneflow_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @erf_gelu(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %bias: tensor<128xf32>) -> tensor<8x128xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %sqrt2 = arith.constant 1.41421354 : f32
  %c1_i64 = arith.constant 1 : i64
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %c128_i64 = arith.constant 128 : i64
  %c8_i64 = arith.constant 8 : i64
  %0 = bufferization.to_buffer %x read_only : tensor<8x64xf32> to memref<8x64xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<8x64xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %w read_only : tensor<128x64xf32> to memref<128x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<128x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x128xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<8x128xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c8_i64, %c128_i64, %c64_i64, %c0_i64, %c1_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %5 = bufferization.to_tensor %alloc restrict writable : memref<8x128xf32> to tensor<8x128xf32>
  %6 = linalg.generic {indexing_maps = [#m2, #c2, #m2], iterator_types = ["parallel", "parallel"]} ins(%5, %bias : tensor<8x128xf32>, tensor<128xf32>) outs(%5 : tensor<8x128xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %7 = arith.addf %b, %in : f32
    %8 = arith.divf %7, %sqrt2 : f32
    %9 = math.erf %8 : f32
    %10 = arith.addf %9, %one : f32
    %11 = arith.mulf %7, %10 : f32
    %12 = arith.mulf %11, %half : f32
    linalg.yield %12 : f32
  } -> tensor<8x128xf32>
  return %6 : tensor<8x128xf32>
}

// -----

// Training: the forward's loop also yields values kept for the backward
// (tanh(u), x^2), which the GELU epilogue does not write; the product is
// read by more than the GELU; and a GELU whose cubic coefficient is not
// 0.044715 is another function. Nothing changes.
// CHECK-LABEL: func.func @kept_values
// CHECK: call @oneflow_gemm_f32
// CHECK: linalg.generic
// CHECK-LABEL: func.func @product_kept
// CHECK: call @oneflow_gemm_f32
// CHECK: linalg.generic
// CHECK-LABEL: func.func @other_coefficient
// CHECK: call @oneflow_gemm_f32
// CHECK: linalg.generic
// CHECK-NOT: gelu
#k2 = affine_map<(d0, d1) -> (d0, d1)>
#kc = affine_map<(d0, d1) -> (d1)>
func.func private @oneflow_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @kept_values(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %bias: tensor<128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %cst = arith.constant 4.471500e-02 : f32
  %cst_0 = arith.constant 0.797884583 : f32
  %cst_1 = arith.constant 1.000000e+00 : f32
  %cst_2 = arith.constant 5.000000e-01 : f32
  %c1_i64 = arith.constant 1 : i64
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %c128_i64 = arith.constant 128 : i64
  %c8_i64 = arith.constant 8 : i64
  %0 = bufferization.to_buffer %x read_only : tensor<8x64xf32> to memref<8x64xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<8x64xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %w read_only : tensor<128x64xf32> to memref<128x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<128x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x128xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<8x128xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c8_i64, %c128_i64, %c64_i64, %c0_i64, %c1_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %5 = bufferization.to_tensor %alloc restrict writable : memref<8x128xf32> to tensor<8x128xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %6:2 = linalg.generic {indexing_maps = [#k2, #kc, #k2, #k2], iterator_types = ["parallel", "parallel"]} ins(%5, %bias : tensor<8x128xf32>, tensor<128xf32>) outs(%5, %e : tensor<8x128xf32>, tensor<8x128xf32>) {
  ^bb0(%in: f32, %in_5: f32, %out: f32, %out2: f32):
    %7 = arith.addf %in, %in_5 : f32
    %8 = arith.mulf %7, %7 : f32
    %9 = arith.mulf %7, %8 : f32
    %10 = arith.mulf %9, %cst : f32
    %11 = arith.addf %7, %10 : f32
    %12 = arith.mulf %11, %cst_0 : f32
    %13 = math.tanh %12 : f32
    %14 = arith.addf %13, %cst_1 : f32
    %15 = arith.mulf %7, %14 : f32
    %16 = arith.mulf %15, %cst_2 : f32
    linalg.yield %16, %13 : f32, f32
  } -> (tensor<8x128xf32>, tensor<8x128xf32>)
  return %6#0, %6#1 : tensor<8x128xf32>, tensor<8x128xf32>
}
func.func @product_kept(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %bias: tensor<128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %cst = arith.constant 4.471500e-02 : f32
  %cst_0 = arith.constant 0.797884583 : f32
  %cst_1 = arith.constant 1.000000e+00 : f32
  %cst_2 = arith.constant 5.000000e-01 : f32
  %c1_i64 = arith.constant 1 : i64
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %c128_i64 = arith.constant 128 : i64
  %c8_i64 = arith.constant 8 : i64
  %0 = bufferization.to_buffer %x read_only : tensor<8x64xf32> to memref<8x64xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<8x64xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %w read_only : tensor<128x64xf32> to memref<128x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<128x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x128xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<8x128xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c8_i64, %c128_i64, %c64_i64, %c0_i64, %c1_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %5 = bufferization.to_tensor %alloc restrict writable : memref<8x128xf32> to tensor<8x128xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %6 = linalg.generic {indexing_maps = [#k2, #kc, #k2], iterator_types = ["parallel", "parallel"]} ins(%5, %bias : tensor<8x128xf32>, tensor<128xf32>) outs(%e : tensor<8x128xf32>) {
  ^bb0(%in: f32, %in_5: f32, %out: f32):
    %7 = arith.addf %in, %in_5 : f32
    %8 = arith.mulf %7, %7 : f32
    %9 = arith.mulf %7, %8 : f32
    %10 = arith.mulf %9, %cst : f32
    %11 = arith.addf %7, %10 : f32
    %12 = arith.mulf %11, %cst_0 : f32
    %13 = math.tanh %12 : f32
    %14 = arith.addf %13, %cst_1 : f32
    %15 = arith.mulf %7, %14 : f32
    %16 = arith.mulf %15, %cst_2 : f32
    linalg.yield %16 : f32
  } -> tensor<8x128xf32>
  return %6, %5 : tensor<8x128xf32>, tensor<8x128xf32>
}
func.func @other_coefficient(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>, %bias: tensor<128xf32>) -> tensor<8x128xf32> {
  %cst = arith.constant 4.571500e-02 : f32
  %cst_0 = arith.constant 0.797884583 : f32
  %cst_1 = arith.constant 1.000000e+00 : f32
  %cst_2 = arith.constant 5.000000e-01 : f32
  %c1_i64 = arith.constant 1 : i64
  %c0_i64 = arith.constant 0 : i64
  %c64_i64 = arith.constant 64 : i64
  %c128_i64 = arith.constant 128 : i64
  %c8_i64 = arith.constant 8 : i64
  %0 = bufferization.to_buffer %x read_only : tensor<8x64xf32> to memref<8x64xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<8x64xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %w read_only : tensor<128x64xf32> to memref<128x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<128x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x128xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<8x128xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c8_i64, %c128_i64, %c64_i64, %c0_i64, %c1_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %5 = bufferization.to_tensor %alloc restrict writable : memref<8x128xf32> to tensor<8x128xf32>
  %6 = linalg.generic {indexing_maps = [#k2, #kc, #k2], iterator_types = ["parallel", "parallel"]} ins(%5, %bias : tensor<8x128xf32>, tensor<128xf32>) outs(%5 : tensor<8x128xf32>) {
  ^bb0(%in: f32, %in_5: f32, %out: f32):
    %7 = arith.addf %in, %in_5 : f32
    %8 = arith.mulf %7, %7 : f32
    %9 = arith.mulf %7, %8 : f32
    %10 = arith.mulf %9, %cst : f32
    %11 = arith.addf %7, %10 : f32
    %12 = arith.mulf %11, %cst_0 : f32
    %13 = math.tanh %12 : f32
    %14 = arith.addf %13, %cst_1 : f32
    %15 = arith.mulf %7, %14 : f32
    %16 = arith.mulf %15, %cst_2 : f32
    linalg.yield %16 : f32
  } -> tensor<8x128xf32>
  return %6 : tensor<8x128xf32>
}

// -----

// A linear layer's weight gradient dW = X^T dY (X, dY 3-d, collapsed to
// rows) next to its bias gradient, the column sum of dY: one cuBLASLt call
// (BGRADA) that writes the sum into a fresh buffer; the sum's reader (an
// SGD update) reads that buffer.
// CHECK-LABEL: func.func @bias_grad_of_b
// CHECK-NOT: linalg.fill
// CHECK: %[[SUM:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[SUM]]
// CHECK: %[[S64:.*]] = arith.index_cast %[[P]]
// CHECK: call @oneflow_gemm_bgrad_b_f32(%{{.*}}, %{{.*}}, %[[S64]], %{{.*}}, %c256_i64{{.*}}, %c64_i64{{.*}}, %c32_i64{{.*}}, %c1_i64{{.*}}, %c0_i64{{.*}})
// CHECK-NEXT: %[[T:.*]] = bufferization.to_tensor %[[SUM]] restrict writable : memref<64xf32> to tensor<64xf32>
// CHECK: linalg.generic {{.*}} ins(%arg3, %[[T]] : tensor<64xf32>, tensor<64xf32>)
// CHECK-NOT: oneflow_gemm_f32
#r3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3last = affine_map<(d0, d1, d2) -> (d2)>
#v = affine_map<(d0) -> (d0)>
func.func private @oneflow_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @bias_grad_of_b(%x: tensor<2x16x256xf32>, %dy: tensor<2x16x64xf32>, %w: tensor<256x64xf32>, %b: tensor<64xf32>) -> (tensor<256x64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %lr = arith.constant 0.00999999977 : f32
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c32_i64 = arith.constant 32 : i64
  %c64_i64 = arith.constant 64 : i64
  %c256_i64 = arith.constant 256 : i64
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %db = linalg.generic {indexing_maps = [#r3, #r3last], iterator_types = ["reduction", "reduction", "parallel"]} ins(%dy : tensor<2x16x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %xc = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x16x256xf32> into tensor<32x256xf32>
  %dyc = tensor.collapse_shape %dy [[0, 1], [2]] : tensor<2x16x64xf32> into tensor<32x64xf32>
  %0 = bufferization.to_buffer %xc read_only : tensor<32x256xf32> to memref<32x256xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<32x256xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %dyc read_only : tensor<32x64xf32> to memref<32x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<32x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x64xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<256x64xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c256_i64, %c64_i64, %c32_i64, %c1_i64, %c0_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %dw = bufferization.to_tensor %alloc restrict writable : memref<256x64xf32> to tensor<256x64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %nb = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%b, %db : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%in: f32, %g: f32, %out: f32):
    %m = arith.mulf %g, %lr : f32
    %s = arith.subf %in, %m : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %dw, %nb : tensor<256x64xf32>, tensor<64xf32>
}

// -----

// dW = dY^T X (a linear layer with its weight [out, in], as PyTorch's Gemm
// exports it): the bias gradient sums a, which is transposed (BGRADB).
// CHECK-LABEL: func.func @bias_grad_of_a
// CHECK: %[[SUM:.*]] = memref.alloc() {alignment = 64 : i64} : memref<10xf32>
// CHECK: call @oneflow_gemm_bgrad_a_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c10_i64{{.*}}, %c128_i64{{.*}}, %c8_i64{{.*}}, %c1_i64{{.*}}, %c0_i64{{.*}})
// CHECK-NEXT: %[[T:.*]] = bufferization.to_tensor %[[SUM]]
// CHECK-NOT: linalg.generic
// CHECK: return %{{.*}}, %[[T]]
#a2 = affine_map<(d0, d1) -> (d0, d1)>
#a2last = affine_map<(d0, d1) -> (d1)>
func.func private @oneflow_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @bias_grad_of_a(%dy: tensor<8x10xf32>, %h: tensor<8x128xf32>) -> (tensor<10x128xf32>, tensor<10xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c8_i64 = arith.constant 8 : i64
  %c10_i64 = arith.constant 10 : i64
  %c128_i64 = arith.constant 128 : i64
  %0 = bufferization.to_buffer %dy read_only : tensor<8x10xf32> to memref<8x10xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<8x10xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %h read_only : tensor<8x128xf32> to memref<8x128xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<8x128xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<10x128xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<10x128xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c10_i64, %c128_i64, %c8_i64, %c1_i64, %c0_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %dw = bufferization.to_tensor %alloc restrict writable : memref<10x128xf32> to tensor<10x128xf32>
  %e = tensor.empty() : tensor<10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<10xf32>) -> tensor<10xf32>
  %db = linalg.generic {indexing_maps = [#a2, #a2last], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<8x10xf32>) outs(%f : tensor<10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  return %dw, %db : tensor<10x128xf32>, tensor<10xf32>
}

// -----

// Not bias gradients cuBLASLt can compute with the product: a sum read
// before the product, a sum onto a gradient accumulated from earlier
// micro-batches (not zeros), the sum of a transposed b, and the sum of an
// untransposed a.
// CHECK-LABEL: func.func @read_before
// CHECK: linalg.generic
// CHECK: call @oneflow_gemm_f32
// CHECK-LABEL: func.func @accumulated
// CHECK: linalg.generic
// CHECK: call @oneflow_gemm_f32
// CHECK-LABEL: func.func @transposed_b
// CHECK: linalg.generic
// CHECK: call @oneflow_gemm_f32
// CHECK-LABEL: func.func @untransposed_a
// CHECK: linalg.generic
// CHECK: call @oneflow_gemm_f32
// CHECK-NOT: bgrad
#n2 = affine_map<(d0, d1) -> (d0, d1)>
#n2last = affine_map<(d0, d1) -> (d1)>
#n1 = affine_map<(d0) -> (d0)>
func.func private @oneflow_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @read_before(%x: tensor<32x256xf32>, %dy: tensor<32x64xf32>) -> (tensor<256x64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c32_i64 = arith.constant 32 : i64
  %c64_i64 = arith.constant 64 : i64
  %c256_i64 = arith.constant 256 : i64
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %db = linalg.generic {indexing_maps = [#n2, #n2last], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<32x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %twice = linalg.generic {indexing_maps = [#n1, #n1], iterator_types = ["parallel"]} ins(%db : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %0 = bufferization.to_buffer %x read_only : tensor<32x256xf32> to memref<32x256xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<32x256xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %dy read_only : tensor<32x64xf32> to memref<32x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<32x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x64xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<256x64xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c256_i64, %c64_i64, %c32_i64, %c1_i64, %c0_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %dw = bufferization.to_tensor %alloc restrict writable : memref<256x64xf32> to tensor<256x64xf32>
  return %dw, %twice : tensor<256x64xf32>, tensor<64xf32>
}
func.func @accumulated(%x: tensor<32x256xf32>, %dy: tensor<32x64xf32>, %acc: tensor<64xf32>) -> (tensor<256x64xf32>, tensor<64xf32>) {
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c32_i64 = arith.constant 32 : i64
  %c64_i64 = arith.constant 64 : i64
  %c256_i64 = arith.constant 256 : i64
  %db = linalg.generic {indexing_maps = [#n2, #n2last], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<32x64xf32>) outs(%acc : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %0 = bufferization.to_buffer %x read_only : tensor<32x256xf32> to memref<32x256xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<32x256xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %dy read_only : tensor<32x64xf32> to memref<32x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<32x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x64xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<256x64xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c256_i64, %c64_i64, %c32_i64, %c1_i64, %c0_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %dw = bufferization.to_tensor %alloc restrict writable : memref<256x64xf32> to tensor<256x64xf32>
  return %dw, %db : tensor<256x64xf32>, tensor<64xf32>
}
func.func @transposed_b(%x: tensor<32x256xf32>, %dyt: tensor<64x32xf32>, %dy: tensor<32x64xf32>) -> (tensor<256x64xf32>, tensor<32xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c32_i64 = arith.constant 32 : i64
  %c64_i64 = arith.constant 64 : i64
  %c256_i64 = arith.constant 256 : i64
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %db = linalg.generic {indexing_maps = [#n2, #n2last], iterator_types = ["reduction", "parallel"]} ins(%dyt : tensor<64x32xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %0 = bufferization.to_buffer %x read_only : tensor<32x256xf32> to memref<32x256xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<32x256xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %dyt read_only : tensor<64x32xf32> to memref<64x32xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<64x32xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x64xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<256x64xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c256_i64, %c64_i64, %c32_i64, %c1_i64, %c1_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %dw = bufferization.to_tensor %alloc restrict writable : memref<256x64xf32> to tensor<256x64xf32>
  return %dw, %db : tensor<256x64xf32>, tensor<32xf32>
}
func.func @untransposed_a(%a: tensor<32x256xf32>, %b: tensor<256x64xf32>) -> (tensor<32x64xf32>, tensor<256xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c32_i64 = arith.constant 32 : i64
  %c64_i64 = arith.constant 64 : i64
  %c256_i64 = arith.constant 256 : i64
  %e = tensor.empty() : tensor<256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %sa = linalg.generic {indexing_maps = [#n2, #n2last], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<32x256xf32>) outs(%f : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %0 = bufferization.to_buffer %a read_only : tensor<32x256xf32> to memref<32x256xf32>
  %p0 = memref.extract_aligned_pointer_as_index %0 : memref<32x256xf32> -> index
  %1 = arith.index_cast %p0 : index to i64
  %2 = bufferization.to_buffer %b read_only : tensor<256x64xf32> to memref<256x64xf32>
  %p2 = memref.extract_aligned_pointer_as_index %2 : memref<256x64xf32> -> index
  %3 = arith.index_cast %p2 : index to i64
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<32x64xf32>
  %pa = memref.extract_aligned_pointer_as_index %alloc : memref<32x64xf32> -> index
  %4 = arith.index_cast %pa : index to i64
  call @oneflow_gemm_f32(%1, %3, %4, %c32_i64, %c64_i64, %c256_i64, %c0_i64, %c0_i64) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %y = bufferization.to_tensor %alloc restrict writable : memref<32x64xf32> to tensor<32x64xf32>
  return %y, %sa : tensor<32x64xf32>, tensor<256xf32>
}
