//===- ElementwiseImporters.cpp - Elementwise ONNX ops --------------------===//

#include "ImportContext.h"
#include "oneflow/Dialect/OneFlow/DropoutStep.h"

#include <limits>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// Defines output 0 as `value` when building it succeeded.
LogicalResult setResult(NodeContext &ctx, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  ctx.setOutput(0, *value);
  return success();
}

template <typename OpTy>
LogicalResult importUnary(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, ctx.createTyped<OpTy>(*x));
  return success();
}

template <typename OpTy>
LogicalResult importBinary(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.getInput(0), rhs = ctx.getInput(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  return setResult(ctx, ctx.create<OpTy>(*lhs, *rhs));
}

/// Max, Min, Sum: any number of operands, folded left to right.
template <typename OpTy>
FailureOr<Value> foldVariadic(NodeContext &ctx) {
  if (ctx.getNumInputs() == 0)
    return ctx.emitError() << "needs at least one input";
  FailureOr<Value> acc = ctx.getInput(0);
  for (unsigned i = 1; succeeded(acc) && i < ctx.getNumInputs(); ++i) {
    FailureOr<Value> next = ctx.getInput(i);
    if (failed(next))
      return failure();
    acc = ctx.create<OpTy>(*acc, *next);
  }
  return acc;
}

template <typename OpTy>
LogicalResult importVariadic(NodeContext &ctx) {
  return setResult(ctx, foldVariadic<OpTy>(ctx));
}

LogicalResult importMean(NodeContext &ctx) {
  FailureOr<Value> sum = foldVariadic<AddOp>(ctx);
  if (failed(sum))
    return failure();
  Value count = ctx.splat(elementTypeOf(*sum), ctx.getNumInputs());
  return setResult(ctx, ctx.create<DivOp>(*sum, count));
}

LogicalResult importPow(NodeContext &ctx) {
  FailureOr<Value> base = ctx.getInput(0), exponent = ctx.getInput(1);
  if (failed(base) || failed(exponent))
    return failure();
  // ONNX allows an exponent of another numeric type.
  return setResult(ctx, ctx.create<PowOp>(
                            *base, ctx.cast(*exponent, elementTypeOf(*base))));
}

LogicalResult importWhere(NodeContext &ctx) {
  FailureOr<Value> cond = ctx.getInput(0), x = ctx.getInput(1),
                   y = ctx.getInput(2);
  if (failed(cond) || failed(x) || failed(y))
    return failure();
  return setResult(ctx, ctx.create<WhereOp>(*cond, *x, *y));
}

LogicalResult importIdentity(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, *x);
  return success();
}

/// Each element's row-major index (int64, `shape`): a sum of per-dimension
/// index constants, which SBP splits along with the tensor.
Value dropoutPositions(NodeContext &ctx, ArrayRef<int64_t> shape) {
  OpBuilder &b = ctx.getBuilder();
  Value total;
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (shape[d] > 1) {
      SmallVector<int64_t> indexShape(shape.size(), 1);
      indexShape[d] = shape[d];
      SmallVector<int64_t> values;
      for (int64_t i = 0; i < shape[d]; ++i)
        values.push_back(i * stride);
      auto type = RankedTensorType::get(indexShape, b.getI64Type());
      Value term =
          ConstantOp::create(b, ctx.getLoc(), type,
                             DenseElementsAttr::get(type, ArrayRef(values)));
      total = total ? AddOp::create(b, ctx.getLoc(), total, term).getResult()
                    : term;
    }
    stride *= shape[d];
  }
  if (!total)
    total = ctx.splat(b.getI64Type(), 0, shape);
  return total;
}

LogicalResult importDropout(NodeContext &ctx) {
  bool training = false;
  if (ctx.hasInput(2)) {
    FailureOr<double> mode = ctx.getConstantScalar(2, "training_mode");
    if (failed(mode))
      return failure();
    training = *mode != 0;
  }
  // The ratio matters (and must be known) only in training.
  double ratio = ctx.getFloat("ratio", 0.5);
  if (training && ctx.hasInput(1)) {
    FailureOr<double> given = ctx.getConstantScalar(1, "ratio");
    if (failed(given))
      return failure();
    ratio = *given;
  }
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  // Inference (or ratio 0): the identity, with an all-true mask.
  if (!training || ratio == 0.0) {
    ctx.setOutput(0, *x);
    if (ctx.hasOutput(1))
      ctx.setOutput(
          1, ctx.splat(ctx.getBuilder().getI1Type(), 1, type.getShape()));
    return success();
  }
  if (!(ratio > 0.0 && ratio < 1.0))
    return ctx.emitError() << "ratio " << ratio << " is not in [0, 1)";
  // Training: a counter-based mask (seed, this dropout's stream, the step,
  // each element's position).
  OpBuilder &b = ctx.getBuilder();
  int64_t stream = 0;
  for (Operation &op : *b.getInsertionBlock())
    stream += isa<DropoutOp>(op);
  // The step counter, advanced once per step at the end of the import.
  Value step = getOrCreateDropoutStep(b, *b.getInsertionBlock());
  Value positions = dropoutPositions(ctx, type.getShape());
  auto make = [&](Value input) {
    return DropoutOp::create(b, ctx.getLoc(), input.getType(), input, positions,
                             step, b.getF64FloatAttr(ratio),
                             b.getI64IntegerAttr(ctx.getInt("seed", 0)),
                             b.getI64IntegerAttr(stream));
  };
  ctx.setOutput(0, make(*x));
  if (ctx.hasOutput(1)) {
    // The mask: where dropout keeps a one.
    Value kept = make(ctx.splat(type.getElementType(), 1, type.getShape()));
    ctx.setOutput(1, NotEqualOp::create(b, ctx.getLoc(), kept,
                                        ctx.splat(type.getElementType(), 0)));
  }
  return success();
}

FailureOr<Type> dtypeAttr(NodeContext &ctx, llvm::StringRef name) {
  int64_t to = ctx.getInt(name, -1);
  Type type = convertElementType(ctx.getContext(), to);
  if (!type)
    return ctx.emitError() << "cannot convert to " << onnxTypeName(to)
                           << ", which OneFlow-MLIR does not handle";
  return type;
}

LogicalResult importCast(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  FailureOr<Type> to = dtypeAttr(ctx, "to");
  if (failed(x) || failed(to))
    return failure();
  ctx.setOutput(0, ctx.cast(*x, *to));
  return success();
}

LogicalResult importCastLike(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0), like = ctx.getInput(1);
  if (failed(x) || failed(like))
    return failure();
  ctx.setOutput(0, ctx.cast(*x, elementTypeOf(*like)));
  return success();
}

LogicalResult importClip(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  OpBuilder &b = ctx.getBuilder();
  FloatAttr minAttr, maxAttr;
  Value result = *x;
  if (ctx.getOpset() < 11) {
    double inf = std::numeric_limits<double>::infinity();
    double lo = ctx.getFloat("min", -inf), hi = ctx.getFloat("max", inf);
    if (lo != -inf)
      minAttr = b.getF64FloatAttr(lo);
    if (hi != inf)
      maxAttr = b.getF64FloatAttr(hi);
  } else {
    // Bounds known at import time become attributes; others clamp with
    // max/min at run time.
    for (unsigned index : {1u, 2u}) {
      if (!ctx.hasInput(index))
        continue;
      FloatAttr &attr = index == 1 ? minAttr : maxAttr;
      if (DenseElementsAttr bound = ctx.getConstantInput(index)) {
        if (bound.getNumElements() != 1)
          return ctx.emitError() << "the " << (index == 1 ? "min" : "max")
                                 << " bound must be a scalar";
        attr = b.getF64FloatAttr(getFloatValues(bound).front());
        continue;
      }
      FailureOr<Value> boundValue = ctx.getInput(index);
      if (failed(boundValue))
        return failure();
      FailureOr<Value> clamped =
          index == 1 ? ctx.create<MaxOp>(result, *boundValue)
                     : ctx.create<MinOp>(result, *boundValue);
      if (failed(clamped))
        return failure();
      result = *clamped;
    }
  }
  if (minAttr || maxAttr)
    result = ClipOp::create(b, ctx.getLoc(), result, minAttr, maxAttr);
  ctx.setOutput(0, result);
  return success();
}

template <typename OpTy>
LogicalResult importAlphaUnary(NodeContext &ctx, double defaultAlpha) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, ctx.createTyped<OpTy>(
                       *x, ctx.getBuilder().getF64FloatAttr(
                               ctx.getFloat("alpha", defaultAlpha))));
  return success();
}

LogicalResult importSelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  Builder &b = ctx.getBuilder();
  ctx.setOutput(0, ctx.createTyped<SeluOp>(
                       *x, b.getF64FloatAttr(ctx.getFloat("alpha", 1.67326319217681884765625)),
                       b.getF64FloatAttr(ctx.getFloat("gamma", 1.05070102214813232421875))));
  return success();
}

LogicalResult importHardSigmoid(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  Builder &b = ctx.getBuilder();
  ctx.setOutput(0, ctx.createTyped<HardSigmoidOp>(
                       *x, b.getF64FloatAttr(ctx.getFloat("alpha", 0.2)),
                       b.getF64FloatAttr(ctx.getFloat("beta", 0.5))));
  return success();
}

LogicalResult importHardSwish(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  Builder &b = ctx.getBuilder();
  Value gate = ctx.createTyped<HardSigmoidOp>(*x, b.getF64FloatAttr(1.0 / 6),
                                              b.getF64FloatAttr(0.5));
  return setResult(ctx, ctx.create<MulOp>(*x, gate));
}

LogicalResult importCelu(NodeContext &ctx) {
  // celu(x) = alpha * elu(x / alpha).
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  double alpha = ctx.getFloat("alpha", 1.0);
  Value alphaValue = ctx.splat(elementTypeOf(*x), alpha);
  FailureOr<Value> scaled = ctx.create<DivOp>(*x, alphaValue);
  if (failed(scaled))
    return failure();
  Value elu =
      ctx.createTyped<EluOp>(*scaled, ctx.getBuilder().getF64FloatAttr(1.0));
  return setResult(ctx, ctx.create<MulOp>(elu, alphaValue));
}

LogicalResult importThresholdedRelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  Type type = elementTypeOf(*x);
  FailureOr<Value> above =
      ctx.create<GreaterOp>(*x, ctx.splat(type, ctx.getFloat("alpha", 1.0)));
  if (failed(above))
    return failure();
  return setResult(ctx,
                   ctx.create<WhereOp>(*above, *x, ctx.splat(type, 0.0)));
}

LogicalResult importShrink(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  Type type = elementTypeOf(*x);
  double bias = ctx.getFloat("bias", 0.0), lambd = ctx.getFloat("lambd", 0.5);
  FailureOr<Value> low = ctx.create<LessOp>(*x, ctx.splat(type, -lambd));
  FailureOr<Value> high = ctx.create<GreaterOp>(*x, ctx.splat(type, lambd));
  FailureOr<Value> plus = ctx.create<AddOp>(*x, ctx.splat(type, bias));
  FailureOr<Value> minus = ctx.create<SubOp>(*x, ctx.splat(type, bias));
  if (failed(low) || failed(high) || failed(plus) || failed(minus))
    return failure();
  FailureOr<Value> inner =
      ctx.create<WhereOp>(*high, *minus, ctx.splat(type, 0.0));
  if (failed(inner))
    return failure();
  return setResult(ctx, ctx.create<WhereOp>(*low, *plus, *inner));
}

LogicalResult importPRelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0), slope = ctx.getInput(1);
  if (failed(x) || failed(slope))
    return failure();
  // A per-channel slope [C] that does not broadcast from the right (opset
  // 6 models, converted) applies along axis 1.
  Value slopeValue = *slope;
  auto xType = cast<RankedTensorType>(x->getType());
  auto sType = cast<RankedTensorType>(slope->getType());
  if (sType.getRank() == 1 && xType.getRank() >= 3 &&
      sType.getDimSize(0) == xType.getDimSize(1) &&
      xType.getShape().back() != sType.getDimSize(0) &&
      sType.getDimSize(0) != 1) {
    SmallVector<int64_t> shape(xType.getRank() - 1, 1);
    shape[0] = sType.getDimSize(0);
    slopeValue = ctx.reshape(slopeValue, shape);
  }
  FailureOr<Value> negative =
      ctx.create<LessOp>(*x, ctx.splat(elementTypeOf(*x), 0.0));
  FailureOr<Value> scaled = ctx.create<MulOp>(*x, slopeValue);
  if (failed(negative) || failed(scaled))
    return failure();
  return setResult(ctx, ctx.create<WhereOp>(*negative, *scaled, *x));
}

LogicalResult importTan(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  return setResult(ctx, ctx.create<DivOp>(ctx.createTyped<SinOp>(*x),
                                          ctx.createTyped<CosOp>(*x)));
}

/// sinh and cosh: (exp(x) -/+ exp(-x)) / 2.
template <typename CombineOp>
LogicalResult importHyperbolic(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  Value up = ctx.createTyped<ExpOp>(*x);
  Value down = ctx.createTyped<ExpOp>(ctx.createTyped<NegOp>(*x));
  FailureOr<Value> combined = ctx.create<CombineOp>(up, down);
  if (failed(combined))
    return failure();
  return setResult(
      ctx, ctx.create<MulOp>(*combined, ctx.splat(elementTypeOf(*x), 0.5)));
}

/// asinh(x) = log(x + sqrt(x^2 + 1)), acosh(x) = log(x + sqrt(x^2 - 1)).
LogicalResult importInverseHyperbolic(NodeContext &ctx, double sign) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  FailureOr<Value> square = ctx.create<MulOp>(*x, *x);
  if (failed(square))
    return failure();
  FailureOr<Value> shifted =
      ctx.create<AddOp>(*square, ctx.splat(elementTypeOf(*x), sign));
  if (failed(shifted))
    return failure();
  FailureOr<Value> sum =
      ctx.create<AddOp>(*x, ctx.createTyped<SqrtOp>(*shifted));
  if (failed(sum))
    return failure();
  ctx.setOutput(0, ctx.createTyped<LogOp>(*sum));
  return success();
}

/// atanh(x) = 0.5 * log((1 + x) / (1 - x)).
LogicalResult importAtanh(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  Type type = elementTypeOf(*x);
  Value one = ctx.splat(type, 1.0);
  FailureOr<Value> num = ctx.create<AddOp>(one, *x);
  FailureOr<Value> den = ctx.create<SubOp>(one, *x);
  if (failed(num) || failed(den))
    return failure();
  FailureOr<Value> ratio = ctx.create<DivOp>(*num, *den);
  if (failed(ratio))
    return failure();
  return setResult(ctx, ctx.create<MulOp>(ctx.createTyped<LogOp>(*ratio),
                                          ctx.splat(type, 0.5)));
}

LogicalResult importIsNaN(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  return setResult(ctx, ctx.create<NotEqualOp>(*x, *x));
}

LogicalResult importIsInf(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  Type type = elementTypeOf(*x);
  double inf = std::numeric_limits<double>::infinity();
  FailureOr<Value> pos = ctx.create<EqualOp>(*x, ctx.splat(type, inf));
  FailureOr<Value> neg = ctx.create<EqualOp>(*x, ctx.splat(type, -inf));
  if (failed(pos) || failed(neg))
    return failure();
  bool detectPos = ctx.getInt("detect_positive", 1),
       detectNeg = ctx.getInt("detect_negative", 1);
  if (detectPos && detectNeg)
    return setResult(ctx, ctx.create<OrOp>(*pos, *neg));
  if (detectPos || detectNeg) {
    ctx.setOutput(0, detectPos ? *pos : *neg);
    return success();
  }
  return setResult(ctx, ctx.create<AndOp>(*pos, *neg));
}

LogicalResult importMod(NodeContext &ctx) {
  // r = a - b * floor(a / b) (fmod = 0, sign of the divisor) or
  // a - b * trunc(a / b) (fmod = 1), computed in f64 so that integers stay
  // exact.
  FailureOr<Value> a = ctx.getInput(0), b = ctx.getInput(1);
  if (failed(a) || failed(b))
    return failure();
  Type type = elementTypeOf(*a);
  Type f64 = ctx.getBuilder().getF64Type();
  Value fa = ctx.cast(*a, f64), fb = ctx.cast(*b, f64);
  FailureOr<Value> quotient = ctx.create<DivOp>(fa, fb);
  if (failed(quotient))
    return failure();
  Value rounded;
  if (ctx.getInt("fmod", 0)) {
    // trunc(q) = sign(q) * floor(|q|).
    FailureOr<Value> truncated = ctx.create<MulOp>(
        ctx.createTyped<SignOp>(*quotient),
        ctx.createTyped<FloorOp>(ctx.createTyped<AbsOp>(*quotient)));
    if (failed(truncated))
      return failure();
    rounded = *truncated;
  } else {
    rounded = ctx.createTyped<FloorOp>(*quotient);
  }
  FailureOr<Value> product = ctx.create<MulOp>(fb, rounded);
  if (failed(product))
    return failure();
  FailureOr<Value> remainder = ctx.create<SubOp>(fa, *product);
  if (failed(remainder))
    return failure();
  ctx.setOutput(0, ctx.cast(*remainder, type));
  return success();
}

} // namespace

void onnx_import::registerElementwiseImporters(NodeImporterRegistry &r) {
  r["Abs"] = importUnary<AbsOp>;
  r["Neg"] = importUnary<NegOp>;
  r["Relu"] = importUnary<ReluOp>;
  r["Sigmoid"] = importUnary<SigmoidOp>;
  r["Tanh"] = importUnary<TanhOp>;
  r["Exp"] = importUnary<ExpOp>;
  r["Log"] = importUnary<LogOp>;
  r["Sqrt"] = importUnary<SqrtOp>;
  r["Reciprocal"] = importUnary<ReciprocalOp>;
  r["Erf"] = importUnary<ErfOp>;
  r["Sin"] = importUnary<SinOp>;
  r["Cos"] = importUnary<CosOp>;
  r["Asin"] = importUnary<AsinOp>;
  r["Acos"] = importUnary<AcosOp>;
  r["Atan"] = importUnary<AtanOp>;
  r["Ceil"] = importUnary<CeilOp>;
  r["Floor"] = importUnary<FloorOp>;
  r["Round"] = importUnary<RoundOp>;
  r["Sign"] = importUnary<SignOp>;
  r["Softplus"] = importUnary<SoftplusOp>;
  r["Softsign"] = importUnary<SoftsignOp>;
  r["Not"] = importUnary<NotOp>;
  r["Identity"] = importIdentity;
  r["Dropout"] = importDropout;
  r["LeakyRelu"] = [](NodeContext &ctx) {
    return importAlphaUnary<LeakyReluOp>(ctx, 0.01);
  };
  r["Elu"] = [](NodeContext &ctx) {
    return importAlphaUnary<EluOp>(ctx, 1.0);
  };
  r["Selu"] = importSelu;
  r["HardSigmoid"] = importHardSigmoid;
  r["HardSwish"] = importHardSwish;
  r["Celu"] = importCelu;
  r["ThresholdedRelu"] = importThresholdedRelu;
  r["Shrink"] = importShrink;
  r["PRelu"] = importPRelu;
  r["Tan"] = importTan;
  r["Sinh"] = importHyperbolic<SubOp>;
  r["Cosh"] = importHyperbolic<AddOp>;
  r["Asinh"] = [](NodeContext &ctx) {
    return importInverseHyperbolic(ctx, 1.0);
  };
  r["Acosh"] = [](NodeContext &ctx) {
    return importInverseHyperbolic(ctx, -1.0);
  };
  r["Atanh"] = importAtanh;
  r["IsNaN"] = importIsNaN;
  r["IsInf"] = importIsInf;
  r["Add"] = importBinary<AddOp>;
  r["Sub"] = importBinary<SubOp>;
  r["Mul"] = importBinary<MulOp>;
  r["Div"] = importBinary<DivOp>;
  r["Pow"] = importPow;
  r["Mod"] = importMod;
  r["And"] = importBinary<AndOp>;
  r["Or"] = importBinary<OrOp>;
  r["Xor"] = importBinary<XorOp>;
  r["Equal"] = importBinary<EqualOp>;
  r["Less"] = importBinary<LessOp>;
  r["LessOrEqual"] = importBinary<LessEqualOp>;
  r["Greater"] = importBinary<GreaterOp>;
  r["GreaterOrEqual"] = importBinary<GreaterEqualOp>;
  r["Where"] = importWhere;
  r["Max"] = importVariadic<MaxOp>;
  r["Min"] = importVariadic<MinOp>;
  r["Sum"] = importVariadic<AddOp>;
  r["Mean"] = importMean;
  r["Cast"] = importCast;
  r["CastLike"] = importCastLike;
  r["Clip"] = importClip;
}
