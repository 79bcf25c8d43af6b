//===- MemoryPlanner.cpp - Where each regst lives -------------------------===//

#include "oneflow/Runtime/MemoryPlanner.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace oneflow {
namespace runtime {

namespace {

int64_t alignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// A (rank, stream) pair: one thread of the engine.
struct Thread {
  int rank;
  std::string stream;
  bool operator<(const Thread &other) const {
    return std::tie(rank, stream) < std::tie(other.rank, other.stream);
  }
};

/// Whether the producer and every consumer of `regst` run on one thread
/// (returned in `thread`).
bool singleThread(const PlanGraph &graph, const PlanGraph::RegstNode &regst,
                  Thread &thread) {
  const plan::Task &producer = graph.plan().tasks(regst.producer);
  thread = {producer.rank(), producer.stream()};
  for (int c : regst.consumers) {
    const plan::Task &consumer = graph.plan().tasks(c);
    if (consumer.rank() != thread.rank || consumer.stream() != thread.stream)
      return false;
    // A SEND reads its input after it fired, until the send completes.
    if (consumer.kind() == plan::COLLECTIVE &&
        consumer.collective().kind() == plan::Collective::SEND)
      return false;
  }
  return true;
}

/// First-fit offsets for regsts of one thread: largest first, each at the
/// lowest offset that overlaps no already placed regst live at the same
/// time. Returns the pool size.
int64_t packGroup(std::vector<int> &members,
                  std::vector<RegstPlacement> &placements) {
  std::sort(members.begin(), members.end(), [&](int a, int b) {
    const RegstPlacement &pa = placements[a], &pb = placements[b];
    return std::make_tuple(-pa.bytes(), pa.liveBegin, a) <
           std::make_tuple(-pb.bytes(), pb.liveBegin, b);
  });
  int64_t poolBytes = 0;
  std::vector<int> placed;
  for (int r : members) {
    RegstPlacement &p = placements[r];
    std::vector<int> conflicts;
    for (int q : placed)
      if (placements[q].liveBegin <= p.liveEnd &&
          p.liveBegin <= placements[q].liveEnd)
        conflicts.push_back(q);
    std::sort(conflicts.begin(), conflicts.end(), [&](int a, int b) {
      return placements[a].offset < placements[b].offset;
    });
    int64_t offset = 0;
    for (int q : conflicts) {
      if (placements[q].offset >= offset + p.bytes())
        break;
      offset = std::max(offset, placements[q].offset + placements[q].bytes());
    }
    p.offset = offset;
    poolBytes = std::max(poolBytes, offset + p.bytes());
    placed.push_back(r);
  }
  return poolBytes;
}

} // namespace

int64_t MemoryPlan::totalArenaBytes() const {
  return std::accumulate(arenaBytes.begin(), arenaBytes.end(), int64_t(0));
}

int64_t MemoryPlan::totalUnsharedBytes() const {
  return std::accumulate(unsharedBytes.begin(), unsharedBytes.end(),
                         int64_t(0));
}

MemoryPlan planMemory(const PlanGraph &graph,
                      const MemoryPlanOptions &options) {
  const plan::Plan &plan = graph.plan();
  int numRanks = std::max(plan.num_ranks(), 1);
  MemoryPlan result;
  result.placements.resize(graph.regsts().size());
  result.arenaBytes.assign(numRanks, 0);
  result.unsharedBytes.assign(numRanks, 0);
  result.persistentBytes.assign(numRanks, 0);

  // Own bytes first (in plan order), then one pool per thread.
  std::map<std::pair<int, Thread>, std::vector<int>> groups;
  for (size_t r = 0; r < graph.regsts().size(); ++r) {
    const PlanGraph::RegstNode &node = graph.regsts()[r];
    RegstPlacement &p = result.placements[r];
    p.rank = node.rank;
    p.persistent = node.regst->persistent();
    p.numSlots = p.persistent ? 1 : node.regst->num_slots();
    p.slotStride = alignUp(node.regst->size_bytes(), options.alignment);
    if (p.rank < 0 || p.rank >= numRanks)
      continue; // No task touches it: nothing to allocate.
    if (p.persistent) {
      p.offset = result.persistentBytes[p.rank];
      result.persistentBytes[p.rank] += p.bytes();
      continue;
    }
    result.unsharedBytes[p.rank] += p.bytes();
    Thread thread;
    if (options.reuse && p.numSlots == 1 && singleThread(graph, node, thread)) {
      p.shareable = true;
      p.liveBegin = node.producer;
      p.liveEnd =
          node.consumers.empty() ? node.producer : node.consumers.back();
      groups[{p.rank, thread}].push_back(int(r));
      continue;
    }
    p.offset = result.arenaBytes[p.rank];
    result.arenaBytes[p.rank] += p.bytes();
  }
  for (auto &[key, members] : groups) {
    int rank = key.first;
    int64_t base = result.arenaBytes[rank];
    result.arenaBytes[rank] += packGroup(members, result.placements);
    for (int r : members)
      result.placements[r].offset += base;
  }
  return result;
}

} // namespace runtime
} // namespace oneflow
