//===- PlanGraph.h - Plan loading and validation ----------------*- C++ -*-===//
//
// Reads plan.pb and checks everything the engine relies on (ids resolve,
// one producer per regst, sizes match descs, the schedule is topological,
// I/O tasks match the graph's inputs and outputs, collectives are complete,
// consistent and cannot deadlock; ASSIGN tasks, wait_for lists, variable
// slices and the loss output are sound), then indexes the plan: who
// produces and who reads each regst.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_PLANGRAPH_H
#define ONEFLOW_RUNTIME_PLANGRAPH_H

#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/PlanRoles.h"
#include "oneflow/Runtime/Status.h"
#include "oneflow/plan.pb.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace oneflow {
namespace runtime {

/// The plan schema version this runtime executes.
constexpr int kPlanVersion = 1;
/// The most ranks a plan may have.
constexpr int kMaxRanks = 1 << 20;

/// The streams a task may run on; each (rank, stream) is one thread.
const std::vector<std::string> &knownStreams();
bool isKnownStream(const std::string &stream);

/// Reads and parses `path` (a binary plan.pb), with its roles expanded.
/// Does not validate.
Expected<plan::Plan> readPlanFile(const std::string &path);

/// The plan's tasks and regsts by index, with the edges between them. Task
/// indices are positions in the schedule (`Plan.tasks`).
class PlanGraph {
public:
  struct RegstNode {
    const plan::Regst *regst = nullptr;
    int producer = -1;          // task index; -1 for unproduced persistents
    std::vector<int> consumers; // distinct task indices, in schedule order
    int rank = -1;              // rank of its tasks; -1 if none touches it
  };
  struct TaskNode {
    const plan::Task *task = nullptr;
    std::vector<int> inRegsts;  // regst indices, as in Task.in_regsts
    std::vector<int> outRegsts; // regst indices, as in Task.out_regsts
    /// COLLECTIVE tasks: how the task moves its bytes.
    CollectiveLayout collective;
  };

  /// Validates `plan` and indexes it. Every problem found is reported, one
  /// per line. `plan` must outlive the graph.
  static Expected<PlanGraph> build(const plan::Plan &plan);

  const plan::Plan &plan() const { return *planPtr; }
  const std::vector<RegstNode> &regsts() const { return regstNodes; }
  const std::vector<TaskNode> &tasks() const { return taskNodes; }
  /// Regst index of `id`, or -1.
  int regstIndex(int64_t id) const;
  /// Task index (schedule position) of `id`, or -1.
  int taskIndex(int64_t id) const;
  /// Whether task `t` is a kernel that reads and writes persistent regst
  /// `r` (updates a variable in place).
  bool updatesInPlace(int t, int r) const;
  /// Whether some task writes a persistent regst: an ASSIGN, or a kernel
  /// that updates a variable in place (the plan then runs step by step).
  bool hasVariableWrites() const { return variableWrites; }

  /// "regst 'name' (id 3)" / "task 'name' (id 3)", for messages.
  static std::string describe(const plan::Regst &regst);
  static std::string describe(const plan::Task &task);

private:
  const plan::Plan *planPtr = nullptr;
  std::vector<RegstNode> regstNodes;
  std::vector<TaskNode> taskNodes;
  std::unordered_map<int64_t, int> regstById;
  std::unordered_map<int64_t, int> taskById;
  bool variableWrites = false;
};

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_PLANGRAPH_H
