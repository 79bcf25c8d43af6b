//===- AutoParallel.h - oneflow-opt --auto-parallel -------------*- C++ -*-===//
//
// The outer search of `--auto-parallel --devices=N`: the mesh (data x
// tensor), pipeline stages, micro-batches, schedule, ZeRO stage and
// activation recomputation, priced by an analytical step model over per-op SBP
// solves of the forward graph (docs/simulator.md, "Automatic parallel plans").
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_ONEFLOW_OPT_AUTOPARALLEL_H
#define ONEFLOW_TOOLS_ONEFLOW_OPT_AUTOPARALLEL_H

#include "oneflow/Dialect/SBP/SbpRule.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir {
namespace oneflow {

struct AutoParallelRequest {
  int64_t devices = 1;
  std::string clusterPath;
  std::string device = "cpu";
  bool train = false;
  /// Optimizer state tensors per parameter (AdamW 2, SGD with momentum 1).
  int64_t stateTensors = 0;
  /// How many configurations to list after the chosen one.
  int runnersUp = 5;
  /// How many ranked configurations to hand back (the cheapest of each
  /// data x tensor x stages layout).
  int keep = 1;
  /// The recomputation modes and ZeRO stages searched (training only; the
  /// user's --recompute or --zero fixes one).
  SmallVector<std::string> recomputeModes = {"none", "selective", "full"};
  SmallVector<int64_t> zeroStages = {0, 1, 3};
};

struct AutoParallelChoice {
  /// Compile mesh: data axis outermost, tensor axis innermost (inside a
  /// node); size-1 axes dropped.
  SmallVector<int64_t> mesh;
  int64_t data = 1, tensor = 1, stages = 1, microbatches = 1;
  std::string schedule = "1f1b";
  /// ZeRO stage on the data axis (0 without one) and recomputation mode.
  int64_t zero = 0;
  std::string recompute = "none";
  /// Where the compile takes every op's SBP from: "solve" (the cost-based
  /// solve, --sbp-strategy=auto) or "megatron" (the hand template: data
  /// and tensor strategies on their axes); the simulator's check of the
  /// candidates may pick either.
  std::string sbpSource = "solve";
  /// The solve's layout of every variable on the compile mesh.
  llvm::StringMap<SmallVector<sbp::Sbp, 3>> pins;
  /// The step model's figures.
  double stepSeconds = 0, memoryBytes = 0;

  /// `data 8 x tensor 8 x stages 16, 16 micro-batch(es), 1f1b, ZeRO-1,
  /// recompute none`.
  std::string describe() const;
};

/// Searches the configurations of `request` for `model` (imported, not
/// yet trained or distributed), prints the chosen one and the runners-up
/// to `os`; false after printing why none fits.
/// `ranked`, when given, receives the fitting configurations cheapest
/// first (the choice first), at most `request.keep` of them.
bool searchAutoParallel(ModuleOp model, const AutoParallelRequest &request,
                        AutoParallelChoice &choice, llvm::raw_ostream &os,
                        SmallVectorImpl<AutoParallelChoice> *ranked = nullptr);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TOOLS_ONEFLOW_OPT_AUTOPARALLEL_H
