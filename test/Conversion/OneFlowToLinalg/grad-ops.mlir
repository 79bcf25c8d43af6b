// RUN: oneflow-opt %s --convert-oneflow-to-linalg -split-input-file | FileCheck %s

// f32/f64 conv2d_grad_filter: zero-pad x, im2col as a strided linalg.generic
// into [groups, cin/groups * kh * kw, n * oh * ow], dy transposed to
// [groups, cout/groups, n * oh * ow], one batched GEMM (B transposed).
// CHECK-LABEL: func @conv2d_grad_filter
// CHECK:       tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       linalg.generic {indexing_maps = [#[[$READ:.*]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK:       linalg.transpose ins(%{{.*}} : tensor<2x16x4x4xf32>) outs(%{{.*}} : tensor<16x2x4x4xf32>) permutation = [1, 0, 2, 3]
// CHECK:       call @oneflow_batch_gemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c16_i64, %c27_i64, %c32_i64, %c0_i64, %c1_i64_{{.*}}, %c512_i64, %c864_i64)
// CHECK:       tensor.expand_shape %{{.*}} output_shape [16, 3, 3, 3]
func.func @conv2d_grad_filter(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x16x4x4xf32>) -> tensor<16x3x3x3xf32> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x16x4x4xf32>) -> tensor<16x3x3x3xf32>
  return %0 : tensor<16x3x3x3xf32>
}

// -----

// Groups are the GEMM batch; the im2col read is strided and dilated.
// CHECK: #[[$READ:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d1, d5 + d2 * 2, d6 + d3 * 2)>
// CHECK-LABEL: func @conv2d_grad_filter_groups
// CHECK-NOT:   tensor.pad
// CHECK:       linalg.generic {indexing_maps = [#[[$READ]],
// CHECK-SAME:    ins(%{{.*}} : tensor<1x2x2x7x7xf64>) outs(%{{.*}} : tensor<2x2x3x3x1x3x3xf64>)
// CHECK:       call @oneflow_batch_gemm_f64(%{{.*}}, %{{.*}}, %{{.*}}, %c2_i64, %c3_i64, %c18_i64, %c9_i64, %c0_i64, %c1_i64, %c27_i64, %c162_i64)
func.func @conv2d_grad_filter_groups(%x: tensor<1x4x7x7xf64>, %dy: tensor<1x6x3x3xf64>) -> tensor<6x2x3x3xf64> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 2 : i64} : (tensor<1x4x7x7xf64>, tensor<1x6x3x3xf64>) -> tensor<6x2x3x3xf64>
  return %0 : tensor<6x2x3x3xf64>
}

// -----

// Without BLAS (f16) the product is a linalg.generic contraction.
// CHECK-LABEL: func @conv2d_grad_filter_f16
// CHECK-NOT:   call
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:         arith.mulf
// CHECK:         arith.addf
func.func @conv2d_grad_filter_f16(%x: tensor<1x2x5x5xf16>, %dy: tensor<1x3x3x3xf16>) -> tensor<3x2x3x3xf16> {
  %0 = oneflow.conv2d_grad_filter %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xf16>, tensor<1x3x3x3xf16>) -> tensor<3x2x3x3xf16>
  return %0 : tensor<3x2x3x3xf16>
}

// -----

// max_pool2d_grad: the winner of each window (an index into the window,
// the first maximum of the unpadded input), then a gather over the input
// positions summing dy of the windows they win.
// CHECK-LABEL: func @max_pool2d_grad
// CHECK:       tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:       %[[W:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}}outs(%{{.*}}, %{{.*}} : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
// CHECK:         arith.cmpf ogt
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}}outs(%{{.*}} : tensor<1x2x5x5xf32>)
// CHECK:         tensor.extract %[[W]]#1
// CHECK:         tensor.extract %arg1
func.func @max_pool2d_grad(%x: tensor<1x2x5x5xf32>, %dy: tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %0 = oneflow.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode} : (tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

// avg_pool2d_grad: dy times the compile-time divisors, gathered back.
// CHECK-LABEL: func @avg_pool2d_grad
// CHECK:       %[[D:.*]] = arith.constant dense<{{.*}}> : tensor<4x4xf32>
// CHECK:       %[[S:.*]] = linalg.generic {{.*}}ins(%arg0, %[[D]] :
// CHECK:         arith.mulf
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}}outs(%{{.*}} : tensor<1x2x8x8xf32>)
// CHECK:         tensor.extract %[[S]]
func.func @avg_pool2d_grad(%dy: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %0 = oneflow.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad} : tensor<1x2x4x4xf32> -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// gather_grad: a sequential scatter-add over [outer, indices, inner] into a
// zero-filled table.
// CHECK-LABEL: func @gather_grad
// CHECK:       linalg.fill
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             tensor.extract %{{.*}} : tensor<28xi64>
// CHECK:             tensor.extract %{{.*}} : tensor<1x28x16xf32>
// CHECK:             arith.addf
// CHECK:             tensor.insert
func.func @gather_grad(%i: tensor<4x7xi64>, %dy: tensor<4x7x16xf32>) -> tensor<100x16xf32> {
  %0 = oneflow.gather_grad %i, %dy : (tensor<4x7xi64>, tensor<4x7x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// CHECK-LABEL: func @gather_elements_grad
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           tensor.extract %arg0
// CHECK:           tensor.extract %arg1
// CHECK:           arith.addf
// CHECK:           tensor.insert
func.func @gather_elements_grad(%i: tensor<2x6xi64>, %dy: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = oneflow.gather_elements_grad %i, %dy {axis = 1 : i64} : (tensor<2x6xi64>, tensor<2x6xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Positive steps: a strided insert into zeros.
// CHECK-LABEL: func @slice_grad
// CHECK:       %[[Z:.*]] = linalg.fill
// CHECK:       tensor.insert_slice %arg0 into %[[Z]][0, 1] [2, 3] [2, 2] : tensor<2x3xf32> into tensor<4x8xf32>
func.func @slice_grad(%dy: tensor<2x3xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.slice_grad %dy {starts = array<i64: 0, 1>, limits = array<i64: 4, 7>, steps = array<i64: 2, 2>} : tensor<2x3xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Negative steps: each dx element reads dy where it was sliced.
// CHECK-LABEL: func @slice_grad_reverse
// CHECK:       linalg.generic
// CHECK:         arith.remsi
// CHECK:         tensor.extract %arg0
// CHECK:         arith.select
func.func @slice_grad_reverse(%dy: tensor<5xf32>) -> tensor<5xf32> {
  %0 = oneflow.slice_grad %dy {starts = array<i64: 4>, limits = array<i64: -1>, steps = array<i64: -1>} : tensor<5xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Three passes over the logits: the row max, the row sum of exp(x - max),
// then (softmax - onehot) * dloss, zero where the label is ignored; the
// softmax multiplies by the row's 1 / sum (one divide per row). The sums may
// reassociate, so the row loops vectorize.
// CHECK-LABEL: func @softmax_cross_entropy_grad
// CHECK:       %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<4x7x10xf32>)
// CHECK:         arith.maximumf
// CHECK:       %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %[[MAX]] :
// CHECK:         math.exp
// CHECK:         arith.addf %{{.*}}, %{{.*}} fastmath<reassoc>
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %[[MAX]], %[[SUM]], %arg1, %arg2 :
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %in_2
// CHECK:         %[[E:.*]] = math.exp
// CHECK:         arith.mulf %[[E]], %[[INV]]
// CHECK:         arith.subf
// CHECK:         arith.mulf
// CHECK:         arith.cmpi eq, %{{.*}}, %c-100_i64
// CHECK:         arith.select
func.func @softmax_cross_entropy_grad(%logits: tensor<4x7x10xf32>, %labels: tensor<4x7xi64>, %dloss: tensor<4x7xf32>) -> tensor<4x7x10xf32> {
  %0 = oneflow.softmax_cross_entropy_grad %logits, %labels, %dloss {ignore_index = -100 : i64} : (tensor<4x7x10xf32>, tensor<4x7xi64>, tensor<4x7xf32>) -> tensor<4x7x10xf32>
  return %0 : tensor<4x7x10xf32>
}

// -----

// Row statistics, the row sums of g = dy * scale and g * xhat (one
// generic, two results), dx, and dscale/dbias reduced over the batch dims
// (one generic, two results).
// CHECK-LABEL: func @layer_norm_grad
// CHECK:       math.rsqrt
// CHECK:       %[[ROW:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg2, %arg1, %{{.*}}, %{{.*}} : {{.*}}) outs(%{{.*}}, %{{.*}} : tensor<2x5xf32>, tensor<2x5xf32>)
// CHECK:       ^bb0(%{{.*}}, %[[ACC0:.*]]: f32, %[[ACC1:.*]]: f32):
// CHECK:         arith.addf %[[ACC0]], %{{.*}} fastmath<reassoc>
// CHECK:         arith.addf %[[ACC1]], %{{.*}} fastmath<reassoc>
// CHECK:       %[[DX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg2, %arg1, %{{.*}}, %{{.*}}, %[[ROW]]#0, %[[ROW]]#1 :
// CHECK:       %[[P:.*]]:2 = linalg.generic {{.*}}iterator_types = ["reduction", "reduction", "parallel"]}{{.*}}outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>)
// CHECK:       return %[[DX]], %[[P]]#0, %[[P]]#1
func.func @layer_norm_grad(%x: tensor<2x5x8xf32>, %s: tensor<8xf32>, %dy: tensor<2x5x8xf32>) -> (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %ds, %db = oneflow.layer_norm_grad %x, %s, %dy {axis = 2 : i64} : tensor<2x5x8xf32>, tensor<8xf32>
  return %dx, %ds, %db : tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// dscale and dbias in one reduction over N, H, W with the saved
// statistics, then dx.
// CHECK-LABEL: func @batch_norm_grad
// CHECK:       %[[P:.*]]:2 = linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%arg0, %arg4, %arg2, %arg3 : {{.*}}) outs(%{{.*}}, %{{.*}} : tensor<3xf64>, tensor<3xf64>)
// CHECK:       %[[DX:.*]] = linalg.generic {{.*}}ins(%arg0, %arg4, %arg1, %arg2, %arg3, %[[P]]#0, %[[P]]#1 :
// CHECK:       return %[[DX]], %[[P]]#0, %[[P]]#1
func.func @batch_norm_grad(%x: tensor<4x3x5x5xf64>, %s: tensor<3xf64>, %m: tensor<3xf64>, %i: tensor<3xf64>, %dy: tensor<4x3x5x5xf64>) -> (tensor<4x3x5x5xf64>, tensor<3xf64>, tensor<3xf64>) {
  %dx, %ds, %db = oneflow.batch_norm_grad %x, %s, %m, %i, %dy : tensor<4x3x5x5xf64>, tensor<3xf64>
  return %dx, %ds, %db : tensor<4x3x5x5xf64>, tensor<3xf64>, tensor<3xf64>
}
