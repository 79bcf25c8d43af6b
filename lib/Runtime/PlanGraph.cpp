//===- PlanGraph.cpp - Plan loading and validation ------------------------===//

#include "oneflow/Runtime/PlanGraph.h"

#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Tensor.h"

#include <algorithm>
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

namespace {

/// 1 PiB: larger regsts are surely a broken plan.
constexpr int64_t kMaxRegstBytes = int64_t(1) << 50;

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
  Status status() const {
    constexpr size_t kMaxLines = 50;
    std::string text;
    for (size_t i = 0; i < lines.size() && i < kMaxLines; ++i)
      text += (i ? "\n" : "") + lines[i];
    if (lines.size() > kMaxLines)
      text += "\n... and " + std::to_string(lines.size() - kMaxLines) +
              " more problems";
    return Status::error(text);
  }

private:
  std::vector<std::string> lines;
};

bool sameDesc(const plan::TensorDesc &a, const plan::TensorDesc &b) {
  return a.dtype() == b.dtype() && shapeOf(a) == shapeOf(b);
}

std::string streamList() {
  std::string list;
  for (const std::string &stream : knownStreams())
    list += (list.empty() ? "" : ", ") + stream;
  return list;
}

} // namespace

Expected<PlanGraph> PlanGraph::build(const plan::Plan &plan) {
  PlanGraph graph;
  graph.planPtr = &plan;
  Problems problems;

  if (plan.version() != kPlanVersion)
    problems.add("unsupported plan version ", plan.version(),
                 " (this runtime reads version ", kPlanVersion, ")");
  if (plan.num_ranks() < 1)
    problems.add("num_ranks is ", plan.num_ranks(), " (must be >= 1)");

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
    if (regst.persistent() && regst.weights_offset() >= 0 &&
        plan.weights_file().empty())
      problems.add(describe(regst), " has weights_offset ",
                   regst.weights_offset(), " but the plan has no weights_file");
  }

  // Tasks and the edges they make.
  bool hasKernels = false;
  std::unordered_set<int64_t> taskIds;
  graph.taskNodes.resize(plan.tasks_size());
  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    TaskNode &node = graph.taskNodes[t];
    node.task = &task;
    if (!taskIds.insert(task.id()).second)
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
      break;
    default:
      problems.add(describe(task), ": unknown task kind ", int(task.kind()));
    }
  }
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
    if (ranks.size() > 1)
      problems.add(describe(desc), " is used on ranks ", *ranks.begin(),
                   " and ", *ranks.rbegin(),
                   " (data crosses ranks only through comm tasks)");
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
        std::unordered_map<std::string, int> tasksPerName;
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
          if (regst != it->second->regst())
            problems.add(describe(task), ": ", what, " '", task.io_name(),
                         "' is regst ", it->second->regst(), ", not ", regst);
        }
        for (const plan::IOSpec &spec : specs) {
          const std::string &name = spec.name();
          if (byName[name] != &spec)
            continue; // Declared twice: reported above.
          int count = tasksPerName.count(name) ? tasksPerName[name] : 0;
          if (count != 1)
            problems.add(what, " '", name, "' has ", count, " ",
                         kind == plan::INPUT ? "INPUT" : "OUTPUT",
                         " tasks (needs exactly one)");
        }
      };
  checkIO(plan.inputs(), plan::INPUT, "graph input");
  checkIO(plan.outputs(), plan::OUTPUT, "graph output");

  if (!problems.empty())
    return problems.status();
  return graph;
}

} // namespace runtime
} // namespace oneflow
