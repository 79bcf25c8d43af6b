//===- KernelCompiler.h - Kernels to a loadable library ---------*- C++ -*-===//

#ifndef ONEFLOW_CODEGEN_KERNELCOMPILER_H
#define ONEFLOW_CODEGEN_KERNELCOMPILER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir {
namespace oneflow {

/// How the kernels' machine code was made.
struct CodegenStats {
  /// Kernels, the object files they were split into, and the threads that
  /// compiled those.
  size_t kernels = 0, objects = 0;
  unsigned threads = 0;
  /// The objects copied from the kernel cache; whether it was used.
  size_t cachedObjects = 0;
  bool cacheEnabled = false;
};

struct CpuKernelsOptions {
  /// A developer check of the CUDA backend: the loop nests go through the
  /// GPU mapping and its launches run as CPU loops.
  bool gpuKernelsOnCpu = false;
  /// Threads that translate, optimize and emit the kernels' LLVM code (0:
  /// the ONEFLOW_COMPILE_THREADS environment variable, else every core).
  /// The library does not depend on it.
  unsigned threads = 0;
  /// Where the kernels' objects are cached across compiles (keyed by their
  /// LLVM IR and the target); empty: no cache.
  std::string cacheDirectory;
  /// Called with "LLVM code" when the MLIR lowering is done (phase times).
  std::function<void(llvm::StringRef)> phase;
  /// Where to record how the machine code was made; null: nowhere.
  CodegenStats *stats = nullptr;
};

/// Compiles the kernel functions of `module` for the host CPU into a shared
/// library at `libraryPath`, each exported as `void <name>(void **args)`.
LogicalResult compileKernels(ModuleOp module, llvm::StringRef libraryPath,
                             const CpuKernelsOptions &options = {});

struct CudaKernelsOptions {
  /// The CUDA toolkit (ptxas, fatbinary, libdevice).
  std::string toolkit = "/usr/local/cuda";
  /// The architectures to build cubins for (sm_80, ...); the last one's PTX
  /// is packed too, for newer GPUs.
  llvm::SmallVector<std::string> archs = {"sm_80", "sm_90"};
  /// Threads and object cache for the host code's LLVM code (as
  /// CpuKernelsOptions).
  unsigned threads = 0;
  std::string cacheDirectory;
  /// Called with "LLVM code" when the host code's LLVM emission starts.
  std::function<void(llvm::StringRef)> phase;
  /// Where to record how the host code was made; null: nowhere.
  CodegenStats *stats = nullptr;
};

/// What ptxas reported for one architecture.
struct CudaArchReport {
  std::string arch;
  int64_t maxRegisters = 0;
  int64_t spillingEntries = 0;
};

struct CudaKernelsReport {
  /// Outlined kernels, GPU launches they became, and calls left on the
  /// host (library calls: products, convolutions).
  int64_t kernels = 0, launches = 0, hostCalls = 0;
  llvm::SmallVector<CudaArchReport> archs;
  /// The GPU functions, numbered as the host code launches them.
  std::vector<std::string> gpuKernels;
};

/// Compiles the loop nests of the kernel functions of `module` for NVIDIA
/// GPUs into one fatbin at `fatbinPath` (a cubin per architecture and PTX)
/// and, unless `hostLibraryPath` is empty, their host code (launches,
/// library calls, scratch allocations through oneflow-run's CUDA ABI) into
/// the shared library `hostLibraryPath`, each kernel exported as
/// `void <name>(void **args)` taking device buffers.
FailureOr<CudaKernelsReport>
compileCudaKernels(ModuleOp module, llvm::StringRef fatbinPath,
                   llvm::StringRef hostLibraryPath,
                   const CudaKernelsOptions &options);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_CODEGEN_KERNELCOMPILER_H
