// Task.cost of every KERNEL task (plan.proto TaskCost), counted from the
// kernel's oneflow ops before lowering: products and convolutions as GEMM
// FLOPs (2 per multiply-add), the rest as vector FLOPs (a transcendental 8
// per element, a reduction one per input element), bytes of the kernel's
// arguments and results.

// One kernel per op:
// RUN: rm -rf %t && oneflow-opt %s --no-fuse --emit=plan -o %t/plan
// RUN: protoc --decode=oneflow.plan.Plan -I %S/../../proto %S/../../proto/oneflow/plan.proto < %t/plan/plan.pb | FileCheck %s

// INPUT and OUTPUT tasks carry no cost (the simulator uses their regsts).
// CHECK-NOT: cost {
// matmul 8x16 by 16x32: 2 * 8 * 32 * 16; bytes (128 + 512 + 256) * 4.
// CHECK:      kernel_symbol: "kernel_{{[0-9]+}}_matmul
// CHECK:      cost {
// CHECK-NEXT:   gemm_flops: 8192
// CHECK-NEXT:   gemm_count: 1
// CHECK-NEXT:   bytes: 3584
// CHECK-NEXT:   dtype: F32
// CHECK-NEXT: }
// tanh: 8 per element of 8x32.
// CHECK:      kernel_symbol: "kernel_{{[0-9]+}}_tanh
// CHECK:      cost {
// CHECK-NEXT:   vector_flops: 2048
// CHECK-NEXT:   bytes: 2048
// CHECK-NEXT:   dtype: F32
// CHECK-NEXT: }
// reduce_sum: its 256 input elements.
// CHECK:      kernel_symbol: "kernel_{{[0-9]+}}_reduce_sum
// CHECK:      cost {
// CHECK-NEXT:   vector_flops: 256
// CHECK-NEXT:   bytes: 1056
// CHECK-NEXT:   dtype: F32
// CHECK-NEXT: }
// conv2d, 4 groups: 2 * N * Cout * Hout * Wout * (Cin / groups) * Kh * Kw
// = 2 * 1 * 8 * 4 * 4 * 2 * 3 * 3.
// A convolution also names its kernel's kind, whose efficiency curve
// prices it, and its products of one image and group (1 image x 4 groups).
// CHECK:      kernel_symbol: "kernel_{{[0-9]+}}_conv2d
// CHECK:      cost {
// CHECK-NEXT:   gemm_flops: 4608
// CHECK-NEXT:   gemm_count: 1
// CHECK-NEXT:   bytes: 2240
// CHECK-NEXT:   dtype: F32
// CHECK-NEXT:   conv2d {
// CHECK-NEXT:     flops: 4608
// CHECK-NEXT:     count: 1
// CHECK-NEXT:     images: 4
// CHECK-NEXT:   }
// CHECK-NEXT: }
// batch_matmul 2 x (4x8 by 8x16): 2 * 2 * 4 * 16 * 8; (64 + 256 + 128) * 4
// bytes.
// CHECK:      kernel_symbol: "kernel_{{[0-9]+}}_batch_matmul
// CHECK:      cost {
// CHECK-NEXT:   gemm_flops: 2048
// CHECK-NEXT:   gemm_count: 1
// CHECK-NEXT:   bytes: 1792
// CHECK-NEXT:   dtype: F32
// CHECK-NEXT: }
// conv_transpose2d (a convolution's data gradient): each of the 128 input
// elements meets 2 * 3 * 3 weights; bytes (128 + 144 + 288) * 4.
// CHECK:      kernel_symbol: "kernel_{{[0-9]+}}_conv_transpose2d
// CHECK:      cost {
// CHECK-NEXT:   gemm_flops: 4608
// CHECK-NEXT:   gemm_count: 1
// CHECK-NEXT:   bytes: 2240
// CHECK-NEXT:   dtype: F32
// CHECK-NEXT:   conv_transpose2d {
// CHECK-NEXT:     flops: 4608
// CHECK-NEXT:     count: 1
// CHECK-NEXT:     images: 4
// CHECK-NEXT:   }
// CHECK-NEXT: }
// conv2d_grad_filter: each of the 128 output gradient elements meets 18
// inputs; bytes (288 + 128 + 144) * 4.
// CHECK:      kernel_symbol: "kernel_{{[0-9]+}}_conv2d_grad_filter
// CHECK:      cost {
// CHECK-NEXT:   gemm_flops: 4608
// CHECK-NEXT:   gemm_count: 1
// CHECK-NEXT:   bytes: 2240
// CHECK-NEXT:   dtype: F32
// CHECK-NEXT:   conv2d_grad_filter {
// CHECK-NEXT:     flops: 4608
// CHECK-NEXT:     count: 1
// CHECK-NEXT:     images: 4
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT: cost {

// Fused: the product, tanh and the reduction in one kernel count all three
// ops, and only the kernel's boundary as bytes (x and w in, 8 sums out:
// (128 + 512 + 8) * 4).
// RUN: oneflow-opt %s --emit=plan -o %t/fused
// RUN: protoc --decode=oneflow.plan.Plan -I %S/../../proto %S/../../proto/oneflow/plan.proto < %t/fused/plan.pb | FileCheck %s --check-prefix=FUSED
// FUSED:      cost {
// FUSED-NEXT:   gemm_flops: 8192
// FUSED-NEXT:   gemm_count: 1
// FUSED-NEXT:   vector_flops: 2304
// FUSED-NEXT:   bytes: 2592
// FUSED-NEXT:   dtype: F32
// FUSED-NEXT: }

func.func @main(%x: tensor<8x16xf32> {onnx.name = "x"},
                %w: tensor<16x32xf32> {onnx.name = "w"},
                %img: tensor<1x8x6x6xf32> {onnx.name = "img"},
                %k: tensor<8x2x3x3xf32> {onnx.name = "k"},
                %a: tensor<2x4x8xf32> {onnx.name = "a"},
                %b: tensor<2x8x16xf32> {onnx.name = "b"})
    -> (tensor<8xf32> {onnx.name = "s"}, tensor<1x8x4x4xf32> {onnx.name = "c"},
        tensor<2x4x16xf32> {onnx.name = "m"},
        tensor<1x8x6x6xf32> {onnx.name = "dx"},
        tensor<8x2x3x3xf32> {onnx.name = "dw"}) {
  %y = oneflow.matmul %x, %w : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %t = oneflow.tanh %y : tensor<8x32xf32>
  %s = oneflow.reduce_sum %t {axes = array<i64: 1>} : tensor<8x32xf32> -> tensor<8xf32>
  %c = oneflow.conv2d %img, %k {dilations = array<i64: 1, 1>, groups = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32>
  %m = oneflow.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %dx = oneflow.conv_transpose2d %c, %k {dilations = array<i64: 1, 1>, groups = 4 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  %dw = oneflow.conv2d_grad_filter %img, %c {dilations = array<i64: 1, 1>, groups = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xf32>, tensor<1x8x4x4xf32>) -> tensor<8x2x3x3xf32>
  return %s, %c, %m, %dx, %dw : tensor<8xf32>, tensor<1x8x4x4xf32>, tensor<2x4x16xf32>, tensor<1x8x6x6xf32>, tensor<8x2x3x3xf32>
}
