//===- EmittedPlan.h - The plan emitPlan hands back -------------*- C++ -*-===//
//
// Apart from EmitPlan.h so that its users need not see the plan schema
// (whose ::oneflow namespace clashes with mlir::oneflow under `using
// namespace mlir`).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TARGET_EMITTEDPLAN_H
#define ONEFLOW_TARGET_EMITTEDPLAN_H

#include "oneflow/plan.pb.h"

namespace mlir {
namespace oneflow {

/// What EmitPlanOptions::planOut receives: the plan as written to plan.pb.
struct EmittedPlan {
  ::oneflow::plan::Plan plan;
};

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TARGET_EMITTEDPLAN_H
