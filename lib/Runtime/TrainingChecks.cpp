//===- TrainingChecks.cpp - Validation of training plans ------------------===//
//
// ASSIGN tasks, control dependencies (wait_for), variable slices and the
// loss output: what training plans add to the plan schema.
//
//===----------------------------------------------------------------------===//

#include "PlanChecks.h"

#include "oneflow/Runtime/Tensor.h"

#include <algorithm>
#include <map>
#include <set>

namespace oneflow {
namespace runtime {

namespace {

std::string shapeText(const google::protobuf::RepeatedField<int64_t> &dims) {
  std::string text = "[";
  for (int i = 0; i < dims.size(); ++i)
    text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

void checkAssignTask(const PlanGraph &graph, int t, Problems &problems) {
  const plan::Task &task = graph.plan().tasks(t);
  const PlanGraph::TaskNode &node = graph.tasks()[t];
  const std::string who = PlanGraph::describe(task);
  if (task.stream() != "compute")
    problems.add(who, ": ASSIGN tasks run on the 'compute' stream, not '",
                 task.stream(), "'");
  if (task.in_regsts_size() != 1 || task.out_regsts_size() != 1) {
    problems.add(who,
                 ": an ASSIGN task has one in_regst and one out_regst, "
                 "not ",
                 task.in_regsts_size(), " and ", task.out_regsts_size());
    return;
  }
  if (node.inRegsts.size() != 1 || node.outRegsts.size() != 1)
    return; // Dangling ids: reported already.
  const plan::Regst &in = *graph.regsts()[node.inRegsts[0]].regst;
  const plan::Regst &out = *graph.regsts()[node.outRegsts[0]].regst;
  if (!out.persistent()) {
    problems.add(who, ": an ASSIGN task writes a persistent regst, not ",
                 PlanGraph::describe(out));
    return;
  }
  if (node.inRegsts[0] == node.outRegsts[0]) {
    problems.add(who, " copies ", PlanGraph::describe(out), " onto itself");
    return;
  }
  if (!sameDesc(in.desc(), out.desc()))
    problems.add(who, " copies ", describeTensor(in.desc()), " from ",
                 PlanGraph::describe(in), " into ", PlanGraph::describe(out),
                 " of ", describeTensor(out.desc()),
                 " (ASSIGN needs the same dtype and shape)");
}

void checkWaitFor(const PlanGraph &graph, int t, Problems &problems) {
  const plan::Plan &plan = graph.plan();
  const plan::Task &task = plan.tasks(t);
  std::set<int64_t> seen;
  for (int64_t id : task.wait_for()) {
    int other = graph.taskIndex(id);
    if (other < 0) {
      problems.add(PlanGraph::describe(task), ": wait_for names task ", id,
                   ", which does not exist");
    } else if (other == t) {
      problems.add(PlanGraph::describe(task), " waits for itself");
    } else if (plan.tasks(other).rank() != task.rank()) {
      problems.add(PlanGraph::describe(task), " on rank ", task.rank(),
                   " waits for ", PlanGraph::describe(plan.tasks(other)),
                   " on rank ", plan.tasks(other).rank(),
                   " (wait_for names tasks of the same rank)");
    } else if (!seen.insert(id).second) {
      problems.add(PlanGraph::describe(task), " waits for ",
                   PlanGraph::describe(plan.tasks(other)), " twice");
    }
  }
}

/// A piece of a variable, as its regst declares it.
struct Piece {
  int regst;
  std::vector<int64_t> offsets, shape;
};

bool overlap(const Piece &a, const Piece &b) {
  for (size_t d = 0; d < a.shape.size(); ++d)
    if (a.shape[d] == 0 || b.shape[d] == 0 ||
        a.offsets[d] >= b.offsets[d] + b.shape[d] ||
        b.offsets[d] >= a.offsets[d] + a.shape[d])
      return false;
  return true;
}

void checkVariables(const PlanGraph &graph, Problems &problems) {
  std::map<std::string, std::vector<Piece>> byName;
  for (size_t r = 0; r < graph.regsts().size(); ++r) {
    const plan::Regst &regst = *graph.regsts()[r].regst;
    if (!regst.has_variable())
      continue;
    const plan::VariableSlice &v = regst.variable();
    const std::string who = PlanGraph::describe(regst);
    if (v.name().empty()) {
      problems.add(who, ": a variable slice without a name");
      continue;
    }
    if (!regst.persistent()) {
      problems.add(who, " holds a piece of variable '", v.name(),
                   "' but is not persistent");
      continue;
    }
    std::vector<int64_t> shape = shapeOf(regst.desc());
    if (v.global_shape_size() != int(shape.size()) ||
        v.offsets_size() != int(shape.size())) {
      problems.add(who, ": variable '", v.name(), "' has global_shape ",
                   shapeText(v.global_shape()), " and offsets ",
                   shapeText(v.offsets()), " for a piece of ",
                   describeTensor(regst.desc()),
                   " (one entry per dimension each)");
      continue;
    }
    bool inside = true;
    for (size_t d = 0; d < shape.size(); ++d)
      inside &= v.offsets(d) >= 0 && v.global_shape(d) >= 0 &&
                v.offsets(d) <= v.global_shape(d) - shape[d];
    if (!inside) {
      problems.add(who, ": its piece ", describeTensor(regst.desc()),
                   " at offsets ", shapeText(v.offsets()),
                   " is not inside variable '", v.name(), "' of shape ",
                   shapeText(v.global_shape()));
      continue;
    }
    byName[v.name()].push_back(
        {int(r), std::vector<int64_t>(v.offsets().begin(), v.offsets().end()),
         shape});
  }

  for (const auto &[name, pieces] : byName) {
    const plan::Regst &first = *graph.regsts()[pieces[0].regst].regst;
    const plan::VariableSlice &v = first.variable();
    bool consistent = true;
    for (const Piece &piece : pieces) {
      const plan::Regst &regst = *graph.regsts()[piece.regst].regst;
      const plan::VariableSlice &w = regst.variable();
      std::string difference;
      if (regst.desc().dtype() != first.desc().dtype())
        difference = std::string("dtype ") +
                     dataTypeName(regst.desc().dtype()) + " vs " +
                     dataTypeName(first.desc().dtype());
      else if (!std::equal(w.global_shape().begin(), w.global_shape().end(),
                           v.global_shape().begin(), v.global_shape().end()))
        difference = "global_shape " + shapeText(w.global_shape()) + " vs " +
                     shapeText(v.global_shape());
      else if (w.trainable() != v.trainable())
        difference = std::string("trainable ") +
                     (w.trainable() ? "true" : "false") + " vs " +
                     (v.trainable() ? "true" : "false");
      if (!difference.empty()) {
        problems.add("variable '", name, "': ", PlanGraph::describe(regst),
                     " disagrees with ", PlanGraph::describe(first), ": ",
                     difference);
        consistent = false;
      }
    }
    if (!consistent)
      continue;
    // Distinct pieces (replicas count once) must tile the variable.
    std::vector<const Piece *> distinct;
    for (const Piece &piece : pieces) {
      bool replica = false;
      for (const Piece *other : distinct)
        replica |=
            other->offsets == piece.offsets && other->shape == piece.shape;
      if (!replica)
        distinct.push_back(&piece);
    }
    bool tiles = true;
    for (size_t i = 0; i < distinct.size() && tiles; ++i)
      for (size_t j = i + 1; j < distinct.size() && tiles; ++j)
        if (overlap(*distinct[i], *distinct[j])) {
          problems.add(
              "variable '", name, "': the pieces of ",
              PlanGraph::describe(*graph.regsts()[distinct[i]->regst].regst),
              " and ",
              PlanGraph::describe(*graph.regsts()[distinct[j]->regst].regst),
              " overlap without being replicas");
          tiles = false;
        }
    if (!tiles)
      continue;
    int64_t covered = 0;
    for (const Piece *piece : distinct)
      covered += numElements(piece->shape);
    std::vector<int64_t> global(v.global_shape().begin(),
                                v.global_shape().end());
    if (covered != numElements(global))
      problems.add("variable '", name, "' of shape ",
                   shapeText(v.global_shape()), " has ", numElements(global),
                   " elements but its pieces cover ", covered,
                   " (the pieces must tile the variable)");
  }
}

void checkLossOutput(const plan::Plan &plan, Problems &problems) {
  if (plan.loss_output().empty())
    return;
  for (const plan::IOSpec &spec : plan.outputs()) {
    if (spec.name() != plan.loss_output())
      continue;
    plan::DataType dtype = spec.desc().dtype();
    bool floating = dtype == plan::F32 || dtype == plan::F64 ||
                    dtype == plan::F16 || dtype == plan::BF16;
    if (!floating || numElements(shapeOf(spec.desc())) != 1)
      problems.add("the loss output '", plan.loss_output(), "' is ",
                   describeTensor(spec.desc()),
                   " (a loss is one floating-point element)");
    return;
  }
  problems.add("the loss output '", plan.loss_output(),
               "' is not a graph output");
}

} // namespace

void checkTrainingPlan(const plan::Plan &plan, const PlanGraph &graph,
                       Problems &problems) {
  for (int t = 0; t < plan.tasks_size(); ++t) {
    if (plan.tasks(t).kind() == plan::ASSIGN)
      checkAssignTask(graph, t, problems);
    checkWaitFor(graph, t, problems);
  }
  // Plans that update variables order every write of a persistent regst:
  // an ASSIGN, or a kernel that reads it and updates it in place. Other
  // writers (an INPUT, a collective) would race with its readers.
  for (int r = 0, e = int(graph.regsts().size()); r < e; ++r) {
    const PlanGraph::RegstNode &regst = graph.regsts()[r];
    if (!graph.hasVariableWrites() || !regst.regst->persistent() ||
        regst.producer < 0)
      continue;
    const plan::Task &writer = plan.tasks(regst.producer);
    if (writer.kind() == plan::ASSIGN ||
        graph.updatesInPlace(regst.producer, r))
      continue;
    problems.add(PlanGraph::describe(writer), " writes persistent ",
                 PlanGraph::describe(*regst.regst),
                 ": only ASSIGN tasks, and kernels that read it (an update "
                 "in place), write persistent regsts");
  }
  checkVariables(graph, problems);
  checkLossOutput(plan, problems);
  if (plan.batch_size() < 0)
    problems.add("batch_size is ", plan.batch_size(), " (must be >= 0)");
}

void checkAssignOrder(const PlanGraph &graph,
                      const std::vector<std::vector<int>> &waitsFor,
                      const std::vector<int> &node, Problems &problems) {
  const plan::Plan &plan = graph.plan();
  const int numTasks = plan.tasks_size();
  std::vector<char> before(numTasks);
  std::vector<int> stack;
  for (int a = 0; a < numTasks; ++a) {
    const PlanGraph::TaskNode &writer = graph.tasks()[a];
    for (int r : writer.outRegsts) {
      const PlanGraph::RegstNode &target = graph.regsts()[r];
      if (!target.regst->persistent() ||
          (plan.tasks(a).kind() != plan::ASSIGN && !graph.updatesInPlace(a, r)))
        continue;
      // Every node that fires before the write in each step.
      std::fill(before.begin(), before.end(), 0);
      stack.assign(1, node[a]);
      while (!stack.empty()) {
        int n = stack.back();
        stack.pop_back();
        for (int p : waitsFor[n])
          if (!before[p]) {
            before[p] = 1;
            stack.push_back(p);
          }
      }
      for (int reader : target.consumers)
        if (reader != a && !before[node[reader]])
          problems.add(PlanGraph::describe(plan.tasks(a)), " overwrites ",
                       PlanGraph::describe(*target.regst),
                       " without waiting for ",
                       PlanGraph::describe(plan.tasks(reader)),
                       ", which reads it in the same step (list it in the "
                       "writer's wait_for: every read of a step sees the old "
                       "value)");
    }
  }
}

} // namespace runtime
} // namespace oneflow
