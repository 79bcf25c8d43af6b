//===- Recompute.cpp - Recompute activations in the backward pass ---------===//
//
// Activation recomputation (Chen et al. 2016; Megatron's selective and full
// modes): forward ops whose results the backward pass reads are cloned into
// the backward pass, right before their first backward use, so that the
// forward results die with their forward uses.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Transforms/Recompute.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/Provenance.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_RECOMPUTE
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// Marks the clones: CSE must not fold a recomputation back into the
/// forward op it copies (they read the same values).
constexpr StringLiteral kRecomputedAttrName = "oneflow.recomputed";

bool hasPhase(Operation *op, StringRef phase) {
  std::optional<Provenance> provenance = getProvenance(op);
  return provenance && provenance->phase == phase &&
         (phase != "forward" || provenance->opIndex >= 0);
}

/// Whether `value` is a parameter, possibly reshaped or transposed.
bool fromParameter(Value value) {
  Operation *op = value.getDefiningOp();
  while (op && isa<ReshapeOp, TransposeOp, CastOp, ExpandOp, SqueezeOp,
                   UnsqueezeOp, FlattenOp>(op))
    op = op->getOperand(0).getDefiningOp();
  return op && isa<VariableOp>(op);
}

} // namespace

/// Cheap to run again relative to the bytes of its result: elementwise,
/// softmax and layout ops, and products of two activations (attention
/// scores and their use), whose cost per result element is the sequence
/// length, not a hidden dimension.
bool mlir::oneflow::isCheapToRecompute(Operation *op) {
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
      op->hasTrait<OpTrait::ResultsBroadcastableShape>())
    return true;
  if (isa<WhereOp, CastOp, ClipOp, SoftmaxOp, LogSoftmaxOp, ReshapeOp,
          FlattenOp, SqueezeOp, UnsqueezeOp, TransposeOp, ExpandOp, SliceOp,
          SplitOp, ConcatOp>(op))
    return true;
  if (auto product = dyn_cast<BatchMatmulOp>(op))
    return !fromParameter(product.getA()) && !fromParameter(product.getB());
  return false;
}

/// The layer of a location name: its module path up to the first index
/// (`/blocks.3/attn/MatMul`, `blocks.3.mlp.fc` -> `blocks.3`), else its
/// first component; empty for an unnamed op.
std::string mlir::oneflow::layerOfName(StringRef name) {
  SmallVector<StringRef> parts;
  for (StringRef piece : llvm::split(name, '/'))
    for (StringRef part : llvm::split(piece, '.'))
      if (!part.empty())
        parts.push_back(part);
  std::string layer;
  for (StringRef part : parts) {
    if (!layer.empty())
      layer += '.';
    layer += part.str();
    if (llvm::all_of(part, llvm::isDigit))
      return layer;
  }
  return parts.empty() ? "" : parts.front().str();
}

namespace {

struct RecomputePass : public oneflow::impl::RecomputeBase<RecomputePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode != "none" && mode != "selective" && mode != "full") {
      module.emitError() << "recompute mode must be none, selective or full, "
                            "got '"
                         << mode << "'";
      return signalPassFailure();
    }
    if (mode == "none")
      return;
    auto graph = lookupGraph(module, "to recompute");
    if (!graph)
      return signalPassFailure();
    Block &body = graph.getBody().front();
    bool anyBackward = llvm::any_of(
        body, [](Operation &op) { return hasPhase(&op, "backward"); });
    if (!anyBackward) {
      graph.emitError() << "nothing to recompute: the graph has no backward "
                           "pass (run oneflow-autodiff first)";
      return signalPassFailure();
    }

    llvm::DenseSet<Operation *> recompute =
        mode == "full" ? fullCandidates(body) : selectiveCandidates(body);

    OpBuilder builder(module.getContext());
    llvm::DenseMap<Operation *, Operation *> cloneOf;
    // Clones `op` (and the recomputed ops it reads) before `before`, once.
    std::function<Operation *(Operation *, Operation *)> materialize =
        [&](Operation *op, Operation *before) -> Operation * {
      if (Operation *clone = cloneOf.lookup(op))
        return clone;
      IRMapping mapping;
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && recompute.contains(producer))
          mapping.map(
              operand,
              materialize(producer, before)
                  ->getResult(cast<OpResult>(operand).getResultNumber()));
      builder.setInsertionPoint(before);
      Operation *clone = builder.clone(*op, mapping);
      clone->setAttr(kRecomputedAttrName, builder.getUnitAttr());
      std::optional<Provenance> origin = getProvenance(op);
      setProvenance(clone, {"backward", origin->opIndex, origin->microbatch});
      cloneOf[op] = clone;
      return clone;
    };
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (!hasPhase(&op, "backward") || op.hasAttr(kRecomputedAttrName))
        continue;
      for (OpOperand &use : op.getOpOperands()) {
        Operation *producer = use.get().getDefiningOp();
        if (!producer || !recompute.contains(producer))
          continue;
        use.set(materialize(producer, &op)
                    ->getResult(cast<OpResult>(use.get()).getResultNumber()));
      }
    }
  }

  /// Forward ops that may run again: pure, with results.
  static bool recomputable(Operation *op) {
    return hasPhase(op, "forward") && op->getNumResults() > 0 &&
           isa<OneFlowDialect>(op->getDialect()) && isMemoryEffectFree(op) &&
           op->getNumRegions() == 0;
  }

  static bool readByBackward(Value value) {
    return llvm::any_of(value.getUsers(), [](Operation *user) {
      return hasPhase(user, "backward");
    });
  }

  /// Cheap ops all of whose operands stay available anyway: not forward
  /// results, read by the backward pass themselves, or recomputed too.
  static llvm::DenseSet<Operation *> selectiveCandidates(Block &body) {
    llvm::DenseSet<Operation *> candidates;
    for (Operation &op : body)
      if (recomputable(&op) && isCheapToRecompute(&op))
        candidates.insert(&op);
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation &op : body) {
        if (!candidates.contains(&op))
          continue;
        bool available = llvm::all_of(op.getOperands(), [&](Value operand) {
          Operation *producer = operand.getDefiningOp();
          return !producer || !hasPhase(producer, "forward") ||
                 candidates.contains(producer) || readByBackward(operand);
        });
        if (!available) {
          candidates.erase(&op);
          changed = true;
        }
      }
    }
    return candidates;
  }

  /// Every forward op of a layer whose results stay inside it.
  static llvm::DenseSet<Operation *> fullCandidates(Block &body) {
    llvm::DenseMap<Operation *, std::string> layerOf;
    for (Operation &op : body) {
      if (!hasPhase(&op, "forward"))
        continue;
      std::string layer = layerOfName(locationName(op.getLoc()));
      if (layer.empty())
        for (Value operand : op.getOperands())
          if (Operation *producer = operand.getDefiningOp())
            if (auto it = layerOf.find(producer); it != layerOf.end()) {
              layer = it->second;
              break;
            }
      layerOf[&op] = layer;
    }
    llvm::DenseSet<Operation *> candidates;
    for (Operation &op : body) {
      if (!recomputable(&op))
        continue;
      const std::string &layer = layerOf[&op];
      bool staysInside = llvm::all_of(op.getUsers(), [&](Operation *user) {
        if (hasPhase(user, "backward"))
          return true;
        auto it = layerOf.find(user);
        return it != layerOf.end() && it->second == layer;
      });
      if (staysInside)
        candidates.insert(&op);
    }
    return candidates;
  }
};

} // namespace
