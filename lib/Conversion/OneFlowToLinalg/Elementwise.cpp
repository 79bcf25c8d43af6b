//===- Elementwise.cpp - Elementwise oneflow ops to linalg.generic --------===//
//
// Every elementwise op is a parallel linalg.generic over the broadcast result
// shape; only the scalar body differs. Integer and boolean variants use the
// integer arith ops (signed).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::lowering;

namespace {

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

Value constantLike(OpBuilder &b, Location loc, Value like, double value) {
  return scalarConstant(b, loc, like.getType(), value);
}

/// sigmoid(x) = 1 / (1 + exp(-x)).
Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = constantLike(b, loc, x, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}

/// alpha * (exp(x) - 1) for x < 0, x otherwise.
Value elu(OpBuilder &b, Location loc, Value x, double alpha) {
  Value zero = constantLike(b, loc, x, 0.0);
  Value negative = arith::MulFOp::create(
      b, loc, constantLike(b, loc, x, alpha), math::ExpM1Op::create(b, loc, x));
  Value isPositive =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
  return arith::SelectOp::create(b, loc, isPositive, x, negative);
}

/// splitmix64's finalizer on an i64 (wrapping arithmetic, logical shifts).
Value mix64(OpBuilder &b, Location loc, Value z) {
  auto c = [&](uint64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(int64_t(v)));
  };
  auto xorShift = [&](Value v, uint64_t shift) -> Value {
    return arith::XOrIOp::create(b, loc, v,
                                 arith::ShRUIOp::create(b, loc, v, c(shift)));
  };
  z = arith::MulIOp::create(b, loc, xorShift(z, 30), c(0xBF58476D1CE4E5B9ull));
  z = arith::MulIOp::create(b, loc, xorShift(z, 27), c(0x94D049BB133111EBull));
  return xorShift(z, 31);
}

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Dropout's scalar body (docs/architecture.md, *Dropout*):
///   key  = mix(seed * G + stream)                 (compile time)
///   k    = mix(key ^ (step * H))
///   bits = mix(position * G + k) >> 40            (24 uniform bits)
///   y    = bits >= ceil(ratio * 2^24) ? x * (1 / (1 - ratio)) : 0
Value dropoutBody(DropoutOp op, OpBuilder &b, Location loc, Value x,
                  Value position, Value step) {
  constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
  constexpr uint64_t kStep = 0xD1B54A32D192ED03ull;
  auto c = [&](uint64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(int64_t(v)));
  };
  uint64_t key =
      mix64(uint64_t(op.getSeed()) * kGolden + uint64_t(op.getStream()));
  Value k =
      mix64(b, loc,
            arith::XOrIOp::create(
                b, loc, c(key), arith::MulIOp::create(b, loc, step, c(kStep))));
  Value z = mix64(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, position, c(kGolden)), k));
  Value bits = arith::ShRUIOp::create(b, loc, z, c(40));
  double ratio = op.getRatio().convertToDouble();
  auto threshold = uint64_t(std::ceil(ratio * double(1 << 24)));
  Value keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, bits,
                                     c(threshold));
  Value scaled = arith::MulFOp::create(
      b, loc, x, constantLike(b, loc, x, 1.0 / (1.0 - ratio)));
  return arith::SelectOp::create(b, loc, keep, scaled,
                                 constantLike(b, loc, x, 0.0));
}

/// Scalar body of each unary op.
Value unaryBody(Operation *op, OpBuilder &b, Location loc, Value x) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](ReluOp) {
        return arith::MaximumFOp::create(b, loc, x, constantLike(b, loc, x, 0));
      })
      .Case([&](TanhOp) { return math::TanhOp::create(b, loc, x); })
      .Case([&](SigmoidOp) { return sigmoid(b, loc, x); })
      .Case([&](ExpOp) { return math::ExpOp::create(b, loc, x); })
      .Case([&](LogOp) { return math::LogOp::create(b, loc, x); })
      .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, x); })
      .Case([&](RsqrtOp) { return math::RsqrtOp::create(b, loc, x); })
      .Case([&](ErfOp) { return math::ErfOp::create(b, loc, x); })
      .Case([&](ReciprocalOp) {
        return arith::DivFOp::create(b, loc, constantLike(b, loc, x, 1), x);
      })
      .Case([&](SinOp) { return math::SinOp::create(b, loc, x); })
      .Case([&](CosOp) { return math::CosOp::create(b, loc, x); })
      .Case([&](AsinOp) { return math::AsinOp::create(b, loc, x); })
      .Case([&](AcosOp) { return math::AcosOp::create(b, loc, x); })
      .Case([&](AtanOp) { return math::AtanOp::create(b, loc, x); })
      .Case([&](SoftplusOp) {
        // max(x, 0) + log1p(exp(-|x|)): no overflow for large |x|.
        Value zero = constantLike(b, loc, x, 0);
        Value negAbs =
            arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
        Value tail = math::Log1pOp::create(b, loc,
                                           math::ExpOp::create(b, loc, negAbs));
        return arith::AddFOp::create(
            b, loc, arith::MaximumFOp::create(b, loc, x, zero), tail);
      })
      .Case([&](SoftsignOp) {
        Value den = arith::AddFOp::create(b, loc, constantLike(b, loc, x, 1),
                                          math::AbsFOp::create(b, loc, x));
        return arith::DivFOp::create(b, loc, x, den);
      })
      .Case([&](SiluOp) {
        return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
      })
      .Case([&](CeilOp) { return math::CeilOp::create(b, loc, x); })
      .Case([&](FloorOp) { return math::FloorOp::create(b, loc, x); })
      .Case([&](RoundOp) { return math::RoundEvenOp::create(b, loc, x); })
      .Case([&](GeluOp gelu) -> Value {
        Value half = constantLike(b, loc, x, 0.5);
        Value one = constantLike(b, loc, x, 1.0);
        Value inner;
        if (gelu.getApproximate() == GeluApproximation::Tanh) {
          // tanh(sqrt(2 / pi) * (x + 0.044715 x^3))
          Value cube = arith::MulFOp::create(
              b, loc, x, arith::MulFOp::create(b, loc, x, x));
          Value poly = arith::AddFOp::create(
              b, loc, x,
              arith::MulFOp::create(b, loc, constantLike(b, loc, x, 0.044715),
                                    cube));
          inner = math::TanhOp::create(
              b, loc,
              arith::MulFOp::create(
                  b, loc, constantLike(b, loc, x, std::sqrt(2.0 / M_PI)),
                  poly));
        } else {
          inner = math::ErfOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, x,
                                    constantLike(b, loc, x, M_SQRT1_2)));
        }
        return arith::MulFOp::create(
            b, loc, arith::MulFOp::create(b, loc, half, x),
            arith::AddFOp::create(b, loc, one, inner));
      })
      .Case([&](LeakyReluOp leaky) -> Value {
        Value zero = constantLike(b, loc, x, 0);
        Value scaled = arith::MulFOp::create(
            b, loc, x,
            constantLike(b, loc, x, leaky.getAlpha().convertToDouble()));
        Value positive =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, zero);
        return arith::SelectOp::create(b, loc, positive, x, scaled);
      })
      .Case([&](EluOp e) {
        return elu(b, loc, x, e.getAlpha().convertToDouble());
      })
      .Case([&](SeluOp s) -> Value {
        return arith::MulFOp::create(
            b, loc, constantLike(b, loc, x, s.getGamma().convertToDouble()),
            elu(b, loc, x, s.getAlpha().convertToDouble()));
      })
      .Case([&](HardSigmoidOp h) -> Value {
        Value y = arith::AddFOp::create(
            b, loc,
            arith::MulFOp::create(
                b, loc, x,
                constantLike(b, loc, x, h.getAlpha().convertToDouble())),
            constantLike(b, loc, x, h.getBeta().convertToDouble()));
        y = arith::MaximumFOp::create(b, loc, y, constantLike(b, loc, x, 0));
        return arith::MinimumFOp::create(b, loc, y, constantLike(b, loc, x, 1));
      })
      .Case([&](NegOp) -> Value {
        if (isFloat(x))
          return arith::NegFOp::create(b, loc, x);
        return arith::SubIOp::create(b, loc, constantLike(b, loc, x, 0), x);
      })
      .Case([&](AbsOp) -> Value {
        if (isFloat(x))
          return math::AbsFOp::create(b, loc, x);
        return math::AbsIOp::create(b, loc, x);
      })
      .Case([&](SignOp) -> Value {
        Value zero = constantLike(b, loc, x, 0);
        Value one = constantLike(b, loc, x, 1), minusOne = constantLike(b, loc, x, -1);
        Value gt, lt;
        if (isFloat(x)) {
          gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
          lt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
        } else {
          gt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
          lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
        }
        Value inner = arith::SelectOp::create(b, loc, lt, minusOne, zero);
        return arith::SelectOp::create(b, loc, gt, one, inner);
      })
      .Case([&](NotOp) {
        return arith::XOrIOp::create(b, loc, x, constantLike(b, loc, x, 1));
      })
      .Case([&](ClipOp clip) -> Value {
        Value y = x;
        if (std::optional<APFloat> lo = clip.getMin()) {
          Value bound = constantLike(b, loc, x, lo->convertToDouble());
          y = isFloat(x) ? (Value)arith::MaximumFOp::create(b, loc, y, bound)
                         : (Value)arith::MaxSIOp::create(b, loc, y, bound);
        }
        if (std::optional<APFloat> hi = clip.getMax()) {
          Value bound = constantLike(b, loc, x, hi->convertToDouble());
          y = isFloat(x) ? (Value)arith::MinimumFOp::create(b, loc, y, bound)
                         : (Value)arith::MinSIOp::create(b, loc, y, bound);
        }
        return y;
      })
      .Default([](Operation *) { return Value(); });
}

/// Scalar body of each binary op.
Value binaryBody(Operation *op, OpBuilder &b, Location loc, Value l, Value r) {
  bool f = isFloat(l);
  using P = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  auto cmp = [&](P fp, I ip) -> Value {
    if (f)
      return arith::CmpFOp::create(b, loc, fp, l, r);
    return arith::CmpIOp::create(b, loc, ip, l, r);
  };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) -> Value {
        return f ? (Value)arith::AddFOp::create(b, loc, l, r)
                 : (Value)arith::AddIOp::create(b, loc, l, r);
      })
      .Case([&](SubOp) -> Value {
        return f ? (Value)arith::SubFOp::create(b, loc, l, r)
                 : (Value)arith::SubIOp::create(b, loc, l, r);
      })
      .Case([&](MulOp) -> Value {
        return f ? (Value)arith::MulFOp::create(b, loc, l, r)
                 : (Value)arith::MulIOp::create(b, loc, l, r);
      })
      .Case([&](DivOp) -> Value {
        return f ? (Value)arith::DivFOp::create(b, loc, l, r)
                 : (Value)arith::DivSIOp::create(b, loc, l, r);
      })
      .Case([&](PowOp) -> Value {
        return f ? (Value)math::PowFOp::create(b, loc, l, r)
                 : (Value)math::IPowIOp::create(b, loc, l, r);
      })
      .Case([&](MaxOp) -> Value {
        return f ? (Value)arith::MaximumFOp::create(b, loc, l, r)
                 : (Value)arith::MaxSIOp::create(b, loc, l, r);
      })
      .Case([&](MinOp) -> Value {
        return f ? (Value)arith::MinimumFOp::create(b, loc, l, r)
                 : (Value)arith::MinSIOp::create(b, loc, l, r);
      })
      .Case([&](AndOp) { return arith::AndIOp::create(b, loc, l, r); })
      .Case([&](OrOp) { return arith::OrIOp::create(b, loc, l, r); })
      .Case([&](XorOp) { return arith::XOrIOp::create(b, loc, l, r); })
      .Case([&](EqualOp) { return cmp(P::OEQ, I::eq); })
      .Case([&](NotEqualOp) { return cmp(P::UNE, I::ne); })
      .Case([&](LessOp) { return cmp(P::OLT, I::slt); })
      .Case([&](LessEqualOp) { return cmp(P::OLE, I::sle); })
      .Case([&](GreaterOp) { return cmp(P::OGT, I::sgt); })
      .Case([&](GreaterEqualOp) { return cmp(P::OGE, I::sge); })
      .Default([](Operation *) { return Value(); });
}

/// Converts a scalar between the dialect's element types.
Value castScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromFloat = dyn_cast<FloatType>(from), toFloat = dyn_cast<FloatType>(to);
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, x);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, to, x);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, x);
  if (toFloat)
    return from.isInteger(1) ? (Value)arith::UIToFPOp::create(b, loc, to, x)
                             : (Value)arith::SIToFPOp::create(b, loc, to, x);
  unsigned fromWidth = from.getIntOrFloatBitWidth(),
           toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth)
    return from.isInteger(1) ? (Value)arith::ExtUIOp::create(b, loc, to, x)
                             : (Value)arith::ExtSIOp::create(b, loc, to, x);
  return arith::TruncIOp::create(b, loc, to, x);
}

bool isUnaryElementwise(Operation *op) {
  return isa<ReluOp, TanhOp, SigmoidOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ErfOp,
             ReciprocalOp, SinOp, CosOp, AsinOp, AcosOp, AtanOp, SoftplusOp,
             SoftsignOp, SiluOp, CeilOp, FloorOp, RoundOp, GeluOp, LeakyReluOp,
             EluOp, SeluOp, HardSigmoidOp, NegOp, AbsOp, SignOp, NotOp,
             ClipOp>(op);
}

bool isBinaryElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, AndOp, OrOp,
             XorOp, EqualOp, NotEqualOp, LessOp, LessEqualOp, GreaterOp,
             GreaterEqualOp>(op);
}

/// Replaces a constant i1 condition by the same constant in i8. An i1 is a
/// byte in memory but a bit in a vector, so the vectorizer assembles a vector
/// of i1 loads bit by bit (a causal mask cost more than its softmax); bytes
/// load as one vector and compare against zero.
LogicalResult conditionAsBytes(OpBuilder &b, Location loc, Value &condition) {
  DenseElementsAttr mask;
  if (!matchPattern(condition, m_Constant(&mask)) || mask.isSplat() ||
      !mask.getElementType().isInteger(1))
    return failure();
  auto bytesType = RankedTensorType::get(mask.getType().getShape(),
                                         b.getI8Type());
  SmallVector<int8_t> bytes;
  for (bool bit : mask.getValues<bool>())
    bytes.push_back(bit);
  condition = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(bytesType, ArrayRef(bytes)));
  return success();
}

/// Any op whose result is an elementwise function of its operands.
struct ElementwiseLowering : public ConversionPattern {
  ElementwiseLowering(MLIRContext *context)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<OneFlowDialect>(op->getDialect()) || op->getNumResults() != 1)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType)
      return failure();
    Location loc = op->getLoc();
    Type resultElement = resultType.getElementType();
    SmallVector<Value> inputs(operands);
    std::function<Value(OpBuilder &, Location, ValueRange)> body;
    if (isa<CastOp>(op)) {
      body = [&](OpBuilder &b, Location l, ValueRange args) {
        return castScalar(b, l, args[0], resultElement);
      };
    } else if (isa<WhereOp>(op)) {
      bool byteCondition =
          succeeded(conditionAsBytes(rewriter, loc, inputs[0]));
      body = [byteCondition](OpBuilder &b, Location l,
                             ValueRange args) -> Value {
        Value condition = args[0];
        if (byteCondition)
          condition = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::ne, condition,
              arith::ConstantOp::create(b, l, b.getI8IntegerAttr(0)));
        return arith::SelectOp::create(b, l, condition, args[1], args[2]);
      };
    } else if (auto dropout = dyn_cast<DropoutOp>(op)) {
      body = [dropout](OpBuilder &b, Location l, ValueRange args) {
        return dropoutBody(dropout, b, l, args[0], args[1], args[2]);
      };
    } else if (isUnaryElementwise(op)) {
      body = [op](OpBuilder &b, Location l, ValueRange args) {
        return unaryBody(op, b, l, args[0]);
      };
    } else if (isBinaryElementwise(op)) {
      body = [op](OpBuilder &b, Location l, ValueRange args) {
        return binaryBody(op, b, l, args[0], args[1]);
      };
    } else {
      return failure();
    }
    rewriter.replaceOp(
        op, buildElementwise(rewriter, loc, resultType, inputs, body));
    return success();
  }
};

} // namespace

void lowering::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(patterns.getContext());
}
