//===- Target.h - Internals of plan emission --------------------*- C++ -*-===//

#ifndef ONEFLOW_LIB_TARGET_TARGET_H
#define ONEFLOW_LIB_TARGET_TARGET_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "oneflow/plan.pb.h"

#include <string>

namespace mlir {
namespace oneflow {

struct BuiltPlan {
  ::oneflow::plan::Plan plan;
  /// The initial data of every persistent register, at their offsets.
  std::string weights;
};

/// The program one rank runs.
struct RankGraph {
  func::FuncOp graph;
  int64_t rank;
};

/// Reads the task graphs of `graphs` (after kernel outlining): one KERNEL
/// task per call, one COLLECTIVE task per sbp.collective, one register per
/// value, persistent registers for variables and constants, INPUT tasks for
/// the arguments on every rank and OUTPUT tasks for the results on the first
/// graph's rank. Identical parameter data is stored once.
FailureOr<BuiltPlan> buildPlan(ArrayRef<RankGraph> graphs, int64_t numRanks);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_TARGET_TARGET_H
