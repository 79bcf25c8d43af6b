//===- OneFlowGradients.cpp - Gradient rules of the oneflow ops -----------===//
//
// Reverse-mode rules for every differentiable op, attached to the ops as
// external models of GradientOpInterface. Most rules are short compositions
// of forward ops (so they inherit those ops' SBP rules and lowering); the
// rest use the gradient ops of OneFlowGradOps.td. Constants that depend on a
// tensor's size (1/N of a mean) are taken from the global types, so a rule
// means the same on a distributed program.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::oneflow;

namespace {
/// Builds the ops of a gradient rule at one location.
class GradBuilder {
public:
  GradBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  OpBuilder &builder() { return b; }
  Location location() const { return loc; }

  static RankedTensorType typeOf(Value value) {
    return cast<RankedTensorType>(value.getType());
  }

  /// A rank-0 constant of `like`'s element type.
  Value scalar(Value like, double value) {
    auto type = RankedTensorType::get({}, typeOf(like).getElementType());
    return ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type,
                               b.getFloatAttr(type.getElementType(), value)));
  }
  Value zeros(RankedTensorType type) {
    return ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  }

  Value add(Value lhs, Value rhs) { return AddOp::create(b, loc, lhs, rhs); }
  Value sub(Value lhs, Value rhs) { return SubOp::create(b, loc, lhs, rhs); }
  Value mul(Value lhs, Value rhs) { return MulOp::create(b, loc, lhs, rhs); }
  Value div(Value lhs, Value rhs) { return DivOp::create(b, loc, lhs, rhs); }
  Value mul(Value lhs, double rhs) { return mul(lhs, scalar(lhs, rhs)); }
  Value neg(Value value) { return NegOp::create(b, loc, value); }
  Value exp(Value value) { return ExpOp::create(b, loc, value); }
  Value square(Value value) { return mul(value, value); }
  Value where(Value condition, Value onTrue, Value onFalse) {
    return WhereOp::create(b, loc, condition, onTrue, onFalse);
  }
  /// `value` where `condition` holds, else zero.
  Value mask(Value condition, Value value) {
    return where(condition, value, scalar(value, 0.0));
  }
  /// 1.0 where `condition` holds, else 0.0, in `like`'s element type.
  Value indicator(Value condition, Value like) {
    auto type = typeOf(condition).clone(typeOf(like).getElementType());
    return CastOp::create(b, loc, type, condition);
  }
  Value reshape(Value value, RankedTensorType type) {
    if (value.getType() == type)
      return value;
    return ReshapeOp::create(b, loc, type, value);
  }
  Value expand(Value value, RankedTensorType type) {
    if (value.getType() == type)
      return value;
    return ExpandOp::create(b, loc, type, value);
  }
  Value reduceSum(Value value, ArrayRef<int64_t> axes, bool keepDims) {
    if (axes.empty())
      return value;
    return ReduceSumOp::create(b, loc, value, axes, keepDims);
  }

  /// The gradient of a value broadcast (numpy rules) from `target` to
  /// `grad`'s shape: summed over the broadcast dimensions.
  Value sumTo(Value grad, RankedTensorType target) {
    if (!grad)
      return grad;
    RankedTensorType type = typeOf(grad);
    if (type == target)
      return grad;
    int64_t lead = type.getRank() - target.getRank();
    SmallVector<int64_t> axes;
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (dim < lead ||
          (target.getDimSize(dim - lead) == 1 && type.getDimSize(dim) != 1))
        axes.push_back(dim);
    return reshape(reduceSum(grad, axes, /*keepDims=*/false), target);
  }

  /// `dy` of a reduction over `axes` of `input`, as keep-dims shaped and
  /// then broadcast back to the input.
  Value unreduce(Value dy, RankedTensorType input, ArrayRef<int64_t> axes) {
    SmallVector<int64_t> kept(input.getShape());
    for (int64_t axis : axes)
      kept[axis] = 1;
    return expand(reshape(dy, typeOf(dy).clone(kept)), input);
  }

private:
  OpBuilder &b;
  Location loc;
};

using Grads = SmallVectorImpl<Value>;
using RankedType = RankedTensorType;

RankedType typeOf(Value value) { return GradBuilder::typeOf(value); }

bool isFloat(Value value) {
  return isa<FloatType>(typeOf(value).getElementType());
}

LogicalResult noRule(Operation *op, const Twine &why) {
  return op->emitOpError() << "has no gradient rule " << why;
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops: dx = dy * f(x, y)
//===----------------------------------------------------------------------===//

/// The local derivative dy/dx of a unary op, or null for a zero gradient.
template <typename OpT> Value derivative(OpT op, GradBuilder &g);

#define UNARY_DERIVATIVE(OpT, body)                                            \
  template <> Value derivative(OpT op, GradBuilder &g) {                       \
    [[maybe_unused]] Value x = op.getX();                                      \
    [[maybe_unused]] Value y = op.getY();                                      \
    body                                                                       \
  }

UNARY_DERIVATIVE(ReluOp, {
  return g.indicator(
      GreaterOp::create(g.builder(), g.location(), x, g.scalar(x, 0.0)), x);
})
UNARY_DERIVATIVE(TanhOp, { return g.sub(g.scalar(y, 1.0), g.square(y)); })
UNARY_DERIVATIVE(SigmoidOp, { return g.mul(y, g.sub(g.scalar(y, 1.0), y)); })
UNARY_DERIVATIVE(ExpOp, { return y; })
UNARY_DERIVATIVE(LogOp,
                 { return ReciprocalOp::create(g.builder(), g.location(), x); })
UNARY_DERIVATIVE(SqrtOp, { return g.div(g.scalar(y, 0.5), y); })
UNARY_DERIVATIVE(RsqrtOp, { return g.mul(g.mul(g.square(y), y), -0.5); })
UNARY_DERIVATIVE(ErfOp, {
  return g.mul(g.exp(g.neg(g.square(x))), 2.0 / std::sqrt(M_PI));
})
UNARY_DERIVATIVE(ReciprocalOp, { return g.neg(g.square(y)); })
UNARY_DERIVATIVE(SinOp, { return CosOp::create(g.builder(), g.location(), x); })
UNARY_DERIVATIVE(CosOp,
                 { return g.neg(SinOp::create(g.builder(), g.location(), x)); })
UNARY_DERIVATIVE(SoftplusOp,
                 { return SigmoidOp::create(g.builder(), g.location(), x); })
UNARY_DERIVATIVE(SoftsignOp, {
  Value denominator =
      g.add(g.scalar(x, 1.0), AbsOp::create(g.builder(), g.location(), x));
  return ReciprocalOp::create(g.builder(), g.location(), g.square(denominator));
})
UNARY_DERIVATIVE(SiluOp, {
  Value s = SigmoidOp::create(g.builder(), g.location(), x);
  // s * (1 + x * (1 - s))
  return g.mul(s,
               g.add(g.scalar(x, 1.0), g.mul(x, g.sub(g.scalar(x, 1.0), s))));
})
UNARY_DERIVATIVE(AsinOp, {
  return RsqrtOp::create(g.builder(), g.location(),
                         g.sub(g.scalar(x, 1.0), g.square(x)));
})
UNARY_DERIVATIVE(AcosOp, {
  return g.neg(RsqrtOp::create(g.builder(), g.location(),
                               g.sub(g.scalar(x, 1.0), g.square(x))));
})
UNARY_DERIVATIVE(AtanOp, {
  return ReciprocalOp::create(g.builder(), g.location(),
                              g.add(g.scalar(x, 1.0), g.square(x)));
})
UNARY_DERIVATIVE(GeluOp, {
  if (op.getApproximate() == GeluApproximation::None) {
    // Phi(x) + x * phi(x)
    Value cdf =
        g.mul(g.add(g.scalar(x, 1.0), ErfOp::create(g.builder(), g.location(),
                                                    g.mul(x, M_SQRT1_2))),
              0.5);
    Value pdf =
        g.mul(g.exp(g.mul(g.square(x), -0.5)), 1.0 / std::sqrt(2 * M_PI));
    return g.add(cdf, g.mul(x, pdf));
  }
  // 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 c x^2), t = tanh(u)
  constexpr double c = 0.044715;
  const double k = std::sqrt(2.0 / M_PI);
  Value x2 = g.square(x);
  Value u = g.mul(g.add(x, g.mul(g.mul(x2, x), c)), k);
  Value t = TanhOp::create(g.builder(), g.location(), u);
  Value du = g.mul(g.add(g.scalar(x, 1.0), g.mul(x2, 3 * c)), k);
  Value left = g.mul(g.add(g.scalar(x, 1.0), t), 0.5);
  Value right =
      g.mul(g.mul(g.mul(x, g.sub(g.scalar(x, 1.0), g.square(t))), du), 0.5);
  return g.add(left, right);
})
UNARY_DERIVATIVE(LeakyReluOp, {
  Value positive =
      GreaterOp::create(g.builder(), g.location(), x, g.scalar(x, 0.0));
  return g.where(positive, g.scalar(x, 1.0),
                 g.scalar(x, op.getAlpha().convertToDouble()));
})
UNARY_DERIVATIVE(EluOp, {
  Value positive =
      GreaterOp::create(g.builder(), g.location(), x, g.scalar(x, 0.0));
  return g.where(positive, g.scalar(x, 1.0),
                 g.add(y, g.scalar(y, op.getAlpha().convertToDouble())));
})
UNARY_DERIVATIVE(SeluOp, {
  double alpha = op.getAlpha().convertToDouble();
  double gamma = op.getGamma().convertToDouble();
  Value positive =
      GreaterOp::create(g.builder(), g.location(), x, g.scalar(x, 0.0));
  return g.where(positive, g.scalar(x, gamma),
                 g.add(y, g.scalar(y, gamma * alpha)));
})
UNARY_DERIVATIVE(HardSigmoidOp, {
  double alpha = op.getAlpha().convertToDouble();
  double beta = op.getBeta().convertToDouble();
  Value z = g.add(g.mul(x, alpha), g.scalar(x, beta));
  Value inside = AndOp::create(
      g.builder(), g.location(),
      GreaterOp::create(g.builder(), g.location(), z, g.scalar(z, 0.0)),
      LessOp::create(g.builder(), g.location(), z, g.scalar(z, 1.0)));
  return g.mul(g.indicator(inside, x), alpha);
})
UNARY_DERIVATIVE(AbsOp,
                 { return SignOp::create(g.builder(), g.location(), x); })
UNARY_DERIVATIVE(ClipOp, {
  Value inside;
  auto conjoin = [&](Value condition) {
    inside =
        inside
            ? Value(AndOp::create(g.builder(), g.location(), inside, condition))
            : condition;
  };
  if (std::optional<APFloat> low = op.getMin())
    conjoin(GreaterEqualOp::create(g.builder(), g.location(), x,
                                   g.scalar(x, low->convertToDouble())));
  if (std::optional<APFloat> high = op.getMax())
    conjoin(LessEqualOp::create(g.builder(), g.location(), x,
                                g.scalar(x, high->convertToDouble())));
  if (!inside)
    return g.scalar(x, 1.0);
  return g.indicator(inside, x);
})

#undef UNARY_DERIVATIVE

template <typename OpT>
LogicalResult unaryGradient(OpT op, GradBuilder &g, ArrayRef<Value> dys,
                            Grads &dxs) {
  if (!isFloat(op.getX()))
    return dxs.push_back(Value()), success();
  Value factor = derivative(op, g);
  dxs.push_back(g.expand(g.mul(dys[0], factor), typeOf(op.getX())));
  return success();
}

/// Piecewise-constant ops: the gradient is zero almost everywhere.
template <typename OpT>
LogicalResult zeroGradient(OpT, GradBuilder &, ArrayRef<Value>, Grads &dxs) {
  dxs.push_back(Value());
  return success();
}

//===----------------------------------------------------------------------===//
// Rules by op
//===----------------------------------------------------------------------===//

LogicalResult gradientOf(NegOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(g.neg(dys[0]));
  return success();
}

LogicalResult gradientOf(AddOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(g.sumTo(dys[0], typeOf(op.getLhs())));
  dxs.push_back(g.sumTo(dys[0], typeOf(op.getRhs())));
  return success();
}

LogicalResult gradientOf(SubOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(g.sumTo(dys[0], typeOf(op.getLhs())));
  dxs.push_back(g.sumTo(g.neg(dys[0]), typeOf(op.getRhs())));
  return success();
}

LogicalResult gradientOf(MulOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(g.sumTo(g.mul(dys[0], op.getRhs()), typeOf(op.getLhs())));
  dxs.push_back(g.sumTo(g.mul(dys[0], op.getLhs()), typeOf(op.getRhs())));
  return success();
}

LogicalResult gradientOf(DivOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  Value dLhs = g.div(dys[0], op.getRhs());
  dxs.push_back(g.sumTo(dLhs, typeOf(op.getLhs())));
  // -dy * a / b^2 = -(dy / b) * y
  dxs.push_back(
      g.sumTo(g.neg(g.mul(dLhs, op.getResult())), typeOf(op.getRhs())));
  return success();
}

LogicalResult gradientOf(PowOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  Value a = op.getLhs(), e = op.getRhs(), y = op.getResult();
  Value aPow =
      PowOp::create(g.builder(), g.location(), a, g.sub(e, g.scalar(e, 1.0)));
  dxs.push_back(g.sumTo(g.mul(dys[0], g.mul(e, aPow)), typeOf(a)));
  Value logA = LogOp::create(g.builder(), g.location(), a);
  dxs.push_back(g.sumTo(g.mul(dys[0], g.mul(y, logA)), typeOf(e)));
  return success();
}

/// max/min: the gradient goes to the chosen operand, split evenly on ties
/// (as PyTorch's maximum/minimum).
template <typename OpT, typename PickOp>
LogicalResult extremumGradient(OpT op, GradBuilder &g, ArrayRef<Value> dys,
                               Grads &dxs) {
  Value a = op.getLhs(), b = op.getRhs();
  Value picked = PickOp::create(g.builder(), g.location(), a, b);
  Value tied = EqualOp::create(g.builder(), g.location(), a, b);
  Value share =
      g.add(g.indicator(picked, dys[0]), g.mul(g.indicator(tied, dys[0]), 0.5));
  Value dA = g.mul(dys[0], share);
  dxs.push_back(g.sumTo(dA, typeOf(a)));
  dxs.push_back(g.sumTo(g.sub(dys[0], dA), typeOf(b)));
  return success();
}
LogicalResult gradientOf(MaxOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  return extremumGradient<MaxOp, GreaterOp>(op, g, dys, dxs);
}
LogicalResult gradientOf(MinOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  return extremumGradient<MinOp, LessOp>(op, g, dys, dxs);
}

LogicalResult gradientOf(WhereOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  Value zero = g.scalar(dys[0], 0.0);
  dxs.push_back(Value());
  dxs.push_back(g.sumTo(g.where(op.getCondition(), dys[0], zero),
                        typeOf(op.getOnTrue())));
  dxs.push_back(g.sumTo(g.where(op.getCondition(), zero, dys[0]),
                        typeOf(op.getOnFalse())));
  return success();
}

/// y = x * mask * scale: dx = dy * mask * scale, the same draw on dy.
LogicalResult gradientOf(DropoutOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(DropoutOp::create(
      g.builder(), g.location(), dys[0], op.getPositions(), op.getStep(),
      op.getRatioAttr(), op.getSeedAttr(), op.getStreamAttr()));
  dxs.push_back(Value());
  dxs.push_back(Value());
  return success();
}

LogicalResult gradientOf(CastOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  if (!isFloat(op.getX()))
    return dxs.push_back(Value()), success();
  dxs.push_back(
      CastOp::create(g.builder(), g.location(), op.getX().getType(), dys[0]));
  return success();
}

LogicalResult gradientOf(MatmulOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  Value a = op.getA(), b = op.getB(), dy = dys[0];
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  OpBuilder &builder = g.builder();
  Location loc = g.location();
  // c = op(a) op(b); each case keeps the operand's own layout.
  if (!ta && !tb) {
    dxs.push_back(MatmulOp::create(builder, loc, dy, b, false, true));
    dxs.push_back(MatmulOp::create(builder, loc, a, dy, true, false));
  } else if (!ta && tb) {
    dxs.push_back(MatmulOp::create(builder, loc, dy, b, false, false));
    dxs.push_back(MatmulOp::create(builder, loc, dy, a, true, false));
  } else if (ta && !tb) {
    dxs.push_back(MatmulOp::create(builder, loc, b, dy, false, true));
    dxs.push_back(MatmulOp::create(builder, loc, a, dy, false, false));
  } else {
    dxs.push_back(MatmulOp::create(builder, loc, b, dy, true, true));
    dxs.push_back(MatmulOp::create(builder, loc, dy, a, true, true));
  }
  return success();
}

/// Whether every batch dimension of `value` (all but the last two) is 1.
static bool hasSharedMatrix(Value value) {
  return llvm::all_of(typeOf(value).getShape().drop_back(2),
                      [](int64_t dim) { return dim == 1; });
}

LogicalResult gradientOf(BatchMatmulOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  Value a = op.getA(), b = op.getB(), dy = dys[0];
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  OpBuilder &builder = g.builder();
  Location loc = g.location();
  RankedType aType = typeOf(a), dyType = typeOf(dy);
  // A weight shared by every batch (a linear layer on [B, T, C]): its
  // gradient is one product over all B * T rows, not B products summed.
  if (!ta && hasSharedMatrix(b) &&
      aType.getShape().drop_back() == dyType.getShape().drop_back()) {
    int64_t rows = aType.getNumElements() / aType.getShape().back();
    Value a2 = g.reshape(a, aType.clone({rows, aType.getShape().back()}));
    Value dy2 = g.reshape(dy, dyType.clone({rows, dyType.getShape().back()}));
    Value dB = tb ? MatmulOp::create(builder, loc, dy2, a2, true, false)
                  : MatmulOp::create(builder, loc, a2, dy2, true, false);
    dxs.push_back(BatchMatmulOp::create(builder, loc, dy, b, false, !tb));
    dxs.push_back(g.reshape(dB, typeOf(b)));
    return success();
  }
  Value dA, dB;
  if (!ta && !tb) {
    dA = BatchMatmulOp::create(builder, loc, dy, b, false, true);
    dB = BatchMatmulOp::create(builder, loc, a, dy, true, false);
  } else if (!ta && tb) {
    dA = BatchMatmulOp::create(builder, loc, dy, b, false, false);
    dB = BatchMatmulOp::create(builder, loc, dy, a, true, false);
  } else if (ta && !tb) {
    dA = BatchMatmulOp::create(builder, loc, b, dy, false, true);
    dB = BatchMatmulOp::create(builder, loc, a, dy, false, false);
  } else {
    dA = BatchMatmulOp::create(builder, loc, b, dy, true, true);
    dB = BatchMatmulOp::create(builder, loc, dy, a, true, true);
  }
  // Broadcast batch dimensions are summed back.
  dxs.push_back(g.sumTo(dA, typeOf(a)));
  dxs.push_back(g.sumTo(dB, typeOf(b)));
  return success();
}

LogicalResult gradientOf(Conv2DOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  OpBuilder &builder = g.builder();
  Location loc = g.location();
  RankedType x = typeOf(op.getX()), w = typeOf(op.getWeight());
  RankedType y = typeOf(op.getY());
  // The transposed convolution recovers the input size up to the rows the
  // strides skipped, which output_padding adds back.
  SmallVector<int64_t> outputPadding;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t stride = op.getStrides()[i], dilation = op.getDilations()[i];
    int64_t recovered = (y.getDimSize(2 + i) - 1) * stride - op.getPads()[i] -
                        op.getPads()[2 + i] +
                        dilation * (w.getDimSize(2 + i) - 1) + 1;
    outputPadding.push_back(x.getDimSize(2 + i) - recovered);
  }
  dxs.push_back(ConvTranspose2DOp::create(
      builder, loc, x, dys[0], op.getWeight(), Value(), op.getStridesAttr(),
      op.getPadsAttr(), op.getDilationsAttr(),
      builder.getDenseI64ArrayAttr(outputPadding), op.getGroupsAttr()));
  dxs.push_back(Conv2DGradFilterOp::create(
      builder, loc, w, op.getX(), dys[0], op.getStridesAttr(), op.getPadsAttr(),
      op.getDilationsAttr(), op.getGroupsAttr()));
  if (op.getBias())
    dxs.push_back(g.reduceSum(dys[0], {0, 2, 3}, /*keepDims=*/false));
  return success();
}

LogicalResult gradientOf(ConvTranspose2DOp op, GradBuilder &g,
                         ArrayRef<Value> dys, Grads &dxs) {
  // The transposed convolution is the adjoint of conv2d with the same
  // weight: dx = conv2d(dy, w), and dw is conv2d's filter gradient with the
  // roles of input and output swapped.
  OpBuilder &builder = g.builder();
  Location loc = g.location();
  dxs.push_back(Conv2DOp::create(builder, loc, op.getX().getType(), dys[0],
                                 op.getWeight(), Value(), op.getStridesAttr(),
                                 op.getPadsAttr(), op.getDilationsAttr(),
                                 op.getGroupsAttr()));
  dxs.push_back(Conv2DGradFilterOp::create(
      builder, loc, op.getWeight().getType(), dys[0], op.getX(),
      op.getStridesAttr(), op.getPadsAttr(), op.getDilationsAttr(),
      op.getGroupsAttr()));
  if (op.getBias())
    dxs.push_back(g.reduceSum(dys[0], {0, 2, 3}, /*keepDims=*/false));
  return success();
}

LogicalResult gradientOf(MaxPool2DOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(MaxPool2DGradOp::create(
      g.builder(), g.location(), op.getX().getType(), op.getX(), dys[0],
      op.getKernelAttr(), op.getStridesAttr(), op.getPadsAttr(),
      op.getDilationsAttr(), op.getCeilModeAttr()));
  return success();
}

LogicalResult gradientOf(AvgPool2DOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(AvgPool2DGradOp::create(
      g.builder(), g.location(), op.getX().getType(), dys[0],
      op.getKernelAttr(), op.getStridesAttr(), op.getPadsAttr(),
      op.getCeilModeAttr(), op.getCountIncludePadAttr()));
  return success();
}

LogicalResult gradientOf(GlobalAvgPool2DOp op, GradBuilder &g,
                         ArrayRef<Value> dys, Grads &dxs) {
  RankedType x = typeOf(op.getX());
  double count = double(x.getDimSize(2) * x.getDimSize(3));
  dxs.push_back(g.expand(g.mul(dys[0], 1.0 / count), x));
  return success();
}

LogicalResult gradientOf(GlobalMaxPool2DOp op, GradBuilder &g,
                         ArrayRef<Value> dys, Grads &dxs) {
  RankedType x = typeOf(op.getX());
  Value atMax = EqualOp::create(g.builder(), g.location(), op.getX(),
                                g.expand(op.getY(), x));
  dxs.push_back(g.mask(atMax, g.expand(dys[0], x)));
  return success();
}

LogicalResult gradientOf(BatchNormTrainOp op, GradBuilder &g,
                         ArrayRef<Value> dys, Grads &dxs) {
  // As in PyTorch, the statistics it outputs are not differentiated.
  if (llvm::any_of(dys.drop_front(), [](Value dy) { return bool(dy); }))
    return noRule(op, "for its running or saved statistics");
  Type scale = op.getScale().getType();
  auto grads = BatchNormGradOp::create(
      g.builder(), g.location(), op.getX().getType(), scale, scale, op.getX(),
      op.getScale(), op.getSavedMean(), op.getSavedInvStd(), dys[0]);
  dxs.append(
      {grads.getDx(), grads.getDscale(), grads.getDbias(), Value(), Value()});
  return success();
}

LogicalResult gradientOf(BatchNormOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  // Normalization with fixed statistics is affine per channel.
  RankedType x = typeOf(op.getX());
  SmallVector<int64_t> channelShape(x.getRank(), 1), otherAxes;
  channelShape[1] = x.getDimSize(1);
  for (int64_t dim = 0; dim < x.getRank(); ++dim)
    if (dim != 1)
      otherAxes.push_back(dim);
  RankedType channel = x.clone(channelShape);
  Value invStd = RsqrtOp::create(
      g.builder(), g.location(),
      g.add(op.getVariance(),
            g.scalar(op.getVariance(), op.getEpsilon().convertToDouble())));
  Value gain = g.reshape(g.mul(op.getScale(), invStd), channel);
  Value normalized = g.mul(g.sub(op.getX(), g.reshape(op.getMean(), channel)),
                           g.reshape(invStd, channel));
  RankedType scaleType = typeOf(op.getScale());
  Value dyGain = g.mul(dys[0], gain);
  dxs.push_back(dyGain);
  dxs.push_back(g.reshape(
      g.reduceSum(g.mul(dys[0], normalized), otherAxes, false), scaleType));
  dxs.push_back(g.reshape(g.reduceSum(dys[0], otherAxes, false), scaleType));
  // y = (x - mean) * scale * (var + eps)^-1/2 + bias.
  dxs.push_back(
      g.neg(g.reshape(g.reduceSum(dyGain, otherAxes, false), scaleType)));
  Value dNormalized = g.mul(g.mul(dyGain, normalized), -0.5);
  dxs.push_back(
      g.mul(g.reshape(g.reduceSum(dNormalized, otherAxes, false), scaleType),
            invStd));
  return success();
}

LogicalResult gradientOf(LayerNormOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  Type scale = op.getScale().getType();
  auto grads = LayerNormGradOp::create(
      g.builder(), g.location(), op.getX().getType(), scale, scale, op.getX(),
      op.getScale(), dys[0], op.getAxisAttr(), op.getEpsilonAttr());
  dxs.append({grads.getDx(), grads.getDscale()});
  if (op.getBias())
    dxs.push_back(g.sumTo(grads.getDbias(), typeOf(op.getBias())));
  return success();
}

SmallVector<int64_t> normalizedAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes)
    result.push_back(axis < 0 ? axis + rank : axis);
  return result;
}

LogicalResult gradientOf(ReduceSumOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  RankedType x = typeOf(op.getX());
  dxs.push_back(
      g.unreduce(dys[0], x, normalizedAxes(op.getAxes(), x.getRank())));
  return success();
}

LogicalResult gradientOf(ReduceMeanOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  RankedType x = typeOf(op.getX());
  SmallVector<int64_t> axes = normalizedAxes(op.getAxes(), x.getRank());
  int64_t count = 1;
  for (int64_t axis : axes)
    count *= x.getDimSize(axis);
  dxs.push_back(g.unreduce(g.mul(dys[0], 1.0 / double(count)), x, axes));
  return success();
}

template <typename OpT>
LogicalResult extremumReduceGradient(OpT op, GradBuilder &g,
                                     ArrayRef<Value> dys, Grads &dxs) {
  RankedType x = typeOf(op.getX());
  SmallVector<int64_t> axes = normalizedAxes(op.getAxes(), x.getRank());
  Value atExtremum = EqualOp::create(g.builder(), g.location(), op.getX(),
                                     g.unreduce(op.getY(), x, axes));
  dxs.push_back(g.mask(atExtremum, g.unreduce(dys[0], x, axes)));
  return success();
}
LogicalResult gradientOf(ReduceMaxOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  return extremumReduceGradient(op, g, dys, dxs);
}
LogicalResult gradientOf(ReduceMinOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  return extremumReduceGradient(op, g, dys, dxs);
}

LogicalResult gradientOf(ReduceProdOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  // d(prod)/dx_i = prod / x_i (inputs are assumed non-zero).
  RankedType x = typeOf(op.getX());
  SmallVector<int64_t> axes = normalizedAxes(op.getAxes(), x.getRank());
  Value scaled = g.mul(dys[0], op.getY());
  dxs.push_back(g.div(g.unreduce(scaled, x, axes), op.getX()));
  return success();
}

LogicalResult gradientOf(SoftmaxOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  // y * (dy - sum(dy * y))
  Value y = op.getY();
  Value dot = g.reduceSum(g.mul(dys[0], y), {int64_t(op.getAxis())}, true);
  dxs.push_back(g.mul(y, g.sub(dys[0], dot)));
  return success();
}

LogicalResult gradientOf(LogSoftmaxOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  // dy - softmax * sum(dy)
  Value total = g.reduceSum(dys[0], {int64_t(op.getAxis())}, true);
  dxs.push_back(g.sub(dys[0], g.mul(g.exp(op.getY()), total)));
  return success();
}

template <typename OpT>
LogicalResult reshapeGradient(OpT op, GradBuilder &g, ArrayRef<Value> dys,
                              Grads &dxs) {
  dxs.push_back(g.reshape(dys[0], typeOf(op->getOperand(0))));
  return success();
}

LogicalResult gradientOf(TransposeOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  ArrayRef<int64_t> perm = op.getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [index, dim] : llvm::enumerate(perm))
    inverse[dim] = index;
  dxs.push_back(TransposeOp::create(g.builder(), g.location(), dys[0],
                                    g.builder().getDenseI64ArrayAttr(inverse)));
  return success();
}

LogicalResult gradientOf(ConcatOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  RankedType y = typeOf(op.getResult());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += y.getRank();
  int64_t offset = 0;
  for (Value input : op.getInputs()) {
    RankedType type = typeOf(input);
    SmallVector<int64_t> starts(y.getRank(), 0), limits(y.getShape()),
        steps(y.getRank(), 1);
    starts[axis] = offset;
    limits[axis] = offset + type.getDimSize(axis);
    offset = limits[axis];
    dxs.push_back(SliceOp::create(g.builder(), g.location(), type, dys[0],
                                  starts, limits, steps));
  }
  return success();
}

LogicalResult gradientOf(SplitOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  SmallVector<Value> pieces;
  for (auto [result, dy] : llvm::zip(op.getOutputs(), dys))
    pieces.push_back(dy ? dy : g.zeros(typeOf(result)));
  RankedType x = typeOf(op.getX());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += x.getRank();
  dxs.push_back(ConcatOp::create(g.builder(), g.location(), x, pieces,
                                 g.builder().getI64IntegerAttr(axis)));
  return success();
}

LogicalResult gradientOf(SliceOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(SliceGradOp::create(
      g.builder(), g.location(), op.getX().getType(), dys[0],
      op.getStartsAttr(), op.getLimitsAttr(), op.getStepsAttr()));
  return success();
}

LogicalResult gradientOf(GatherOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(GatherGradOp::create(g.builder(), g.location(),
                                     op.getData().getType(), op.getIndices(),
                                     dys[0], op.getAxisAttr()));
  dxs.push_back(Value());
  return success();
}

LogicalResult gradientOf(GatherElementsOp op, GradBuilder &g,
                         ArrayRef<Value> dys, Grads &dxs) {
  dxs.push_back(GatherElementsGradOp::create(
      g.builder(), g.location(), op.getData().getType(), op.getIndices(),
      dys[0], op.getAxisAttr()));
  dxs.push_back(Value());
  return success();
}

LogicalResult gradientOf(CumSumOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(CumSumOp::create(g.builder(), g.location(), dys[0],
                                 op.getAxisAttr(), op.getExclusiveAttr(),
                                 op.getReverse() ? UnitAttr()
                                                 : g.builder().getUnitAttr()));
  return success();
}

LogicalResult gradientOf(ExpandOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  dxs.push_back(g.sumTo(dys[0], typeOf(op.getX())));
  return success();
}

LogicalResult gradientOf(TileOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  // [r0 * d0, r1 * d1, ...] -> [r0, d0, r1, d1, ...], summed over the r's.
  RankedType x = typeOf(op.getX());
  SmallVector<int64_t> split, repeatAxes;
  for (auto [dim, repeat] : llvm::enumerate(op.getRepeats())) {
    repeatAxes.push_back(split.size());
    split.push_back(repeat);
    split.push_back(x.getDimSize(dim));
  }
  Value pieces = g.reshape(dys[0], x.clone(split));
  dxs.push_back(g.reshape(g.reduceSum(pieces, repeatAxes, false), x));
  return success();
}

LogicalResult gradientOf(PadOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  if (op.getMode() != PadMode::Constant)
    return noRule(op, "for reflect or edge padding");
  RankedType x = typeOf(op.getX());
  int64_t rank = x.getRank();
  SmallVector<int64_t> starts, limits, steps(rank, 1);
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t low = op.getPads()[dim], high = op.getPads()[rank + dim];
    if (low < 0 || high < 0)
      return noRule(op, "for negative pads");
    starts.push_back(low);
    limits.push_back(low + x.getDimSize(dim));
  }
  dxs.push_back(SliceOp::create(g.builder(), g.location(), x, dys[0], starts,
                                limits, steps));
  return success();
}

/// The gradient of the per-position losses from that of the reduced loss.
Value perPositionGrad(GradBuilder &g, Value dy, LossReduction reduction,
                      RankedType positions, Value count) {
  if (reduction == LossReduction::None)
    return dy;
  if (reduction == LossReduction::Mean)
    dy = g.div(dy, count);
  return g.expand(dy, positions.clone(typeOf(dy).getElementType()));
}

LogicalResult gradientOf(SoftmaxCrossEntropyOp op, GradBuilder &g,
                         ArrayRef<Value> dys, Grads &dxs) {
  RankedType labels = typeOf(op.getLabels());
  Value dy = dys[0];
  Value count = g.scalar(dy, double(labels.getNumElements()));
  if (std::optional<int64_t> ignored = op.getIgnoreIndex();
      ignored && op.getReduction() == LossReduction::Mean) {
    // The mean is over the positions that are not ignored.
    auto indexType = RankedTensorType::get({}, labels.getElementType());
    Value ignoreValue = ConstantOp::create(
        g.builder(), g.location(), indexType,
        DenseElementsAttr::get(
            indexType,
            g.builder().getIntegerAttr(labels.getElementType(), *ignored)));
    Value kept = NotEqualOp::create(g.builder(), g.location(), op.getLabels(),
                                    ignoreValue);
    count = g.reduceSum(
        g.indicator(kept, dy),
        llvm::to_vector(llvm::seq<int64_t>(0, labels.getRank())), false);
  }
  Value perPosition = perPositionGrad(g, dy, op.getReduction(), labels, count);
  dxs.push_back(SoftmaxCrossEntropyGradOp::create(
      g.builder(), g.location(), op.getLogits().getType(), op.getLogits(),
      op.getLabels(), perPosition, op.getIgnoreIndexAttr()));
  dxs.push_back(Value());
  return success();
}

LogicalResult gradientOf(MseLossOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  RankedType input = typeOf(op.getInput());
  Value count = g.scalar(dys[0], double(input.getNumElements()));
  Value perElement =
      perPositionGrad(g, dys[0], op.getReduction(), input, count);
  Value diff = g.sub(op.getInput(), op.getTarget());
  Value dInput = g.mul(g.mul(diff, perElement), 2.0);
  dxs.push_back(dInput);
  dxs.push_back(g.neg(dInput));
  return success();
}

LogicalResult gradientOf(TopKOp op, GradBuilder &g, ArrayRef<Value> dys,
                         Grads &dxs) {
  // The values are gather_elements(x, indices) along the axis.
  int64_t axis = op.getAxis();
  if (axis < 0)
    axis += typeOf(op.getX()).getRank();
  dxs.push_back(dys[0] ? Value(GatherElementsGradOp::create(
                             g.builder(), g.location(), op.getX().getType(),
                             op.getIndices(), dys[0],
                             g.builder().getI64IntegerAttr(axis)))
                       : Value());
  return success();
}

//===----------------------------------------------------------------------===//
// Attachment
//===----------------------------------------------------------------------===//

/// How an op's rule is written: its own `gradientOf`, or one of the shared
/// families.
enum class RuleKind { Own, Unary, Zero, Reshape };

template <RuleKind Kind, typename OpT>
struct GradientModel
    : public GradientOpInterface::ExternalModel<GradientModel<Kind, OpT>, OpT> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) const {
    GradBuilder g(builder, op->getLoc());
    auto typed = cast<OpT>(op);
    if constexpr (Kind == RuleKind::Unary)
      return unaryGradient(typed, g, resultGrads, operandGrads);
    else if constexpr (Kind == RuleKind::Zero)
      return zeroGradient(typed, g, resultGrads, operandGrads);
    else if constexpr (Kind == RuleKind::Reshape)
      return reshapeGradient(typed, g, resultGrads, operandGrads);
    else
      return gradientOf(typed, g, resultGrads, operandGrads);
  }
};

template <RuleKind Kind, typename... Ops> void attach(MLIRContext *context) {
  (Ops::template attachInterface<GradientModel<Kind, Ops>>(*context), ...);
}
} // namespace

void mlir::oneflow::attachGradientInterfaces(MLIRContext *context) {
  attach<RuleKind::Unary, ReluOp, TanhOp, SigmoidOp, ExpOp, LogOp, SqrtOp,
         RsqrtOp, ErfOp, ReciprocalOp, SinOp, CosOp, SoftplusOp, SoftsignOp,
         SiluOp, AsinOp, AcosOp, AtanOp, GeluOp, LeakyReluOp, EluOp, SeluOp,
         HardSigmoidOp, AbsOp, ClipOp>(context);
  attach<RuleKind::Zero, CeilOp, FloorOp, RoundOp, SignOp>(context);
  attach<RuleKind::Reshape, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(
      context);
  attach<RuleKind::Own, NegOp, AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp,
         WhereOp, CastOp, DropoutOp, MatmulOp, BatchMatmulOp, Conv2DOp,
         ConvTranspose2DOp, MaxPool2DOp, AvgPool2DOp, GlobalAvgPool2DOp,
         GlobalMaxPool2DOp, BatchNormTrainOp, BatchNormOp, LayerNormOp,
         ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
         SoftmaxOp, LogSoftmaxOp, TransposeOp, ConcatOp, SplitOp, SliceOp,
         GatherOp, GatherElementsOp, CumSumOp, ExpandOp, TileOp, PadOp,
         SoftmaxCrossEntropyOp, MseLossOp, TopKOp>(context);
}
