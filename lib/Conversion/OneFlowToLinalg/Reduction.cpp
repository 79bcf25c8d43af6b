//===- Reduction.cpp - Reductions, softmax, normalizations and losses -----===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::lowering;

namespace {

bool isFloatType(Type t) { return isa<FloatType>(t); }

enum class Combine { Sum, Prod, Max, Min };

Value combineScalar(OpBuilder &b, Location loc, Combine kind, Value x,
                    Value acc) {
  bool f = isFloatType(x.getType());
  switch (kind) {
  case Combine::Sum:
    return f ? (Value)arith::AddFOp::create(b, loc, x, acc)
             : (Value)arith::AddIOp::create(b, loc, x, acc);
  case Combine::Prod:
    return f ? (Value)arith::MulFOp::create(b, loc, x, acc)
             : (Value)arith::MulIOp::create(b, loc, x, acc);
  case Combine::Max:
    return f ? (Value)arith::MaximumFOp::create(b, loc, x, acc)
             : (Value)arith::MaxSIOp::create(b, loc, x, acc);
  case Combine::Min:
    return f ? (Value)arith::MinimumFOp::create(b, loc, x, acc)
             : (Value)arith::MinSIOp::create(b, loc, x, acc);
  }
  llvm_unreachable("unknown combine");
}

TypedAttr initOf(OpBuilder &b, Combine kind, Type type) {
  switch (kind) {
  case Combine::Sum:
    return b.getZeroAttr(type);
  case Combine::Prod:
    return isFloatType(type) ? (TypedAttr)b.getFloatAttr(type, 1.0)
                             : (TypedAttr)b.getIntegerAttr(type, 1);
  case Combine::Max:
    return lowestValue(type);
  case Combine::Min:
    return highestValue(type);
  }
  llvm_unreachable("unknown combine");
}

/// Reduces `input` over `axes` and keeps them as unit dimensions.
Value reduceKeep(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> axes, Combine kind) {
  RankedTensorType type = typeOf(input);
  Value reduced = buildReduction(
      b, loc, input, axes, initOf(b, kind, type.getElementType()),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        return combineScalar(nb, nl, kind, args[0], args[1]);
      });
  SmallVector<int64_t> kept(type.getShape());
  for (int64_t axis : axes)
    kept[axis] = 1;
  return reshapeTensor(b, loc, reduced,
                       RankedTensorType::get(kept, type.getElementType()));
}

/// Sum over `axes` (kept) divided by their element count.
Value meanKeep(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes) {
  Value sum = reduceKeep(b, loc, x, axes, Combine::Sum);
  return scaleF(b, loc, sum, 1.0 / countOver(typeOf(x), axes));
}

template <typename OpTy, Combine kind, bool isMean>
struct ReduceLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    Type element = typeOf(x).getElementType();
    Value reduced = buildReduction(
        rewriter, loc, x, op.getAxes(), initOf(rewriter, kind, element),
        [&](OpBuilder &b, Location l, ValueRange args) {
          return combineScalar(b, l, kind, args[0], args[1]);
        });
    if (isMean) {
      int64_t count = countOver(typeOf(x), op.getAxes());
      reduced =
          buildUnary(rewriter, loc, reduced,
                     [&](OpBuilder &b, Location l, Value v) -> Value {
                       Value n = scalarConstant(b, l, v.getType(), count);
                       return isFloatType(v.getType())
                                  ? (Value)arith::DivFOp::create(b, l, v, n)
                                  : (Value)arith::DivSIOp::create(b, l, v, n);
                     });
    }
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, reduced,
                                         op.getY().getType()));
    return success();
  }
};

/// f32 reduce_{sum,mean,max} over a run of consecutive axes that stops
/// before the last one -> oneflow_reduce_middle_*_f32(x, y, outer, middle,
/// inner) (CPU): the generated loops reduce there over strided elements,
/// one at a time (an NHWC global pool), the library over whole inner rows.
template <typename OpTy>
struct ReduceMiddleCall : public OpConversionPattern<OpTy> {
  ReduceMiddleCall(MLIRContext *context, StringRef callee)
      : OpConversionPattern<OpTy>(context, /*benefit=*/2), callee(callee) {}
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType x = typeOf(adaptor.getX());
    ArrayRef<int64_t> axes = op.getAxes();
    if (!x.getElementType().isF32() || axes.empty() ||
        axes.back() >= x.getRank() - 1 ||
        axes.back() - axes.front() + 1 != int64_t(axes.size()))
      return rewriter.notifyMatchFailure(op, "not a middle reduction");
    int64_t outer = 1, middle = 1, inner = 1;
    for (auto [d, size] : llvm::enumerate(x.getShape())) {
      if (int64_t(d) < axes.front())
        outer *= size;
      else if (int64_t(d) <= axes.back())
        middle *= size;
      else
        inner *= size;
    }
    rewriter.replaceOp(
        op, buildLibraryCall(rewriter, op.getLoc(), callee, {adaptor.getX()},
                             {op.getY().getType()}, {outer, middle, inner}));
    return success();
  }

private:
  std::string callee;
};

template <typename OpTy, bool isMax>
struct ArgReduceLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value x = adaptor.getX();
    RankedTensorType type = typeOf(x);
    int64_t rank = type.getRank(), axis = op.getAxis();
    SmallVector<int64_t> shape;
    SmallVector<AffineExpr> exprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(d == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (d != axis) {
        shape.push_back(type.getDimSize(d));
        exprs.push_back(getAffineDimExpr(d, context));
      }
    }
    Type element = type.getElementType(), i64 = rewriter.getI64Type();
    auto valueType = RankedTensorType::get(shape, element);
    auto indexType = RankedTensorType::get(shape, i64);
    AffineMap outMap = AffineMap::get(rank, 0, exprs, context);
    bool last = op.getSelectLastIndex();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, indexType}, ValueRange{x},
        ValueRange{filledTensor(rewriter, loc, valueType,
                                isMax ? lowestValue(element)
                                      : highestValue(element)),
                   filledTensor(rewriter, loc, indexType,
                                rewriter.getI64IntegerAttr(0))},
        {rewriter.getMultiDimIdentityMap(rank), outMap, outMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value in = args[0], best = args[1], bestIndex = args[2];
          Value index = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value better;
          if (isFloatType(element)) {
            auto pred = isMax ? (last ? arith::CmpFPredicate::OGE
                                      : arith::CmpFPredicate::OGT)
                              : (last ? arith::CmpFPredicate::OLE
                                      : arith::CmpFPredicate::OLT);
            better = arith::CmpFOp::create(b, l, pred, in, best);
          } else {
            auto pred = isMax ? (last ? arith::CmpIPredicate::sge
                                      : arith::CmpIPredicate::sgt)
                              : (last ? arith::CmpIPredicate::sle
                                      : arith::CmpIPredicate::slt);
            better = arith::CmpIOp::create(b, l, pred, in, best);
          }
          // The first element always wins, so all -inf rows still give 0.
          Value first = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, index,
              arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0)));
          better = arith::OrIOp::create(b, l, better, first);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, in, best),
                         arith::SelectOp::create(b, l, better, index,
                                                 bestIndex)});
        });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, generic.getResult(1),
                                         op.getY().getType()));
    return success();
  }
};

/// log_softmax (log = true) or softmax along `axis`.
Value softmax(OpBuilder &b, Location loc, Value x, int64_t axis, bool log) {
  Value max = reduceKeep(b, loc, x, {axis}, Combine::Max);
  Value shifted = subF(b, loc, x, max);
  Value exp =
      buildUnary(b, loc, shifted, [](OpBuilder &nb, Location nl, Value v) {
        return math::ExpOp::create(nb, nl, v).getResult();
      });
  Value sum = reduceKeep(b, loc, exp, {axis}, Combine::Sum);
  if (!log) {
    // One divide per row, a multiply per element.
    Value inverse =
        buildUnary(b, loc, sum, [](OpBuilder &nb, Location nl, Value v) {
          return arith::DivFOp::create(
                     nb, nl, scalarConstant(nb, nl, v.getType(), 1), v)
              .getResult();
        });
    return mulF(b, loc, exp, inverse);
  }
  Value logSum =
      buildUnary(b, loc, sum, [](OpBuilder &nb, Location nl, Value v) {
        return math::LogOp::create(nb, nl, v).getResult();
      });
  return subF(b, loc, shifted, logSum);
}

template <typename OpTy, bool isLog>
struct SoftmaxLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, softmax(rewriter, op.getLoc(), adaptor.getX(),
                                   op.getAxis(), isLog));
    return success();
  }
};

/// (x - mean) * rsqrt(var + eps) over `axes`, with the (biased) variance.
struct Normalized {
  Value y, mean, variance;
};
Normalized normalize(OpBuilder &b, Location loc, Value x,
                     ArrayRef<int64_t> axes, double epsilon) {
  Value mean = meanKeep(b, loc, x, axes);
  Value centered = subF(b, loc, x, mean);
  Value variance = meanKeep(b, loc, mulF(b, loc, centered, centered), axes);
  Value invStd = invStdOf(b, loc, variance, epsilon);
  return {mulF(b, loc, centered, invStd), mean, variance};
}

struct LayerNormLowering : public OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t rank = op.getX().getType().getRank();
    SmallVector<int64_t> axes =
        llvm::to_vector(llvm::seq<int64_t>(op.getAxis(), rank));
    Value y = normalize(rewriter, loc, adaptor.getX(), axes,
                        op.getEpsilon().convertToDouble())
                  .y;
    y = mulF(rewriter, loc, y, adaptor.getScale());
    if (adaptor.getBias())
      y = addF(rewriter, loc, y, adaptor.getBias());
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// A per-channel vector [C] shaped to broadcast over NC... as [C, 1, ...].
Value channelShaped(OpBuilder &b, Location loc, Value param, int64_t rank) {
  RankedTensorType type = typeOf(param);
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = type.getDimSize(0);
  return reshapeTensor(b, loc, param,
                       RankedTensorType::get(shape, type.getElementType()));
}

struct BatchNormLowering : public OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t rank = op.getX().getType().getRank();
    double eps = op.getEpsilon().convertToDouble();
    auto shaped = [&](Value v) { return channelShaped(rewriter, loc, v, rank); };
    Value invStd = invStdOf(rewriter, loc, shaped(adaptor.getVariance()), eps);
    Value y = subF(rewriter, loc, adaptor.getX(), shaped(adaptor.getMean()));
    y = mulF(rewriter, loc, y, mulF(rewriter, loc, invStd,
                                    shaped(adaptor.getScale())));
    y = addF(rewriter, loc, y, shaped(adaptor.getBias()));
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct BatchNormTrainLowering : public OpConversionPattern<BatchNormTrainOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormTrainOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType xType = op.getX().getType();
    int64_t rank = xType.getRank();
    SmallVector<int64_t> axes = batchNormAxes(rank);
    double eps = op.getEpsilon().convertToDouble(),
           momentum = op.getMomentum().convertToDouble();
    Normalized n = normalize(rewriter, loc, adaptor.getX(), axes, eps);
    auto shaped = [&](Value v) { return channelShaped(rewriter, loc, v, rank); };
    Value y = mulF(rewriter, loc, n.y, shaped(adaptor.getScale()));
    y = addF(rewriter, loc, y, shaped(adaptor.getBias()));
    RankedTensorType paramType = op.getScale().getType();
    auto flat = [&](Value v) {
      return reshapeTensor(rewriter, loc, v, paramType);
    };
    Value mean = flat(n.mean), variance = flat(n.variance);
    int64_t count = countOver(xType, axes);
    Value unbiased =
        scaleF(rewriter, loc, variance, count > 1 ? double(count) / (count - 1) : 1.0);
    auto blend = [&](Value running, Value batch) {
      return addF(rewriter, loc, scaleF(rewriter, loc, running, 1.0 - momentum),
                  scaleF(rewriter, loc, batch, momentum));
    };
    Value invStd = invStdOf(rewriter, loc, variance, eps);
    rewriter.replaceOp(op, {y, blend(adaptor.getRunningMean(), mean),
                            blend(adaptor.getRunningVariance(), unbiased),
                            mean, invStd});
    return success();
  }
};

template <typename OpTy, Combine kind>
struct GlobalPoolLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value y = kind == Combine::Sum
                  ? meanKeep(rewriter, loc, adaptor.getX(), {2, 3})
                  : reduceKeep(rewriter, loc, adaptor.getX(), {2, 3}, kind);
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Reduces per-position losses ([...]) by `reduction`, weighted by `weights`
/// (null: all ones).
Value reduceLoss(OpBuilder &b, Location loc, Value losses, Value weights,
                 LossReduction reduction) {
  if (weights)
    losses = mulF(b, loc, losses, weights);
  if (reduction == LossReduction::None)
    return losses;
  RankedTensorType type = typeOf(losses);
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  auto sumAll = [&](Value v) {
    return reshapeTensor(b, loc, reduceKeep(b, loc, v, all, Combine::Sum),
                         scalarType);
  };
  Value total = sumAll(losses);
  if (reduction == LossReduction::Sum)
    return total;
  if (weights)
    return divF(b, loc, total, sumAll(weights));
  return scaleF(b, loc, total, 1.0 / std::max<int64_t>(type.getNumElements(), 1));
}

struct SoftmaxCrossEntropyLowering
    : public OpConversionPattern<SoftmaxCrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits(), labels = adaptor.getLabels();
    RankedTensorType type = typeOf(logits);
    int64_t rank = type.getRank();
    Value logProb = softmax(rewriter, loc, logits, rank - 1, /*log=*/true);
    // picked[...] = -logProb[..., label[...]] as a masked sum over classes.
    RankedTensorType labelType = typeOf(labels);
    SmallVector<int64_t> expandedShape(labelType.getShape());
    expandedShape.push_back(1);
    Value expanded = reshapeTensor(
        rewriter, loc, labels,
        RankedTensorType::get(expandedShape, labelType.getElementType()));
    Value masked = buildElementwise(
        rewriter, loc, type, {logProb, expanded},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value index = linalg::IndexOp::create(b, l, rank - 1);
          Value label = arith::IndexCastOp::create(b, l, b.getIndexType(),
                                                   args[1]);
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            index, label);
          Value zero = scalarConstant(b, l, args[0].getType(), 0);
          return arith::SelectOp::create(b, l, hit,
                                         arith::NegFOp::create(b, l, args[0]),
                                         zero);
        });
    Value losses = reshapeTensor(
        rewriter, loc, reduceKeep(rewriter, loc, masked, {rank - 1}, Combine::Sum),
        RankedTensorType::get(labelType.getShape(), type.getElementType()));
    Value weights;
    if (std::optional<int64_t> ignore = op.getIgnoreIndex()) {
      weights = buildElementwise(
          rewriter, loc,
          RankedTensorType::get(labelType.getShape(), type.getElementType()),
          {labels}, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value ignored = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::eq, args[0],
                scalarConstant(b, l, args[0].getType(), *ignore));
            Type f = type.getElementType();
            return arith::SelectOp::create(b, l, ignored,
                                           scalarConstant(b, l, f, 0),
                                           scalarConstant(b, l, f, 1));
          });
    }
    rewriter.replaceOp(op, reduceLoss(rewriter, loc, losses, weights,
                                      op.getReduction()));
    return success();
  }
};

struct MseLossLowering : public OpConversionPattern<MseLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MseLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value diff = subF(rewriter, loc, adaptor.getInput(), adaptor.getTarget());
    rewriter.replaceOp(op, reduceLoss(rewriter, loc, mulF(rewriter, loc, diff, diff),
                                      Value(), op.getReduction()));
    return success();
  }
};

} // namespace

void lowering::populateReductionPatterns(RewritePatternSet &patterns,
                                         bool libraryCalls) {
  MLIRContext *context = patterns.getContext();
  if (libraryCalls) {
    patterns.add<ReduceMiddleCall<ReduceSumOp>>(
        context, "oneflow_reduce_middle_sum_f32");
    patterns.add<ReduceMiddleCall<ReduceMeanOp>>(
        context, "oneflow_reduce_middle_mean_f32");
    patterns.add<ReduceMiddleCall<ReduceMaxOp>>(
        context, "oneflow_reduce_middle_max_f32");
  }
  patterns.add<ReduceLowering<ReduceSumOp, Combine::Sum, false>,
               ReduceLowering<ReduceMeanOp, Combine::Sum, true>,
               ReduceLowering<ReduceMaxOp, Combine::Max, false>,
               ReduceLowering<ReduceMinOp, Combine::Min, false>,
               ReduceLowering<ReduceProdOp, Combine::Prod, false>,
               ArgReduceLowering<ArgMaxOp, true>,
               ArgReduceLowering<ArgMinOp, false>,
               SoftmaxLowering<SoftmaxOp, false>,
               SoftmaxLowering<LogSoftmaxOp, true>, LayerNormLowering,
               BatchNormLowering, BatchNormTrainLowering,
               GlobalPoolLowering<GlobalAvgPool2DOp, Combine::Sum>,
               GlobalPoolLowering<GlobalMaxPool2DOp, Combine::Max>,
               SoftmaxCrossEntropyLowering, MseLossLowering>(context);
}
