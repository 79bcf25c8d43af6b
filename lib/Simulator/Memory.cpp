//===- Memory.cpp - The bytes each rank role holds ------------------------===//
//
// The runtime's memory planner (lib/Runtime/MemoryPlanner.cpp) restated on
// the plan alone, so that the simulator needs no runtime library: 64-byte
// aligned slots; persistent regsts in a block of their own; a
// non-persistent single-slot regst whose producer and consumers run on one
// (rank, stream) thread, not read by a SEND, shares a first-fit pool with
// the others of its thread when their live ranges in the schedule do not
// overlap (largest first); every other regst has its own bytes. The arena
// is split into the gradients (what updates read) and the activations.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Simulator/Simulator.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

using namespace oneflow;
using namespace oneflow::simulator;

namespace {

constexpr int64_t kAlignment = 64;

int64_t alignUp(int64_t value) {
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

struct Placement {
  int64_t bytes = 0;
  int liveBegin = 0, liveEnd = 0; // schedule positions, inclusive
  int64_t offset = 0;
};

/// First-fit offsets, largest first; returns the pool size. The runtime
/// sorts each regst's conflicts by offset; scanning the placed regsts kept
/// in offset order and skipping those live at other times gives the same
/// offsets without a sort per regst (GPT-3's pools hold thousands).
int64_t packPool(std::vector<Placement> &pool) {
  std::vector<int> order(pool.size());
  for (size_t i = 0; i < pool.size(); ++i)
    order[i] = int(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return std::make_tuple(-pool[a].bytes, pool[a].liveBegin, a) <
           std::make_tuple(-pool[b].bytes, pool[b].liveBegin, b);
  });
  int64_t poolBytes = 0;
  // The placed regsts by offset, as columns: the scan reads the live
  // ranges of all of them and the bytes of few.
  std::vector<int> begins, ends;
  std::vector<int64_t> offsets, sizes;
  for (int r : order) {
    Placement &p = pool[r];
    int64_t offset = 0;
    for (size_t q = 0; q < begins.size(); ++q) {
      if (begins[q] > p.liveEnd || p.liveBegin > ends[q])
        continue;
      if (offsets[q] >= offset + p.bytes)
        break;
      offset = std::max(offset, offsets[q] + sizes[q]);
    }
    p.offset = offset;
    poolBytes = std::max(poolBytes, offset + p.bytes);
    size_t at = std::upper_bound(offsets.begin(), offsets.end(), offset) -
                offsets.begin();
    begins.insert(begins.begin() + at, p.liveBegin);
    ends.insert(ends.begin() + at, p.liveEnd);
    offsets.insert(offsets.begin() + at, offset);
    sizes.insert(sizes.begin() + at, p.bytes);
  }
  return poolBytes;
}

} // namespace

std::vector<RoleMemory>
oneflow::simulator::roleMemory(const plan::Plan &plan,
                               const cost::Cluster &cluster) {
  // Who writes and reads each regst, and which tasks update variables.
  std::unordered_map<int64_t, int> producer;
  std::unordered_map<int64_t, std::vector<int>> consumers;
  std::set<int64_t> persistentIds, readByUpdates;
  for (const plan::Regst &regst : plan.regsts())
    if (regst.persistent())
      persistentIds.insert(regst.id());
  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    bool update = false;
    for (int64_t id : task.out_regsts()) {
      producer.try_emplace(id, t);
      update |= persistentIds.count(id) > 0;
    }
    for (int64_t id : task.in_regsts()) {
      std::vector<int> &readers = consumers[id];
      if (readers.empty() || readers.back() != t)
        readers.push_back(t);
      if (update)
        readByUpdates.insert(id);
    }
  }
  // Logical names of trained parameters: "<parameter>.<state>" is theirs.
  std::set<std::string> trainable;
  for (const plan::Regst &regst : plan.regsts())
    if (regst.persistent() && regst.variable().trainable())
      trainable.insert(regst.variable().name());
  auto isOptimizerState = [&](const plan::VariableSlice &variable) {
    const std::string &name = variable.name();
    size_t dot = name.rfind('.');
    return name == "optimizer.step" ||
           (!variable.trainable() && dot != std::string::npos &&
            trainable.count(name.substr(0, dot)));
  };

  // One entry per role (per rank without roles), by representative.
  std::map<int32_t, RoleMemory> byRank;
  for (const plan::Role &role : plan.roles())
    if (role.members_size() > 0) {
      RoleMemory &memory = byRank[role.members(0)];
      memory.members = role.members_size();
      memory.representative = role.members(0);
    }
  std::map<std::pair<int32_t, std::string>, std::vector<Placement>> pools;
  std::map<int32_t, int64_t> arena, gradients;
  for (const plan::Regst &regst : plan.regsts()) {
    auto made = producer.find(regst.id());
    auto read = consumers.find(regst.id());
    // Like the runtime: a regst no task touches takes no memory.
    if (made == producer.end() &&
        (!regst.persistent() || read == consumers.end()))
      continue;
    RoleMemory &memory = byRank[regst.rank()];
    memory.representative = regst.rank();
    int64_t slot = alignUp(regst.size_bytes());
    if (regst.persistent()) {
      if (regst.has_variable() && regst.variable().trainable())
        memory.parameters += slot;
      else if (regst.has_variable() && isOptimizerState(regst.variable()))
        memory.optimizerState += slot;
      else
        memory.buffers += slot;
      continue;
    }
    int64_t bytes = slot * std::max(regst.num_slots(), 1);
    if (readByUpdates.count(regst.id()))
      gradients[regst.rank()] += bytes;
    const plan::Task &writer = plan.tasks(made->second);
    bool shareable = regst.num_slots() <= 1;
    int last = made->second;
    if (read != consumers.end())
      for (int c : read->second) {
        const plan::Task &reader = plan.tasks(c);
        shareable &= reader.rank() == writer.rank() &&
                     reader.stream() == writer.stream() &&
                     !(reader.kind() == plan::COLLECTIVE &&
                       reader.collective().kind() == plan::Collective::SEND);
        last = c;
      }
    if (!shareable) {
      arena[regst.rank()] += bytes;
      continue;
    }
    pools[{writer.rank(), writer.stream()}].push_back(
        {bytes, made->second, last, 0});
  }
  for (auto &[thread, pool] : pools)
    arena[thread.first] += packPool(pool);

  std::vector<RoleMemory> roles;
  for (auto &[rank, memory] : byRank) {
    // What updates read counts as gradients, the rest of the arena as
    // activations (the pool may overlay both).
    int64_t total = arena[rank];
    memory.gradients = std::min(gradients[rank], total);
    memory.activations = total - memory.gradients;
    memory.capacity = cluster.memoryCapacity;
    roles.push_back(memory);
  }
  return roles;
}
