//===- LossImporters.cpp - SoftmaxCrossEntropyLoss, NegativeLogLikelihood -===//
//
// The plain case (2-D scores, no weights, no ignored index) is the fused
// oneflow.softmax_cross_entropy; everything else is spelled out: a one-hot
// mask of the targets picks the log-probabilities and the class weights.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

FailureOr<LossReduction> getReduction(NodeContext &ctx) {
  std::string name = ctx.getString("reduction", "mean");
  std::optional<LossReduction> reduction = symbolizeLossReduction(name);
  if (!reduction)
    return ctx.emitError() << "unknown reduction '" << name << "'";
  return *reduction;
}

/// NLL of `logProb` ([N, C, d...]) at `target` ([N, d...]).
FailureOr<Value> negativeLogLikelihood(NodeContext &ctx, Value logProb,
                                       Value target, Value weight,
                                       std::optional<int64_t> ignoreIndex,
                                       LossReduction reduction) {
  RankedTensorType type = typeOf(logProb);
  int64_t rank = type.getRank();
  SmallVector<int64_t> expected;
  if (rank >= 2) {
    expected.push_back(type.getDimSize(0));
    llvm::append_range(expected, type.getShape().drop_front(2));
  }
  if (rank < 2 || typeOf(target).getShape() != ArrayRef<int64_t>(expected))
    return ctx.emitError() << "target shape must be the input shape without "
                              "its class axis";
  Type elementType = type.getElementType();
  Type i64 = ctx.getBuilder().getI64Type();
  int64_t classes = type.getDimSize(1);
  Value tgt = ctx.cast(target, i64);

  // mask[n, c, ...] = (target[n, ...] == c).
  FailureOr<Value> expanded =
      ctx.create<UnsqueezeOp>(tgt, SmallVector<int64_t>{1});
  if (failed(expanded))
    return failure();
  SmallVector<int64_t> iotaShape(rank, 1);
  iotaShape[1] = classes;
  Value iota = ctx.constant(
      makeDenseInts(RankedTensorType::get(iotaShape, i64),
                    llvm::to_vector(llvm::seq<int64_t>(0, classes))));
  FailureOr<Value> mask = ctx.create<EqualOp>(*expanded, iota);
  if (failed(mask))
    return failure();
  Value zero = ctx.splat(elementType, 0.0);
  FailureOr<Value> picked = ctx.create<WhereOp>(*mask, logProb, zero);
  if (failed(picked))
    return failure();
  FailureOr<Value> gathered =
      ctx.create<ReduceSumOp>(*picked, SmallVector<int64_t>{1}, false);
  if (failed(gathered))
    return failure();
  Value loss = ctx.createTyped<NegOp>(*gathered);

  // Per-position weights: weight[target], zero where the target is ignored.
  Value weights;
  if (weight) {
    SmallVector<int64_t> weightShape(rank, 1);
    weightShape[1] = classes;
    FailureOr<Value> w =
        ctx.create<WhereOp>(*mask, ctx.reshape(weight, weightShape), zero);
    if (failed(w))
      return failure();
    FailureOr<Value> summed =
        ctx.create<ReduceSumOp>(*w, SmallVector<int64_t>{1}, false);
    if (failed(summed))
      return failure();
    weights = *summed;
  }
  if (ignoreIndex) {
    FailureOr<Value> keep =
        ctx.create<NotEqualOp>(tgt, ctx.splat(i64, (double)*ignoreIndex));
    if (failed(keep))
      return failure();
    Value base = weights ? weights : ctx.splat(elementType, 1.0);
    FailureOr<Value> w = ctx.create<WhereOp>(*keep, base, zero);
    if (failed(w))
      return failure();
    weights = *w;
  }
  if (weights) {
    FailureOr<Value> weighted = ctx.create<MulOp>(loss, weights);
    if (failed(weighted))
      return failure();
    loss = *weighted;
  }

  if (reduction == LossReduction::None)
    return loss;
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, typeOf(loss).getRank()));
  FailureOr<Value> total = ctx.create<ReduceSumOp>(loss, all, false);
  if (failed(total) || reduction == LossReduction::Sum)
    return total;
  if (!weights)
    return ctx.create<ReduceMeanOp>(loss, all, false);
  FailureOr<Value> weightSum = ctx.create<ReduceSumOp>(weights, all, false);
  if (failed(weightSum))
    return failure();
  return ctx.create<DivOp>(*total, *weightSum);
}

Value optionalInput(NodeContext &ctx, unsigned index, bool &ok) {
  if (!ctx.hasInput(index))
    return {};
  FailureOr<Value> value = ctx.getInput(index);
  ok &= succeeded(value);
  return succeeded(value) ? *value : Value();
}

std::optional<int64_t> ignoreIndexOf(NodeContext &ctx) {
  if (!ctx.hasAttr("ignore_index"))
    return std::nullopt;
  return ctx.getInt("ignore_index", 0);
}

LogicalResult importNLL(NodeContext &ctx) {
  FailureOr<Value> input = ctx.getInput(0), target = ctx.getInput(1);
  FailureOr<LossReduction> reduction = getReduction(ctx);
  bool ok = true;
  Value weight = optionalInput(ctx, 2, ok);
  if (failed(input) || failed(target) || failed(reduction) || !ok)
    return failure();
  FailureOr<Value> loss = negativeLogLikelihood(
      ctx, *input, *target, weight, ignoreIndexOf(ctx), *reduction);
  if (failed(loss))
    return failure();
  ctx.setOutput(0, *loss);
  return success();
}

LogicalResult importSoftmaxCrossEntropy(NodeContext &ctx) {
  FailureOr<Value> scores = ctx.getInput(0), labels = ctx.getInput(1);
  FailureOr<LossReduction> reduction = getReduction(ctx);
  bool ok = true;
  Value weight = optionalInput(ctx, 2, ok);
  if (failed(scores) || failed(labels) || failed(reduction) || !ok)
    return failure();
  std::optional<int64_t> ignoreIndex = ignoreIndexOf(ctx);
  if (typeOf(*scores).getRank() == 2 && !weight && !ignoreIndex &&
      !ctx.hasOutput(1)) {
    FailureOr<Value> loss = ctx.create<SoftmaxCrossEntropyOp>(
        *scores, *labels, *reduction, IntegerAttr());
    if (failed(loss))
      return failure();
    ctx.setOutput(0, *loss);
    return success();
  }
  if (typeOf(*scores).getRank() < 2)
    return ctx.emitError() << "scores must have rank >= 2";
  Value logProb = ctx.createTyped<LogSoftmaxOp>(
      *scores, ctx.getBuilder().getI64IntegerAttr(1));
  FailureOr<Value> loss = negativeLogLikelihood(ctx, logProb, *labels, weight,
                                                ignoreIndex, *reduction);
  if (failed(loss))
    return failure();
  ctx.setOutput(0, *loss);
  ctx.setOutput(1, logProb);
  return success();
}

} // namespace

void onnx_import::registerLossImporters(NodeImporterRegistry &r) {
  r["NegativeLogLikelihoodLoss"] = importNLL;
  r["SoftmaxCrossEntropyLoss"] = importSoftmaxCrossEntropy;
}
