//===- SbpInfer.cpp - Pick an SBP signature for every op ------------------===//

#include "SbpUtils.h"

#include "oneflow/Dialect/SBP/BoxingCost.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/Provenance.h"

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SBPINFER
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;
using sbp::Sbp;
using sbp::SbpFactorRule;
using sbp::SbpSignature;

namespace {

sbp::SignatureAttr toAttr(MLIRContext *context, const NdSignature &sig) {
  auto convert = [&](ArrayRef<NdSbp> list) {
    return llvm::map_to_vector(list, [&](const NdSbp &nd) {
      return sbp::NdSbpAttr::get(context, nd);
    });
  };
  return sbp::SignatureAttr::get(context, convert(sig.operands),
                                 convert(sig.results));
}

NdSignature fromAttr(sbp::SignatureAttr attr) {
  NdSignature sig;
  for (sbp::NdSbpAttr nd : attr.getInputs())
    sig.operands.push_back(nd.getValues());
  for (sbp::NdSbpAttr nd : attr.getOutputs())
    sig.results.push_back(nd.getValues());
  return sig;
}

/// The size of every factor of `rule`, read off the op's tensor types.
SmallVector<int64_t> factorSizes(const SbpFactorRule &rule, Operation *op) {
  SmallVector<int64_t> sizes(rule.getNumFactors(), 1);
  auto visit = [&](ArrayRef<SmallVector<int, 4>> tensors, TypeRange types) {
    for (auto [dims, type] : llvm::zip(tensors, types)) {
      auto tensor = cast<RankedTensorType>(type);
      for (auto [dim, factor] : llvm::enumerate(dims))
        if (factor != SbpFactorRule::kNoFactor)
          sizes[factor] = std::max(sizes[factor], tensor.getDimSize(dim));
    }
  };
  visit(rule.getOperandFactors(), op->getOperandTypes());
  visit(rule.getResultFactors(), op->getResultTypes());
  return sizes;
}

struct SbpInferPass : public oneflow::impl::SbpInferBase<SbpInferPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp graph;
    sbp::MeshOp mesh;
    if (failed(getPlacedGraph(module, graph, mesh)))
      return signalPassFailure();
    if (!graph)
      return;
    meshShape.assign(mesh.getShape().begin(), mesh.getShape().end());
    placement = graph->getAttrOfType<FlatSymbolRefAttr>(
        sbp::SBPDialect::kPlacementAttrName);

    for (BlockArgument arg : graph.getArguments()) {
      NdSbp nd = argumentSbp(graph, arg.getArgNumber(), meshShape.size());
      if (!splitsDivide(nd, arg.getType(), meshShape)) {
        graph.emitError() << "argument #" << arg.getArgNumber() << " of type "
                          << arg.getType() << " cannot be split "
                          << ndString(nd) << " over the mesh "
                          << meshString(meshShape)
                          << ": a split dimension is not divisible";
        return signalPassFailure();
      }
      sbpOf[arg] = nd;
    }
    findUpdateOwners(graph);
    findGradientSums(graph);
    for (Operation &op : graph.getOps()) {
      if (isa<func::ReturnOp>(op))
        continue;
      if (failed(inferOp(&op)))
        return signalPassFailure();
    }
  }

  LogicalResult inferOp(Operation *op) {
    // A boxing written by the user is a cast: it pins its result's SBP.
    if (auto boxing = dyn_cast<sbp::BoxingOp>(op)) {
      NdSbp to = boxing.getTo().getValues();
      if (!splitsDivide(to, boxing.getType(), meshShape))
        return op->emitOpError()
               << "cannot split " << boxing.getType() << " " << ndString(to)
               << " over the mesh: a split dimension is not divisible";
      sbpOf[boxing.getOutput()] = to;
      return success();
    }
    auto ruleOp = dyn_cast<sbp::SbpRuleOpInterface>(op);
    if (!ruleOp)
      return op->emitOpError() << "has no SBP rule and cannot be distributed";
    NdSignature chosen;
    // A stored value takes the layout of its variable.
    if (auto assign = dyn_cast<AssignOp>(op)) {
      auto it = sbpOfVariable.find(assign.getVarName());
      if (it == sbpOfVariable.end())
        return op->emitOpError() << "stores to @" << assign.getVarName()
                                 << ", which the graph does not read before";
      chosen.operands.push_back(it->second);
      op->setAttr(sbp::SBPDialect::kSignatureAttrName,
                  toAttr(op->getContext(), chosen));
      op->setAttr(sbp::SBPDialect::kPlacementAttrName, placement);
      return success();
    }
    if (auto pinned = op->getAttrOfType<sbp::SignatureAttr>(
            sbp::SBPDialect::kSignatureAttrName)) {
      chosen = fromAttr(pinned);
      for (auto [index, result] : llvm::enumerate(op->getResults()))
        if (!splitsDivide(chosen.results[index], result.getType(), meshShape))
          return op->emitOpError()
                 << "result #" << index << " of type " << result.getType()
                 << " cannot be split " << ndString(chosen.results[index])
                 << " over the mesh: a split dimension is not divisible";
    } else {
      chosen = choose(op, ruleOp.getSbpFactorRule());
      op->setAttr(sbp::SBPDialect::kSignatureAttrName,
                  toAttr(op->getContext(), chosen));
    }
    op->setAttr(sbp::SBPDialect::kPlacementAttrName, placement);
    for (auto [result, nd] : llvm::zip(op->getResults(), chosen.results))
      sbpOf[result] = nd;
    if (auto variable = dyn_cast<VariableOp>(op)) {
      sbpOfVariable.try_emplace(variable.getVarName(), chosen.results[0]);
      shapeOfVariable.try_emplace(
          variable.getVarName(),
          cast<RankedTensorType>(variable.getType()).getShape());
      if (auto of =
              variable->getAttrOfType<FlatSymbolRefAttr>(kStateOfAttrName))
        stateSbps[of.getValue()].push_back(chosen.results[0]);
    }
    return success();
  }

  /// The parameter whose update each op of the optimizer's update phase
  /// computes: the one its results are stored to (a state variable counts
  /// as its parameter), following the data flow back from the assigns;
  /// ops shared by several parameters' updates (AdamW's step size) have
  /// none.
  void findUpdateOwners(func::FuncOp graph) {
    llvm::StringMap<StringRef> paramOf;
    graph.walk([&](VariableOp variable) {
      auto of = variable->getAttrOfType<FlatSymbolRefAttr>(kStateOfAttrName);
      paramOf[variable.getVarName()] =
          of ? of.getValue() : variable.getVarName();
    });
    // An op reached from two parameters' assigns is shared, and so is
    // everything of the update phase it reads.
    llvm::DenseSet<Operation *> shared;
    auto isUpdate = [](Operation *op) {
      std::optional<Provenance> provenance =
          op ? getProvenance(op) : std::nullopt;
      return provenance && provenance->phase == "update";
    };
    auto markShared = [&](Operation *op) {
      SmallVector<Operation *> work = {op};
      while (!work.empty()) {
        Operation *next = work.pop_back_val();
        if (!shared.insert(next).second)
          continue;
        updateOwner.erase(next);
        for (Value operand : next->getOperands())
          if (Operation *def = operand.getDefiningOp(); isUpdate(def))
            work.push_back(def);
      }
    };
    graph.walk([&](AssignOp assign) {
      auto it = paramOf.find(assign.getVarName());
      if (it == paramOf.end())
        return;
      StringRef param = it->second;
      SmallVector<Operation *> work;
      auto visit = [&](Value value) {
        Operation *def = value.getDefiningOp();
        if (!isUpdate(def) || shared.count(def))
          return;
        auto [entry, inserted] = updateOwner.try_emplace(def, param);
        if (inserted)
          work.push_back(def);
        else if (entry->second != param)
          markShared(def);
      };
      visit(assign.getValue());
      while (!work.empty())
        for (Value operand : work.pop_back_val()->getOperands())
          visit(operand);
    });
  }

  /// The layout an op of a parameter's update must give its results of the
  /// parameter's shape: the parameter's, when its optimizer state has that
  /// layout too (ZeRO 0 or 3; SGD without state). The greedy choice would
  /// otherwise run the update on the slice that the cheaper reduce-scatter
  /// of the gradient leaves, then all-gather the parameter and each state
  /// tensor, instead of all-reducing the gradient once.
  std::optional<std::pair<NdSbp, ArrayRef<int64_t>>>
  updateLayout(Operation *op) {
    auto owner = updateOwner.find(op);
    if (owner == updateOwner.end())
      return std::nullopt;
    auto param = sbpOfVariable.find(owner->second);
    if (param == sbpOfVariable.end())
      return std::nullopt;
    auto states = stateSbps.find(owner->second);
    if (states != stateSbps.end() &&
        llvm::any_of(states->second,
                     [&](const NdSbp &nd) { return nd != param->second; }))
      return std::nullopt;
    return std::make_pair(param->second, shapeOfVariable.lookup(owner->second));
  }

  /// The cheapest valid nd-signature: boxing bytes of the operands, the
  /// all-reduce its partial-sum results will need, and the per-device share
  /// of the iteration space. The all-B signature always fits, so there is
  /// always one.
  NdSignature choose(Operation *op, const SbpFactorRule &rule) {
    double work = 1;
    for (int64_t size : factorSizes(rule, op))
      work *= size;
    // Sources (constants, parameters) compute nothing: all-B unless pinned.
    if (op->getNumOperands() == 0)
      work = 0;
    // Of an update: the parameter's layout on its shape's results, where
    // a candidate gives it; any otherwise.
    auto layout = updateLayout(op);
    auto keepsLayout = [&](const NdSignature &candidate) {
      for (auto [result, nd] : llvm::zip(op->getResults(), candidate.results))
        if (cast<RankedTensorType>(result.getType()).getShape() ==
                layout->second &&
            nd != layout->first)
          return false;
      return true;
    };
    NdSignature best, bestInLayout;
    double bestCost = std::numeric_limits<double>::infinity();
    double bestInLayoutCost = bestCost;
    forEachNdSignature(
        rule, meshShape, op->getNumOperands(), op->getNumResults(),
        [&](const NdSignature &candidate, double degree, bool wholeUnits) {
          if (!wholeUnits || !fits(op, candidate))
            return;
          double cost = work / degree;
          // Of equal bytes, fewer collectives (each has its latency): one
          // byte more per boxed operand breaks the tie.
          for (auto [operand, nd] :
               llvm::zip(op->getOperands(), candidate.operands)) {
            double bytes =
                sbp::boxingBytesND(sbpOf.lookup(operand), nd,
                                   tensorBytes(operand.getType()), meshShape);
            cost += bytes > 0 ? bytes + 1 : 0;
          }
          // A partial sum must be reduced sooner or later: count it now, so
          // that a free P is not preferred to a cheaper conversion. Unless
          // it is only summed into a parameter's gradient, or is such a sum
          // of partial sums: gradient accumulation over micro-batches (and
          // over a shared parameter's uses) adds partial sums as they are,
          // and the total is reduced once, by the boxing its consumer
          // needs.
          for (auto [result, nd] :
               llvm::zip(op->getResults(), candidate.results)) {
            if (onlySummedIntoGradients(result) || sumsPartialSums(op))
              continue;
            NdSbp reduced = nd;
            for (sbp::Sbp &s : reduced)
              if (s.isPartialSum())
                s = sbp::Sbp::broadcast();
            cost += sbp::boxingBytesND(
                nd, reduced, tensorBytes(result.getType()), meshShape);
          }
          if (cost < bestCost) {
            bestCost = cost;
            best = candidate;
          }
          if (layout && cost < bestInLayoutCost && keepsLayout(candidate)) {
            bestInLayoutCost = cost;
            bestInLayout = candidate;
          }
        });
    return bestInLayoutCost < std::numeric_limits<double>::infinity()
               ? bestInLayout
               : best;
  }

  /// The adds of the backward pass that sum a parameter's gradient (over
  /// micro-batches, over a shared parameter's uses): those whose result
  /// flows, through such adds only, into the update or a graph result.
  /// Sums of activations' gradients are not among them: there a deferred
  /// reduction could grow into boxings of larger tensors downstream.
  void findGradientSums(func::FuncOp graph) {
    SmallVector<Operation *> work;
    auto consider = [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (def && isa<AddOp>(def) && isBackward(def) &&
          gradientSums.insert(def).second)
        work.push_back(def);
    };
    graph.walk([&](Operation *op) {
      std::optional<Provenance> provenance = getProvenance(op);
      if (isa<func::ReturnOp>(op) ||
          (provenance && provenance->phase == "update"))
        for (Value operand : op->getOperands())
          consider(operand);
    });
    while (!work.empty())
      for (Value operand : work.pop_back_val()->getOperands())
        consider(operand);
  }

  /// Whether every use of `value` sums a parameter's gradient, which takes
  /// partial sums as they are (P + P -> P).
  bool onlySummedIntoGradients(Value value) {
    if (value.use_empty())
      return false;
    return llvm::all_of(value.getUsers(), [&](Operation *user) {
      return gradientSums.contains(user);
    });
  }

  /// Whether `op` sums a parameter's gradient from partial sums on every
  /// mesh axis.
  bool sumsPartialSums(Operation *op) {
    if (!gradientSums.contains(op))
      return false;
    return llvm::all_of(op->getOperands(), [&](Value operand) {
      auto it = sbpOf.find(operand);
      return it != sbpOf.end() &&
             llvm::all_of(it->second,
                          [](const sbp::Sbp &s) { return s.isPartialSum(); });
    });
  }

  static bool isBackward(Operation *op) {
    std::optional<Provenance> provenance = getProvenance(op);
    return provenance && provenance->phase == "backward";
  }

  bool fits(Operation *op, const NdSignature &sig) {
    for (auto [value, nd] : llvm::zip(op->getOperands(), sig.operands))
      if (!splitsDivide(nd, value.getType(), meshShape))
        return false;
    for (auto [value, nd] : llvm::zip(op->getResults(), sig.results))
      if (!splitsDivide(nd, value.getType(), meshShape))
        return false;
    return true;
  }

  SmallVector<int64_t> meshShape;
  FlatSymbolRefAttr placement;
  llvm::DenseMap<Value, NdSbp> sbpOf;
  llvm::StringMap<NdSbp> sbpOfVariable;
  /// The layouts of each parameter's optimizer state variables.
  llvm::StringMap<SmallVector<NdSbp>> stateSbps;
  llvm::StringMap<ArrayRef<int64_t>> shapeOfVariable;
  llvm::DenseMap<Operation *, StringRef> updateOwner;
  llvm::DenseSet<Operation *> gradientSums;
};
} // namespace
