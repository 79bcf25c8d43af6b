//===- SbpPipelineStages.cpp - Cut a training graph into stages -----------===//
//
// Places every op of a training graph on a pipeline stage: the forward
// program is cut into contiguous pieces of balanced cost (or where the user
// annotated), and the backward and update ops follow the forward ops they
// belong to (the provenance oneflow-autodiff recorded).
//
//===----------------------------------------------------------------------===//

#include "SbpUtils.h"

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/PipelineSchedule.h"
#include "oneflow/Transforms/Provenance.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <map>
#include <set>

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SBPPIPELINESTAGES
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {
double elementsOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? double(tensor.getNumElements()) : 0;
}

/// Floating-point operations of a forward op (its backward costs about
/// twice as much, the same for every op, so it does not move the cut).
double flopsOf(Operation *op) {
  auto dims = [](Value value) {
    return cast<RankedTensorType>(value.getType()).getShape();
  };
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    ArrayRef<int64_t> a = dims(matmul.getA());
    int64_t k = matmul.getTransposeA() ? a[0] : a[1];
    return 2.0 * elementsOf(matmul.getC().getType()) * double(k);
  }
  if (auto bmm = dyn_cast<BatchMatmulOp>(op)) {
    ArrayRef<int64_t> a = dims(bmm.getA());
    int64_t k = bmm.getTransposeA() ? a[a.size() - 2] : a.back();
    return 2.0 * elementsOf(bmm.getC().getType()) * double(k);
  }
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    ArrayRef<int64_t> w = dims(conv.getWeight());
    return 2.0 * elementsOf(conv.getY().getType()) * double(w[1] * w[2] * w[3]);
  }
  double flops = 0;
  for (Type type : op->getResultTypes())
    flops += elementsOf(type);
  return flops;
}

/// The balancing cost of a forward op: its operations plus the bytes of
/// the activations it produces.
double opCost(Operation *op) {
  double bytes = 0;
  for (Type type : op->getResultTypes())
    bytes += tensorBytes(type);
  return flopsOf(op) + bytes;
}

/// What a stage's memory estimate is made of, per forward op.
struct MemoryModel {
  /// Bytes of the op's results that the backward pass reads (one
  /// micro-batch's activations kept for the backward).
  SmallVector<double> activationPrefix;
  /// The variables each forward op reads, and what each costs a stage that
  /// holds it: a trained parameter twice (its gradient) plus its optimizer
  /// state; any other variable once.
  SmallVector<SmallVector<unsigned, 2>> variablesOf;
  SmallVector<double> variableBytes;
};

MemoryModel buildMemoryModel(func::FuncOp graph,
                             ArrayRef<Operation *> forward) {
  MemoryModel model;
  llvm::StringMap<double> stateBytes;
  graph.walk([&](VariableOp variable) {
    if (auto of = variable->getAttrOfType<FlatSymbolRefAttr>(kStateOfAttrName))
      stateBytes[of.getValue()] += tensorBytes(variable.getType());
  });
  llvm::StringMap<unsigned> indexOfName;
  model.activationPrefix.push_back(0);
  for (Operation *op : forward) {
    double kept = 0;
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [](Operation *user) {
            std::optional<Provenance> origin = getProvenance(user);
            return origin && origin->phase == "backward";
          }))
        kept += tensorBytes(result.getType());
    model.activationPrefix.push_back(model.activationPrefix.back() + kept);
    SmallVector<unsigned, 2> variables;
    for (Value operand : op->getOperands()) {
      auto variable = operand.getDefiningOp<VariableOp>();
      if (!variable || variable->hasAttr(kStateOfAttrName))
        continue;
      auto [it, inserted] = indexOfName.try_emplace(variable.getVarName(),
                                                    model.variableBytes.size());
      if (inserted) {
        double bytes = tensorBytes(variable.getType());
        if (variable->hasAttr(kTrainableAttrName))
          bytes = 2 * bytes + stateBytes.lookup(variable.getVarName());
        model.variableBytes.push_back(bytes);
      }
      variables.push_back(it->second);
    }
    model.variablesOf.push_back(std::move(variables));
  }
  return model;
}

struct SbpPipelineStagesPass
    : public oneflow::impl::SbpPipelineStagesBase<SbpPipelineStagesPass> {
  using Base::Base;

  /// Model chunks of a cut into `count` stages (V per stage).
  int64_t chunksOf(int64_t count) const { return count * virtualStages; }

  /// Micro-batches whose activations chunk `chunk` of a cut into `count`
  /// stages holds at once (one chunk per stage unless interleaved).
  double inFlight(int64_t chunk, int64_t count) const {
    SmallVector<PipelineWork> order = pipelineOrder(
        schedule, count, virtualStages, microbatches, chunk % count);
    return double(peakInFlight(order, virtualStages)[chunk / count]);
  }

  /// What one chunk may hold: an interleaved stage holds V of them.
  double chunkLimit() const {
    return double(memoryLimit) / double(virtualStages);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = lookupGraph(module, "to cut into stages");
    if (!graph)
      return signalPassFailure();
    if (stages < 1) {
      module.emitError() << "the number of stages must be positive, got "
                         << int64_t(stages);
      return signalPassFailure();
    }

    // The forward program: one op per index (micro-batch 0's copy); the
    // simplifications after autodiff may have removed a few.
    SmallVector<Operation *> byIndex;
    graph.walk([&](Operation *op) {
      std::optional<Provenance> origin = getProvenance(op);
      if (!origin || origin->phase != "forward" || origin->opIndex < 0 ||
          origin->microbatch != 0)
        return;
      if (size_t(origin->opIndex) >= byIndex.size())
        byIndex.resize(origin->opIndex + 1, nullptr);
      byIndex[origin->opIndex] = op;
    });
    SmallVector<Operation *> forward;
    SmallVector<int64_t> indexOf;
    for (auto [index, op] : llvm::enumerate(byIndex))
      if (op) {
        forward.push_back(op);
        indexOf.push_back(index);
      }
    if (forward.empty()) {
      graph.emitError() << "no training graph to cut into stages: run "
                           "oneflow-autodiff first";
      return signalPassFailure();
    }

    microbatches = countMicrobatches(graph);
    if (std::string problem = checkPipelineSchedule(
            schedule, stages, virtualStages, microbatches);
        !problem.empty()) {
      graph.emitError() << problem;
      return signalPassFailure();
    }
    int64_t chunks = chunksOf(stages);
    FailureOr<SmallVector<int64_t>> stageOfIndex = annotatedStages(forward);
    if (failed(stageOfIndex))
      return signalPassFailure();
    if (!stageOfIndex->empty() && memoryLimit > 0) {
      // The user's cut must fit too.
      MemoryModel memory = buildMemoryModel(graph, forward);
      for (auto [stage, range] : llvm::enumerate(stageRanges(*stageOfIndex)))
        if (range.first >= 0 &&
            stageMemory(memory, range, stage) > chunkLimit()) {
          InFlightDiagnostic error =
              forward[range.first]->emitOpError()
              << "starts pipeline stage " << stage
              << ", whose estimated memory "
              << int64_t(stageMemory(memory, range, stage))
              << " bytes exceeds the memory limit of " << int64_t(memoryLimit)
              << " bytes per rank";
          if (virtualStages > 1)
            error << " (" << int64_t(chunkLimit()) << " bytes for each of its "
                  << int64_t(virtualStages) << " chunks)";
          return signalPassFailure();
        }
    }
    if (stageOfIndex->empty()) {
      if (int64_t(forward.size()) < chunks) {
        graph.emitError() << "cannot cut the graph into " << chunks
                          << (virtualStages > 1 ? " chunks" : " stages")
                          << ": its forward program has only " << forward.size()
                          << " ops";
        return signalPassFailure();
      }
      MemoryModel memory;
      if (memoryLimit > 0)
        memory = buildMemoryModel(graph, forward);
      std::optional<SmallVector<int64_t>> cut =
          balancedStages(forward, stages, memoryLimit > 0 ? &memory : nullptr);
      if (!cut) {
        InFlightDiagnostic error =
            graph.emitError()
            << "no cut into " << int64_t(stages)
            << " pipeline stages keeps every stage under the memory limit of "
            << int64_t(memoryLimit) << " bytes per rank";
        // Each try costs count * n^2 steps: stop at a budget of about a
        // few seconds rather than search every count of a large graph.
        double n = double(forward.size()), budget = 4e9, spent = 0;
        int64_t most =
            std::min<int64_t>(forward.size() / virtualStages, 4 * stages + 64);
        int64_t count = stages + 1;
        for (; count <= most && spent < budget; ++count) {
          spent += double(chunksOf(count)) * n * n;
          // The interleaved order needs M to be a multiple of the stages.
          if (!checkPipelineSchedule(schedule, count, virtualStages,
                                     microbatches)
                   .empty())
            continue;
          if (balancedStages(forward, count, &memory)) {
            error << "; the smallest stage count that fits is " << count;
            return signalPassFailure();
          }
        }
        error << "; none of up to " << count - 1 << " stages fits";
        return signalPassFailure();
      }
      *stageOfIndex = *cut;
    }

    if (report)
      printReport(graph, forward, *stageOfIndex);
    // Back to forward-op indices; removed ones follow the op before them.
    SmallVector<int64_t> stageOfOpIndex(byIndex.size(), 0);
    for (auto [position, index] : llvm::enumerate(indexOf))
      stageOfOpIndex[index] = (*stageOfIndex)[position];
    for (size_t index = 1; index < byIndex.size(); ++index)
      if (!byIndex[index])
        stageOfOpIndex[index] = stageOfOpIndex[index - 1];

    // State the step advances from variables and constants alone (the
    // dropout step counter: read + 1, assigned) has no stage: every stage
    // that reads the variable keeps and advances its own copy
    // (sbp-pipeline-split replicates such ops), rather than one stage
    // advancing a copy that the others never see.
    llvm::DenseSet<Operation *> fromState, advancesState;
    SmallVector<Operation *> work;
    for (Operation &op : graph.getBody().front().without_terminator()) {
      if (op.getNumOperands() == 0 ||
          !(isMemoryEffectFree(&op) || isa<AssignOp>(op)))
        continue;
      if (llvm::all_of(op.getOperands(), [&](Value operand) {
            Operation *producer = operand.getDefiningOp();
            return producer && (producer->getNumOperands() == 0 ||
                                fromState.contains(producer));
          })) {
        fromState.insert(&op);
        if (isa<AssignOp>(op))
          work.push_back(&op);
      }
    }
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (!advancesState.insert(op).second)
        continue;
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && fromState.contains(producer))
          work.push_back(producer);
    }

    regroupSharedGradientSums(graph, stageOfOpIndex);

    // Every op with a place: its forward op's stage, or the latest stage of
    // its operands' producers.
    OpBuilder builder(&getContext());
    llvm::DenseMap<Operation *, int64_t> stageOf;
    for (Operation &op : graph.getBody().front().without_terminator()) {
      if (advancesState.contains(&op)) {
        op.removeAttr(kStageAttrName);
        continue;
      }
      int64_t stage = -1;
      std::optional<Provenance> origin = getProvenance(&op);
      if (origin && origin->opIndex >= 0 &&
          size_t(origin->opIndex) < stageOfOpIndex.size()) {
        stage = stageOfOpIndex[origin->opIndex];
      } else {
        for (Value operand : op.getOperands())
          if (Operation *producer = operand.getDefiningOp())
            stage = std::max(stage, stageOf.lookup_or(producer, -1));
      }
      if (stage < 0) {
        op.removeAttr(kStageAttrName);
        continue;
      }
      stageOf[&op] = stage;
      op.setAttr(kStageAttrName, builder.getI64IntegerAttr(stage));
    }
  }

  /// Autodiff sums the gradient of a value read several times (a shared
  /// parameter) in one chain of adds through all its uses, micro-batch
  /// after micro-batch. When the uses lie on several stages that chain
  /// hops between them in micro-batch order, so a stage cannot run a later
  /// micro-batch's backward before an earlier one's finished on every
  /// stage, which the interleaved schedule does (a deadlock). Such chains
  /// become one sum per micro-batch (in the chain's order within it), and
  /// the sums are added for the update.
  void regroupSharedGradientSums(func::FuncOp graph,
                                 ArrayRef<int64_t> stageOfOpIndex) {
    auto stageOf = [&](Operation *op) -> int64_t {
      std::optional<Provenance> origin = getProvenance(op);
      if (!origin || origin->opIndex < 0 ||
          size_t(origin->opIndex) >= stageOfOpIndex.size())
        return -1;
      return stageOfOpIndex[origin->opIndex];
    };
    auto isLink = [](Operation *op) {
      return isa_and_nonnull<AddOp>(op) && op->hasOneUse() &&
             isa<AddOp>(*op->user_begin()) &&
             op->getResult(0).getType() ==
                 op->user_begin()->getResult(0).getType();
    };
    SmallVector<AddOp> roots;
    graph.walk([&](AddOp add) {
      if (!isLink(add) && llvm::any_of(add->getOperands(), [&](Value v) {
            return isLink(v.getDefiningOp());
          }))
        roots.push_back(add);
    });
    OpBuilder builder(&getContext());
    for (AddOp root : roots) {
      // The chain, innermost add first, and its leaves in order.
      SmallVector<Operation *> chain;
      for (Operation *op = root; op;) {
        chain.push_back(op);
        Operation *next = nullptr;
        for (Value operand : op->getOperands())
          if (isLink(operand.getDefiningOp()))
            next = operand.getDefiningOp();
        op = next;
      }
      std::reverse(chain.begin(), chain.end());
      SmallVector<std::pair<Value, Operation *>> leaves; // leaf, its add
      for (auto [index, op] : llvm::enumerate(chain))
        for (Value operand : op->getOperands())
          if (index == 0 || operand.getDefiningOp() != chain[index - 1])
            leaves.push_back({operand, op});
      std::set<int64_t> stages, microbatches;
      bool contributions = true;
      for (auto [leaf, add] : leaves) {
        stages.insert(stageOf(add));
        std::optional<Provenance> origin =
            leaf.getDefiningOp() ? getProvenance(leaf.getDefiningOp())
                                 : std::nullopt;
        if (!origin || origin->phase != "backward")
          contributions = false;
        else
          microbatches.insert(origin->microbatch);
      }
      if (!contributions || stages.size() < 2 || microbatches.size() < 2)
        continue;
      // One running sum per micro-batch, each add where the chain's was.
      std::map<int64_t, Value> sums;
      for (auto [leaf, add] : leaves) {
        int64_t m = getProvenance(leaf.getDefiningOp())->microbatch;
        Value &sum = sums[m];
        if (!sum) {
          sum = leaf;
          continue;
        }
        builder.setInsertionPoint(add);
        auto partial = AddOp::create(builder, add->getLoc(), sum, leaf);
        if (std::optional<Provenance> origin = getProvenance(add)) {
          origin->microbatch = m;
          setProvenance(partial, *origin);
        }
        sum = partial;
      }
      // Their total, for the update.
      builder.setInsertionPoint(root);
      Value total;
      for (auto &[m, sum] : sums) {
        if (!total) {
          total = sum;
          continue;
        }
        auto add = AddOp::create(builder, root.getLoc(), total, sum);
        setProvenance(add, Provenance{"update", -1, 0});
        total = add;
      }
      root.getResult().replaceAllUsesWith(total);
      for (Operation *op : llvm::reverse(chain))
        op->erase();
    }
  }

  /// The first and last forward op of each stage ({-1, -1}: none).
  SmallVector<std::pair<int64_t, int64_t>>
  stageRanges(ArrayRef<int64_t> stageOfIndex) const {
    SmallVector<std::pair<int64_t, int64_t>> ranges(chunksOf(stages), {-1, -1});
    for (auto [index, stage] : llvm::enumerate(stageOfIndex)) {
      if (ranges[stage].first < 0)
        ranges[stage].first = index;
      ranges[stage].second = index;
    }
    return ranges;
  }

  /// The memory estimate of `stage` holding the forward ops `range`.
  double stageMemory(const MemoryModel &memory,
                     std::pair<int64_t, int64_t> range, int64_t stage) const {
    llvm::DenseSet<unsigned> held;
    double bytes = 0;
    for (int64_t i = range.first; i <= range.second; ++i)
      for (unsigned variable : memory.variablesOf[i])
        if (held.insert(variable).second)
          bytes += memory.variableBytes[variable];
    return bytes + (memory.activationPrefix[range.second + 1] -
                    memory.activationPrefix[range.first]) *
                       inFlight(stage, stages);
  }

  /// One line per stage: its forward ops and its share of the cost.
  void printReport(func::FuncOp graph, ArrayRef<Operation *> forward,
                   ArrayRef<int64_t> stageOfIndex) {
    int64_t chunks = chunksOf(stages);
    SmallVector<double> cost(chunks, 0);
    SmallVector<int64_t> first(chunks, -1), last(chunks, -1);
    double total = 0;
    for (auto [index, op] : llvm::enumerate(forward)) {
      double c = opCost(op);
      int64_t stage = stageOfIndex[index];
      cost[stage] += c;
      total += c;
      if (first[stage] < 0)
        first[stage] = index;
      last[stage] = index;
    }
    MemoryModel memory = buildMemoryModel(graph, forward);
    SmallVector<std::pair<int64_t, int64_t>> ranges = stageRanges(stageOfIndex);
    for (int64_t stage = 0; stage < chunks; ++stage) {
      if (virtualStages > 1)
        llvm::errs() << "chunk " << stage / stages << " of ";
      llvm::errs() << llvm::format(
          "stage %lld: forward ops %lld-%lld (%lld ops), cost %.3g (%.1f%%)",
          (long long)(virtualStages > 1 ? stage % stages : stage),
          (long long)first[stage], (long long)last[stage],
          (long long)(last[stage] - first[stage] + 1), cost[stage],
          total > 0 ? 100.0 * cost[stage] / total : 0.0);
      if (first[stage] < 0) {
        llvm::errs() << "\n";
        continue;
      }
      llvm::errs() << llvm::format(", memory estimate %.0f bytes\n",
                                   stageMemory(memory, ranges[stage], stage));
    }
  }

  /// The stages the user annotated on forward ops (unannotated ops follow
  /// the op before them), or none when there is no annotation.
  FailureOr<SmallVector<int64_t>>
  annotatedStages(ArrayRef<Operation *> forward) {
    bool any = llvm::any_of(
        forward, [](Operation *op) { return op->hasAttr(kStageAttrName); });
    SmallVector<int64_t> result;
    if (!any)
      return result;
    llvm::DenseMap<Operation *, int64_t> stageOf;
    int64_t current = 0;
    for (Operation *op : forward) {
      if (Attribute attr = op->getAttr(kStageAttrName)) {
        auto stage = dyn_cast<IntegerAttr>(attr);
        int64_t chunks = chunksOf(stages);
        if (!stage || stage.getInt() < 0 || stage.getInt() >= chunks)
          return op->emitOpError()
                 << "has stage annotation " << attr << ", which is not a valid "
                 << (virtualStages > 1 ? "chunk" : "stage") << " (0 to "
                 << chunks - 1 << ")";
        current = stage.getInt();
      }
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          if (auto it = stageOf.find(producer);
              it != stageOf.end() && it->second > current)
            return op->emitOpError()
                   << "is on stage " << current
                   << " but uses a value computed on stage " << it->second
                   << ": stages must follow the data";
      stageOf[op] = current;
      result.push_back(current);
    }
    return result;
  }

  /// The contiguous cut of the forward program into the chunks of
  /// `numStages` stages that minimizes the costliest chunk; with `memory`,
  /// among the cuts whose every chunk fits its memory limit (none when no cut
  /// does).
  std::optional<SmallVector<int64_t>>
  balancedStages(ArrayRef<Operation *> forward, int64_t numStages,
                 const MemoryModel *memory) {
    int64_t count = chunksOf(numStages);
    SmallVector<double> chunkInFlight;
    for (int64_t chunk = 0; chunk < count; ++chunk)
      chunkInFlight.push_back(inFlight(chunk, numStages));
    int64_t n = forward.size();
    SmallVector<double> prefix(n + 1, 0);
    for (int64_t i = 0; i < n; ++i)
      prefix[i + 1] = prefix[i] + opCost(forward[i]);
    const double inf = std::numeric_limits<double>::infinity();
    // best[s][i]: the least bottleneck of cutting the first i ops into s
    // non-empty pieces; from[s][i]: where the last piece starts.
    std::vector<std::vector<double>> best(count + 1,
                                          std::vector<double>(n + 1, inf));
    std::vector<std::vector<int64_t>> from(count + 1,
                                           std::vector<int64_t>(n + 1, 0));
    best[0][0] = 0;
    SmallVector<bool> held;
    if (memory)
      held.assign(memory->variableBytes.size(), false);
    for (int64_t i = 1; i <= n; ++i) {
      // Pieces [j, i) for j descending: their variables accumulate.
      double variables = 0;
      SmallVector<unsigned> added;
      for (int64_t j = i - 1; j >= 0; --j) {
        if (memory)
          for (unsigned variable : memory->variablesOf[j])
            if (!held[variable]) {
              held[variable] = true;
              added.push_back(variable);
              variables += memory->variableBytes[variable];
            }
        double piece = prefix[i] - prefix[j];
        for (int64_t s = 1; s <= std::min<int64_t>(count, j + 1); ++s) {
          if (best[s - 1][j] == inf)
            continue;
          if (memory) {
            double activations =
                memory->activationPrefix[i] - memory->activationPrefix[j];
            if (variables + activations * chunkInFlight[s - 1] > chunkLimit())
              continue;
          }
          double cost = std::max(best[s - 1][j], piece);
          if (cost < best[s][i]) {
            best[s][i] = cost;
            from[s][i] = j;
          }
        }
      }
      for (unsigned variable : added)
        held[variable] = false;
    }
    if (best[count][n] == inf)
      return std::nullopt;
    SmallVector<int64_t> stageOfIndex(n, 0);
    for (int64_t s = count, end = n; s >= 1; --s) {
      int64_t start = from[s][end];
      for (int64_t i = start; i < end; ++i)
        stageOfIndex[i] = s - 1;
      end = start;
    }
    return stageOfIndex;
  }

  int64_t microbatches = 1;
};
} // namespace
