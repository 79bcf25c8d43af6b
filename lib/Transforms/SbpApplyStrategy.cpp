//===- SbpApplyStrategy.cpp - Mesh placement and anchor SBPs --------------===//

#include "SbpUtils.h"

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/Provenance.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SBPAPPLYSTRATEGY
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;
using sbp::Sbp;

/// The discardable attribute by which a user pins a variable's nd-SBP.
static constexpr llvm::StringLiteral kPinnedSbpAttrName = "oneflow.pinned_sbp";

namespace {

/// Ops through which a feature-dimension split flows unchanged, so that a
/// column-parallel layer's split output reaches the next layer's input.
bool keepsFeatureSplit(Operation *op) {
  return isa<ReluOp, GeluOp, TanhOp, SigmoidOp, SiluOp, ErfOp, ExpOp, NegOp,
             LeakyReluOp, EluOp, AddOp, SubOp, MulOp, DivOp, PowOp, WhereOp,
             CastOp, ReshapeOp, TransposeOp, SplitOp, SoftmaxOp, LogSoftmaxOp,
             BatchMatmulOp, SqueezeOp, UnsqueezeOp, FlattenOp>(op);
}

/// The parameter `value` reads, also through a cast to a lower precision.
VariableOp parameterOf(Value value) {
  if (auto cast = value.getDefiningOp<CastOp>())
    value = cast.getX();
  return value.getDefiningOp<VariableOp>();
}

/// The tensor-parallel pins of one mesh axis: weight splits of matmuls,
/// alternating column/row along chains, and vocabulary splits of embeddings.
class TensorParallelPlanner {
public:
  explicit TensorParallelPlanner(int64_t devices) : devices(devices) {}

  /// Splits for parameter reads, by variable op.
  llvm::DenseMap<Operation *, Sbp> run(func::FuncOp graph) {
    for (Operation &op : graph.getOps()) {
      if (auto matmul = dyn_cast<MatmulOp>(op))
        planMatmul(&op, matmul.getA(), matmul.getB(), matmul.getTransposeB());
      else if (auto bmm = dyn_cast<BatchMatmulOp>(op))
        planMatmul(&op, bmm.getA(), bmm.getB(), bmm.getTransposeB());
      else if (auto gather = dyn_cast<GatherOp>(op))
        if (gather.getAxis() == 0)
          pin(gather.getData(), 0);
    }
    return pins;
  }

private:
  void planMatmul(Operation *op, Value input, Value weight, bool transposed) {
    if (!parameterOf(weight))
      return;
    int64_t rank = cast<RankedTensorType>(weight.getType()).getRank();
    // The weight is [..., K, N] (or [..., N, K] when transposed).
    int64_t kDim = transposed ? rank - 1 : rank - 2;
    int64_t nDim = transposed ? rank - 2 : rank - 1;
    if (fedByColumnParallel(input)) {
      pin(weight, kDim); // row-parallel: partial sums, one all-reduce
    } else if (pin(weight, nDim)) {
      columnParallel.insert(op); // column-parallel: split outputs
    }
  }

  /// Pins `weight` split along `dim` when the mesh axis divides it.
  bool pin(Value weight, int64_t dim) {
    VariableOp variable = parameterOf(weight);
    auto type = cast<RankedTensorType>(weight.getType());
    if (!variable || type.getDimSize(dim) % devices != 0)
      return false;
    pins[variable] = Sbp::split(dim);
    return true;
  }

  bool fedByColumnParallel(Value value) {
    Operation *op = value.getDefiningOp();
    if (!op)
      return false;
    if (columnParallel.contains(op))
      return true;
    auto [it, inserted] = memo.try_emplace(op, false);
    if (!inserted)
      return it->second;
    bool result = false;
    if (keepsFeatureSplit(op))
      result = llvm::any_of(op->getOperands(), [&](Value operand) {
        return fedByColumnParallel(operand);
      });
    return memo[op] = result;
  }

  int64_t devices;
  llvm::DenseMap<Operation *, Sbp> pins;
  llvm::DenseSet<Operation *> columnParallel;
  llvm::DenseMap<Operation *, bool> memo;
};

/// ZeRO-1: on each data axis where the state is broadcast, split it along
/// its first dimension that the axis divides and no other axis splits.
/// The update then runs on the rank's slice, the gradient is
/// reduce-scattered instead of all-reduced (the same bytes), and only the
/// parameter is gathered back; the state is never gathered.
static void shardOverDataAxes(NdSbp &nd, Type type, ArrayRef<int64_t> shape,
                              ArrayRef<StringRef> kinds) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return;
  for (auto [axis, kind] : llvm::enumerate(kinds)) {
    if (kind != "data" || shape[axis] == 1 || !nd[axis].isBroadcast())
      continue;
    for (int64_t dim = 0; dim < tensor.getRank(); ++dim) {
      bool splitElsewhere = llvm::any_of(
          nd, [&](const Sbp &sbp) { return sbp.isSplit() && sbp.axis == dim; });
      if (splitElsewhere || tensor.getDimSize(dim) % shape[axis] != 0)
        continue;
      nd[axis] = Sbp::split(dim);
      break;
    }
  }
}

/// ZeRO-3: `variable` (pinned sharded) is all-gathered back to `full` once
/// per phase and micro-batch that reads it, before the first read there;
/// updates read the shard. Each gather is marked with its phase so that CSE
/// keeps them apart: the gathered copy of the forward dies with the
/// forward, and the backward gathers again.
static void gatherPerPhase(VariableOp variable, const NdSbp &sharded,
                           const NdSbp &full, FlatSymbolRefAttr mesh) {
  llvm::MapVector<std::pair<StringRef, int64_t>, SmallVector<OpOperand *>>
      usesByPhase;
  for (OpOperand &use : variable.getOutput().getUses()) {
    Operation *user = use.getOwner();
    std::optional<Provenance> provenance = getProvenance(user);
    if (isa<AssignOp>(user) || (provenance && provenance->phase == "update"))
      continue;
    usesByPhase[{provenance ? provenance->phase : StringRef(),
                 provenance ? provenance->microbatch : 0}]
        .push_back(&use);
  }
  MLIRContext *context = variable.getContext();
  OpBuilder builder(context);
  for (auto &[phase, uses] : usesByPhase) {
    Operation *first = uses.front()->getOwner();
    for (OpOperand *use : uses)
      if (use->getOwner()->isBeforeInBlock(first))
        first = use->getOwner();
    builder.setInsertionPoint(first);
    auto gather = sbp::BoxingOp::create(
        builder, variable.getLoc(), variable.getType(), variable.getOutput(),
        sbp::NdSbpAttr::get(context, sharded),
        sbp::NdSbpAttr::get(context, full), mesh);
    gather->setAttr("oneflow.gather_for",
                    builder.getStringAttr(phase.first.str() + " " +
                                          std::to_string(phase.second)));
    if (std::optional<Provenance> provenance = getProvenance(first))
      setProvenance(gather, *provenance);
    for (OpOperand *use : uses)
      use->set(gather.getOutput());
  }
}

struct SbpApplyStrategyPass
    : public oneflow::impl::SbpApplyStrategyBase<SbpApplyStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = lookupGraph(module, "to place");
    if (!graph)
      return signalPassFailure();
    if (zero < 0 || zero > 3) {
      module.emitError() << "ZeRO stage must be 0, 1, 2 or 3, got "
                         << static_cast<int64_t>(zero);
      return signalPassFailure();
    }
    SmallVector<int64_t> shape(meshShape.begin(), meshShape.end());
    if (shape.empty())
      shape.push_back(1);
    if (shape.size() > 3 ||
        llvm::any_of(shape, [](int64_t d) { return d < 1; })) {
      module.emitError() << "unsupported mesh: 1 to 3 axes of at least one "
                            "device each";
      return signalPassFailure();
    }
    SmallVector<StringRef> kinds;
    StringRef(strategy).split(kinds, ',');
    if (kinds.size() != shape.size()) {
      module.emitError() << "strategy '" << strategy << "' names "
                         << kinds.size() << " mesh axes but the mesh has "
                         << shape.size();
      return signalPassFailure();
    }
    for (StringRef kind : kinds)
      if (kind != "data" && kind != "tensor") {
        module.emitError() << "unknown SBP strategy '" << kind
                           << "' (expected data or tensor)";
        return signalPassFailure();
      }

    FlatSymbolRefAttr placement = placeGraph(module, graph, shape, device);

    MLIRContext *context = module.getContext();
    SmallVector<NdSbp> argSbps(graph.getNumArguments(),
                               broadcastNd(shape.size()));
    llvm::DenseMap<Operation *, NdSbp> variableSbps;
    for (auto [axis, kind] : llvm::enumerate(kinds)) {
      if (kind == "data") {
        for (auto [index, arg] : llvm::enumerate(graph.getArguments())) {
          auto type = cast<RankedTensorType>(arg.getType());
          if (type.getRank() >= 1 && type.getDimSize(0) % shape[axis] == 0)
            argSbps[index][axis] = Sbp::split(0);
        }
        continue;
      }
      for (auto [variable, split] :
           TensorParallelPlanner(shape[axis]).run(graph)) {
        auto [it, inserted] =
            variableSbps.try_emplace(variable, broadcastNd(shape.size()));
        it->second[axis] = split;
      }
    }
    for (auto [index, nd] : llvm::enumerate(argSbps))
      graph.setArgAttr(index, sbp::SBPDialect::kNdSbpAttrName,
                       sbp::NdSbpAttr::get(context, nd));
    // Parameters are broadcast unless a tensor-parallel rule split them;
    // optimizer state is laid out like its parameter.
    llvm::StringMap<NdSbp> sbpOfName;
    auto pinVariable = [&](VariableOp variable, NdSbp nd) {
      variable->setAttr(sbp::SBPDialect::kSignatureAttrName,
                        sbp::SignatureAttr::get(
                            context, {}, {sbp::NdSbpAttr::get(context, nd)}));
      variable->setAttr(sbp::SBPDialect::kPlacementAttrName, placement);
    };
    // A user's pin (`oneflow.pinned_sbp = #sbp.nd<[...]>`, written by the
    // Python frontend from module paths) overrides the strategy's choice.
    bool pinsValid = true;
    SmallVector<std::tuple<VariableOp, NdSbp, NdSbp>> gathered;
    graph.walk([&](VariableOp variable) {
      if (variable->hasAttr(kStateOfAttrName))
        return;
      NdSbp nd = broadcastNd(shape.size());
      if (auto it = variableSbps.find(variable); it != variableSbps.end())
        nd = it->second;
      if (auto pinned =
              variable->getAttrOfType<sbp::NdSbpAttr>(kPinnedSbpAttrName)) {
        auto type = cast<RankedTensorType>(variable.getType());
        if (pinned.size() != shape.size() ||
            failed(pinned.verifyForRank(
                [&]() { return variable.emitOpError(); }, type.getRank()))) {
          if (pinned.size() != shape.size())
            variable.emitOpError()
                << "pinned SBP " << pinned << " has " << pinned.size()
                << " entries but the mesh has " << shape.size() << " axes";
          pinsValid = false;
          return;
        }
        nd = pinned.getValues();
      }
      // The state follows the parameter's compute layout, then its own
      // sharding: the update's operands then agree.
      sbpOfName.try_emplace(variable.getVarName(), nd);
      NdSbp stored = nd;
      if (zero >= 3 && variable->hasAttr(kTrainableAttrName))
        shardOverDataAxes(stored, variable.getType(), shape, kinds);
      pinVariable(variable, stored);
      if (stored != nd)
        gathered.emplace_back(variable, stored, nd);
    });
    if (!pinsValid)
      return signalPassFailure();
    // A parameter read in a lower precision (mixed precision's master
    // weights) is cast where it is laid out: the cast is part of the read.
    graph.walk([&](CastOp cast) {
      auto variable = cast.getX().getDefiningOp<VariableOp>();
      if (!variable || variable->hasAttr(kStateOfAttrName))
        return;
      auto it = sbpOfName.find(variable.getVarName());
      if (it == sbpOfName.end())
        return;
      auto nd = sbp::NdSbpAttr::get(context, it->second);
      cast->setAttr(sbp::SBPDialect::kSignatureAttrName,
                    sbp::SignatureAttr::get(context, {nd}, {nd}));
      cast->setAttr(sbp::SBPDialect::kPlacementAttrName, placement);
    });
    for (auto &[variable, stored, nd] : gathered)
      gatherPerPhase(variable, stored, nd, placement);
    graph.walk([&](VariableOp variable) {
      auto of = variable->getAttrOfType<FlatSymbolRefAttr>(kStateOfAttrName);
      if (!of)
        return;
      NdSbp nd = broadcastNd(shape.size());
      if (auto it = sbpOfName.find(of.getValue()); it != sbpOfName.end())
        nd = it->second;
      if (zero >= 1)
        shardOverDataAxes(nd, variable.getType(), shape, kinds);
      pinVariable(variable, nd);
    });
  }
};
} // namespace
