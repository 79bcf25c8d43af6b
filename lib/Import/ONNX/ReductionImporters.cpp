//===- ReductionImporters.cpp - Reduce*, ArgMax, ArgMin -------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

} // namespace

FailureOr<SmallVector<int64_t>>
mlir::oneflow::onnx_import::getReduceAxes(NodeContext &ctx, int64_t rank,
                                          bool &identity) {
  SmallVector<int64_t> axes;
  identity = false;
  if (ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> fromInput =
        ctx.getConstantInts(1, "axes");
    if (failed(fromInput))
      return failure();
    axes = *fromInput;
  } else {
    axes = ctx.getInts("axes");
  }
  if (axes.empty()) {
    if (ctx.getInt("noop_with_empty_axes", 0)) {
      identity = true;
      return axes;
    }
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  for (int64_t &axis : axes) {
    FailureOr<int64_t> normalized = normalizeAxis(ctx, axis, rank);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

namespace {

enum class Reduction { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp,
                       SumSquare };

template <Reduction kind>
LogicalResult importReduce(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  bool identity;
  FailureOr<SmallVector<int64_t>> axes =
      getReduceAxes(ctx, typeOf(*x).getRank(), identity);
  if (failed(axes))
    return failure();
  bool keep = ctx.getInt("keepdims", 1) != 0;
  Value input = *x;
  // Elementwise prologue.
  if constexpr (kind == Reduction::L1) {
    input = ctx.createTyped<AbsOp>(input);
  } else if constexpr (kind == Reduction::L2 ||
                       kind == Reduction::SumSquare) {
    FailureOr<Value> squared = ctx.create<MulOp>(input, input);
    if (failed(squared))
      return failure();
    input = *squared;
  }
  if (identity || axes->empty()) {
    // ONNX still applies the elementwise part (e.g. ReduceLogSumExp of a
    // single element is the element itself).
    Value result = input;
    if constexpr (kind == Reduction::L2)
      result = ctx.createTyped<SqrtOp>(result);
    else if constexpr (kind == Reduction::LogSum)
      result = ctx.createTyped<LogOp>(result);
    ctx.setOutput(0, result);
    return success();
  }

  FailureOr<Value> result;
  if constexpr (kind == Reduction::LogSumExp) {
    // log(sum(exp(x - max))) + max, stable for large inputs.
    FailureOr<Value> max = ctx.create<ReduceMaxOp>(input, *axes, true);
    if (failed(max))
      return failure();
    FailureOr<Value> shifted = ctx.create<SubOp>(input, *max);
    if (failed(shifted))
      return failure();
    FailureOr<Value> sum = ctx.create<ReduceSumOp>(
        ctx.createTyped<ExpOp>(*shifted), *axes, true);
    if (failed(sum))
      return failure();
    result = ctx.create<AddOp>(ctx.createTyped<LogOp>(*sum), *max);
    if (succeeded(result) && !keep) {
      SmallVector<int64_t> shape;
      for (auto [d, size] : llvm::enumerate(typeOf(*result).getShape()))
        if (!llvm::is_contained(*axes, (int64_t)d))
          shape.push_back(size);
      result = ctx.reshape(*result, shape);
    }
  } else if constexpr (kind == Reduction::Mean) {
    result = ctx.create<ReduceMeanOp>(input, *axes, keep);
  } else if constexpr (kind == Reduction::Max) {
    result = ctx.create<ReduceMaxOp>(input, *axes, keep);
  } else if constexpr (kind == Reduction::Min) {
    result = ctx.create<ReduceMinOp>(input, *axes, keep);
  } else if constexpr (kind == Reduction::Prod) {
    result = ctx.create<ReduceProdOp>(input, *axes, keep);
  } else {
    result = ctx.create<ReduceSumOp>(input, *axes, keep);
  }
  if (failed(result))
    return failure();
  if constexpr (kind == Reduction::L2)
    result = ctx.createTyped<SqrtOp>(*result);
  else if constexpr (kind == Reduction::LogSum)
    result = ctx.createTyped<LogOp>(*result);
  ctx.setOutput(0, *result);
  return success();
}

template <typename OpTy>
LogicalResult importArgReduce(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), typeOf(*x).getRank());
  if (failed(axis))
    return failure();
  FailureOr<Value> y =
      ctx.create<OpTy>(*x, *axis, ctx.getInt("keepdims", 1) != 0,
                       ctx.getInt("select_last_index", 0) != 0);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

} // namespace

void onnx_import::registerReductionImporters(NodeImporterRegistry &r) {
  r["ReduceSum"] = importReduce<Reduction::Sum>;
  r["ReduceMean"] = importReduce<Reduction::Mean>;
  r["ReduceMax"] = importReduce<Reduction::Max>;
  r["ReduceMin"] = importReduce<Reduction::Min>;
  r["ReduceProd"] = importReduce<Reduction::Prod>;
  r["ReduceL1"] = importReduce<Reduction::L1>;
  r["ReduceL2"] = importReduce<Reduction::L2>;
  r["ReduceLogSum"] = importReduce<Reduction::LogSum>;
  r["ReduceLogSumExp"] = importReduce<Reduction::LogSumExp>;
  r["ReduceSumSquare"] = importReduce<Reduction::SumSquare>;
  r["ArgMax"] = importArgReduce<ArgMaxOp>;
  r["ArgMin"] = importArgReduce<ArgMinOp>;
}
