//===- TestPlans.h - Hand-built plans for the simulator tests ---*- C++ -*-===//

#ifndef ONEFLOW_UNITTESTS_SIMULATOR_TESTPLANS_H
#define ONEFLOW_UNITTESTS_SIMULATOR_TESTPLANS_H

#include "oneflow/Cost/Cluster.h"
#include "oneflow/plan.pb.h"

#include <string>
#include <vector>

namespace oneflow {
namespace simulator {

/// Round numbers: a kernel of 1e9 vector FLOPs takes 1 ms, a copy of 1e9
/// bytes 1 ms, no overhead; pairs of ranks share a link of alpha 1e-6 s and
/// 1e9 bytes/s, the rest one of alpha 1e-5 s and 1e8 bytes/s; 1e9 bytes of
/// memory.
cost::Cluster testCluster();

/// Builds a plan task by task, ids in order.
class PlanMaker {
public:
  explicit PlanMaker(int numRanks);

  /// A regst of `bytes` on `rank`; persistent ones may name a variable.
  int64_t regst(int rank, int64_t bytes, bool persistent = false,
                const std::string &variable = "", bool trainable = false);
  plan::Task &task(int rank, plan::TaskKind kind, const std::string &stream,
                   const std::string &name, std::vector<int64_t> in,
                   std::vector<int64_t> out);
  /// A KERNEL on the compute stream doing `vectorFlops`.
  plan::Task &kernel(int rank, const std::string &name, double vectorFlops,
                     std::vector<int64_t> in, std::vector<int64_t> out);
  /// A collective (SEND/RECV: group [sender, receiver]) on the comm stream.
  plan::Task &collective(int rank, plan::Collective::Kind kind,
                         std::vector<int32_t> group, int64_t tag,
                         std::vector<int64_t> in, std::vector<int64_t> out);

  plan::Plan plan;
};

} // namespace simulator
} // namespace oneflow

#endif // ONEFLOW_UNITTESTS_SIMULATOR_TESTPLANS_H
