//===- Lowering.cpp - Helpers and the convert-oneflow-to-linalg pass ------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_CONVERTONEFLOWTOLINALG
#include "oneflow/Conversion/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::lowering;

Value lowering::indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

int64_t lowering::countOver(RankedTensorType type, ArrayRef<int64_t> axes) {
  int64_t count = 1;
  for (int64_t axis : axes)
    count *= type.getDimSize(axis);
  return count;
}

std::array<int64_t, 3> lowering::aroundAxis(RankedTensorType type,
                                            int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  return {outer, type.getDimSize(axis), inner};
}

SmallVector<int64_t> lowering::batchNormAxes(int64_t rank) {
  SmallVector<int64_t> axes = {0};
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  return axes;
}

StringRef lowering::blasSuffix(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  return "";
}

StringRef lowering::gemmSuffix(Type type, bool lowPrecision) {
  if (lowPrecision && type.isBF16())
    return "bf16";
  if (lowPrecision && type.isF16())
    return "f16";
  return blasSuffix(type);
}

Value lowering::normalizedIndex(OpBuilder &b, Location loc, Value index,
                                int64_t size) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = indexConstant(b, loc, 0), n = indexConstant(b, loc, size);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, negative,
                              arith::AddIOp::create(b, loc, i, n), i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  return arith::MinSIOp::create(
      b, loc, i, indexConstant(b, loc, std::max<int64_t>(size - 1, 0)));
}

Value lowering::emptyTensor(OpBuilder &b, Location loc,
                            RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value lowering::scalarConstant(OpBuilder &b, Location loc, Type type,
                               double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(type, (int64_t)value));
}

Value lowering::filledTensor(OpBuilder &b, Location loc,
                             RankedTensorType type, TypedAttr value) {
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, emptyTensor(b, loc, type))
      .getResult(0);
}

TypedAttr lowering::lowestValue(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(
        type, APFloat::getInf(floatType.getFloatSemantics(), true));
  unsigned width = type.getIntOrFloatBitWidth();
  return IntegerAttr::get(type, width == 1 ? APInt(1, 0)
                                           : APInt::getSignedMinValue(width));
}

TypedAttr lowering::highestValue(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(
        type, APFloat::getInf(floatType.getFloatSemantics(), false));
  unsigned width = type.getIntOrFloatBitWidth();
  return IntegerAttr::get(type, width == 1 ? APInt(1, 1)
                                           : APInt::getSignedMaxValue(width));
}

/// The map from the result's iteration space to an operand broadcast into
/// it: a dimension of size 1 stretched over a larger one reads index 0.
static AffineMap broadcastMap(MLIRContext *context, RankedTensorType operand,
                              ArrayRef<int64_t> resultShape) {
  int64_t rank = resultShape.size(), offset = rank - operand.getRank();
  SmallVector<AffineExpr> exprs;
  for (auto [dim, size] : llvm::enumerate(operand.getShape())) {
    int64_t target = dim + offset;
    exprs.push_back(size == 1 && resultShape[target] != 1
                        ? getAffineConstantExpr(0, context)
                        : getAffineDimExpr(target, context));
  }
  return AffineMap::get(rank, 0, exprs, context);
}

Value lowering::buildElementwise(OpBuilder &b, Location loc,
                                 RankedTensorType resultType,
                                 ValueRange operands, ScalarBuilder body) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value operand : operands)
    maps.push_back(broadcastMap(
        context, cast<RankedTensorType>(operand.getType()),
        resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, operands,
      ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value lowering::buildBinary(
    OpBuilder &b, Location loc, Value lhs, Value rhs,
    function_ref<Value(OpBuilder &, Location, Value, Value)> fn) {
  RankedTensorType l = typeOf(lhs), r = typeOf(rhs);
  SmallVector<int64_t> shape;
  (void)OpTrait::util::getBroadcastedShape(l.getShape(), r.getShape(), shape);
  return buildElementwise(
      b, loc, RankedTensorType::get(shape, l.getElementType()), {lhs, rhs},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        return fn(nb, nl, args[0], args[1]);
      });
}

Value lowering::buildUnary(
    OpBuilder &b, Location loc, Value x,
    function_ref<Value(OpBuilder &, Location, Value)> fn) {
  return buildElementwise(b, loc, typeOf(x), {x},
                          [&](OpBuilder &nb, Location nl, ValueRange args) {
                            return fn(nb, nl, args[0]);
                          });
}

/// `ArithOp` (a float binary op) elementwise, broadcasting like numpy.
template <typename ArithOp>
static Value floatBinary(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return buildBinary(b, loc, lhs, rhs,
                     [](OpBuilder &nb, Location nl, Value x, Value y) {
                       return ArithOp::create(nb, nl, x, y).getResult();
                     });
}

Value lowering::addF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return floatBinary<arith::AddFOp>(b, loc, lhs, rhs);
}
Value lowering::subF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return floatBinary<arith::SubFOp>(b, loc, lhs, rhs);
}
Value lowering::mulF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return floatBinary<arith::MulFOp>(b, loc, lhs, rhs);
}
Value lowering::divF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return floatBinary<arith::DivFOp>(b, loc, lhs, rhs);
}

Value lowering::scaleF(OpBuilder &b, Location loc, Value x, double factor) {
  return buildUnary(b, loc, x, [&](OpBuilder &nb, Location nl, Value v) {
    return arith::MulFOp::create(nb, nl, v,
                                 scalarConstant(nb, nl, v.getType(), factor))
        .getResult();
  });
}

Value lowering::invStdOf(OpBuilder &b, Location loc, Value variance,
                         double epsilon) {
  return buildUnary(b, loc, variance, [&](OpBuilder &nb, Location nl, Value v) {
    Value eps = scalarConstant(nb, nl, v.getType(), epsilon);
    return math::RsqrtOp::create(nb, nl, arith::AddFOp::create(nb, nl, v, eps))
        .getResult();
  });
}

Value lowering::buildReduction(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> axes, TypedAttr init,
                               ScalarBuilder combine) {
  MLIRContext *context = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> resultExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced) {
      shape.push_back(inputType.getDimSize(d));
      resultExprs.push_back(getAffineDimExpr(d, context));
    }
  }
  auto resultType = RankedTensorType::get(shape, inputType.getElementType());
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, resultExprs, context)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{input},
      ValueRange{filledTensor(b, loc, resultType, init)}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                combine(nested, nestedLoc, args));
      });
  return generic.getResult(0);
}

Value lowering::reshapeTensor(OpBuilder &b, Location loc, Value input,
                              RankedTensorType resultType) {
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType == resultType)
    return input;
  // Collapse to 1-D (or 0-D) and expand back out: both are static and
  // always valid for a contiguous row-major tensor.
  auto collapseAll = [&](Value value, RankedTensorType type) -> Value {
    if (type.getRank() <= 1)
      return value;
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    return tensor::CollapseShapeOp::create(b, loc, value,
                                           ArrayRef<ReassociationIndices>{all});
  };
  Value flat = collapseAll(input, inputType);
  auto flatType = cast<RankedTensorType>(flat.getType());
  if (resultType.getRank() == 0 || flatType.getRank() == 0) {
    // Rank-0 on either side: collapse or expand through an empty
    // reassociation.
    if (resultType.getRank() == 0)
      return tensor::CollapseShapeOp::create(
          b, loc, resultType, flat, ArrayRef<ReassociationIndices>{});
    Value one = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1}, resultType.getElementType()),
        flat, ArrayRef<ReassociationIndices>{});
    flat = one;
  }
  if (resultType.getRank() == 1)
    return flat;
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank()));
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

Value lowering::padSpatial(OpBuilder &b, Location loc, Value x,
                           ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                           TypedAttr fill) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return x;
  RankedTensorType type = typeOf(x);
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> lowAttr(2, b.getIndexAttr(0)),
      highAttr(2, b.getIndexAttr(0));
  for (int d = 0; d < 2; ++d) {
    shape[2 + d] += low[d] + high[d];
    lowAttr.push_back(b.getIndexAttr(low[d]));
    highAttr.push_back(b.getIndexAttr(high[d]));
  }
  Value value = arith::ConstantOp::create(b, loc, fill);
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), x, lowAttr,
      highAttr, value);
}

Value lowering::padForPooling(OpBuilder &b, Location loc, Value x,
                              RankedTensorType resultType,
                              ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations,
                              ArrayRef<int64_t> pads, TypedAttr fill) {
  RankedTensorType type = typeOf(x);
  SmallVector<int64_t> low = {pads[0], pads[1]}, high = {pads[2], pads[3]};
  for (int d = 0; d < 2; ++d) {
    int64_t needed = (resultType.getDimSize(2 + d) - 1) * strides[d] +
                     dilations[d] * (kernel[d] - 1) + 1;
    int64_t have = type.getDimSize(2 + d) + low[d] + high[d];
    if (needed > have)
      high[d] += needed - have;
  }
  return padSpatial(b, loc, x, low, high, fill);
}

Value lowering::avgPoolReciprocals(OpBuilder &b, Location loc, Type element,
                                   int64_t outH, int64_t outW, int64_t h,
                                   int64_t w, ArrayRef<int64_t> kernel,
                                   ArrayRef<int64_t> strides,
                                   ArrayRef<int64_t> pads, bool includePad) {
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < outH; ++i) {
    for (int64_t j = 0; j < outW; ++j) {
      int64_t r0 = i * strides[0] - pads[0], c0 = j * strides[1] - pads[1];
      int64_t rLo = includePad ? -pads[0] : 0,
              rHi = includePad ? h + pads[2] : h;
      int64_t cLo = includePad ? -pads[1] : 0,
              cHi = includePad ? w + pads[3] : w;
      int64_t rows = std::min(r0 + kernel[0], rHi) - std::max(r0, rLo);
      int64_t cols = std::min(c0 + kernel[1], cHi) - std::max(c0, cLo);
      values.push_back(
          b.getFloatAttr(element, 1.0 / std::max<int64_t>(rows * cols, 1)));
    }
  }
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({outH, outW}, element),
                             values));
}

/// Writes `value` broadcast (numpy rules) into `buffer`.
static void broadcastInto(OpBuilder &b, Location loc, Value value,
                          Value buffer) {
  auto type = cast<RankedTensorType>(value.getType());
  auto bufferType = cast<MemRefType>(buffer.getType());
  Value source = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), value,
      /*read_only=*/true);
  int64_t rank = bufferType.getRank();
  SmallVector<AffineMap> maps = {
      broadcastMap(b.getContext(), type, bufferType.getShape()),
      b.getMultiDimIdentityMap(rank)};
  linalg::GenericOp::create(
      b, loc, ValueRange{source}, ValueRange{buffer}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc, args[0]);
      });
}

std::pair<Operation *, Value> lowering::biasAddOf(Value product) {
  if (!product.hasOneUse())
    return {};
  auto add = dyn_cast<AddOp>(*product.user_begin());
  if (!add || add.getType() != product.getType())
    return {};
  Value bias = add.getLhs() == product ? add.getRhs() : add.getLhs();
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  auto productType = cast<RankedTensorType>(product.getType());
  if (!biasType || biasType.getElementType() != productType.getElementType() ||
      biasType.getRank() == 0 || biasType.getRank() > productType.getRank() ||
      biasType.getShape().back() != productType.getShape().back() ||
      biasType.getNumElements() != productType.getShape().back())
    return {};
  return {add, bias};
}

SmallVector<Value> lowering::buildLibraryCall(OpBuilder &b, Location loc,
                                              StringRef symbol,
                                              ValueRange inputs,
                                              TypeRange resultTypes,
                                              ArrayRef<int64_t> scalars,
                                              ValueRange inits) {
  Type i64 = b.getI64Type();
  auto addressOf = [&](Value memref) -> Value {
    Value index =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    return arith::IndexCastOp::create(b, loc, i64, index);
  };
  SmallVector<Value> args;
  for (Value input : inputs) {
    // An absent optional input (e.g. a bias) is a null pointer.
    if (!input) {
      args.push_back(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)));
      continue;
    }
    auto type = cast<RankedTensorType>(input.getType());
    auto memrefType =
        MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = bufferization::ToBufferOp::create(b, loc, memrefType, input,
                                                     /*read_only=*/true);
    args.push_back(addressOf(buffer));
  }
  SmallVector<Value> buffers;
  for (Type resultType : resultTypes) {
    auto type = cast<RankedTensorType>(resultType);
    auto memrefType =
        MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = memref::AllocOp::create(b, loc, memrefType,
                                           b.getI64IntegerAttr(64));
    if (buffers.size() < inits.size() && inits[buffers.size()])
      broadcastInto(b, loc, inits[buffers.size()], buffer);
    buffers.push_back(buffer);
    args.push_back(addressOf(buffer));
  }
  for (int64_t scalar : scalars)
    args.push_back(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(scalar)));

  // Declare the library function once per module.
  auto module = b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  auto callee = module.lookupSymbol<func::FuncOp>(symbol);
  if (!callee) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    callee = func::FuncOp::create(
        b, loc, symbol,
        b.getFunctionType(SmallVector<Type>(args.size(), i64), {}));
    callee.setPrivate();
  }
  func::CallOp::create(b, loc, callee, args);

  SmallVector<Value> results;
  for (auto [buffer, resultType] : llvm::zip(buffers, resultTypes))
    results.push_back(bufferization::ToTensorOp::create(
        b, loc, resultType, buffer, /*restrict=*/true, /*writable=*/true));
  return results;
}

namespace {

/// Reductions may reassociate, as PyTorch's vectorized ones do: that is what
/// lets LLVM vectorize a reduction along the innermost loop (a row sum of
/// exp stays scalar otherwise). Marks the float op that combines each
/// accumulator of a reducing generic with the element.
void allowReassociatingReductions(linalg::GenericOp generic) {
  if (generic.getNumReductionLoops() == 0)
    return;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  for (auto [value, accumulator] :
       llvm::zip(yield.getValues(), generic.getRegionOutputArgs())) {
    Operation *combine = value.getDefiningOp();
    if (!isa_and_present<arith::AddFOp, arith::MulFOp, arith::MaximumFOp,
                         arith::MinimumFOp, arith::MaxNumFOp,
                         arith::MinNumFOp>(combine) ||
        !llvm::is_contained(combine->getOperands(), accumulator))
      continue;
    auto fastMath = cast<arith::ArithFastMathInterface>(combine);
    fastMath->setAttr(
        fastMath.getFastMathAttrName(),
        arith::FastMathFlagsAttr::get(
            generic.getContext(),
            fastMath.getFastMathFlagsAttr().getValue() |
                arith::FastMathFlags::reassoc));
  }
}

/// oneflow.constant -> arith.constant.
struct ConstantLowering : public OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "untyped constant");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct ConvertOneFlowToLinalgPass
    : public oneflow::impl::ConvertOneFlowToLinalgBase<
          ConvertOneFlowToLinalgPass> {
  using ConvertOneFlowToLinalgBase::ConvertOneFlowToLinalgBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addIllegalDialect<OneFlowDialect>();
    // Variables are the plan's persistent registers, not kernel code.
    target.addLegalOp<VariableOp>();
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           func::FuncDialect, linalg::LinalgDialect,
                           math::MathDialect, memref::MemRefDialect,
                           scf::SCFDialect, tensor::TensorDialect>();
    RewritePatternSet patterns(context);
    patterns.add<ConstantLowering>(context);
    populateElementwisePatterns(patterns);
    populateLinalgPatterns(patterns, lowPrecisionGemms);
    populateReductionPatterns(patterns, poolingCalls);
    populateDataMovementPatterns(patterns, poolingCalls);
    populateGradientPatterns(patterns, poolingCalls);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk(allowReassociatingReductions);
  }
};
} // namespace
