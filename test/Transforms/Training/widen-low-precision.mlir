// RUN: oneflow-opt %s --oneflow-widen-low-precision | FileCheck %s
// RUN: oneflow-opt %s --oneflow-widen-low-precision=keep-products | FileCheck %s --check-prefix=KEEP

// bf16 products and reductions compute in f32: operands widened, one
// rounding per result. A bias added to a product joins it before that
// rounding; elementwise ops stay bf16; f32 ops are untouched.
// CHECK-LABEL: func.func @main(
// CHECK: %[[XW:.*]] = oneflow.cast %arg0 : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK: %[[WW:.*]] = oneflow.cast %{{.*}} : tensor<16x16xbf16> to tensor<16x16xf32>
// CHECK: %[[P:.*]] = oneflow.matmul %[[XW]], %[[WW]] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[BW:.*]] = oneflow.cast %{{.*}} : tensor<16xbf16> to tensor<16xf32>
// CHECK: %[[PB:.*]] = oneflow.add %[[P]], %[[BW]] : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK: %[[PR:.*]] = oneflow.cast %[[PB]] : tensor<4x16xf32> to tensor<4x16xbf16>
// CHECK: %[[R:.*]] = oneflow.relu %[[PR]] : tensor<4x16xbf16>
// CHECK: %[[RW:.*]] = oneflow.cast %[[R]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK: %[[S:.*]] = oneflow.reduce_sum %[[RW]] {{.*}} -> tensor<16xf32>
// CHECK: %[[SR:.*]] = oneflow.cast %[[S]] : tensor<16xf32> to tensor<16xbf16>
// CHECK: oneflow.matmul %{{.*}}, %{{.*}} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
// CHECK-NOT: oneflow.cast
// CHECK: return %[[SR]]
func.func @main(%x: tensor<4x16xbf16> {onnx.name = "x"}, %y: tensor<4x16xf32> {onnx.name = "y"}) -> (tensor<16xbf16> {onnx.name = "s"}, tensor<4x16xf32> {onnx.name = "z"}) {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %b = oneflow.variable @b {initial_value = dense<0.25> : tensor<16xf32>} : tensor<16xf32>
  %wl = oneflow.cast %w : tensor<16x16xf32> to tensor<16x16xbf16>
  %bl = oneflow.cast %b : tensor<16xf32> to tensor<16xbf16>
  %p = oneflow.matmul %x, %wl : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
  %pb = oneflow.add %p, %bl : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
  %r = oneflow.relu %pb : tensor<4x16xbf16>
  %s = oneflow.reduce_sum %r {axes = array<i64: 0>} : tensor<4x16xbf16> -> tensor<16xbf16>
  %z = oneflow.matmul %y, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %s, %z : tensor<16xbf16>, tensor<4x16xf32>
}

// CUDA plans (keep-products): the product keeps its bf16 operands and
// result (cuBLASLt's bf16 GEMM accumulates in f32 itself): no cast around
// it, and the bias add stays bf16 (the GEMM accumulates into the bias);
// the reduction is widened as before.
// KEEP-LABEL: func.func @main(
// KEEP-NOT: tensor<4x16xf32> to tensor<4x16xbf16>
// KEEP: %[[P:.*]] = oneflow.matmul %arg0, %{{.*}} : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
// KEEP-NEXT: %[[PB:.*]] = oneflow.add %[[P]], %{{.*}} : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
// KEEP-NEXT: %[[R:.*]] = oneflow.relu %[[PB]] : tensor<4x16xbf16>
// KEEP-NEXT: %[[RW:.*]] = oneflow.cast %[[R]] : tensor<4x16xbf16> to tensor<4x16xf32>
// KEEP-NEXT: oneflow.reduce_sum %[[RW]] {{.*}} -> tensor<16xf32>
// KEEP: oneflow.matmul %arg1, %{{.*}} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
