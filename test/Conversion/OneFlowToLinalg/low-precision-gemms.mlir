// RUN: oneflow-opt %s -split-input-file --convert-oneflow-to-linalg=low-precision-gemms | FileCheck %s
// RUN: not oneflow-opt %s -split-input-file --convert-oneflow-to-linalg 2>&1 | FileCheck %s --check-prefix=NONE

// With low-precision-gemms (the CUDA backend) bf16 / f16 products call the
// 16-bit GEMMs (cuBLASLt, f32 accumulation): no linalg.matmul, no widening;
// a bias add becomes the _acc product into the broadcast bias. Without it
// (the CPU library has no 16-bit GEMM) matmul stays linalg.matmul and
// batch_matmul is not lowered (CPU plans widen both first).
// CHECK: func.func private @oneflow_gemm_bf16(i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func @matmul_bf16
// CHECK-NOT:   linalg.matmul
// CHECK-NOT:   arith.extf
// CHECK:       memref.alloc() {alignment = 64 : i64} : memref<8x16xbf16>
// CHECK:       call @oneflow_gemm_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %c8_i64, %c16_i64, %c64_i64, %c0_i64, %c1_i64)
// NONE-NOT:    call @oneflow_gemm
// NONE-DAG:    linalg.matmul
func.func @matmul_bf16(%a: tensor<8x64xbf16>, %b: tensor<16x64xbf16>) -> tensor<8x16xbf16> {
  %0 = oneflow.matmul %a, %b {transpose_b} : (tensor<8x64xbf16>, tensor<16x64xbf16>) -> tensor<8x16xbf16>
  return %0 : tensor<8x16xbf16>
}

// -----

// NONE-DAG: error: failed to legalize operation 'oneflow.batch_matmul'
// CHECK: func.func private @oneflow_batch_gemm_acc_f16(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func @batch_matmul_bias_f16
// CHECK-NOT:   linalg.matmul
// CHECK:       call @oneflow_batch_gemm_acc_f16(%{{.*}}, %{{.*}}, %{{.*}}, %c2_i64, %c4_i64, %c8_i64, %c16_i64, %c0_i64{{.*}}, %c0_i64{{.*}}, %c64_i64, %c128_i64)
// CHECK-NOT:   arith.addf
// CHECK:       return
func.func @batch_matmul_bias_f16(%a: tensor<2x4x16xf16>, %b: tensor<2x16x8xf16>, %bias: tensor<8xf16>) -> tensor<2x4x8xf16> {
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
  %1 = oneflow.add %0, %bias : (tensor<2x4x8xf16>, tensor<8xf16>) -> tensor<2x4x8xf16>
  %2 = oneflow.tanh %1 : tensor<2x4x8xf16>
  return %2 : tensor<2x4x8xf16>
}
