//===- MemoryPlanner.h - Where each regst lives -----------------*- C++ -*-===//
//
// Non-persistent regsts of a rank live in one arena. Two of them may share
// bytes only when both are single-slot, each is produced and read on one and
// the same (rank, stream) thread, and their live ranges in the schedule
// (producer position .. last consumer position) are disjoint: that thread
// runs its tasks strictly in schedule order, so one is dead before the other
// is written. A SEND's input never shares (the send reads it after the SEND
// fired, until it completes). Everything else gets its own bytes. Persistent
// regsts get their own bytes in a separate per-rank block.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_MEMORYPLANNER_H
#define ONEFLOW_RUNTIME_MEMORYPLANNER_H

#include "oneflow/Runtime/PlanGraph.h"

#include <cstdint>
#include <vector>

namespace oneflow {
namespace runtime {

struct MemoryPlanOptions {
  /// Every slot starts at a multiple of this (cache lines; vector loads).
  int64_t alignment = 64;
  /// false: every regst gets its own bytes (for comparison and debugging).
  bool reuse = true;
};

struct RegstPlacement {
  int rank = -1;
  bool persistent = false;
  /// Byte offset in the rank's arena (or persistent block).
  int64_t offset = 0;
  /// Distance between slots; slot i is at offset + i * slotStride.
  int64_t slotStride = 0;
  int numSlots = 1;
  /// May share bytes with others of the same group (see above).
  bool shareable = false;
  /// Schedule positions it is live in, inclusive (shareable regsts only).
  int liveBegin = 0, liveEnd = 0;

  int64_t bytes() const { return slotStride * numSlots; }
};

struct MemoryPlan {
  /// Indexed like PlanGraph::regsts(); rank -1 for regsts no task touches.
  std::vector<RegstPlacement> placements;
  /// Per rank: arena bytes as planned, and what one region per regst
  /// would take.
  std::vector<int64_t> arenaBytes, unsharedBytes, persistentBytes;

  int64_t totalArenaBytes() const;
  int64_t totalUnsharedBytes() const;
  int64_t savedBytes() const {
    return totalUnsharedBytes() - totalArenaBytes();
  }
};

MemoryPlan planMemory(const PlanGraph &graph,
                      const MemoryPlanOptions &options = {});

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_MEMORYPLANNER_H
