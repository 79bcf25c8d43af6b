//===- PlanChecks.h - Pieces of plan validation -----------------*- C++ -*-===//
//
// PlanGraph::build validates a plan in parts; these are shared between its
// files: the problem list, and the checks of training plans (ASSIGN tasks,
// wait_for lists, variable slices, the loss output).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_PLANCHECKS_H
#define ONEFLOW_LIB_RUNTIME_PLANCHECKS_H

#include "oneflow/Runtime/PlanGraph.h"

#include <sstream>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

/// Collects every problem so that a broken plan is reported in one go.
class Problems {
public:
  template <typename... Parts> void add(const Parts &...parts) {
    std::ostringstream os;
    os << "invalid plan: ";
    (os << ... << parts);
    lines.push_back(os.str());
  }
  bool empty() const { return lines.empty(); }
  Status status() const;

private:
  std::vector<std::string> lines;
};

bool sameDesc(const plan::TensorDesc &a, const plan::TensorDesc &b);

/// ASSIGN tasks (one input, one persistent output of the same desc, on the
/// compute stream), wait_for lists (existing tasks of the same rank, not
/// the task itself), persistent regsts written only by ASSIGN tasks in plans
/// that have them, variable slices (persistent, inside their logical
/// tensor, consistent per name, tiling it), and the loss output (a graph
/// output of one floating-point element).
void checkTrainingPlan(const plan::Plan &plan, const PlanGraph &graph,
                       Problems &problems);

/// Within a step every other reader of an ASSIGN's persistent regst must
/// fire before the ASSIGN (so that it sees the old value): reach it through
/// the waits of the step. `waitsFor[n]` are the nodes node n waits for
/// (acyclic); `node[t]` is the node of task t.
void checkAssignOrder(const PlanGraph &graph,
                      const std::vector<std::vector<int>> &waitsFor,
                      const std::vector<int> &node, Problems &problems);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_LIB_RUNTIME_PLANCHECKS_H
