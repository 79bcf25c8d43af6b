//===- PlanRoles.h - Every rank's tasks from its role -----------*- C++ -*-===//
//
// Plain C++ on the plan schema: the runtime loads plans through it, and the
// simulator replays ranks that share CPUs rank by rank.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_PLANROLES_H
#define ONEFLOW_RUNTIME_PLANROLES_H

#include "oneflow/Runtime/Status.h"
#include "oneflow/plan.pb.h"

namespace oneflow {
namespace runtime {

/// Replaces a plan of shared programs (`Plan.roles`) by the plan of every
/// rank: each member of a role gets its copy of the representative's tasks
/// and regsts, with its collective groups, tags, peers, variable pieces and
/// mesh coordinates. A plan without roles is left as it is.
Status expandRoles(plan::Plan &plan);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_PLANROLES_H
