//===- HostObject.h - Kernel host code to a shared library ------*- C++ -*-===//
//
// Both backends end in host code in the LLVM dialect (the CPU kernels
// themselves, or the CUDA kernels' launch code) that becomes kernels.so:
// entry points with the runtime's ABI, an object file for the host CPU, and
// a link by the system C++ driver.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_CODEGEN_HOSTOBJECT_H
#define ONEFLOW_LIB_CODEGEN_HOSTOBJECT_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir {
namespace oneflow {

/// Adds `void name(void **args)` calling `name_body(args[0], args[1], ...)`
/// for every kernel of `names` (bodies in the LLVM dialect).
LogicalResult addEntryPoints(ModuleOp module, ArrayRef<std::string> names);

/// Translates `module` (LLVM dialect) to LLVM IR, optimizes it at O3 for the
/// host CPU and writes an object file.
LogicalResult emitHostObject(ModuleOp module, llvm::StringRef objectPath);

/// Links `objectPath` with `extraArgs` (libraries, flags) into the shared
/// library `libraryPath`.
LogicalResult linkSharedLibrary(Location loc, llvm::StringRef objectPath,
                                llvm::StringRef libraryPath,
                                ArrayRef<llvm::StringRef> extraArgs);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_CODEGEN_HOSTOBJECT_H
