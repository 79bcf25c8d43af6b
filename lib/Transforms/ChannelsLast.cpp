//===- ChannelsLast.cpp - Keep activations NHWC across conv chains --------===//
//
// oneDNN's fastest CPU convolutions read and write channels-last (NHWC)
// activations; with the plan's NCHW tensors every conv kernel transposed
// its input in and its output back, once per conv. This pass rewrites an
// inference plan's f32 convolutions to take NHWC activations between
// explicit transposes, then sinks each transpose towards the end of the
// graph through the ops that do not care about the layout (elementwise and
// broadcasting ops, concatenation, global pooling), through pools (the
// kernel library has NHWC ones) and inference batch norm (rewritten as a
// per-channel multiply-add), until a transpose to NCHW meets the next
// conv's transpose to NHWC and both fold away. What is left is a transpose
// wherever a chain of such ops ends: the graph's input, layout-bound ops
// between convs (reshapes, ops with an axis), the head. This is ONNX
// Runtime's NCHWc transformer and TensorFlow's layout optimizer in spirit,
// on the plain channels-last layout oneDNN's brgconv kernels take.
//
// Only convs marked `constant_weight` are rewritten: their plans never
// differentiate them (a training plan's convs and gradients stay NCHW).
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_CHANNELSLAST
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};
constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};

/// `type` with its dimensions permuted as a transpose by `perm` would.
RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  return RankedTensorType::get(shape, type.getElementType());
}

/// The type a result of `type` has before a transpose by `perm`.
RankedTensorType unpermuted(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape(type.getRank());
  for (auto [i, d] : llvm::enumerate(perm))
    shape[d] = type.getDimSize(i);
  return RankedTensorType::get(shape, type.getElementType());
}

Value transpose(PatternRewriter &rewriter, Location loc, Value value,
                ArrayRef<int64_t> perm) {
  return TransposeOp::create(rewriter, loc, value,
                             rewriter.getDenseI64ArrayAttr(perm));
}

/// Replaces `op` (a conv or pool with x and y) by its `channels_last` form
/// on the NHWC value `input`, followed by a transpose back to NCHW.
template <typename OpTy>
void replaceByChannelsLast(PatternRewriter &rewriter, OpTy op, Value input) {
  auto nhwc = cast<OpTy>(rewriter.clone(*op));
  nhwc.getXMutable().assign(input);
  nhwc.setChannelsLast(true);
  nhwc.getY().setType(permuted(op.getY().getType(), kToChannelsLast));
  rewriter.replaceOp(
      op, transpose(rewriter, op.getLoc(), nhwc.getY(), kToChannelsFirst));
}

/// An f32 NCHW conv whose weights never change (an inference plan's).
bool isCandidate(Conv2DOp conv) {
  RankedTensorType x = conv.getX().getType();
  return !conv.getChannelsLast() && conv.getConstantWeight() &&
         x.getElementType().isF32() && x.getRank() == 4;
}

/// conv2d(x) -> transpose(conv2d channels_last (transpose(x))).
struct ConvToChannelsLast : public OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DOp conv,
                                PatternRewriter &rewriter) const override {
    if (!isCandidate(conv))
      return rewriter.notifyMatchFailure(conv, "not an f32 inference conv");
    replaceByChannelsLast(
        rewriter, conv,
        transpose(rewriter, conv.getLoc(), conv.getX(), kToChannelsLast));
    return success();
  }
};

/// Whether a value of `type` reads the same in any layout of a rank-`rank`
/// result it broadcasts into (every dimension 1).
bool isLayoutFree(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked &&
         llvm::all_of(ranked.getShape(), [](int64_t d) { return d == 1; });
}

/// op(transpose(a, p), transpose(b, p)) -> transpose(op(a, b), p) for
/// elementwise and broadcasting ops whose operands are all transposed the
/// same way (or are single elements).
struct SinkThroughElementwise : public RewritePattern {
  SinkThroughElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // Batch norm's channel axis is 1, and dropout's mask follows the
    // elements' order: neither is layout-free; nor is an op with an axis.
    if (getFusionKind(op) != FusionKind::Elementwise ||
        isa<BatchNormOp, DropoutOp>(op) || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 ||
        llvm::any_of(op->getAttrs(), [](NamedAttribute attr) {
          StringRef name = attr.getName().strref();
          return name == "axis" || name == "axes";
        }))
      return failure();
    auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!result)
      return failure();
    std::optional<SmallVector<int64_t>> perm;
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      auto inner = operand.getDefiningOp<TransposeOp>();
      if (inner && cast<RankedTensorType>(operand.getType()).getRank() ==
                       result.getRank()) {
        SmallVector<int64_t> innerPerm(inner.getPerm());
        if (perm && *perm != innerPerm)
          return failure();
        perm = innerPerm;
        operands.push_back(inner.getX());
      } else if (isLayoutFree(operand.getType())) {
        operands.push_back(operand);
      } else {
        return failure();
      }
    }
    if (!perm)
      return failure();
    Operation *sunk = rewriter.clone(*op);
    sunk->setOperands(operands);
    sunk->getResult(0).setType(unpermuted(result, *perm));
    rewriter.replaceOp(
        op, transpose(rewriter, op->getLoc(), sunk->getResult(0), *perm));
    return success();
  }
};

/// concat(transpose(a, p), transpose(b, p); axis) ->
/// transpose(concat(a, b; p[axis]), p).
struct SinkThroughConcat : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm;
    SmallVector<Value> inputs;
    for (Value input : concat.getInputs()) {
      auto inner = input.getDefiningOp<TransposeOp>();
      if (!inner || (perm && ArrayRef<int64_t>(*perm) != inner.getPerm()))
        return failure();
      perm = SmallVector<int64_t>(inner.getPerm());
      inputs.push_back(inner.getX());
    }
    if (!perm)
      return failure();
    int64_t axis = (*perm)[concat.getAxis()];
    Value joined = ConcatOp::create(rewriter, concat.getLoc(), inputs,
                                    rewriter.getI64IntegerAttr(axis));
    rewriter.replaceOp(concat,
                       transpose(rewriter, concat.getLoc(), joined, *perm));
    return success();
  }
};

/// global pool(transpose(x, to NCHW)) -> transpose(reduce over H and W of
/// the NHWC x, keeping them as 1s).
template <typename PoolOp, typename ReduceOp>
struct SinkThroughGlobalPool : public OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(PoolOp pool,
                                PatternRewriter &rewriter) const override {
    auto inner = pool.getX().template getDefiningOp<TransposeOp>();
    if (!inner || inner.getPerm() != ArrayRef<int64_t>(kToChannelsFirst))
      return failure();
    Value reduced = ReduceOp::create(rewriter, pool.getLoc(), inner.getX(),
                                     SmallVector<int64_t>{1, 2},
                                     /*keepdims=*/true);
    rewriter.replaceOp(
        pool, transpose(rewriter, pool.getLoc(), reduced, kToChannelsFirst));
    return success();
  }
};

/// batch_norm(transpose(x, to NCHW)) -> transpose(x * a + b) with the
/// per-channel a = scale / sqrt(variance + epsilon) and b = bias - mean * a
/// ([c] vectors, which broadcast along NHWC's last dimension): DenseNet's
/// normalizations before each conv, which no conv before them absorbs.
struct SinkThroughBatchNorm : public OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp norm,
                                PatternRewriter &rewriter) const override {
    auto inner = norm.getX().getDefiningOp<TransposeOp>();
    RankedTensorType params = norm.getScale().getType();
    if (!inner || inner.getPerm() != ArrayRef<int64_t>(kToChannelsFirst) ||
        params.getRank() != 1)
      return failure();
    Location loc = norm.getLoc();
    auto scalarType = RankedTensorType::get({}, params.getElementType());
    Value epsilon = ConstantOp::create(
        rewriter, loc, scalarType,
        DenseElementsAttr::get(
            scalarType,
            rewriter.getFloatAttr(params.getElementType(),
                                  norm.getEpsilon().convertToDouble())));
    Value spread = AddOp::create(rewriter, loc, norm.getVariance(), epsilon);
    Value a = MulOp::create(rewriter, loc, norm.getScale(),
                            RsqrtOp::create(rewriter, loc, spread));
    Value b = SubOp::create(rewriter, loc, norm.getBias(),
                            MulOp::create(rewriter, loc, norm.getMean(), a));
    Value scaled = MulOp::create(rewriter, loc, inner.getX(), a);
    Value shifted = AddOp::create(rewriter, loc, scaled, b);
    rewriter.replaceOp(norm,
                       transpose(rewriter, loc, shifted, kToChannelsFirst));
    return success();
  }
};

/// pool(transpose(x, to NCHW)) -> transpose(pool channels_last (x)) for f32
/// max and average pools (the kernel library's NHWC pools).
template <typename PoolOp>
struct SinkThroughPool : public OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(PoolOp pool,
                                PatternRewriter &rewriter) const override {
    auto inner = pool.getX().template getDefiningOp<TransposeOp>();
    if (pool.getChannelsLast() || !inner ||
        inner.getPerm() != ArrayRef<int64_t>(kToChannelsFirst) ||
        !pool.getType().getElementType().isF32())
      return failure();
    replaceByChannelsLast(rewriter, pool, inner.getX());
    return success();
  }
};

/// A transpose that only moves dimensions of size 1 keeps the elements'
/// order: a reshape (a view, where the transpose would copy).
struct UnitTransposeToReshape : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType x = op.getX().getType();
    SmallVector<int64_t> moved;
    for (int64_t d : op.getPerm())
      if (x.getDimSize(d) != 1)
        moved.push_back(d);
    if (!llvm::is_sorted(moved))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getX());
    return success();
  }
};

struct ChannelsLastPass
    : public oneflow::impl::ChannelsLastBase<ChannelsLastPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // Plans without such convs (training, transformers) are left exactly
    // as they are: the rewrites below also touch other transposes.
    bool any = false;
    getOperation()->walk([&](Conv2DOp conv) { any |= isCandidate(conv); });
    if (!any)
      return;
    // Nothing but these patterns and folding: no region simplification or
    // constant merging that the rest of the pipeline did not ask for.
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.enableConstantCSE(false);
    // First the layout moves (transposes sink and cancel), then what is
    // left of them on size-1 dimensions becomes views: doing both at once
    // would turn a transpose into a reshape before it meets its inverse.
    RewritePatternSet sink(context);
    sink.add<ConvToChannelsLast, SinkThroughElementwise, SinkThroughConcat,
             SinkThroughGlobalPool<GlobalAvgPool2DOp, ReduceMeanOp>,
             SinkThroughGlobalPool<GlobalMaxPool2DOp, ReduceMaxOp>,
             SinkThroughPool<MaxPool2DOp>, SinkThroughPool<AvgPool2DOp>,
             SinkThroughBatchNorm>(context);
    TransposeOp::getCanonicalizationPatterns(sink, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(sink), config)))
      return signalPassFailure();
    RewritePatternSet views(context);
    views.add<UnitTransposeToReshape>(context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(views), config)))
      return signalPassFailure();
  }
};

} // namespace
