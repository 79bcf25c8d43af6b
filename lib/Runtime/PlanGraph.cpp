//===- PlanGraph.cpp - Plan loading and validation ------------------------===//

#include "oneflow/Runtime/PlanGraph.h"

#include "PlanChecks.h"

#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Initializer.h"
#include "oneflow/Runtime/Tensor.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

namespace oneflow {
namespace runtime {

const std::vector<std::string> &knownStreams() {
  static const std::vector<std::string> streams = {"compute", "comm", "io"};
  return streams;
}

bool isKnownStream(const std::string &stream) {
  const auto &streams = knownStreams();
  return std::find(streams.begin(), streams.end(), stream) != streams.end();
}

Expected<plan::Plan> readPlanFile(const std::string &path) {
  Expected<std::string> bytes = readFile(path);
  if (!bytes.ok())
    return bytes.error();
  plan::Plan result;
  if (!result.ParseFromString(*bytes))
    return makeError("'", path, "' is not a valid plan (protobuf parse error)");
  if (Status status = expandRoles(result); !status.ok())
    return status;
  return result;
}

std::string PlanGraph::describe(const plan::Regst &regst) {
  if (regst.name().empty())
    return "regst " + std::to_string(regst.id());
  return "regst '" + regst.name() + "' (id " + std::to_string(regst.id()) + ")";
}

std::string PlanGraph::describe(const plan::Task &task) {
  if (task.name().empty())
    return "task " + std::to_string(task.id());
  return "task '" + task.name() + "' (id " + std::to_string(task.id()) + ")";
}

int PlanGraph::regstIndex(int64_t id) const {
  auto it = regstById.find(id);
  return it == regstById.end() ? -1 : it->second;
}

int PlanGraph::taskIndex(int64_t id) const {
  auto it = taskById.find(id);
  return it == taskById.end() ? -1 : it->second;
}

Status Problems::status() const {
  constexpr size_t kMaxLines = 50;
  std::string text;
  for (size_t i = 0; i < lines.size() && i < kMaxLines; ++i)
    text += (i ? "\n" : "") + lines[i];
  if (lines.size() > kMaxLines)
    text += "\n... and " + std::to_string(lines.size() - kMaxLines) +
            " more problems";
  return Status::error(text);
}

bool sameDesc(const plan::TensorDesc &a, const plan::TensorDesc &b) {
  return a.dtype() == b.dtype() && shapeOf(a) == shapeOf(b);
}

namespace {

/// 1 PiB: larger regsts are surely a broken plan.
constexpr int64_t kMaxRegstBytes = int64_t(1) << 50;

std::string streamList() {
  std::string list;
  for (const std::string &stream : knownStreams())
    list += (list.empty() ? "" : ", ") + stream;
  return list;
}

std::string rankList(const google::protobuf::RepeatedField<int32_t> &ranks) {
  std::string text = "[";
  for (int i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

/// The tasks of one collective (one tag), once they passed their checks.
struct CollectiveGroup {
  int64_t tag = 0;
  std::vector<int> tasks; // schedule positions
  bool pointToPoint = false;
  int send = -1, recv = -1; // pointToPoint: the two tasks
};

/// Every COLLECTIVE task alone (stream, arity, group, shapes), then the
/// tasks of each tag together (complete, consistent, matching peers).
void checkCollectives(const plan::Plan &plan, const PlanGraph &graph,
                      std::vector<PlanGraph::TaskNode> &tasks,
                      Problems &problems,
                      std::vector<CollectiveGroup> &groups) {
  const int numRanks = std::max(plan.num_ranks(), 1);
  std::map<int64_t, std::vector<int>> byTag;
  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    if (task.kind() != plan::COLLECTIVE)
      continue;
    const plan::Collective &c = task.collective();
    const std::string who = PlanGraph::describe(task);
    if (task.stream() != "comm")
      problems.add(who, ": COLLECTIVE tasks run on the 'comm' stream, not '",
                   task.stream(), "'");
    if (!plan::Collective::Kind_IsValid(c.kind())) {
      problems.add(who, ": unknown collective kind ", int(c.kind()));
      continue;
    }
    const std::string kind = collectiveKindName(c.kind());
    const int wantIn = c.kind() == plan::Collective::RECV ? 0 : 1;
    const int wantOut = c.kind() == plan::Collective::SEND ? 0 : 1;
    if (task.in_regsts_size() != wantIn || task.out_regsts_size() != wantOut) {
      problems.add(who, ": ", kind, " tasks have ", wantIn, " in_regst",
                   wantIn == 1 ? "" : "s", " and ", wantOut, " out_regst",
                   wantOut == 1 ? "" : "s", ", not ", task.in_regsts_size(),
                   " and ", task.out_regsts_size());
      continue;
    }
    const PlanGraph::TaskNode &node = tasks[t];
    if (int(node.inRegsts.size()) != wantIn ||
        int(node.outRegsts.size()) != wantOut)
      continue; // Dangling regst ids: reported already.

    int groupSize = 1;
    bool ok = true;
    if (isPointToPoint(c.kind())) {
      if (c.peer() < 0 || c.peer() >= numRanks) {
        problems.add(who, ": peer ", c.peer(), " is outside [0, ", numRanks,
                     ")");
        ok = false;
      } else if (c.peer() == task.rank()) {
        problems.add(who, ": a ", kind, " with its own rank ", task.rank(),
                     " as peer");
        ok = false;
      }
      const auto &group = c.group();
      auto has = [&](int rank) {
        return std::find(group.begin(), group.end(), rank) != group.end();
      };
      if (!group.empty() &&
          (group.size() != 2 || !has(task.rank()) || !has(c.peer()))) {
        problems.add(who, ": the group of a ", kind,
                     " is empty or holds its two ranks, not ", rankList(group));
        ok = false;
      }
    } else {
      const auto &group = c.group();
      std::set<int> seen;
      for (int rank : group) {
        if (rank < 0 || rank >= numRanks) {
          problems.add(who, ": group ", rankList(group), " holds rank ", rank,
                       ", outside [0, ", numRanks, ")");
          ok = false;
        } else if (!seen.insert(rank).second) {
          problems.add(who, ": group ", rankList(group), " holds rank ", rank,
                       " twice");
          ok = false;
        }
      }
      if (group.empty()) {
        problems.add(who, ": ", kind, " with an empty group");
        ok = false;
      } else if (!seen.count(task.rank())) {
        problems.add(who, ": group ", rankList(group),
                     " does not hold the task's rank ", task.rank());
        ok = false;
      }
      groupSize = group.size();
    }
    const plan::TensorDesc *in =
        wantIn ? &graph.regsts()[node.inRegsts[0]].regst->desc() : nullptr;
    const plan::TensorDesc *out =
        wantOut ? &graph.regsts()[node.outRegsts[0]].regst->desc() : nullptr;
    Expected<CollectiveLayout> layout =
        layoutCollective(c, in, out, std::max(groupSize, 1));
    if (!layout.ok()) {
      problems.add(who, ": ", layout.error().message());
      ok = false;
    } else {
      tasks[t].collective = *layout;
    }
    if (ok)
      byTag[c.tag()].push_back(t);
  }

  auto describeIn = [&](int t) -> std::string {
    const PlanGraph::TaskNode &node = tasks[t];
    return node.inRegsts.empty()
               ? "nothing"
               : describeTensor(graph.regsts()[node.inRegsts[0]].regst->desc());
  };
  auto describeOut = [&](int t) -> std::string {
    const PlanGraph::TaskNode &node = tasks[t];
    return node.outRegsts.empty()
               ? "nothing"
               : describeTensor(
                     graph.regsts()[node.outRegsts[0]].regst->desc());
  };

  for (auto &[tag, members] : byTag) {
    const std::string label = "collective tag " + std::to_string(tag);
    int pointToPoint = 0;
    for (int t : members)
      pointToPoint += isPointToPoint(plan.tasks(t).collective().kind());
    if (pointToPoint != 0 && pointToPoint != int(members.size())) {
      problems.add(label, " is shared by a SEND/RECV and another collective (",
                   PlanGraph::describe(plan.tasks(members[0])), ", ",
                   PlanGraph::describe(plan.tasks(members[1])),
                   "): tags are unique per collective");
      continue;
    }
    CollectiveGroup group;
    group.tag = tag;
    group.tasks = members;
    if (pointToPoint) {
      group.pointToPoint = true;
      int sends = 0, recvs = 0;
      for (int t : members) {
        if (plan.tasks(t).collective().kind() == plan::Collective::SEND)
          ++sends, group.send = t;
        else
          ++recvs, group.recv = t;
      }
      if (sends != 1 || recvs != 1) {
        problems.add(label, " has ", sends, " SEND and ", recvs,
                     " RECV tasks (a SEND and its RECV share a tag, unique "
                     "to them)");
        continue;
      }
      const plan::Task &send = plan.tasks(group.send);
      const plan::Task &recv = plan.tasks(group.recv);
      bool ok = true;
      if (send.collective().peer() != recv.rank() ||
          recv.collective().peer() != send.rank()) {
        problems.add(label, ": ", PlanGraph::describe(send), " on rank ",
                     send.rank(), " sends to rank ", send.collective().peer(),
                     " but ", PlanGraph::describe(recv), " on rank ",
                     recv.rank(), " receives from rank ",
                     recv.collective().peer());
        ok = false;
      }
      if (describeIn(group.send) != describeOut(group.recv)) {
        problems.add(label, ": ", PlanGraph::describe(send), " sends ",
                     describeIn(group.send), " but ", PlanGraph::describe(recv),
                     " receives ", describeOut(group.recv));
        ok = false;
      }
      if (ok)
        groups.push_back(group);
      continue;
    }

    const plan::Task &first = plan.tasks(members[0]);
    const plan::Collective &c = first.collective();
    const std::string kind = collectiveKindName(c.kind());
    bool ok = true;
    for (size_t i = 1; i < members.size(); ++i) {
      const plan::Task &task = plan.tasks(members[i]);
      const plan::Collective &other = task.collective();
      std::string difference;
      if (other.kind() != c.kind())
        difference = collectiveKindName(other.kind()) + " vs " + kind;
      else if (!std::equal(other.group().begin(), other.group().end(),
                           c.group().begin(), c.group().end()))
        difference =
            "group " + rankList(other.group()) + " vs " + rankList(c.group());
      else if ((c.kind() == plan::Collective::ALL_GATHER ||
                c.kind() == plan::Collective::REDUCE_SCATTER ||
                c.kind() == plan::Collective::ALL_TO_ALL) &&
               other.axis() != c.axis())
        difference = "axis " + std::to_string(other.axis()) + " vs " +
                     std::to_string(c.axis());
      else if (c.kind() == plan::Collective::ALL_TO_ALL &&
               other.concat_axis() != c.concat_axis())
        difference = "concat_axis " + std::to_string(other.concat_axis()) +
                     " vs " + std::to_string(c.concat_axis());
      else if (describeIn(members[i]) != describeIn(members[0]) ||
               describeOut(members[i]) != describeOut(members[0]))
        difference = describeIn(members[i]) + " -> " + describeOut(members[i]) +
                     " vs " + describeIn(members[0]) + " -> " +
                     describeOut(members[0]);
      if (!difference.empty()) {
        problems.add(label, ": ", PlanGraph::describe(task), " on rank ",
                     task.rank(), " disagrees with ",
                     PlanGraph::describe(first), " on rank ", first.rank(),
                     ": ", difference);
        ok = false;
      }
    }
    if (!ok)
      continue;
    std::map<int, int> tasksOnRank;
    for (int t : members)
      ++tasksOnRank[plan.tasks(t).rank()];
    for (int rank : c.group()) {
      int count = tasksOnRank.count(rank) ? tasksOnRank[rank] : 0;
      if (count != 1) {
        problems.add(label, " (", kind, " over ranks ", rankList(c.group()),
                     "): rank ", rank, " has ", count,
                     " tasks of it (needs exactly one)");
        ok = false;
      }
    }
    if (ok)
      groups.push_back(group);
  }
}

/// Collectives block every member until all arrive; a SEND never blocks
/// (its RECV waits for it). Each thread runs its tasks in schedule order; a
/// task waits for the tasks in its wait_for. The plan runs to completion iff
/// the graph of these waits is acyclic within a step (every wait across
/// steps goes forward in time), with the tasks of each collective merged
/// into one node. On an acyclic graph, also checks the order of ASSIGNs.
void checkDeadlockFreedom(const PlanGraph &graph,
                          const std::vector<CollectiveGroup> &groups,
                          Problems &problems) {
  const plan::Plan &plan = graph.plan();
  const int numTasks = plan.tasks_size();
  std::vector<int> node(numTasks);
  for (int t = 0; t < numTasks; ++t)
    node[t] = t;
  std::vector<const CollectiveGroup *> groupOfNode(numTasks, nullptr);
  for (const CollectiveGroup &group : groups) {
    if (group.pointToPoint)
      continue;
    for (int t : group.tasks)
      node[t] = group.tasks[0];
    groupOfNode[group.tasks[0]] = &group;
  }

  // Edges between nodes: predecessor lists.
  std::vector<std::vector<int>> waitsFor(numTasks);
  auto edge = [&](int from, int to) {
    if (node[from] != node[to])
      waitsFor[node[to]].push_back(node[from]);
  };
  std::map<std::pair<int, std::string>, int> lastOnThread;
  for (int t = 0; t < numTasks; ++t) {
    const plan::Task &task = plan.tasks(t);
    auto [it, inserted] =
        lastOnThread.emplace(std::make_pair(task.rank(), task.stream()), t);
    if (!inserted) {
      edge(it->second, t);
      it->second = t;
    }
  }
  for (const PlanGraph::RegstNode &regst : graph.regsts())
    if (!regst.regst->persistent() && regst.producer >= 0)
      for (int c : regst.consumers)
        edge(regst.producer, c);
  for (const CollectiveGroup &group : groups)
    if (group.pointToPoint)
      edge(group.send, group.recv);
  for (int t = 0; t < numTasks; ++t)
    for (int64_t id : plan.tasks(t).wait_for())
      edge(graph.taskIndex(id), t); // Validated: exists, same rank.

  // Kahn's algorithm over the nodes.
  std::vector<int> pending(numTasks, 0);
  std::vector<std::vector<int>> successors(numTasks);
  for (int n = 0; n < numTasks; ++n)
    for (int p : waitsFor[n]) {
      ++pending[n];
      successors[p].push_back(n);
    }
  std::vector<int> ready;
  std::vector<char> done(numTasks, 0);
  for (int n = 0; n < numTasks; ++n)
    if (node[n] == n && pending[n] == 0)
      ready.push_back(n);
  while (!ready.empty()) {
    int n = ready.back();
    ready.pop_back();
    done[n] = 1;
    for (int s : successors[n])
      if (--pending[s] == 0)
        ready.push_back(s);
  }
  int stuck = -1;
  for (int n = 0; n < numTasks && stuck < 0; ++n)
    if (node[n] == n && !done[n])
      stuck = n;
  if (stuck < 0) {
    checkAssignOrder(graph, waitsFor, node, problems);
    return;
  }

  // Every stuck node waits for a stuck node: walk back to a cycle.
  std::vector<int> path, position(numTasks, -1);
  int n = stuck;
  while (position[n] < 0) {
    position[n] = int(path.size());
    path.push_back(n);
    for (int p : waitsFor[n])
      if (!done[p]) {
        n = p;
        break;
      }
  }
  auto describeNode = [&](int n) {
    const plan::Task &task = plan.tasks(n);
    if (const CollectiveGroup *group = groupOfNode[n])
      return "collective tag " + std::to_string(group->tag) + " (" +
             collectiveKindName(task.collective().kind()) + " over ranks " +
             rankList(task.collective().group()) + ")";
    return PlanGraph::describe(task) + " on rank " +
           std::to_string(task.rank());
  };
  // path[position[n]] == n; each later entry is what the previous waits for.
  std::string cycle = describeNode(n);
  for (size_t i = size_t(position[n]) + 1; i < path.size(); ++i)
    cycle +=
        (i == size_t(position[n]) + 1 ? " waits for " : ", which waits for ") +
        describeNode(path[i]);
  cycle += ", which waits for " + describeNode(n);
  problems.add("the schedule deadlocks: ", cycle,
               " (collectives block until every member arrives; each "
               "(rank, stream) runs its tasks in schedule order; a task "
               "waits for its wait_for tasks)");
}

} // namespace

bool PlanGraph::updatesInPlace(int t, int r) const {
  const TaskNode &node = taskNodes[t];
  auto holds = [r](const std::vector<int> &regsts) {
    return std::find(regsts.begin(), regsts.end(), r) != regsts.end();
  };
  return plan().tasks(t).kind() == plan::KERNEL &&
         regstNodes[r].regst->persistent() && holds(node.inRegsts) &&
         holds(node.outRegsts);
}

Expected<PlanGraph> PlanGraph::build(const plan::Plan &plan) {
  PlanGraph graph;
  graph.planPtr = &plan;
  Problems problems;

  if (plan.version() != kPlanVersion)
    problems.add("unsupported plan version ", plan.version(),
                 " (this runtime reads version ", kPlanVersion, ")");
  if (plan.num_ranks() < 1)
    problems.add("num_ranks is ", plan.num_ranks(), " (must be >= 1)");
  // Per-rank tables are sized by num_ranks: a damaged count must not
  // allocate gigabytes (found by fuzz/FuzzPlan.cpp).
  if (plan.num_ranks() > kMaxRanks) {
    problems.add("num_ranks is ", plan.num_ranks(), " (at most ", kMaxRanks,
                 ")");
    return problems.status();
  }

  // Regsts.
  graph.regstNodes.resize(plan.regsts_size());
  for (int i = 0; i < plan.regsts_size(); ++i) {
    const plan::Regst &regst = plan.regsts(i);
    graph.regstNodes[i].regst = &regst;
    if (!graph.regstById.emplace(regst.id(), i).second)
      problems.add("regst id ", regst.id(), " is declared twice");
    const plan::TensorDesc &desc = regst.desc();
    int64_t bytes = tensorBytes(desc.dtype(), shapeOf(desc));
    if (elementSize(desc.dtype()) == 0)
      problems.add(describe(regst), ": invalid dtype ", int(desc.dtype()));
    else if (bytes < 0)
      problems.add(describe(regst), ": invalid shape in ",
                   describeTensor(desc));
    else if (bytes != regst.size_bytes())
      problems.add(describe(regst), ": size_bytes ", regst.size_bytes(),
                   " does not match ", describeTensor(desc), " (", bytes,
                   " bytes)");
    if (!regst.persistent() && regst.num_slots() < 1)
      problems.add(describe(regst), ": num_slots is ", regst.num_slots(),
                   " (must be >= 1)");
    // Keeps every later sum of sizes far from overflowing.
    else if (int slots = regst.persistent() ? 1 : regst.num_slots();
             bytes > kMaxRegstBytes / slots)
      problems.add(describe(regst), ": ", describeTensor(desc), " x ", slots,
                   " slots is more than ", kMaxRegstBytes, " bytes");
    if (regst.persistent() && regst.weights_offset() < -1)
      problems.add(describe(regst), ": weights_offset ", regst.weights_offset(),
                   " (must be >= 0, or -1 for zeros)");
    if (regst.has_initializer()) {
      if (!regst.persistent())
        problems.add(describe(regst),
                     " has an initializer but is not persistent");
      else if (regst.weights_offset() >= 0)
        problems.add(describe(regst), " has both weights_offset ",
                     regst.weights_offset(), " and an initializer");
      if (std::string problem =
              initializerProblem(regst.initializer(), desc.dtype());
          !problem.empty())
        problems.add(describe(regst), ": ", problem);
    }
    if (regst.weights_shape_size() > 0) {
      bool fits = regst.persistent() && regst.weights_offset() >= 0 &&
                  regst.weights_shape_size() == desc.shape_size() &&
                  regst.weights_piece_offsets_size() == desc.shape_size();
      for (int d = 0; fits && d < desc.shape_size(); ++d)
        fits = regst.weights_piece_offsets(d) >= 0 &&
               regst.weights_piece_offsets(d) + desc.shape(d) <=
                   regst.weights_shape(d);
      if (!fits)
        problems.add(describe(regst), ": its piece of the weights (shape ",
                     describeTensor(desc), ") does not lie inside "
                     "weights_shape at weights_piece_offsets");
    }
    if (regst.persistent() && regst.weights_offset() >= 0 &&
        plan.weights_file().empty())
      problems.add(describe(regst), " has weights_offset ",
                   regst.weights_offset(), " but the plan has no weights_file");
  }

  // Tasks and the edges they make.
  bool hasKernels = false;
  graph.taskNodes.resize(plan.tasks_size());
  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    TaskNode &node = graph.taskNodes[t];
    node.task = &task;
    if (!graph.taskById.emplace(task.id(), t).second)
      problems.add("task id ", task.id(), " is used twice");
    if (task.rank() < 0 || task.rank() >= std::max(plan.num_ranks(), 1))
      problems.add(describe(task), ": rank ", task.rank(), " is outside [0, ",
                   plan.num_ranks(), ")");
    if (!isKnownStream(task.stream()))
      problems.add(describe(task), ": unknown stream '", task.stream(),
                   "' (streams: ", streamList(), ")");

    for (int64_t id : task.in_regsts()) {
      int r = graph.regstIndex(id);
      if (r < 0) {
        problems.add(describe(task), ": in_regst ", id, " does not exist");
        continue;
      }
      node.inRegsts.push_back(r);
      std::vector<int> &consumers = graph.regstNodes[r].consumers;
      if (consumers.empty() || consumers.back() != t)
        consumers.push_back(t);
    }
    for (int64_t id : task.out_regsts()) {
      int r = graph.regstIndex(id);
      if (r < 0) {
        problems.add(describe(task), ": out_regst ", id, " does not exist");
        continue;
      }
      RegstNode &regst = graph.regstNodes[r];
      if (std::find(node.outRegsts.begin(), node.outRegsts.end(), r) !=
          node.outRegsts.end())
        problems.add(describe(task), " writes ", describe(*regst.regst),
                     " twice");
      else if (regst.producer >= 0)
        problems.add(describe(*regst.regst), " has two producers: ",
                     describe(plan.tasks(regst.producer)), " and ",
                     describe(task));
      else
        regst.producer = t;
      node.outRegsts.push_back(r);
    }

    switch (task.kind()) {
    case plan::KERNEL:
      hasKernels = true;
      if (task.kernel_symbol().empty())
        problems.add(describe(task), ": KERNEL task without kernel_symbol");
      break;
    case plan::INPUT:
      if (task.in_regsts_size() != 0 || task.out_regsts_size() != 1)
        problems.add(describe(task),
                     ": an INPUT task has no in_regsts and one out_regst");
      else if (node.outRegsts.size() == 1 &&
               graph.regstNodes[node.outRegsts[0]].regst->persistent())
        problems.add(describe(task),
                     ": an INPUT task cannot write "
                     "persistent ",
                     describe(*graph.regstNodes[node.outRegsts[0]].regst));
      break;
    case plan::OUTPUT:
      if (task.in_regsts_size() != 1 || task.out_regsts_size() != 0)
        problems.add(describe(task),
                     ": an OUTPUT task has one in_regst and no out_regsts");
      if (task.rank() != 0)
        problems.add(describe(task),
                     ": OUTPUT tasks run on rank 0 (they receive the full "
                     "graph output), not on rank ",
                     task.rank());
      break;
    case plan::COLLECTIVE:
      break; // Checked with their peers below.
    case plan::ASSIGN:
      graph.variableWrites = true;
      break; // Checked with the training plans' other parts below.
    default:
      problems.add(describe(task), ": unknown task kind ", int(task.kind()));
    }
  }
  for (int t = 0; t < int(graph.taskNodes.size()); ++t)
    for (int r : graph.taskNodes[t].outRegsts)
      if (graph.updatesInPlace(t, r))
        graph.variableWrites = true;
  if (hasKernels && plan.kernel_library().empty())
    problems.add("the plan has KERNEL tasks but no kernel_library");

  // Per regst: a producer, one rank, and a schedule that writes before reads.
  for (RegstNode &regst : graph.regstNodes) {
    const plan::Regst &desc = *regst.regst;
    std::set<int> ranks;
    if (regst.producer >= 0)
      ranks.insert(plan.tasks(regst.producer).rank());
    for (int c : regst.consumers)
      ranks.insert(plan.tasks(c).rank());
    if (!ranks.empty())
      regst.rank = *ranks.begin();
    else if (desc.persistent() && desc.has_variable() && desc.rank() >= 0 &&
             desc.rank() < std::max(plan.num_ranks(), 1))
      regst.rank = desc.rank(); // Unused here, but part of a checkpoint.
    if (ranks.size() > 1)
      problems.add(describe(desc), " is used on ranks ", *ranks.begin(),
                   " and ", *ranks.rbegin(),
                   " (data crosses ranks only through COLLECTIVE tasks)");
    if (desc.rank() < 0 || desc.rank() >= std::max(plan.num_ranks(), 1))
      problems.add(describe(desc), ": rank ", desc.rank(), " is outside [0, ",
                   plan.num_ranks(), ")");
    else if (ranks.size() == 1 && desc.rank() != regst.rank)
      problems.add(describe(desc), " is on rank ", desc.rank(),
                   " but its tasks run on rank ", regst.rank);
    if (desc.persistent())
      continue; // Always readable: no flow, no ordering.
    if (regst.producer < 0) {
      problems.add(describe(desc), " has no producer");
      continue;
    }
    for (int c : regst.consumers) {
      if (c == regst.producer)
        problems.add(describe(plan.tasks(c)), " reads its own output ",
                     describe(desc));
      else if (c < regst.producer)
        problems.add(describe(plan.tasks(c)), " reads ", describe(desc),
                     " before its producer ",
                     describe(plan.tasks(regst.producer)),
                     " in the schedule (tasks must be in topological order)");
    }
  }

  // Graph inputs and outputs, each fed or drained by exactly one I/O task.
  auto checkIO =
      [&](const google::protobuf::RepeatedPtrField<plan::IOSpec> &specs,
          plan::TaskKind kind, const char *what) {
        std::unordered_map<std::string, const plan::IOSpec *> byName;
        for (const plan::IOSpec &spec : specs) {
          if (!byName.emplace(spec.name(), &spec).second)
            problems.add(what, " '", spec.name(), "' is declared twice");
          int r = graph.regstIndex(spec.regst());
          if (r < 0)
            problems.add(what, " '", spec.name(), "': regst ", spec.regst(),
                         " does not exist");
          else if (!sameDesc(spec.desc(), graph.regstNodes[r].regst->desc()))
            problems.add(what, " '", spec.name(), "' is ",
                         describeTensor(spec.desc()), " but its ",
                         describe(*graph.regstNodes[r].regst), " is ",
                         describeTensor(graph.regstNodes[r].regst->desc()));
        }
        // A multi-rank plan feeds a graph input to every rank that reads
        // it: one INPUT task per such rank, each with the full value; the
        // IOSpec names one of their regsts.
        const bool perRank = kind == plan::INPUT && plan.num_ranks() > 1;
        std::unordered_map<std::string, int> tasksPerName;
        std::set<std::pair<std::string, int>> namedRanks;
        std::set<std::string> specRegstFed;
        for (const plan::Task &task : plan.tasks()) {
          if (task.kind() != kind)
            continue;
          auto it = byName.find(task.io_name());
          if (it == byName.end()) {
            problems.add(describe(task), ": '", task.io_name(), "' is not a ",
                         what);
            continue;
          }
          ++tasksPerName[task.io_name()];
          int64_t regst =
              kind == plan::INPUT
                  ? (task.out_regsts_size() ? task.out_regsts(0) : -1)
                  : (task.in_regsts_size() ? task.in_regsts(0) : -1);
          if (!perRank) {
            if (regst != it->second->regst())
              problems.add(describe(task), ": ", what, " '", task.io_name(),
                           "' is regst ", it->second->regst(), ", not ", regst);
            continue;
          }
          if (!namedRanks.insert({task.io_name(), task.rank()}).second)
            problems.add(describe(task), ": ", what, " '", task.io_name(),
                         "' has two INPUT tasks on rank ", task.rank());
          if (regst == it->second->regst())
            specRegstFed.insert(task.io_name());
          int r = graph.regstIndex(regst);
          if (r >= 0 &&
              !sameDesc(it->second->desc(), graph.regstNodes[r].regst->desc()))
            problems.add(describe(task), ": ", what, " '", task.io_name(),
                         "' is ", describeTensor(it->second->desc()),
                         " but its ", describe(*graph.regstNodes[r].regst),
                         " is ",
                         describeTensor(graph.regstNodes[r].regst->desc()),
                         " (every rank receives the full input)");
        }
        for (const plan::IOSpec &spec : specs) {
          const std::string &name = spec.name();
          if (byName[name] != &spec)
            continue; // Declared twice: reported above.
          int count = tasksPerName.count(name) ? tasksPerName[name] : 0;
          if (perRank && count >= 1) {
            if (!specRegstFed.count(name))
              problems.add(what, " '", name, "': regst ", spec.regst(),
                           " is not the out regst of any of its INPUT tasks");
          } else if (count != 1) {
            problems.add(what, " '", name, "' has ", count, " ",
                         kind == plan::INPUT ? "INPUT" : "OUTPUT",
                         perRank ? " tasks (needs one or more)"
                                 : " tasks (needs exactly one)");
          }
        }
      };
  checkIO(plan.inputs(), plan::INPUT, "graph input");
  checkIO(plan.outputs(), plan::OUTPUT, "graph output");
  checkTrainingPlan(plan, graph, problems);

  std::vector<CollectiveGroup> collectives;
  checkCollectives(plan, graph, graph.taskNodes, problems, collectives);
  // The order check needs a consistent plan: run it only on one.
  if (problems.empty())
    checkDeadlockFreedom(graph, collectives, problems);

  if (!problems.empty())
    return problems.status();
  return graph;
}

} // namespace runtime
} // namespace oneflow
