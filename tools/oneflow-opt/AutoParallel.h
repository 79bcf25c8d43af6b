//===- AutoParallel.h - oneflow-opt --auto-parallel -------------*- C++ -*-===//
//
// The outer search of `--auto-parallel --devices=N`: the mesh (data x
// tensor), pipeline stages, micro-batches, schedule and optimizer-state
// sharding, priced by an analytical step model over per-op SBP solves of
// the forward graph (docs/simulator.md, "Automatic parallel plans").
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
};

struct AutoParallelChoice {
  /// Compile mesh: data axis outermost, tensor axis innermost (inside a
  /// node); size-1 axes dropped.
  SmallVector<int64_t> mesh;
  int64_t data = 1, tensor = 1, stages = 1, microbatches = 1;
  std::string schedule = "1f1b";
  bool zero = true;
  /// The solve's layout of every variable on the compile mesh.
  llvm::StringMap<SmallVector<sbp::Sbp, 3>> pins;
  double stepSeconds = 0;
};

/// Searches the configurations of `request` for `model` (imported, not
/// yet trained or distributed), prints the chosen one and the runners-up
/// to `os`; false after printing why none fits.
bool searchAutoParallel(ModuleOp model, const AutoParallelRequest &request,
                        AutoParallelChoice &choice, llvm::raw_ostream &os);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TOOLS_ONEFLOW_OPT_AUTOPARALLEL_H
