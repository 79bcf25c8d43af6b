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
#include <vector>

namespace mlir {
namespace oneflow {

/// Adds `void name(void **args)` calling `name_body(args[0], args[1], ...)`
/// for every kernel of `names` (bodies in the LLVM dialect).
LogicalResult addEntryPoints(ModuleOp module, ArrayRef<std::string> names);

/// The threads that compile host code: `requested`, else the
/// ONEFLOW_COMPILE_THREADS environment variable, else every core.
unsigned codegenThreads(unsigned requested = 0);

/// The object files of the host code, in link order, the threads that
/// compiled them, and how many came from the kernel cache.
struct HostObjects {
  SmallVector<std::string> paths;
  unsigned threads = 1;
  size_t fromCache = 0;
};

/// Translates `module` (LLVM dialect, with the entry points `names`) to LLVM
/// IR, optimizes it at O3 for the host CPU and writes object files
/// `<objectPrefix>.<i>.o`. The entries are split into chunks of similar size
/// (by the module alone, not the thread count, so the objects do not depend
/// on it), each translated, optimized and emitted with its own LLVMContext
/// on one of codegenThreads(`threads`) threads; only the entries are
/// exported. With a `cacheDirectory`, a chunk whose IR and target were
/// compiled before is copied from there instead (see ObjectCache.h).
FailureOr<HostObjects> emitHostObjects(ModuleOp module,
                                       ArrayRef<std::string> names,
                                       llvm::StringRef objectPrefix,
                                       unsigned threads = 0,
                                       llvm::StringRef cacheDirectory = "");

/// Links `objectPaths` with `extraArgs` (libraries, flags) into the shared
/// library `libraryPath`.
LogicalResult linkSharedLibrary(Location loc, ArrayRef<std::string> objectPaths,
                                llvm::StringRef libraryPath,
                                ArrayRef<llvm::StringRef> extraArgs);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_CODEGEN_HOSTOBJECT_H
