//===- AutoParallel.cpp - oneflow-opt --auto-parallel ---------------------===//
//
// Every factorization devices = data x tensor x stages (tensor within the
// innermost link level, so tensor parallelism stays inside a node), with
// the micro-batch counts, schedules, ZeRO stages (0, 1, 3) and activation
// recomputation modes (none, selective, full) that apply, priced by an
// analytical model of the training step whose per-op part comes from the SBP
// solve of the forward graph on the tensor axis:
//
//   stage work  = 3 (compute + tensor-axis communication) / (data stages)
//                 (forward, and a backward of twice its cost), plus the
//                 kernel overhead of 3 kernels per op and micro-batch
//   step        = (m + stages - 1) stage work / m      (pipeline fill/drain)
//               + 2 (m + stages - 1) sends of a boundary activation
//               + the gradient all-reduce over the data ranks (ZeRO-1:
//                 reduce-scatter + all-gather, the same bytes)
//               + the optimizer update at memory bandwidth
//               + recomputation: the cheap ops' share of the forward
//                 (selective) or the whole forward (full)
//               + ZeRO-3: an all-gather of the stage's parameters over the
//                 data ranks for the forward and backward of each
//                 micro-batch
//   memory      = parameters (/ data under ZeRO-3) + gradients (as many)
//                 + optimizer state (/ data under ZeRO-1 and up)
//                 + forward activations of the micro-batches in flight
//                 (1F1B: min(m, stages); GPipe: m): all of them, without
//                 the cheap ops' (selective), or each layer's input plus
//                 one layer's (full)
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
#include "oneflow/Transforms/Provenance.h"
#include "oneflow/Transforms/Recompute.h"
#include "oneflow/Transforms/SbpAutoStrategy.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

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
  int64_t zero;
  std::string recompute;
  const Solved *solved;
  double compute = 0, communication = 0, bubble = 0, transfers = 0,
         gradients = 0, optimizer = 0, recomputation = 0;
  double parameters = 0, gradientBytes = 0, state = 0, activations = 0;
  double step() const {
    return compute + communication + bubble + transfers + gradients +
           optimizer + recomputation;
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

std::string AutoParallelChoice::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "data " << data << " x tensor " << tensor << " x stages " << stages
     << ", " << microbatches << " micro-batch(es), " << schedule << ", ZeRO-"
     << zero << ", recompute " << recompute;
  return s;
}

bool mlir::oneflow::searchAutoParallel(
    ModuleOp model, const AutoParallelRequest &request,
    AutoParallelChoice &choice, llvm::raw_ostream &os,
    SmallVectorImpl<AutoParallelChoice> *ranked) {
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
  // What recomputation would save and cost, as fractions of the forward
  // pass: the activation bytes (views and sources excluded, as the solve
  // counts them) and the seconds (each op's whole work priced alone) of
  // the ops selective recomputation runs again, and the layers full
  // recomputation keeps only the inputs of.
  double activationTotal = 0, cheapBytes = 0, opSeconds = 0, cheapSeconds = 0;
  std::set<std::string> layers;
  graph.walk([&](Operation *op) {
    if (op == graph)
      return;
    ++numOps;
    OpCost cost = estimateCost(op);
    flops += cost.gemmFlops + cost.vectorFlops;
    if (!isa<VariableOp, ConstantOp, ReshapeOp, FlattenOp, SqueezeOp,
             UnsqueezeOp, func::ReturnOp>(op)) {
      auto bytesOfType = [](Type type) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        return tensor && tensor.hasStaticShape() ? bytesOf(tensor) : 0.0;
      };
      double bytes = 0;
      for (Type type : op->getResultTypes())
        bytes += bytesOfType(type);
      double io = bytes;
      for (Type type : op->getOperandTypes())
        io += bytesOfType(type);
      Type element = op->getNumResults() &&
                             isa<RankedTensorType>(op->getResult(0).getType())
                         ? cast<RankedTensorType>(op->getResult(0).getType())
                               .getElementType()
                         : Type();
      double seconds = base.kernelPricer(cost, io, element);
      activationTotal += bytes;
      opSeconds += seconds;
      if (isCheapToRecompute(op)) {
        cheapBytes += bytes;
        cheapSeconds += seconds;
      }
      std::string layer = layerOfName(locationName(op->getLoc()));
      if (!layer.empty())
        layers.insert(layer);
    }
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
  double cheapByteShare =
      activationTotal > 0 ? cheapBytes / activationTotal : 0;
  double cheapTimeShare = opSeconds > 0 ? cheapSeconds / opSeconds : 0;
  // Full recomputation keeps each layer's input (a boundary activation)
  // and, while one layer's backward runs, that layer's activations.
  double numLayers = std::max<double>(1, layers.size());
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
    // The transformer blocks of the forward graph are solved once.
    options.repeatedLayers = true;
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
        SmallVector<int64_t> zeros = {0};
        SmallVector<std::string> modes = {"none"};
        if (request.train) {
          modes.assign(request.recomputeModes.begin(),
                       request.recomputeModes.end());
          if (data > 1)
            zeros.assign(request.zeroStages.begin(), request.zeroStages.end());
        }
        for (int64_t zero : zeros) {
          for (const std::string &mode : modes) {
            for (StringRef schedule : {"1f1b", "gpipe"}) {
              if (schedule == "gpipe" && stages == 1)
                continue;
              ++considered;
              Config c{data,           tensor, stages, m,
                       schedule.str(), zero,   mode,   solved};
              double shards = double(data * stages);
              std::vector<int32_t> dataGroup = strided(data, tensor);
              // Every micro-batch fires each of the stage's kernels (about
              // one per op) once forward and twice backward.
              c.compute =
                  factor * r.computeSeconds / shards +
                  factor * double(numOps) / stages * m * cluster.kernelOverhead;
              c.communication = factor * r.communicationSeconds / shards;
              // Recomputation runs forward work again in the backward pass:
              // the cheap ops (selective) or the whole forward, its
              // tensor-axis communication included (full).
              double forward =
                  (r.computeSeconds + r.communicationSeconds) / shards;
              if (mode == "selective")
                c.recomputation = cheapTimeShare * r.computeSeconds / shards;
              else if (mode == "full")
                c.recomputation = forward + double(numOps) / stages * m *
                                                cluster.kernelOverhead;
              c.bubble = (stages - 1) *
                         (c.compute + c.communication + c.recomputation) / m;
              if (stages > 1)
                c.transfers =
                    2 * (m + stages - 1) *
                    cluster.collective(CollectiveKind::Send,
                                       boundaryBytes / double(data * m),
                                       {0, int32_t(data * tensor)});
              double stageParameters = r.variableBytes / stages;
              c.parameters = stageParameters / (zero >= 3 ? data : 1);
              double inFlight = 1;
              if (request.train) {
                c.gradientBytes = c.parameters;
                c.gradients = factor * r.extraSeconds / shards;
                // ZeRO-1/2: reduce-scatter + all-gather, the bytes of the
                // all-reduce they replace; ZeRO-3 gathers the parameters
                // again for the forward and the backward of every
                // micro-batch.
                if (data > 1) {
                  c.gradients += cluster.collective(CollectiveKind::AllReduce,
                                                    stageParameters, dataGroup);
                  if (zero >= 3)
                    c.gradients +=
                        2 * m *
                        cluster.collective(CollectiveKind::AllGather,
                                           stageParameters, dataGroup);
                }
                double owned = stageParameters / (zero >= 1 ? data : 1);
                c.state = request.stateTensors * owned;
                c.optimizer = owned * (2 * (1 + request.stateTensors) + 1) /
                              cluster.memoryBandwidth;
                inFlight = schedule == "gpipe" ? m : std::min(m, stages);
              }
              double perMicrobatch =
                  r.activationBytes / double(data * m * stages);
              if (mode == "selective")
                perMicrobatch *= 1 - cheapByteShare;
              else if (mode == "full")
                perMicrobatch = std::min(
                    perMicrobatch,
                    perMicrobatch / numLayers * stages +
                        numLayers / stages * boundaryBytes / double(data * m));
              c.activations = perMicrobatch * inFlight;
              configs.push_back(c);
            }
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
     << " micro-batch(es), " << best.schedule << ", ZeRO-" << best.zero
     << ", recompute " << best.recompute << "\n";
  os << "auto-parallel: predicted step " << llvm::format("%.4g", best.step())
     << " s = compute " << llvm::format("%.4g", best.compute)
     << " + tensor-axis communication "
     << llvm::format("%.4g", best.communication) << " + bubble "
     << llvm::format("%.4g", best.bubble) << " + stage transfers "
     << llvm::format("%.4g", best.transfers) << " + gradient reduction "
     << llvm::format("%.4g", best.gradients) << " + optimizer "
     << llvm::format("%.4g", best.optimizer) << " + recomputation "
     << llvm::format("%.4g", best.recomputation) << "; "
     << llvm::format("%.3g", tflops) << " TFLOP/s per device\n";
  os << "auto-parallel: memory per device " << gib(best.memory())
     << " GiB = parameters " << gib(best.parameters) << " + gradients "
     << gib(best.gradientBytes) << " + optimizer state " << gib(best.state)
     << " + activations " << gib(best.activations) << "\n";
  os << "auto-parallel: the tensor-axis SBP solve: " << r.nodes << " nodes, "
     << r.coreNodes << " left after eliminations, ";
  if (r.repeatedLayers > 0)
    os << r.repeatedLayers << " of " << r.layers << " layers repeat one of "
       << r.layerGroups << " (solved once), ";
  os << (r.exact ? "exact" : "heuristic");
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
        "recompute   step (s)  memory (GiB)\n";
  for (size_t i = 1; i < fitting.size() && shown < request.runnersUp; ++i) {
    const Config &c = fitting[i];
    os << llvm::format("auto-parallel:             %5lld %6lld %6lld %5lld "
                       "%-8s %4lld %-9s %10.4g %12s\n",
                       (long long)c.data, (long long)c.tensor,
                       (long long)c.stages, (long long)c.microbatches,
                       c.schedule.c_str(), (long long)c.zero,
                       c.recompute.c_str(), c.step(), gib(c.memory()).c_str());
    ++shown;
  }

  auto toChoice = [&](const Config &c) {
    AutoParallelChoice out;
    out.data = c.data;
    out.tensor = c.tensor;
    out.stages = c.stages;
    out.microbatches = c.microbatches;
    out.schedule = c.schedule;
    out.zero = c.zero;
    out.recompute = c.recompute;
    out.stepSeconds = c.step();
    out.memoryBytes = c.memory();
    if (c.data > 1)
      out.mesh.push_back(c.data);
    if (c.tensor > 1)
      out.mesh.push_back(c.tensor);
    if (out.mesh.empty())
      out.mesh.push_back(1);
    for (auto &entry : c.solved->layouts) {
      SmallVector<sbp::Sbp, 3> nd;
      if (c.data > 1)
        nd.push_back(sbp::Sbp::broadcast());
      if (c.tensor > 1)
        nd.push_back(entry.getValue());
      if (nd.empty())
        nd.push_back(sbp::Sbp::broadcast());
      out.pins[entry.getKey()] = nd;
    }
    return out;
  };
  choice = toChoice(best);
  if (ranked) {
    // The cheapest configuration of each layout (data x tensor x stages):
    // what the simulator's check compares are layouts, where the step
    // model is least sure (pipelining).
    ranked->clear();
    std::set<std::tuple<int64_t, int64_t, int64_t>> layouts;
    for (const Config &c : fitting) {
      if (int(ranked->size()) >= request.keep)
        break;
      if (layouts.insert({c.data, c.tensor, c.stages}).second)
        ranked->push_back(toChoice(c));
    }
  }
  return true;
}
