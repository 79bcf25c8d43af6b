//===- NormalizationImporters.cpp - Norms and softmax ---------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

LogicalResult importBatchNorm(NodeContext &ctx) {
  SmallVector<Value, 5> in;
  for (unsigned i = 0; i < 5; ++i) {
    FailureOr<Value> v = ctx.getInput(i);
    if (failed(v))
      return failure();
    in.push_back(*v);
  }
  if (ctx.getOpset() < 9 && ctx.getInt("spatial", 1) != 1)
    return ctx.emitError() << "non-spatial BatchNormalization is not "
                              "supported";
  OpBuilder &b = ctx.getBuilder();
  FloatAttr epsilon = b.getF64FloatAttr(ctx.getFloat("epsilon", 1e-5));
  bool training = ctx.getInt("training_mode", 0) != 0;
  if (!training) {
    Value y = ctx.createTyped<BatchNormOp>(in[0], in[1], in[2], in[3], in[4],
                                           epsilon);
    // Statistics read under another initializer's name: training gives
    // them variables of their own, named as here.
    const onnx::NodeProto &node = ctx.getNode();
    bool renamed = false;
    for (unsigned i : {3u, 4u})
      if (auto variable = in[i].getDefiningOp<VariableOp>())
        renamed |= variable.getVarName() != node.input(i);
    if (auto norm = y.getDefiningOp<BatchNormOp>(); norm && renamed)
      norm->setAttr("onnx.statistics", // kStatisticNamesAttrName
                    b.getStrArrayAttr({node.input(3), node.input(4)}));
    ctx.setOutput(0, y);
    return success();
  }
  if (ctx.hasOutput(1) || ctx.hasOutput(2))
    return ctx.emitError() << "the running-statistics outputs of "
                              "training-mode BatchNormalization are not "
                              "supported";
  // ONNX weighs the old running value by momentum; oneflow (like PyTorch)
  // weighs the new batch statistic.
  FloatAttr momentum =
      b.getF64FloatAttr(1.0 - ctx.getFloat("momentum", 0.9));
  auto op = BatchNormTrainOp::create(b, ctx.getLoc(), in[0], in[1], in[2],
                                     in[3], in[4], epsilon, momentum);
  ctx.setOutput(0, op.getY());
  return success();
}

/// (x - mean) / sqrt(var + eps) over `axes`, returning also the mean and the
/// inverse standard deviation (both with the reduced axes kept).
struct Normalized {
  Value y, mean, invStd;
};

FailureOr<Normalized> normalize(NodeContext &ctx, Value x,
                                ArrayRef<int64_t> axes, double epsilon) {
  Type elementType = typeOf(x).getElementType();
  FailureOr<Value> mean = ctx.create<ReduceMeanOp>(x, axes, true);
  if (failed(mean))
    return failure();
  FailureOr<Value> centered = ctx.create<SubOp>(x, *mean);
  if (failed(centered))
    return failure();
  FailureOr<Value> squared = ctx.create<MulOp>(*centered, *centered);
  if (failed(squared))
    return failure();
  FailureOr<Value> variance = ctx.create<ReduceMeanOp>(*squared, axes, true);
  if (failed(variance))
    return failure();
  FailureOr<Value> shifted =
      ctx.create<AddOp>(*variance, ctx.splat(elementType, epsilon));
  if (failed(shifted))
    return failure();
  Value invStd = ctx.createTyped<RsqrtOp>(*shifted);
  FailureOr<Value> y = ctx.create<MulOp>(*centered, invStd);
  if (failed(y))
    return failure();
  return Normalized{*y, *mean, invStd};
}

/// y * scale + bias, with optional bias.
FailureOr<Value> affine(NodeContext &ctx, Value y, Value scale, Value bias) {
  FailureOr<Value> scaled = ctx.create<MulOp>(y, scale);
  if (failed(scaled) || !bias)
    return scaled;
  return ctx.create<AddOp>(*scaled, bias);
}

LogicalResult importLayerNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0), scale = ctx.getInput(1);
  if (failed(x) || failed(scale))
    return failure();
  Value bias;
  if (ctx.hasInput(2)) {
    FailureOr<Value> b = ctx.getInput(2);
    if (failed(b))
      return failure();
    bias = *b;
  }
  int64_t rank = typeOf(*x).getRank();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  double epsilon = ctx.getFloat("epsilon", 1e-5);
  ArrayRef<int64_t> normalizedShape = typeOf(*x).getShape().drop_front(*axis);
  bool exactParams =
      typeOf(*scale).getShape() == normalizedShape &&
      (!bias || typeOf(bias).getShape() == normalizedShape);
  if (!ctx.hasOutput(1) && !ctx.hasOutput(2) && exactParams) {
    OpBuilder &b = ctx.getBuilder();
    ctx.setOutput(0, ctx.createTyped<LayerNormOp>(
                         *x, *scale, bias, b.getI64IntegerAttr(*axis),
                         b.getF64FloatAttr(epsilon)));
    return success();
  }
  // The statistics are wanted, or scale/bias broadcast: spell it out.
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
  FailureOr<Normalized> n = normalize(ctx, *x, axes, epsilon);
  if (failed(n))
    return failure();
  FailureOr<Value> y = affine(ctx, n->y, *scale, bias);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  ctx.setOutput(1, n->mean);
  ctx.setOutput(2, n->invStd);
  return success();
}

LogicalResult importInstanceNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0), scale = ctx.getInput(1),
                   bias = ctx.getInput(2);
  if (failed(x) || failed(scale) || failed(bias))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if (rank < 3)
    return ctx.emitError() << "input must have rank >= 3";
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank));
  FailureOr<Normalized> n =
      normalize(ctx, *x, axes, ctx.getFloat("epsilon", 1e-5));
  if (failed(n))
    return failure();
  // Per-channel parameters broadcast as [C, 1, ..., 1].
  SmallVector<int64_t> paramShape(rank - 1, 1);
  paramShape[0] = typeOf(*scale).getNumElements();
  FailureOr<Value> y = affine(ctx, n->y, ctx.reshape(*scale, paramShape),
                              ctx.reshape(*bias, paramShape));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Before opset 13, softmax-like ops flatten the input to 2-D at `axis` and
/// work on the trailing block; from 13 on they work along one axis.
template <typename OpTy>
LogicalResult importSoftmaxLike(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  int64_t rank = type.getRank();
  bool coerced = ctx.getOpset() < 13;
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", coerced ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  if (!coerced || *axis == rank - 1) {
    Value y = ctx.createTyped<OpTy>(
        *x, ctx.getBuilder().getI64IntegerAttr(coerced ? rank - 1 : *axis));
    ctx.setOutput(0, y);
    return success();
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < *axis ? outer : inner) *= type.getDimSize(d);
  Value flat = ctx.reshape(*x, {outer, inner});
  Value y = ctx.createTyped<OpTy>(flat, ctx.getBuilder().getI64IntegerAttr(1));
  ctx.setOutput(0, ctx.reshape(y, type.getShape()));
  return success();
}

LogicalResult importHardmax(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  int64_t rank = type.getRank();
  bool coerced = ctx.getOpset() < 13;
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", coerced ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  Value input = *x;
  int64_t along = *axis;
  if (coerced) {
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d)
      (d < *axis ? outer : inner) *= type.getDimSize(d);
    input = ctx.reshape(input, {outer, inner});
    along = 1;
  }
  RankedTensorType inType = typeOf(input);
  FailureOr<Value> index =
      ctx.create<ArgMaxOp>(input, along, /*keepdims=*/true, false);
  if (failed(index))
    return failure();
  // One-hot of the first maximum: compare with an iota along the axis.
  int64_t size = inType.getDimSize(along);
  SmallVector<int64_t> iotaShape(inType.getRank(), 1);
  iotaShape[along] = size;
  auto iotaType =
      RankedTensorType::get(iotaShape, ctx.getBuilder().getI64Type());
  Value iota = ctx.constant(makeDenseInts(
      iotaType, llvm::to_vector(llvm::seq<int64_t>(0, size))));
  FailureOr<Value> hot = ctx.create<EqualOp>(*index, iota);
  if (failed(hot))
    return failure();
  Value y = ctx.cast(*hot, type.getElementType());
  ctx.setOutput(0, ctx.reshape(y, type.getShape()));
  return success();
}

LogicalResult importMeanVarianceNormalization(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  SmallVector<int64_t> axes = ctx.getInts("axes");
  if (!ctx.hasAttr("axes"))
    axes = {0, 2, 3};
  for (int64_t &axis : axes) {
    FailureOr<int64_t> a = normalizeAxis(ctx, axis, rank);
    if (failed(a))
      return failure();
    axis = *a;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  FailureOr<Normalized> n = normalize(ctx, *x, axes, 1e-9);
  if (failed(n))
    return failure();
  ctx.setOutput(0, n->y);
  return success();
}

/// Local response normalization across channels: the windowed sum of
/// squares is an average pool over the channel axis (scaled by `size`).
LogicalResult importLRN(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  if (type.getRank() < 3)
    return ctx.emitError() << "input must have rank >= 3";
  if (!isa<FloatType>(type.getElementType()))
    return ctx.emitError() << "input must be a floating-point tensor";
  int64_t size = ctx.getInt("size", 0);
  if (size <= 0)
    return ctx.emitError() << "size must be positive";
  double alpha = ctx.getFloat("alpha", 1e-4), beta = ctx.getFloat("beta", 0.75),
         bias = ctx.getFloat("bias", 1.0);
  Type elementType = type.getElementType();
  int64_t n = type.getDimSize(0), c = type.getDimSize(1), spatial = 1;
  for (int64_t d = 2; d < type.getRank(); ++d)
    spatial *= type.getDimSize(d);
  FailureOr<Value> square = ctx.create<MulOp>(*x, *x);
  if (failed(square))
    return failure();
  Value windows = ctx.reshape(*square, {n, 1, c, spatial});
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  FailureOr<Value> mean = ctx.create<AvgPool2DOp>(
      windows, SmallVector<int64_t>{size, 1}, SmallVector<int64_t>{1, 1},
      SmallVector<int64_t>{before, 0, after, 0}, false,
      /*count_include_pad=*/true);
  if (failed(mean))
    return failure();
  // bias + alpha / size * sum = bias + alpha * mean.
  FailureOr<Value> scaled = ctx.create<MulOp>(
      ctx.reshape(*mean, type.getShape()), ctx.splat(elementType, alpha));
  if (failed(scaled))
    return failure();
  FailureOr<Value> base =
      ctx.create<AddOp>(*scaled, ctx.splat(elementType, bias));
  if (failed(base))
    return failure();
  FailureOr<Value> denominator =
      ctx.create<PowOp>(*base, ctx.splat(elementType, beta));
  if (failed(denominator))
    return failure();
  FailureOr<Value> y = ctx.create<DivOp>(*x, *denominator);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

} // namespace

void onnx_import::registerNormalizationImporters(NodeImporterRegistry &r) {
  r["MeanVarianceNormalization"] = importMeanVarianceNormalization;
  r["LRN"] = importLRN;
  r["BatchNormalization"] = importBatchNorm;
  r["LayerNormalization"] = importLayerNorm;
  r["InstanceNormalization"] = importInstanceNorm;
  r["Softmax"] = importSoftmaxLike<SoftmaxOp>;
  r["LogSoftmax"] = importSoftmaxLike<LogSoftmaxOp>;
  r["Hardmax"] = importHardmax;
}
