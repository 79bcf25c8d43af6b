//===- KernelExtraction.h - What every backend does to kernels --*- C++ -*-===//
//
// Both backends copy the outlined kernels into a module of their own and
// bufferize them the same way before their loops go separate ways.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_CODEGEN_KERNELEXTRACTION_H
#define ONEFLOW_LIB_CODEGEN_KERNELEXTRACTION_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir {
namespace oneflow {

/// Suffix of the lowered kernel bodies; the entries keep the kernel names.
constexpr llvm::StringLiteral kKernelBodySuffix = "_body";

/// From oneflow kernels on tensors to loops over buffers, each kernel body
/// taking its inputs and outputs as buffer arguments (pooling as calls into
/// the CPU kernel library).
constexpr llvm::StringLiteral kLoweringToLinalg =
    "convert-oneflow-to-linalg{pooling-calls},";
constexpr llvm::StringLiteral kBufferizationPipeline =
    "convert-oneflow-to-linalg{pooling-calls},"
    "canonicalize,"
    "oneflow-fuse-elementwise-loops,"
    "canonicalize,"
    "oneflow-in-place-kernel-results,"
    "oneflow-write-in-place,"
    "oneflow-approximate-math,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map "
    "unknown-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
    "buffer-deallocation-pipeline";

/// The CUDA backend's bufferization (also for --gpu-kernels-on-cpu): the
/// above, with pooling as loops, oneflow-fold-gemm-tensor-epilogues before
/// oneflow-approximate-math (it reads erf and tanh unexpanded), and with
/// `lowPrecisionGemms` (a GPU's, not the CPU library's) bf16/f16 products
/// as GEMM calls.
inline std::string cudaBufferizationPipeline(bool lowPrecisionGemms) {
  std::string pipeline = kBufferizationPipeline.str();
  pipeline.replace(0, kLoweringToLinalg.size(),
                   lowPrecisionGemms
                       ? "convert-oneflow-to-linalg{low-precision-gemms},"
                       : "convert-oneflow-to-linalg,");
  pipeline.insert(pipeline.find("oneflow-approximate-math,"),
                  "oneflow-fold-gemm-tensor-epilogues,");
  return pipeline;
}

/// Copies the kernels of `source` (renamed `<name>_body`, public) and the
/// declarations they call into a new module; `names` gets the kernel names.
OwningOpRef<ModuleOp> extractKernels(ModuleOp source,
                                     SmallVectorImpl<std::string> &names);

/// Runs the textual pass `pipeline` on `module` (with the command line's
/// IR printing options); failures are reported at `source`.
LogicalResult runKernelPipeline(ModuleOp module, llvm::StringRef pipeline,
                                Operation *source);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_CODEGEN_KERNELEXTRACTION_H
