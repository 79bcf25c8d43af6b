//===- KernelCompiler.h - Kernels to a loadable library ---------*- C++ -*-===//

#ifndef ONEFLOW_CODEGEN_KERNELCOMPILER_H
#define ONEFLOW_CODEGEN_KERNELCOMPILER_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace oneflow {

/// Compiles the kernel functions of `module` for the host CPU into a shared
/// library at `libraryPath`, each exported as `void <name>(void **args)`.
LogicalResult compileKernels(ModuleOp module, llvm::StringRef libraryPath);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_CODEGEN_KERNELCOMPILER_H
