//===- EmitPlan.h - Compile a module into an actor plan ---------*- C++ -*-===//
//
// Turns a module whose @main is a graph of oneflow ops into the directory
// that oneflow-run executes: plan.pb (tasks and registers), kernels.so (the
// compiled kernels) and weights.bin (initial values of the parameters and
// constants).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TARGET_EMITPLAN_H
#define ONEFLOW_TARGET_EMITPLAN_H

#include "oneflow/Codegen/KernelCompiler.h"

#include "mlir/IR/BuiltinOps.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace oneflow {

/// The plan emitPlan wrote (include/oneflow/Target/EmittedPlan.h).
struct EmittedPlan;

/// Wall-clock seconds of the compiler's phases, printed as one line
/// (`time: import 0.41 s, graph passes 2.10 s, ...; total 3.02 s`).
class PhaseTimes {
public:
  /// Ends the running phase (if any) and starts `name`.
  void start(llvm::StringRef name);
  /// Ends the running phase.
  void stop();
  void print(llvm::raw_ostream &os);

private:
  std::vector<std::pair<std::string, double>> phases;
  std::string running;
  std::chrono::steady_clock::time_point since;
};

struct EmitPlanOptions {
  /// The directory written (created if needed).
  std::string outputDir;
  /// The ONNX model the module was imported from (copied into the plan for
  /// exporting trained weights); empty when not from ONNX.
  std::string sourceModel;
  /// Group ops into fused kernels (oneflow-fuse) before outlining.
  bool fuse = true;
  /// Run an inference plan's CPU convolutions on NHWC activations
  /// (oneflow-channels-last), with their residual adds and activations
  /// folded in (oneflow-fold-conv-epilogues).
  bool channelsLast = true;
  /// Compile the kernels through the CUDA backend's loop mapping, its
  /// launches run as CPU loops (checks the GPU kernels' numerics).
  bool gpuKernelsOnCpu = false;
  /// Where to print the kernel count and what fusion saved; null: nowhere.
  llvm::raw_ostream *report = nullptr;
  /// Threads that translate, optimize and emit the kernels' LLVM code (0:
  /// the ONEFLOW_COMPILE_THREADS environment variable, else every core); the
  /// plan and kernels.so do not depend on it.
  unsigned compileThreads = 0;
  /// The kernel cache's directory (CpuKernelsOptions::cacheDirectory);
  /// empty: none.
  std::string kernelCacheDirectory;
  /// Compile the kernels for NVIDIA GPUs (a CUDA plan) instead of the CPU.
  std::optional<CudaKernelsOptions> cuda;
  /// Where to record the time of fusion, plan building, kernel code
  /// generation and writing; null: not recorded.
  PhaseTimes *times = nullptr;
  /// Receives the plan once written (for the simulator); null: dropped.
  EmittedPlan *planOut = nullptr;
  /// Build the plan into `planOut` and stop: no kernel code, nothing
  /// written (what a simulation needs; `outputDir` unused).
  bool planOnly = false;
};

/// Outlines the kernels of @main (when not done yet), compiles them and writes
/// the plan. Reports failures as diagnostics.
LogicalResult emitPlan(ModuleOp module, const EmitPlanOptions &options);

/// Like emitPlan up to the kernels, then compiles only their GPU side into
/// `kernels.fatbin` in the output directory (no plan); the report gives
/// launches, registers and spills.
LogicalResult emitCudaKernels(ModuleOp module, const EmitPlanOptions &options,
                              const CudaKernelsOptions &cuda);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TARGET_EMITPLAN_H
