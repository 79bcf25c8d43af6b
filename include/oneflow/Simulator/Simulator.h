//===- Simulator.h - One step of a plan on a described cluster --*- C++ -*-===//
//
// Replays one step of an actor plan as the runtime runs it (docs/
// simulator.md): every (rank, stream) runs its tasks in plan order, a task
// starts once its stream is free and its producers and wait_for tasks have
// finished, the members of a collective start it together, a RECV and its
// SEND are one transfer (sends do not block their stream). Task durations
// come from the cost model. A plan of rank roles is replayed on the
// representatives only. Also reports the memory of each role as the
// runtime's memory planner places its regsts.
//
// Plain C++ on the plan schema and OneFlowCost: no MLIR, no MPI; of the
// runtime, only its role expansion.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_SIMULATOR_SIMULATOR_H
#define ONEFLOW_SIMULATOR_SIMULATOR_H

#include "oneflow/Cost/Cluster.h"
#include "oneflow/plan.pb.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace oneflow {
namespace simulator {

/// The bytes one rank of a role holds.
struct RoleMemory {
  int64_t members = 1;
  int32_t representative = 0;
  int64_t parameters = 0;     // persistent regsts of trainable variables
  int64_t gradients = 0;      // non-persistent regsts updates read
  int64_t optimizerState = 0; // "<parameter>.<state>", "optimizer.step"
  int64_t buffers = 0;        // other persistent regsts
  int64_t activations = 0;    // the rest of the arena
  int64_t capacity = 0;       // the device's memory_capacity

  int64_t total() const {
    return parameters + gradients + optimizerState + buffers + activations;
  }
  bool fits() const { return total() <= capacity; }
};

/// One task's replay, for traces: seconds from the start of the step.
struct TraceEvent {
  int taskIndex = 0; // position in Plan.tasks
  int stream = 0;    // index into Report::streams
  double start = 0;
  double duration = 0;
};

struct Report {
  std::string cluster;
  int32_t numRanks = 0;
  /// Ranks replayed: the representatives of a plan of roles, else all.
  int32_t simulatedRanks = 0;
  double stepSeconds = 0;
  /// The split of the step on `lastRank`'s compute stream (they sum to
  /// stepSeconds).
  double computeSeconds = 0;
  double exposedCommunicationSeconds = 0;
  double bubbleSeconds = 0;
  int32_t lastRank = 0;
  /// Every task's FLOPs times its role's member count, per rank and
  /// second of the step, in TFLOP/s.
  double tflopsPerDevice = 0;
  std::vector<RoleMemory> roles;
  /// Every task of the replayed ranks (when asked for), and the names of
  /// the streams they ran on (a task's stream, or for a CUDA plan's sends
  /// and receives their direction's).
  std::vector<TraceEvent> trace;
  std::vector<std::string> streams;
  /// The plan replayed, when it is not the one given: a plan of roles
  /// whose ranks share CPUs is replayed rank by rank, roles expanded (the
  /// trace's task indices are then its).
  std::shared_ptr<const plan::Plan> expandedPlan;

  int64_t peakMemoryBytes() const;
  bool fits() const;
};

struct Options {
  /// Record a trace event per task.
  bool trace = false;
};

/// Replays one step of `plan` on `cluster`. Errors: an inconsistent plan
/// (unknown ids, incomplete collectives) or a deadlock, whose cycle of
/// waits the message spells out.
llvm::Expected<Report> simulate(const plan::Plan &plan,
                                const cost::Cluster &cluster,
                                const Options &options = {});

/// The memory of each role of `plan` (each rank of a plan without roles).
std::vector<RoleMemory> roleMemory(const plan::Plan &plan,
                                   const cost::Cluster &cluster);

/// The report as the JSON object of `--simulate-json`.
std::string reportToJson(const Report &report);

/// The trace as a Chrome trace in the format of `oneflow-run --trace`.
std::string traceToJson(const Report &report, const plan::Plan &plan);

/// The summary lines `oneflow-opt --simulate` prints.
void printReport(llvm::raw_ostream &os, const Report &report);

} // namespace simulator
} // namespace oneflow

#endif // ONEFLOW_SIMULATOR_SIMULATOR_H
