//===- AutoParallel.cpp - oneflow-opt --auto-parallel ---------------------===//
//
// Every factorization devices = data x tensor x stages (tensor within the
// innermost link level, so tensor parallelism stays inside a node), with
// the micro-batch counts, schedules and optimizer-state sharding that
// apply, priced by an analytical model of the training step whose per-op
// part comes from the SBP solve of the forward graph on the tensor axis:
//
//   stage work  = 3 (compute + tensor-axis communication) / (data stages)
//                 (forward, and a backward of twice its cost), plus the
//                 kernel overhead of 3 kernels per op and micro-batch
//   step        = (m + stages - 1) stage work / m      (pipeline fill/drain)
//               + 2 (m + stages - 1) sends of a boundary activation
//               + the gradient all-reduce over the data ranks (ZeRO-1:
//                 reduce-scatter + all-gather, the same bytes)
//               + the optimizer update at memory bandwidth
//   memory      = parameters + gradients + optimizer state (/ data ranks
//                 under ZeRO-1) + forward activations of the micro-batches
//                 in flight (1F1B: min(m, stages); GPipe: m)
//
// The solve runs on the whole batch with the edges out of weights weighted
// by data x m (each micro-batch of each data rank fetches them again), so
// one solve per (tensor, data x m) prices every configuration sharing them.
//
//===----------------------------------------------------------------------===//

#include "AutoParallel.h"
#include "Simulate.h"

#include "oneflow/Cost/OpCost.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/SbpAutoStrategy.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <chrono>
#include <map>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

struct Solved {
  SbpAutoResult result;
  /// Each variable's SBP on the tensor axis.
  llvm::StringMap<sbp::Sbp> layouts;
};

struct Config {
  int64_t data, tensor, stages, microbatches;
  std::string schedule;
  bool zero;
  const Solved *solved;
  double compute, communication, bubble, transfers, gradients, optimizer;
  double parameters, gradientBytes, state, activations;
  double step() const {
    return compute + communication + bubble + transfers + gradients + optimizer;
  }
  double memory() const {
    return parameters + gradientBytes + state + activations;
  }
};

SmallVector<int64_t> divisors(int64_t n) {
  SmallVector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      out.push_back(d);
  return out;
}

std::vector<int32_t> strided(int64_t size, int64_t stride) {
  std::vector<int32_t> group;
  for (int64_t i = 0; i < size; ++i)
    group.push_back(int32_t(i * stride));
  return group;
}

double bytesOf(RankedTensorType type) {
  Type element = type.getElementType();
  unsigned bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
  return double(type.getNumElements()) * (bits == 1 ? 1 : bits / 8);
}

std::string gib(double bytes) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.2f", bytes / (1 << 30));
  return s;
}

} // namespace

bool mlir::oneflow::searchAutoParallel(ModuleOp model,
                                       const AutoParallelRequest &request,
                                       AutoParallelChoice &choice,
                                       llvm::raw_ostream &os) {
  auto start = std::chrono::steady_clock::now();
  SbpAutoOptions base;
  ClusterSummary cluster;
  if (!makeAutoPricers(request.clusterPath, request.device == "cuda", base,
                       &cluster))
    return false;
  int64_t devices = request.devices;
  if (devices < 1) {
    llvm::errs() << "error: --devices must be at least 1\n";
    return false;
  }

  // The forward graph as the compile sees it before training.
  OwningOpRef<ModuleOp> forward(model.clone());
  PassManager pm(model.getContext());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSplitFusedProjections());
  if (failed(pm.run(*forward)))
    return false;
  auto graph = forward->lookupSymbol<func::FuncOp>("main");
  if (!graph || graph.getNumArguments() == 0) {
    llvm::errs() << "error: --auto-parallel: no @main graph with inputs\n";
    return false;
  }
  auto input = dyn_cast<RankedTensorType>(graph.getArgument(0).getType());
  if (!input || input.getRank() < 1 || !input.hasStaticShape()) {
    llvm::errs() << "error: --auto-parallel: the first input needs a static "
                    "batch dimension\n";
    return false;
  }
  int64_t batch = input.getDimSize(0);
  double flops = 0;
  int64_t numOps = 0, weightedProducts = 0;
  std::map<double, int64_t> resultBytes;
  graph.walk([&](Operation *op) {
    if (op == graph)
      return;
    ++numOps;
    OpCost cost = estimateCost(op);
    flops += cost.gemmFlops + cost.vectorFlops;
    if (isa<MatmulOp, BatchMatmulOp>(op) &&
        llvm::any_of(op->getOperands(), [](Value v) {
          return v.getDefiningOp<VariableOp>() != nullptr;
        }))
      ++weightedProducts;
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type);
          tensor && tensor.getRank() >= 2 && tensor.hasStaticShape())
        ++resultBytes[bytesOf(tensor)];
  });
  // A stage boundary carries the most common activation (the residual
  // stream of a transformer).
  double boundaryBytes = 0;
  int64_t most = 0;
  for (auto [bytes, count] : resultBytes)
    if (count > most) {
      most = count;
      boundaryBytes = bytes;
    }
  // At least two weighted products (one layer) per stage.
  int64_t maxStages =
      request.train ? std::max<int64_t>(1, weightedProducts / 2) : 1;
  int64_t perNode =
      cluster.devicesPerNode > 0 ? cluster.devicesPerNode : devices;
  double factor = request.train ? 3 : 1;

  std::map<std::tuple<int64_t, int64_t, int64_t>, Solved> solves;
  auto solve = [&](int64_t tensor, int64_t data, int64_t m) -> const Solved * {
    auto key = std::make_tuple(tensor, data, m);
    if (auto it = solves.find(key); it != solves.end())
      return &it->second;
    OwningOpRef<ModuleOp> copy(forward->clone());
    SbpAutoOptions options = base;
    options.meshShape = {tensor};
    options.sourceEdgeScale = double(data * m);
    // A parameter replicated on the tensor axis gets its gradient reduced
    // over it once per step (counted in the solve's units: a forward pass
    // of the whole batch, which the step scales by factor / (data stages)).
    std::vector<int32_t> tensorGroup = strided(tensor, 1);
    options.variableExtra = [&, tensorGroup, data](double bytes,
                                                   ArrayRef<sbp::Sbp> nd) {
      if (!request.train || tensorGroup.size() == 1 || !nd[0].isBroadcast())
        return 0.0;
      return cluster.collective(CollectiveKind::AllReduce, bytes, tensorGroup) *
             double(data) / factor;
    };
    options.report = nullptr;
    Solved solved;
    if (failed(solveSbpAuto(*copy, options, &solved.result)))
      return nullptr;
    copy->walk([&](VariableOp variable) {
      if (auto sig = variable->getAttrOfType<sbp::SignatureAttr>(
              sbp::SBPDialect::kSignatureAttrName))
        solved.layouts[variable.getVarName()] =
            sig.getOutputs()[0].getValues()[0];
    });
    return &(solves[key] = std::move(solved));
  };

  std::vector<Config> configs;
  int64_t considered = 0;
  for (int64_t tensor : divisors(devices)) {
    if (tensor > perNode)
      continue;
    for (int64_t stages : divisors(devices / tensor)) {
      if (stages > maxStages)
        continue;
      int64_t data = devices / (tensor * stages);
      if (batch % data != 0)
        continue;
      for (int64_t m : divisors(batch / data)) {
        if (m > 64 || (stages > 1 && m < stages) ||
            m > std::max<int64_t>(4, 4 * stages) || (!request.train && m > 1))
          continue;
        const Solved *solved = solve(tensor, data, m);
        if (!solved)
          continue;
        const SbpAutoResult &r = solved->result;
        for (bool zero : {true, false}) {
          if (zero && (data == 1 || !request.train))
            continue;
          for (StringRef schedule : {"1f1b", "gpipe"}) {
            if (schedule == "gpipe" && stages == 1)
              continue;
            ++considered;
            Config c{data, tensor, stages, m, schedule.str(),
                     zero, solved, 0,      0, 0,
                     0,    0,      0,      0, 0,
                     0,    0};
            double shards = double(data * stages);
            // Every micro-batch fires each of the stage's kernels (about
            // one per op) once forward and twice backward.
            c.compute =
                factor * r.computeSeconds / shards +
                factor * double(numOps) / stages * m * cluster.kernelOverhead;
            c.communication = factor * r.communicationSeconds / shards;
            c.bubble = (stages - 1) * (c.compute + c.communication) / m;
            if (stages > 1)
              c.transfers = 2 * (m + stages - 1) *
                            cluster.collective(CollectiveKind::Send,
                                               boundaryBytes / double(data * m),
                                               {0, int32_t(data * tensor)});
            c.parameters = r.variableBytes / stages;
            double inFlight = 1;
            if (request.train) {
              c.gradientBytes = c.parameters;
              c.gradients = factor * r.extraSeconds / shards;
              if (data > 1)
                c.gradients +=
                    cluster.collective(CollectiveKind::AllReduce, c.parameters,
                                       strided(data, tensor));
              double owned = c.parameters / (zero ? data : 1);
              c.state = request.stateTensors * owned;
              c.optimizer = owned * (2 * (1 + request.stateTensors) + 1) /
                            cluster.memoryBandwidth;
              inFlight = schedule == "gpipe" ? m : std::min(m, stages);
            }
            c.activations =
                r.activationBytes / double(data * m * stages) * inFlight;
            configs.push_back(c);
          }
        }
      }
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::vector<Config> fitting;
  for (const Config &c : configs)
    if (cluster.memoryCapacity <= 0 || c.memory() <= cluster.memoryCapacity)
      fitting.push_back(c);
  os << "auto-parallel: " << devices << " devices of " << cluster.name << " ("
     << perNode << " per node): " << considered
     << " configurations priced from " << solves.size()
     << " SBP solves of the forward graph (" << numOps << " ops) in "
     << llvm::format("%.2f", seconds) << " s; " << fitting.size() << " fit in "
     << gib(cluster.memoryCapacity) << " GiB\n";
  if (fitting.empty()) {
    double least = 0;
    for (const Config &c : configs)
      least = least == 0 ? c.memory() : std::min(least, c.memory());
    llvm::errs() << "error: --auto-parallel: no configuration of " << devices
                 << " devices fits in " << gib(cluster.memoryCapacity)
                 << " GiB per device";
    if (least > 0)
      llvm::errs() << " (the least needs " << gib(least) << " GiB)";
    llvm::errs() << "\n";
    return false;
  }
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const Config &a, const Config &b) {
                     if (a.step() != b.step())
                       return a.step() < b.step();
                     return a.memory() < b.memory();
                   });
  const Config &best = fitting.front();
  const SbpAutoResult &r = best.solved->result;
  double tflops = factor * flops / (double(devices) * best.step()) / 1e12;
  os << "auto-parallel: chosen: data " << best.data << " x tensor "
     << best.tensor << " x stages " << best.stages << ", " << best.microbatches
     << " micro-batch(es), " << best.schedule << ", ZeRO-1 "
     << (best.zero ? "on" : "off") << "\n";
  os << "auto-parallel: predicted step " << llvm::format("%.4g", best.step())
     << " s = compute " << llvm::format("%.4g", best.compute)
     << " + tensor-axis communication "
     << llvm::format("%.4g", best.communication) << " + bubble "
     << llvm::format("%.4g", best.bubble) << " + stage transfers "
     << llvm::format("%.4g", best.transfers) << " + gradient reduction "
     << llvm::format("%.4g", best.gradients) << " + optimizer "
     << llvm::format("%.4g", best.optimizer) << "; "
     << llvm::format("%.3g", tflops) << " TFLOP/s per device\n";
  os << "auto-parallel: memory per device " << gib(best.memory())
     << " GiB = parameters " << gib(best.parameters) << " + gradients "
     << gib(best.gradientBytes) << " + optimizer state " << gib(best.state)
     << " + activations " << gib(best.activations) << "\n";
  os << "auto-parallel: the tensor-axis SBP solve: " << r.nodes << " nodes, "
     << r.coreNodes << " left after eliminations, "
     << (r.exact ? "exact" : "heuristic");
  if (!r.exact)
    os << " (core lower bound " << llvm::format("%.4g", r.lowerBound) << " s)";
  os << "\n";
  if (best.tensor > 1) {
    // The parameters' layouts on the tensor axis, in graph order.
    int64_t split = 0, total = 0;
    std::string examples;
    llvm::raw_string_ostream ex(examples);
    graph.walk([&](VariableOp variable) {
      auto it = best.solved->layouts.find(variable.getVarName());
      if (it == best.solved->layouts.end())
        return;
      ++total;
      if (!it->second.isBroadcast())
        ++split;
      if (total <= 12)
        ex << (total > 1 ? ", " : "") << variable.getVarName() << " "
           << it->second.str();
    });
    os << "auto-parallel: tensor-axis layouts: " << split << " of " << total
       << " variables split (" << examples << (total > 12 ? ", ..." : "")
       << ")\n";
  }
  int shown = 0;
  os << "auto-parallel: runners-up:  data tensor stages micro schedule zero "
        "  step (s)  memory (GiB)\n";
  for (size_t i = 1; i < fitting.size() && shown < request.runnersUp; ++i) {
    const Config &c = fitting[i];
    os << llvm::format("auto-parallel:             %5lld %6lld %6lld %5lld "
                       "%-8s %-4s %10.4g %12s\n",
                       (long long)c.data, (long long)c.tensor,
                       (long long)c.stages, (long long)c.microbatches,
                       c.schedule.c_str(), c.zero ? "on" : "off", c.step(),
                       gib(c.memory()).c_str());
    ++shown;
  }

  choice = AutoParallelChoice();
  choice.data = best.data;
  choice.tensor = best.tensor;
  choice.stages = best.stages;
  choice.microbatches = best.microbatches;
  choice.schedule = best.schedule;
  choice.zero = best.zero;
  choice.stepSeconds = best.step();
  if (best.data > 1)
    choice.mesh.push_back(best.data);
  if (best.tensor > 1)
    choice.mesh.push_back(best.tensor);
  if (choice.mesh.empty())
    choice.mesh.push_back(1);
  for (auto &entry : best.solved->layouts) {
    SmallVector<sbp::Sbp, 3> nd;
    if (best.data > 1)
      nd.push_back(sbp::Sbp::broadcast());
    if (best.tensor > 1)
      nd.push_back(entry.getValue());
    if (nd.empty())
      nd.push_back(sbp::Sbp::broadcast());
    choice.pins[entry.getKey()] = nd;
  }
  return true;
}
