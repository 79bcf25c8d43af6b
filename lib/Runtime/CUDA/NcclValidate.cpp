//===- NcclValidate.cpp - What a plan needs to run on NCCL ----------------===//

#include "oneflow/Runtime/CUDA/Nccl.h"

#include <map>

namespace oneflow {
namespace runtime {
namespace cuda {

namespace {

std::string tagList(const std::vector<int64_t> &tags) {
  std::string text = "[";
  for (size_t i = 0; i < tags.size(); ++i)
    text += (i ? ", " : "") + std::to_string(tags[i]);
  return text + "]";
}

} // namespace

Status validateNcclPlan(const PlanGraph &graph) {
  const plan::Plan &plan = graph.plan();
  std::vector<std::string> problems;
  // Per direction (sender, receiver): the tags in schedule order, as the
  // sender enqueues its SENDs and the receiver its RECVs. All COLLECTIVE
  // tasks are on the comm stream, so Plan.tasks' order is each rank's.
  std::map<std::pair<int, int>, std::vector<int64_t>> sends, recvs;
  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    if (task.kind() != plan::COLLECTIVE)
      continue;
    const plan::Collective &c = task.collective();
    const PlanGraph::TaskNode &node = graph.tasks()[t];
    auto desc = [&](const std::vector<int> &regsts) {
      return regsts.empty() ? nullptr
                            : &graph.regsts()[regsts[0]].regst->desc();
    };
    int groupSize = isPointToPoint(c.kind()) ? 2 : c.group_size();
    Expected<CollectiveLayout> layout = validateNcclCollective(
        c, desc(node.inRegsts), desc(node.outRegsts), groupSize);
    if (!layout.ok())
      problems.push_back(PlanGraph::describe(task) + ": " +
                         layout.error().message());
    if (c.kind() == plan::Collective::SEND)
      sends[{task.rank(), c.peer()}].push_back(c.tag());
    if (c.kind() == plan::Collective::RECV)
      recvs[{c.peer(), task.rank()}].push_back(c.tag());
  }
  // NCCL pairs a direction's sends and receives by order, not by tag.
  for (const auto &[direction, sent] : sends) {
    const std::vector<int64_t> &received = recvs[direction];
    if (sent != received)
      problems.push_back(
          "rank " + std::to_string(direction.first) + " sends tags " +
          tagList(sent) + " to rank " + std::to_string(direction.second) +
          ", which receives tags " + tagList(received) +
          " in this order: NCCL pairs sends and receives by order");
  }
  return joinProblems(problems);
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
