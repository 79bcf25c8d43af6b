//===- Autodiff.cpp - Reverse-mode differentiation of @main ---------------===//
//
// Appends to @main the gradients of its first result (the loss) with
// respect to the variables (training) or the arguments (gradient checks).
// The backward ops follow the forward ops in the same function, so SBP
// propagation and boxing see one graph: under data parallelism the
// gradients of broadcast parameters come out partial-sum and boxing
// inserts the all-reduce, with no special case here.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/DropoutStep.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/Provenance.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_AUTODIFF
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {
bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

/// Gives a forward op cloned onto micro-batch operands its micro-batch
/// result types: inferred where the op can infer them, otherwise (reshape,
/// expand, cast) the first dimension is cut like the operands were.
LogicalResult retypeForMicrobatch(Operation *op, int64_t count) {
  SmallVector<Type> types;
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), types)))
      return op->emitOpError() << "cannot run on micro-batches";
  } else if (auto castOp = dyn_cast<CastOp>(op)) {
    types.push_back(castOp.getX().getType().clone(
        castOp.getY().getType().getElementType()));
  } else {
    bool cut = llvm::any_of(op->getOperands(), [&](Value operand) {
      return operand.getDefiningOp() &&
             operand.getDefiningOp()->getNumOperands() > 0;
    });
    for (Type type : op->getResultTypes()) {
      auto tensor = cast<RankedTensorType>(type);
      SmallVector<int64_t> shape(tensor.getShape());
      if (cut && !shape.empty() && shape[0] % count == 0)
        shape[0] /= count;
      types.push_back(tensor.clone(shape));
    }
  }
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  if (failed(verify(op)))
    return op->emitOpError() << "cannot run on micro-batches";
  return success();
}

/// The logical positions of the elements a dropout cloned into micro-batch
/// `m` of `count` draws: its positions operand still covers the whole batch
/// of `batch` samples (each sample `rows / batch` consecutive rows of the
/// input), and the micro-batch holds samples m, m + count, m + 2 count, ...
/// (see differentiateMicrobatches), so the positions are those samples'
/// slice and the masks the unsplit step's. New ops are appended to `ops`.
FailureOr<Value> microbatchPositions(OpBuilder &builder, DropoutOp dropout,
                                     int64_t batch, int64_t count, int64_t m,
                                     Location loc,
                                     SmallVectorImpl<Operation *> &ops) {
  Value positions = dropout.getPositions();
  auto whole = cast<RankedTensorType>(positions.getType());
  auto micro = cast<RankedTensorType>(dropout.getX().getType());
  if (whole.getShape() == micro.getShape())
    return positions; // Not cut: a tensor without the batch.
  int64_t rows = whole.getRank() ? whole.getDimSize(0) : 0;
  if (whole.getRank() != micro.getRank() || rows % batch != 0 ||
      micro.getDimSize(0) * count != rows ||
      whole.getShape().drop_front() != micro.getShape().drop_front())
    return dropout.emitOpError()
           << "on micro-batches: cannot map its input " << micro
           << " to rows of the batch of " << batch << " samples";
  int64_t inner = whole.getNumElements() / rows * (rows / batch);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(dropout);
  auto grouped = whole.clone({batch / count, count, inner});
  auto sliced = whole.clone({batch / count, 1, inner});
  auto regroup = ReshapeOp::create(builder, loc, grouped, positions);
  auto slice = SliceOp::create(
      builder, loc, sliced, regroup, SmallVector<int64_t>{0, m, 0},
      SmallVector<int64_t>{batch / count, m + 1, inner},
      SmallVector<int64_t>{1, 1, 1});
  auto piece = ReshapeOp::create(builder, loc, whole.clone(micro.getShape()),
                                 slice.getResult());
  for (Operation *op :
       {regroup.getOperation(), slice.getOperation(), piece.getOperation()}) {
    setProvenance(op, {"forward", -1, m});
    if (Attribute stage = dropout->getAttr(kStageAttrName))
      op->setAttr(kStageAttrName, stage);
    ops.push_back(op);
  }
  return piece.getResult();
}

/// Marks `op` with where it comes from (see kPhaseAttrName): the pipeline
/// passes place and order ops by these.
void tagProvenance(Operation *op, StringRef phase, int64_t opIndex,
                   int64_t microbatch) {
  setProvenance(op, {phase, opIndex, microbatch});
}

/// Tags the ops a builder inserted after `before` and before its insertion
/// point like `from`, in `phase`.
void tagInsertedOps(OpBuilder &builder, Operation *before, Operation *from,
                    StringRef phase) {
  Block *block = builder.getInsertionBlock();
  auto it = before ? std::next(before->getIterator()) : block->begin();
  int64_t opIndex = -1, microbatch = 0;
  if (std::optional<Provenance> origin =
          from ? getProvenance(from) : std::nullopt) {
    opIndex = origin->opIndex;
    microbatch = origin->microbatch;
  }
  for (; it != builder.getInsertionPoint(); ++it)
    tagProvenance(&*it, phase, opIndex, microbatch);
}

/// The op just before the builder's insertion point (null at the start).
Operation *lastInserted(OpBuilder &builder) {
  auto point = builder.getInsertionPoint();
  if (point == builder.getInsertionBlock()->begin())
    return nullptr;
  return &*std::prev(point);
}

/// One read per variable: later reads of a name use the first.
void mergeVariableReads(func::FuncOp graph) {
  llvm::StringMap<VariableOp> first;
  Block &body = graph.getBody().front();
  Operation *lastMoved = nullptr;
  for (VariableOp variable :
       llvm::make_early_inc_range(body.getOps<VariableOp>())) {
    auto [it, inserted] = first.try_emplace(variable.getVarName(), variable);
    if (inserted) {
      // At the top, in their first-read order.
      if (lastMoved)
        variable->moveAfter(lastMoved);
      else
        variable->moveBefore(&body, body.begin());
      lastMoved = variable;
      continue;
    }
    if (it->second.getType() == variable.getType()) {
      variable.replaceAllUsesWith(it->second.getOutput());
      variable.erase();
    }
  }
}

struct AutodiffPass : public oneflow::impl::AutodiffBase<AutodiffPass> {
  using Base::Base;

  /// Builds the backward of `ops` (a forward program in order) for `loss`,
  /// whose gradient is `seed`; adds into `grads` the gradients of every
  /// value the loss depends on through a source.
  LogicalResult differentiate(OpBuilder &builder, ArrayRef<Operation *> ops,
                              Value loss, double seed,
                              const llvm::DenseSet<Value> &sources,
                              llvm::DenseMap<Value, Value> &grads) {
    // Values that depend on a source and that the loss depends on.
    llvm::DenseSet<Value> dependsOnSource(sources.begin(), sources.end());
    for (Operation *op : ops)
      if (llvm::any_of(op->getOperands(), [&](Value operand) {
            return dependsOnSource.contains(operand);
          }))
        for (Value result : op->getResults())
          if (isFloatTensor(result))
            dependsOnSource.insert(result);
    llvm::DenseSet<Value> active;
    if (dependsOnSource.contains(loss))
      active.insert(loss);
    for (Operation *op : llvm::reverse(ops))
      if (llvm::any_of(op->getResults(),
                       [&](Value result) { return active.contains(result); }))
        for (Value operand : op->getOperands())
          if (dependsOnSource.contains(operand))
            active.insert(operand);

    auto lossType = cast<RankedTensorType>(loss.getType());
    Value &lossGrad = grads[loss];
    Operation *before = lastInserted(builder);
    lossGrad = ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr("loss.grad")), lossType,
        DenseElementsAttr::get(
            lossType, builder.getFloatAttr(lossType.getElementType(), seed)));
    tagInsertedOps(builder, before, loss.getDefiningOp(), "backward");
    bool failedRules = false;
    // Values whose gradient a failed rule left unknown: the ops before
    // them are still checked, so every op without a rule is reported.
    llvm::DenseSet<Value> unknown;
    auto markUnknown = [&](Operation *op) {
      failedRules = true;
      for (Value operand : op->getOperands())
        if (active.contains(operand))
          unknown.insert(operand);
    };
    for (Operation *op : llvm::reverse(ops)) {
      SmallVector<Value> resultGrads;
      bool any = false, anyUnknown = false;
      for (Value result : op->getResults()) {
        Value grad = active.contains(result) ? grads.lookup(result) : Value();
        resultGrads.push_back(grad);
        any |= bool(grad);
        anyUnknown |= unknown.contains(result);
      }
      if (!any && !anyUnknown)
        continue;
      auto rule = dyn_cast<GradientOpInterface>(op);
      if (!rule) {
        op->emitOpError() << "has no gradient rule, but the loss depends on "
                             "it through a trained value";
        markUnknown(op);
        continue;
      }
      if (anyUnknown) {
        // Only to learn whether the rule applies: the pass fails anyway.
        for (auto [result, grad] : llvm::zip(op->getResults(), resultGrads))
          if (unknown.contains(result)) {
            auto type = cast<RankedTensorType>(result.getType());
            grad = ConstantOp::create(
                builder, op->getLoc(), type,
                DenseElementsAttr::get(
                    type, builder.getZeroAttr(type.getElementType())));
          }
        SmallVector<Value> ignored;
        (void)rule.buildGradients(builder, resultGrads, ignored);
        markUnknown(op);
        continue;
      }
      SmallVector<Value> operandGrads;
      Operation *before = lastInserted(builder);
      auto tagBackward = llvm::make_scope_exit(
          [&] { tagInsertedOps(builder, before, op, "backward"); });
      if (failed(rule.buildGradients(builder, resultGrads, operandGrads))) {
        markUnknown(op);
        continue;
      }
      assert(operandGrads.size() == op->getNumOperands() &&
             "one gradient per operand");
      for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads)) {
        if (!grad || !active.contains(operand))
          continue;
        if (grad.getType() != operand.getType()) {
          op->emitOpError() << "gradient rule gave " << grad.getType()
                            << " for an operand of type " << operand.getType();
          failedRules = true;
          continue;
        }
        Value &total = grads[operand];
        total = total ? Value(AddOp::create(builder, op->getLoc(), total, grad))
                      : grad;
      }
    }
    if (failedRules)
      return emitError(loss.getLoc())
             << "cannot differentiate the loss: see the ops above";
    return success();
  }

  /// Gradient accumulation: the forward program runs once per micro-batch
  /// (every argument cut along its first axis), each followed by its
  /// backward, so only one micro-batch's activations are alive at a time.
  /// Micro-batch m takes samples m, m + M, m + 2M, ...: under data
  /// parallelism each rank then holds its share of every micro-batch.
  /// Returns the loss of the whole batch (the mean of the micro-batches').
  FailureOr<Value>
  differentiateMicrobatches(OpBuilder &builder, func::FuncOp graph,
                            ArrayRef<Operation *> forward, Value loss,
                            const llvm::DenseSet<Value> &sources,
                            llvm::DenseMap<Value, Value> &grads) {
    int64_t count = microbatches;
    for (BlockArgument arg : graph.getArguments()) {
      auto type = cast<RankedTensorType>(arg.getType());
      if (type.getRank() < 1 || type.getDimSize(0) % count != 0)
        return graph.emitError()
               << "argument #" << arg.getArgNumber() << " of type " << type
               << " cannot be cut into " << count
               << " micro-batches along its first axis";
    }
    Location loc = NameLoc::get(builder.getStringAttr("microbatch"));
    Value total;
    // Variables the forward program assigns (running statistics): each
    // micro-batch reads what the previous one stored; one assign at the end.
    // Dropout step counters are per step, not per micro-batch: every
    // micro-batch reads the step's value and the first one's update is
    // stored.
    llvm::MapVector<StringAttr, Value> stored, counters;
    llvm::DenseMap<StringAttr, Value> readOf;
    llvm::DenseSet<StringAttr> counterNames;
    for (Operation &op : graph.getBody().front()) {
      if (auto variable = dyn_cast<VariableOp>(op))
        readOf.try_emplace(variable.getVarNameAttr(), variable.getOutput());
      if (auto dropout = dyn_cast<DropoutOp>(op))
        if (auto step = dropout.getStep().getDefiningOp<VariableOp>())
          counterNames.insert(step.getVarNameAttr());
    }
    int64_t batch =
        cast<RankedTensorType>(graph.getArgument(0).getType()).getDimSize(0);
    for (int64_t m = 0; m < count; ++m) {
      IRMapping mapping;
      for (auto [name, value] : stored)
        if (Value read = readOf.lookup(name))
          mapping.map(read, value);
      SmallVector<Operation *> ops;
      llvm::DenseSet<Value> microSources(sources.begin(), sources.end());
      for (BlockArgument arg : graph.getArguments()) {
        auto type = cast<RankedTensorType>(arg.getType());
        int64_t rows = type.getDimSize(0) / count;
        SmallVector<int64_t> grouped{rows, count}, sliced{rows, 1};
        grouped.append(type.getShape().begin() + 1, type.getShape().end());
        sliced.append(type.getShape().begin() + 1, type.getShape().end());
        SmallVector<int64_t> micro(type.getShape());
        micro[0] = rows;
        SmallVector<int64_t> starts(grouped.size(), 0), limits(grouped),
            steps(grouped.size(), 1);
        starts[1] = m;
        limits[1] = m + 1;
        auto regroup =
            ReshapeOp::create(builder, loc, type.clone(grouped), arg);
        auto slice = SliceOp::create(builder, loc, type.clone(sliced), regroup,
                                     starts, limits, steps);
        auto piece = ReshapeOp::create(builder, loc, type.clone(micro), slice);
        for (Operation *cut : {regroup.getOperation(), slice.getOperation(),
                               piece.getOperation()})
          tagProvenance(cut, "forward", -1, m);
        ops.append({regroup, slice, piece});
        mapping.map(arg, piece.getResult());
      }
      for (Operation *op : forward) {
        if (auto assign = dyn_cast<AssignOp>(op)) {
          Value value = mapping.lookupOrDefault(assign.getValue());
          if (!counterNames.contains(assign.getVarNameAttr()))
            stored[assign.getVarNameAttr()] = value;
          else if (m == 0)
            counters[assign.getVarNameAttr()] = value;
          continue;
        }
        Operation *clone = builder.clone(*op, mapping);
        if (auto dropout = dyn_cast<DropoutOp>(clone)) {
          FailureOr<Value> positions =
              microbatchPositions(builder, dropout, batch, count, m, loc, ops);
          if (failed(positions))
            return failure();
          dropout.getPositionsMutable().assign(*positions);
        }
        if (failed(retypeForMicrobatch(clone, count)))
          return failure();
        if (std::optional<Provenance> origin = getProvenance(op))
          tagProvenance(clone, origin->phase, origin->opIndex, m);
        ops.push_back(clone);
      }
      Value microLoss = mapping.lookup(loss);
      if (failed(differentiate(builder, ops, microLoss, 1.0 / double(count),
                               microSources, grads)))
        return failure();
      if (total) {
        total = AddOp::create(builder, loc, total, microLoss);
        tagProvenance(total.getDefiningOp(), "forward", -1, m);
      } else {
        total = microLoss;
      }
    }
    for (auto [name, value] : stored)
      tagProvenance(AssignOp::create(builder, loc, name, value), "forward", -1,
                    count - 1);
    for (auto [name, value] : counters)
      tagProvenance(AssignOp::create(builder, loc, name, value), "forward", -1,
                    count - 1);
    auto type = cast<RankedTensorType>(total.getType());
    Value scale = ConstantOp::create(
        builder, loc, type,
        DenseElementsAttr::get(
            type,
            builder.getFloatAttr(type.getElementType(), 1.0 / double(count))));
    auto mean = MulOp::create(builder, loc, total, scale);
    tagProvenance(scale.getDefiningOp(), "forward", -1, count - 1);
    tagProvenance(mean, "forward", -1, count - 1);
    return Value(mean);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = lookupGraph(module, "to differentiate");
    if (!graph)
      return signalPassFailure();
    if (wrt != "variables" && wrt != "arguments") {
      module.emitError() << "wrt must be 'variables' or 'arguments', got '"
                         << wrt << "'";
      return signalPassFailure();
    }
    auto ret = cast<func::ReturnOp>(graph.getBody().front().getTerminator());
    if (ret.getNumOperands() == 0 || !isFloatTensor(ret.getOperand(0)) ||
        cast<RankedTensorType>(ret.getOperand(0).getType()).getNumElements() !=
            1) {
      graph.emitError() << "the first result must be the loss: a "
                           "floating-point tensor of one element";
      return signalPassFailure();
    }
    Value loss = ret.getOperand(0);
    MLIRContext *context = &getContext();
    // The dropout step counter of a graph that only reads it (the Python
    // frontend's) advances once per training step.
    advanceDropoutSteps(graph.getBody().front());

    // The sources, named for the gradient results.
    struct Source {
      Value value;
      Attribute of;
      std::string name;
    };
    SmallVector<Source> sources;
    if (wrt == "variables") {
      mergeVariableReads(graph);
      llvm::StringSet<> frozen;
      for (const std::string &name : freeze)
        frozen.insert(name);
      llvm::StringSet<> seen;
      for (VariableOp variable : graph.getOps<VariableOp>()) {
        seen.insert(variable.getVarName());
        if (isFloatTensor(variable.getOutput()) &&
            !frozen.contains(variable.getVarName()))
          sources.push_back({variable.getOutput(),
                             FlatSymbolRefAttr::get(variable.getVarNameAttr()),
                             variable.getVarName().str()});
      }
      for (const std::string &name : freeze)
        if (!seen.contains(name)) {
          graph.emitError() << "cannot freeze '" << name
                            << "': the graph has no variable of that name";
          return signalPassFailure();
        }
    } else {
      for (BlockArgument arg : graph.getArguments()) {
        if (!isFloatTensor(arg))
          continue;
        std::string name = "input" + std::to_string(arg.getArgNumber());
        if (auto attr = graph.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                           kIONameAttrName))
          name = attr.str();
        sources.push_back({arg,
                           IntegerAttr::get(IntegerType::get(context, 64),
                                            arg.getArgNumber()),
                           name});
      }
    }

    // The backward pass, built before the return: for the whole batch, or
    // micro-batch by micro-batch (forward then backward of each, the
    // gradients of shared values summed).
    Block &body = graph.getBody().front();
    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator())
      if (op.getNumOperands() > 0)
        forward.push_back(&op);
    for (auto [index, op] : llvm::enumerate(forward))
      tagProvenance(op, "forward", index, 0);
    llvm::DenseSet<Value> sourceValues;
    for (const Source &source : sources)
      sourceValues.insert(source.value);
    OpBuilder builder(ret);
    llvm::DenseMap<Value, Value> grads;
    if (microbatches <= 1) {
      if (failed(
              differentiate(builder, forward, loss, 1.0, sourceValues, grads)))
        return signalPassFailure();
    } else {
      if (ret.getNumOperands() != 1) {
        graph.emitError() << "with micro-batches the loss must be the only "
                             "result";
        return signalPassFailure();
      }
      FailureOr<Value> total = differentiateMicrobatches(
          builder, graph, forward, loss, sourceValues, grads);
      if (failed(total))
        return signalPassFailure();
      loss = *total;
    }

    // One gradient result per source the loss depends on (every float
    // argument in gradient-check mode, zeros where it does not).
    SmallVector<Value> results(ret.getOperands());
    results[0] = loss;
    SmallVector<DictionaryAttr> resultAttrs;
    graph.getAllResultAttrs(resultAttrs);
    for (const Source &source : sources) {
      Value grad = grads.lookup(source.value);
      if (!grad && wrt == "variables")
        continue;
      if (!grad) {
        auto type = cast<RankedTensorType>(source.value.getType());
        grad = ConstantOp::create(
            builder, source.value.getLoc(), type,
            DenseElementsAttr::get(type,
                                   builder.getZeroAttr(type.getElementType())));
      }
      if (auto variable = source.value.getDefiningOp<VariableOp>())
        variable->setAttr(kTrainableAttrName, UnitAttr::get(context));
      results.push_back(grad);
      resultAttrs.push_back(DictionaryAttr::get(
          context,
          {NamedAttribute(StringAttr::get(context, kGradientOfAttrName),
                          source.of),
           NamedAttribute(StringAttr::get(context, kIONameAttrName),
                          StringAttr::get(context, "grad_" + source.name))}));
    }
    auto newRet = func::ReturnOp::create(builder, ret.getLoc(), results);
    ret.erase();
    // Assigns take effect at the next step: after the backward pass, which
    // may read the values they store (a dropout's step counter in the
    // gradient), so that no read follows an assign in program order.
    SmallVector<AssignOp> assigns;
    graph.walk([&](AssignOp assign) {
      if (assign->getBlock() == newRet->getBlock())
        assigns.push_back(assign);
    });
    for (AssignOp assign : assigns)
      assign->moveBefore(newRet);
    // The micro-batches' copies replaced the whole-batch forward program.
    if (microbatches > 1)
      for (Operation *op : llvm::reverse(forward))
        op->erase();
    graph.setType(FunctionType::get(context, graph.getArgumentTypes(),
                                    ValueRange(results).getTypes()));
    graph.setAllResultAttrs(resultAttrs);
  }
};
} // namespace
