//===- Passes.td - oneflow conversion passes ---------------*- tablegen -*-===//

#ifndef ONEFLOW_CONVERSION_PASSES_TD
#define ONEFLOW_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertOneFlowToLinalg : Pass<"convert-oneflow-to-linalg", "ModuleOp"> {
  let summary = "Lower oneflow ops to linalg, tensor, arith and math";
  let description = [{
    Rewrites every oneflow compute op into upstream ops on tensors: linalg
    generics for elementwise ops and reductions (numpy broadcasting becomes
    indexing maps), tensor ops for data movement, and calls into the
    OneFlow kernel library (BLAS GEMM, im2col convolution) for matmul and
    convolutions. Constants become arith.constant. Variables are left alone:
    they are the plan's persistent registers.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"lowPrecisionGemms", "low-precision-gemms", "bool",
           /*default=*/"false",
           "bf16/f16 matmul and batch_matmul call the kernel library's "
           "_bf16/_f16 GEMMs (CUDA: cuBLASLt with f32 accumulation) instead "
           "of linalg.matmul">,
    Option<"poolingCalls", "pooling-calls", "bool", /*default=*/"false",
           "f32/f64 max_pool2d and avg_pool2d call the kernel library's NCHW "
           "pooling (CPU; its taps vectorize over output columns) instead of "
           "linalg pooling ops, f32 reductions over middle axes its "
           "row-wise reductions, and f32 NCHW <-> NHWC transposes of a "
           "kernel's input read only by library calls its image "
           "transposes">,
  ];
}

#endif // ONEFLOW_CONVERSION_PASSES_TD
