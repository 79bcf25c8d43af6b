// RUN: oneflow-opt %s --convert-oneflow-to-linalg -split-input-file | FileCheck %s

// f32 matmul calls the kernel library's BLAS GEMM with the buffers'
// addresses, M, N, K and the transpose flags.
// CHECK-LABEL: func.func private @oneflow_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func @matmul
// CHECK:       %[[A:.*]] = bufferization.to_buffer %arg0 read_only : tensor<8x64xf32> to memref<8x64xf32>
// CHECK:       memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:       %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
// CHECK:       call @oneflow_gemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c8_i64, %c16_i64, %c64_i64, %c0_i64, %c1_i64)
// CHECK:       bufferization.to_tensor %[[C]] restrict writable
func.func @matmul(%a: tensor<8x64xf32>, %b: tensor<16x64xf32>) -> tensor<8x16xf32> {
  %0 = oneflow.matmul %a, %b {transpose_b} : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Other element types use linalg.matmul on materialized transposes.
// CHECK-LABEL: func @matmul_i32
// CHECK:       linalg.transpose
// CHECK:       linalg.matmul
func.func @matmul_i32(%a: tensor<8x4xi32>, %b: tensor<16x4xi32>) -> tensor<8x16xi32> {
  %0 = oneflow.matmul %a, %b {transpose_b} : (tensor<8x4xi32>, tensor<16x4xi32>) -> tensor<8x16xi32>
  return %0 : tensor<8x16xi32>
}

// -----

// A 2-D weight in a batched matmul is shared by every batch (stride 0).
// CHECK-LABEL: func @batch_matmul
// CHECK: call @oneflow_batch_gemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c6_i64, %c4_i64, %c5_i64, %c8_i64, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c32_i64, %c0_i64{{[_0-9]*}})
func.func @batch_matmul(%a: tensor<2x3x4x8xf32>, %b: tensor<8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x3x4x8xf32>, tensor<8x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// Convolutions pass the whole geometry; an absent bias is a null address.
// CHECK-LABEL: func @conv
// CHECK: %[[NULL:.*]] = arith.constant 0 : i64
// CHECK: call @oneflow_conv2d_f32(%{{.*}}, %{{.*}}, %[[NULL]], %{{.*}}, %c1_i64, %c4_i64, %c10_i64, %c10_i64{{[_0-9]*}}, %c8_i64, %c3_i64, %c3_i64{{[_0-9]*}}, %c5_i64, %c5_i64{{[_0-9]*}}, %c2_i64, %c2_i64{{[_0-9]*}}
func.func @conv(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x5x5xf32> {
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x5x5xf32>
  return %0 : tensor<1x8x5x5xf32>
}

// -----

// A constant weight (oneflow-mark-constant-weights) calls the entry point
// that keeps oneDNN's blocked copy of it; f64 has no such entry point.
// CHECK-LABEL: func @conv_constant_weight
// CHECK: call @oneflow_conv2d_constant_weight_f32(
// CHECK: call @oneflow_conv2d_f64(
func.func @conv_constant_weight(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %xd: tensor<1x4x10x10xf64>, %wd: tensor<8x4x3x3xf64>) -> (tensor<1x8x5x5xf32>, tensor<1x8x5x5xf64>) {
  %0 = oneflow.conv2d %x, %w {constant_weight, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x5x5xf32>
  %1 = oneflow.conv2d %xd, %wd {constant_weight, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x10x10xf64>, tensor<8x4x3x3xf64>) -> tensor<1x8x5x5xf64>
  return %0, %1 : tensor<1x8x5x5xf32>, tensor<1x8x5x5xf64>
}

// -----

// A product whose only user adds a per-column bias starts its output at the
// broadcast bias and accumulates into it (beta = 1): no add remains.
// CHECK-LABEL: func @batch_matmul_bias
// CHECK:       %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x4x5xf32>
// CHECK:       linalg.generic {indexing_maps = [#[[BCAST:.*]], #{{.*}}]
// CHECK-SAME:    outs(%[[C]] : memref<2x4x5xf32>)
// CHECK:       call @oneflow_batch_gemm_acc_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c2_i64, %c4_i64, %c5_i64, %c8_i64
// CHECK:       %[[R:.*]] = bufferization.to_tensor %[[C]] restrict writable
// CHECK-NOT:   arith.addf
// CHECK:       return %[[R]]
func.func @batch_matmul_bias(%a: tensor<2x4x8xf32>, %b: tensor<8x5xf32>, %bias: tensor<5xf32>) -> tensor<2x4x5xf32> {
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x5xf32>) -> tensor<2x4x5xf32>
  %1 = oneflow.add %bias, %0 : (tensor<5xf32>, tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %1 : tensor<2x4x5xf32>
}

// -----

// A full-size addend (a residual) or a per-row one is not a bias: the product
// is computed alone and added afterwards.
// CHECK-LABEL: func @matmul_residual
// CHECK:       call @oneflow_gemm_f32(
// CHECK:       arith.addf
// CHECK:       call @oneflow_gemm_f32(
// CHECK:       arith.addf
func.func @matmul_residual(%a: tensor<5x8xf32>, %b: tensor<8x5xf32>, %r: tensor<5x5xf32>, %rows: tensor<5x1xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>) {
  %0 = oneflow.matmul %a, %b : (tensor<5x8xf32>, tensor<8x5xf32>) -> tensor<5x5xf32>
  %1 = oneflow.add %0, %r : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
  %2 = oneflow.matmul %a, %b : (tensor<5x8xf32>, tensor<8x5xf32>) -> tensor<5x5xf32>
  %3 = oneflow.add %2, %rows : (tensor<5x5xf32>, tensor<5x1xf32>) -> tensor<5x5xf32>
  return %1, %3 : tensor<5x5xf32>, tensor<5x5xf32>
}

// -----

// A biased product that only feeds more elementwise arithmetic (a residual
// add) is computed alone: the loop of that add adds the bias on its way,
// where starting at the bias would cost a pass over the output.
// CHECK-LABEL: func @batch_matmul_bias_then_residual
// CHECK-NOT:   linalg.generic
// CHECK:       call @oneflow_batch_gemm_f32(
// CHECK-NOT:   call @oneflow_batch_gemm_acc_f32
// CHECK:       arith.addf
// CHECK:       arith.addf
// CHECK:       return
func.func @batch_matmul_bias_then_residual(%a: tensor<2x4x8xf32>, %b: tensor<8x5xf32>, %bias: tensor<5xf32>, %r: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x5xf32>) -> tensor<2x4x5xf32>
  %1 = oneflow.add %bias, %0 : (tensor<5xf32>, tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %2 = oneflow.add %r, %1 : (tensor<2x4x5xf32>, tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %2 : tensor<2x4x5xf32>
}

// -----

// The products with aux epilogues (CUDA plans) are one call each: inputs,
// then outputs (c, then the aux or the bias gradient), then m, n, k and the
// transpose flags.
// CHECK-LABEL: func @aux_epilogues
// CHECK:       %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x130xf32>
// CHECK:       %[[MASK:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x8xi32>
// CHECK:       call @oneflow_gemm_bias_relu_aux_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c8_i64, %c130_i64, %c64_i64, %c0_i64, %c1_i64)
// CHECK:       %[[DX:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x130xf32>
// CHECK:       %[[DB:.*]] = memref.alloc() {alignment = 64 : i64} : memref<130xf32>
// CHECK:       call @oneflow_gemm_drelu_bgrad_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c8_i64{{[_0-9]*}}, %c130_i64{{[_0-9]*}}, %c16_i64, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}})
// CHECK:       call @oneflow_gemm_bias_gelu_aux_f32(
// CHECK:       call @oneflow_gemm_dgelu_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c8_i64{{[_0-9]*}}, %c130_i64{{[_0-9]*}}, %c16_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}})
func.func @aux_epilogues(%x: tensor<8x64xf32>, %w: tensor<130x64xf32>, %b: tensor<130xf32>, %dy: tensor<8x16xf32>, %dyT: tensor<16x8xf32>, %w2: tensor<16x130xf32>) -> (tensor<8x130xf32>, tensor<8x130xf32>, tensor<130xf32>, tensor<8x130xf32>, tensor<8x130xf32>) {
  %h, %mask = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<relu>, transpose_b} : (tensor<8x64xf32>, tensor<130x64xf32>, tensor<130xf32>) -> (tensor<8x130xf32>, tensor<8x8xi32>)
  %dx, %db = oneflow.matmul_act_grad %dy, %w2, %mask {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<16x130xf32>, tensor<8x8xi32>) -> (tensor<8x130xf32>, tensor<130xf32>)
  %g, %pre = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<gelu_tanh>, transpose_b} : (tensor<8x64xf32>, tensor<130x64xf32>, tensor<130xf32>) -> (tensor<8x130xf32>, tensor<8x136xf32>)
  %dg = oneflow.matmul_act_grad %dyT, %w2, %pre {activation = #oneflow.epilogue_activation<gelu_tanh>, transpose_a} : (tensor<16x8xf32>, tensor<16x130xf32>, tensor<8x136xf32>) -> tensor<8x130xf32>
  return %h, %dx, %db, %g, %dg : tensor<8x130xf32>, tensor<8x130xf32>, tensor<130xf32>, tensor<8x130xf32>, tensor<8x130xf32>
}

// -----

// A conv with its epilogue: x, w, bias, residual, y, the geometry named
// NCHW (n 2, c 16, h 8, w 8, o 16, ...), then the activation's code (clip:
// 2) and its bounds as the bits of doubles (0.0 and 6.0); no residual is a
// null address.
// CHECK-LABEL: func @conv_epilogue
// CHECK: call @oneflow_conv2d_nhwc_epilogue_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c2_i64, %c16_i64, %c8_i64, %c8_i64{{[_0-9]*}}, %c16_i64{{[_0-9]*}}, %c3_i64, %c3_i64{{[_0-9]*}}, %c4_i64, %c4_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c1_i64, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c16_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c0_i64, %c4618441417868443648_i64)
// CHECK: call @oneflow_conv2d_nhwc_epilogue_f32(%{{[0-9]+}}, %{{[0-9]+}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %{{[0-9]+}}, {{.*}}, %c3_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}})
func.func @conv_epilogue(%x: tensor<2x8x8x16xf32>, %dw: tensor<16x1x3x3xf32>, %b: tensor<16xf32>, %r: tensor<2x4x4x16xf32>) -> (tensor<2x4x4x16xf32>, tensor<2x4x4x16xf32>) {
  %0 = oneflow.conv2d_epilogue %x, %dw bias %b residual %r {activation = #oneflow.conv_activation<clip>, clip_min = 0.0 : f64, clip_max = 6.0 : f64, groups = 16 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x8x8x16xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>, tensor<2x4x4x16xf32>) -> tensor<2x4x4x16xf32>
  %1 = oneflow.conv2d_epilogue %x, %dw {activation = #oneflow.conv_activation<silu>, groups = 16 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x8x8x16xf32>, tensor<16x1x3x3xf32>) -> tensor<2x4x4x16xf32>
  return %0, %1 : tensor<2x4x4x16xf32>, tensor<2x4x4x16xf32>
}

// -----

// NonMaxSuppression calls the kernel library with the five inputs (a null
// address for the absent score threshold), the padded selection and its
// count, then batches, classes, boxes, rows per class and the box format.
// CHECK-LABEL: func.func private @oneflow_non_max_suppression_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @non_max_suppression
// CHECK: %[[NULL:.*]] = arith.constant 0 : i64
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<12x3xi64>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<i64>
// CHECK: %[[B:.*]] = arith.constant 2 : i64
// CHECK: %[[C:.*]] = arith.constant 3 : i64
// CHECK: %[[N:.*]] = arith.constant 5 : i64
// CHECK: %[[ROWS:.*]] = arith.constant 2 : i64
// CHECK: %[[CENTER:.*]] = arith.constant 1 : i64
// CHECK: call @oneflow_non_max_suppression_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %{{.*}}, %{{.*}}, %[[B]], %[[C]], %[[N]], %[[ROWS]], %[[CENTER]])
func.func @non_max_suppression(%boxes: tensor<2x5x4xf32>, %scores: tensor<2x3x5xf32>,
                               %max: tensor<1xi64>, %iou: tensor<1xf32>) -> (tensor<12x3xi64>, tensor<i64>) {
  %selected, %n = oneflow.non_max_suppression %boxes, %scores, %max, %iou {center_point_box, max_boxes_bound = 2 : i64} : (tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xf32>) -> (tensor<12x3xi64>, tensor<i64>)
  return %selected, %n : tensor<12x3xi64>, tensor<i64>
}

// -----

// Unique calls the library with x viewed as [outer, n, inner] around its
// axis and the sorted flag; its five results are fresh buffers.
// CHECK-LABEL: func.func private @oneflow_unique_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @unique_along_axis
// CHECK-COUNT-5: memref.alloc()
// CHECK: %[[OUTER:.*]] = arith.constant 2 : i64
// CHECK: %[[N:.*]] = arith.constant 4 : i64
// CHECK: %[[INNER:.*]] = arith.constant 2 : i64
// CHECK: %[[SORTED:.*]] = arith.constant 1 : i64
// CHECK: call @oneflow_unique_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[OUTER]], %[[N]], %[[INNER]], %[[SORTED]])
func.func @unique_along_axis(%x: tensor<2x4x2xf32>) -> (tensor<2x4x2xf32>, tensor<i64>) {
  %y, %indices, %inverse, %counts, %n = oneflow.unique %x {axis = 1 : i64, sorted} : tensor<2x4x2xf32> -> tensor<2x4x2xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<i64>
  return %y, %n : tensor<2x4x2xf32>, tensor<i64>
}

// -----

// Without an axis: every element is an entry (outer = inner = 1).
// CHECK-LABEL: func.func @unique_elements
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[SIX:.*]] = arith.constant 6 : i64
// CHECK: %[[ONE2:.*]] = arith.constant 1 : i64
// CHECK: %[[UNSORTED:.*]] = arith.constant 0 : i64
// CHECK: call @oneflow_unique_i64(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[SIX]], %[[ONE2]], %[[UNSORTED]])
func.func @unique_elements(%x: tensor<2x3xi64>) -> tensor<6xi64> {
  %y, %indices, %inverse, %counts, %n = oneflow.unique %x : tensor<2x3xi64> -> tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<i64>
  return %y : tensor<6xi64>
}

// -----

// NonZero passes the rank and the dimensions, padded with ones to 8.
// CHECK-LABEL: func.func private @oneflow_non_zero_f64(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @non_zero
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x12xi64>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<i64>
// CHECK: %[[RANK:.*]] = arith.constant 2 : i64
// CHECK: %[[D0:.*]] = arith.constant 3 : i64
// CHECK: %[[D1:.*]] = arith.constant 4 : i64
// CHECK: call @oneflow_non_zero_f64(%{{.*}}, %{{.*}}, %{{.*}}, %[[RANK]], %[[D0]], %[[D1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @non_zero(%x: tensor<3x4xf64>) -> (tensor<2x12xi64>, tensor<i64>) {
  %y, %n = oneflow.non_zero %x : tensor<3x4xf64> -> tensor<2x12xi64>, tensor<i64>
  return %y, %n : tensor<2x12xi64>, tensor<i64>
}
