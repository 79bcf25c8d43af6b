//===- TaskWork.h - OpCost into the plan's TaskCost -------------*- C++ -*-===//
//
// Kept apart from OpCost.h: it brings the plan schema's `::oneflow`
// namespace, which code inside `mlir::oneflow` must not see unqualified.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_COST_TASKWORK_H
#define ONEFLOW_COST_TASKWORK_H

#include "oneflow/Cost/OpCost.h"
#include "oneflow/plan.pb.h"

namespace mlir {
namespace oneflow {

/// Writes `work`'s FLOPs and counts into a plan's TaskCost (its bytes and
/// element type are the caller's).
void setTaskWork(const OpCost &work, ::oneflow::plan::TaskCost &cost);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_COST_TASKWORK_H
