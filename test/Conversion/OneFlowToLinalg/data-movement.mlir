// RUN: oneflow-opt %s --convert-oneflow-to-linalg -split-input-file | FileCheck %s

// Reshape collapses to 1-D and expands; transpose is linalg.transpose.
// CHECK-LABEL: func @reshape_transpose
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape {{.*}} {{\[\[}}0, 1]] output_shape [6, 4]
// CHECK: linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @reshape_transpose(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>) {
  %0 = oneflow.reshape %x : tensor<2x3x4xf32> to tensor<6x4xf32>
  %1 = oneflow.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0, %1 : tensor<6x4xf32>, tensor<4x2x3xf32>
}

// -----

// Concat inserts each input at its offset; split extracts slices.
// CHECK-LABEL: func @concat_split
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [2, 2] [1, 1]
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[0, 2] [2, 3] [1, 1]
// CHECK: tensor.extract_slice %arg2[0, 0] [1, 4] [1, 1]
// CHECK: tensor.extract_slice %arg2[1, 0] [3, 4] [1, 1]
func.func @concat_split(%a: tensor<2x2xf32>, %b: tensor<2x3xf32>, %c: tensor<4x4xf32>) -> (tensor<2x5xf32>, tensor<1x4xf32>, tensor<3x4xf32>) {
  %0 = oneflow.concat %a, %b {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  %1:2 = oneflow.split %c {axis = 0 : i64, sizes = array<i64: 1, 3>} : tensor<4x4xf32> -> tensor<1x4xf32>, tensor<3x4xf32>
  return %0, %1#0, %1#1 : tensor<2x5xf32>, tensor<1x4xf32>, tensor<3x4xf32>
}

// -----

// Positive-step slices are strided extract_slices; negative steps read
// x[start + i * step] in a generic.
// CHECK-LABEL: func @slices
// CHECK: tensor.extract_slice %arg0[1, 0] [2, 3] [2, 1]
// CHECK: linalg.generic
// CHECK:   arith.constant -1 : index
// CHECK:   tensor.extract %arg0
func.func @slices(%x: tensor<6x3xf32>) -> (tensor<2x3xf32>, tensor<6x3xf32>) {
  %0 = oneflow.slice %x {starts = array<i64: 1, 0>, limits = array<i64: 5, 3>, steps = array<i64: 2, 1>} : tensor<6x3xf32> -> tensor<2x3xf32>
  %1 = oneflow.slice %x {starts = array<i64: 5, 0>, limits = array<i64: -1, 3>, steps = array<i64: -1, 1>} : tensor<6x3xf32> -> tensor<6x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<6x3xf32>
}

// -----

// Gather reads data at the (wrapped, clamped) index of each position.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @gather
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], {{.*}}]
// CHECK:   arith.index_cast {{.*}} : i64 to index
// CHECK:   arith.addi
// CHECK:   arith.minsi
// CHECK:   tensor.extract %arg0
func.func @gather(%table: tensor<128x64xf32>, %ids: tensor<2x16xi64>) -> tensor<2x16x64xf32> {
  %0 = oneflow.gather %table, %ids : (tensor<128x64xf32>, tensor<2x16xi64>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

// Constant pads are tensor.pad; pooling pads with -inf (max) or 0 (avg,
// then multiplied by per-position reciprocal window counts).
// CHECK-LABEL: func @pad_pool
// CHECK: tensor.pad %arg0 low[0, 1] high[0, 2]
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.constant dense<{{.*}}> : tensor<4x4xf32>
func.func @pad_pool(%m: tensor<2x3xf32>, %x: tensor<1x2x8x8xf32>) -> (tensor<2x6xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = oneflow.pad %m {pads = array<i64: 0, 1, 0, 2>} : tensor<2x3xf32> -> tensor<2x6xf32>
  %1 = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  %2 = oneflow.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return %0, %1, %2 : tensor<2x6xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A gradient bucket's concatenation of many tensors is one tensor.concat
// (linear to bufferize), not a chain of insert_slices.
// CHECK-LABEL: func @long_concat
// CHECK-NOT: tensor.insert_slice
// CHECK: tensor.concat dim(0) %{{.*}} : (tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>, tensor<5xf32>, tensor<6xf32>, tensor<7xf32>, tensor<8xf32>, tensor<9xf32>, tensor<10xf32>, tensor<11xf32>, tensor<12xf32>, tensor<13xf32>, tensor<14xf32>, tensor<15xf32>, tensor<16xf32>, tensor<17xf32>) -> tensor<153xf32>
// CHECK-NOT: tensor.insert_slice
func.func @long_concat(%a0: tensor<1xf32>, %a1: tensor<2xf32>, %a2: tensor<3xf32>, %a3: tensor<4xf32>, %a4: tensor<5xf32>, %a5: tensor<6xf32>, %a6: tensor<7xf32>, %a7: tensor<8xf32>, %a8: tensor<9xf32>, %a9: tensor<10xf32>, %a10: tensor<11xf32>, %a11: tensor<12xf32>, %a12: tensor<13xf32>, %a13: tensor<14xf32>, %a14: tensor<15xf32>, %a15: tensor<16xf32>, %a16: tensor<17xf32>) -> tensor<153xf32> {
  %0 = oneflow.concat %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15, %a16 {axis = 0 : i64} : (tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>, tensor<5xf32>, tensor<6xf32>, tensor<7xf32>, tensor<8xf32>, tensor<9xf32>, tensor<10xf32>, tensor<11xf32>, tensor<12xf32>, tensor<13xf32>, tensor<14xf32>, tensor<15xf32>, tensor<16xf32>, tensor<17xf32>) -> tensor<153xf32>
  return %0 : tensor<153xf32>
}
