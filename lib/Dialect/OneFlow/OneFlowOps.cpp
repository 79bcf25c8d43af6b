//===- OneFlowOps.cpp - oneflow op verification and shape inference -------===//

#include "oneflow/Dialect/OneFlow/DropoutStep.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/OneFlow/OneFlowShapes.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::oneflow;

#define GET_OP_CLASSES
#include "oneflow/Dialect/OneFlow/OneFlowOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Reports an error through `emitError` (see OneFlowShapes.h).
template <typename... Args>
static LogicalResult fail(EmitErrorFn emitError, Args &&...args) {
  return emitError().append(std::forward<Args>(args)...);
}

/// The emitter of inferReturnTypes: at `location`, or silent without one.
static auto emitterAt(std::optional<Location> location) {
  return [location]() {
    return location ? mlir::emitError(*location) : InFlightDiagnostic();
  };
}

/// A shape rule of OneFlowShapes.h with its operands bound.
using ShapeRule =
    function_ref<LogicalResult(EmitErrorFn, SmallVectorImpl<int64_t> &)>;

/// inferReturnTypes of an op with one result of `elementType`, shaped by
/// `rule`, which reports its errors at `location`.
static LogicalResult inferFromShapeRule(std::optional<Location> location,
                                        Type elementType, ShapeRule rule,
                                        SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> shape;
  auto emitError = emitterAt(location);
  if (failed(rule(emitError, shape)))
    return failure();
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult mlir::oneflow::verifyAxis(Operation *op, int64_t axis,
                                        int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << "axis " << axis << " is out of range for rank " << rank;
  return success();
}

/// Checks that `axes` are sorted, distinct and within [0, bound).
static LogicalResult checkAxes(std::optional<Location> location,
                               ArrayRef<int64_t> axes, int64_t bound,
                               StringRef what) {
  for (auto [index, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= bound)
      return emitOptionalError(location, what, " axis ", axis,
                               " is out of range [0, ", bound, ")");
    if (index > 0 && axes[index - 1] >= axis)
      return emitOptionalError(location, what,
                               " axes must be sorted and distinct");
  }
  return success();
}

LogicalResult
mlir::oneflow::inferBroadcastType(std::optional<Location> location,
                                  ValueRange operands, bool isCompare,
                                  SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> shape;
  for (Value operand : operands) {
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(
            shape, tensorTypeOf(operand).getShape(), next))
      return emitOptionalError(location, "operand shapes are not "
                                         "broadcast-compatible");
    shape = std::move(next);
  }
  Type elementType = isCompare
                         ? IntegerType::get(operands.front().getContext(), 1)
                         : getElementTypeOrSelf(operands.back().getType());
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult mlir::oneflow::inferReductionType(
    std::optional<Location> location, RankedTensorType input,
    ArrayRef<int64_t> axes, bool keepDims, Type resultElementType,
    SmallVectorImpl<Type> &inferred) {
  if (failed(checkAxes(location, axes, input.getRank(), "reduction")))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [dim, size] : llvm::enumerate(input.getShape())) {
    if (!llvm::is_contained(axes, (int64_t)dim))
      shape.push_back(size);
    else if (keepDims)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(
      shape, resultElementType ? resultElementType : input.getElementType()));
  return success();
}

/// Parses a fixed-size attribute list, checking its length and lower bound.
static LogicalResult checkList(EmitErrorFn emitError, ArrayRef<int64_t> values,
                               size_t size, int64_t minValue, StringRef what) {
  if (values.size() != size)
    return fail(emitError, "'", what, "' must have ", size, " entries, got ",
                values.size());
  for (int64_t value : values)
    if (value < minValue)
      return fail(emitError, "'", what, "' entries must be >= ", minValue,
                  ", got ", value);
  return success();
}
static LogicalResult checkList(std::optional<Location> location,
                               ArrayRef<int64_t> values, size_t size,
                               int64_t minValue, StringRef what) {
  auto emitError = emitterAt(location);
  return checkList(emitError, values, size, minValue, what);
}

/// The product of `sizes`, or nullopt when it overflows int64_t (such a shape
/// cannot describe a real tensor, and wrapped sizes would look valid).
static std::optional<int64_t> checkedProduct(ArrayRef<int64_t> sizes) {
  int64_t product = 1;
  for (int64_t size : sizes) {
    std::optional<int64_t> next = llvm::checkedMul(product, size);
    if (!next)
      return std::nullopt;
    product = *next;
  }
  return product;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

LogicalResult ClipOp::verify() {
  if (getMin() && getMax() &&
      getMin()->convertToDouble() > getMax()->convertToDouble())
    return emitOpError() << "min " << getMin()->convertToDouble()
                         << " exceeds max " << getMax()->convertToDouble();
  return success();
}

LogicalResult DropoutOp::verify() {
  double ratio = getRatio().convertToDouble();
  if (!(ratio >= 0.0 && ratio < 1.0))
    return emitOpError() << "ratio " << ratio << " is not in [0, 1)";
  if (getPositions().getType().getShape() != getX().getType().getShape())
    return emitOpError() << "positions " << getPositions().getType()
                         << " must have the shape of x " << getX().getType();
  if (getStep().getType().getRank() != 0)
    return emitOpError() << "step must be a rank-0 tensor, got "
                         << getStep().getType();
  if (getSeed() < 0 || getStream() < 0)
    return emitOpError() << "seed and stream must be non-negative";
  return success();
}

Value mlir::oneflow::getOrCreateDropoutStep(OpBuilder &builder, Block &block) {
  for (Operation &op : block)
    if (auto read = dyn_cast<VariableOp>(op);
        read && read.getVarName() == kDropoutStepName)
      return read;
  auto type = RankedTensorType::get({}, builder.getI64Type());
  auto zeros = InitializerAttr::get(
      builder.getContext(), InitDistribution::Zeros, 0.0, 0.0, 0.0, 0.0, 0);
  return VariableOp::create(
      builder, NameLoc::get(builder.getStringAttr(kDropoutStepName)), type,
      builder.getStringAttr(kDropoutStepName), ElementsAttr(), zeros);
}

void mlir::oneflow::advanceDropoutSteps(Block &block) {
  llvm::SmallSetVector<Operation *, 1> counters;
  llvm::SmallDenseSet<StringAttr> assigned;
  for (Operation &op : block) {
    if (auto dropout = dyn_cast<DropoutOp>(op))
      if (auto read = dropout.getStep().getDefiningOp<VariableOp>())
        counters.insert(read);
    if (auto assign = dyn_cast<AssignOp>(op))
      assigned.insert(assign.getVarNameAttr());
  }
  OpBuilder builder = OpBuilder::atBlockTerminator(&block);
  for (Operation *op : counters) {
    auto read = cast<VariableOp>(op);
    if (!assigned.insert(read.getVarNameAttr()).second)
      continue;
    Location loc = read.getLoc();
    auto type = cast<RankedTensorType>(read.getType());
    Value one = ConstantOp::create(
        builder, loc, type,
        DenseElementsAttr::get(
            type, builder.getIntegerAttr(type.getElementType(), 1)));
    AssignOp::create(builder, loc, read.getVarNameAttr(),
                     AddOp::create(builder, loc, read, one));
  }
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  return inferBroadcastType(location, adaptor.getOperands(),
                            /*isCompare=*/false, inferred);
}

//===----------------------------------------------------------------------===//
// Casts, constants and variables
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  if (getX().getType().getShape() != getY().getType().getShape())
    return emitOpError() << "cast must keep the shape: " << getX().getType()
                         << " vs " << getY().getType();
  return success();
}

LogicalResult VariableOp::verify() {
  // An empty name identifies no parameter, and prints as an unparseable
  // `@<<INVALID EMPTY SYMBOL>>`.
  if (getVarName().empty())
    return emitOpError() << "requires a non-empty variable name";
  if (std::optional<ElementsAttr> init = getInitialValue())
    if (init->getType() != getOutput().getType())
      return emitOpError() << "initial value of type " << init->getType()
                           << " does not match the variable type "
                           << getOutput().getType();
  if (std::optional<InitializerAttr> init = getInitializer()) {
    if (getInitialValue())
      return emitOpError() << "has both an initial value and an initializer";
    auto type = getOutput().getType();
    if (init->getDistribution() == InitDistribution::MeshCoordinates &&
        (type.getRank() != 1 || !type.getElementType().isInteger(64)))
      return emitOpError() << "holds mesh coordinates, which need a 1-D i64 "
                              "tensor, not "
                           << type;
    if (init->isRandom() &&
        !isa<FloatType>(getOutput().getType().getElementType()))
      return emitOpError() << "cannot draw "
                           << stringifyInitDistribution(init->getDistribution())
                           << " values for " << getOutput().getType()
                           << " (random initializers need a floating-point "
                              "element type)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

/// The [rows, cols] of the last two dims of `type`, swapped when transposed.
static std::pair<int64_t, int64_t> matrixDims(RankedTensorType type,
                                              bool transposed) {
  int64_t rank = type.getRank();
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  return transposed ? std::make_pair(cols, rows) : std::make_pair(rows, cols);
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto a = tensorTypeOf(adaptor.getA()), b = tensorTypeOf(adaptor.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(location, "matmul operands must be 2-D, got ", a,
                             " and ", b);
  auto [m, ka] = matrixDims(a, adaptor.getTransposeA());
  auto [kb, n] = matrixDims(b, adaptor.getTransposeB());
  if (ka != kb)
    return emitOptionalError(location, "matmul contraction sizes differ: ", ka,
                             " vs ", kb);
  inferred.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

LogicalResult BatchMatmulOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> location,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  auto a = tensorTypeOf(adaptor.getA()), b = tensorTypeOf(adaptor.getB());
  if (a.getRank() < 2 || b.getRank() < 2)
    return emitOptionalError(location,
                             "batch_matmul operands must have rank >= 2");
  auto [m, ka] = matrixDims(a, adaptor.getTransposeA());
  auto [kb, n] = matrixDims(b, adaptor.getTransposeB());
  if (ka != kb)
    return emitOptionalError(
        location, "batch_matmul contraction sizes differ: ", ka, " vs ", kb);
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(a.getShape().drop_back(2),
                                          b.getShape().drop_back(2), batch))
    return emitOptionalError(location,
                             "batch dimensions are not broadcast-compatible");
  batch.append({m, n});
  inferred.push_back(RankedTensorType::get(batch, a.getElementType()));
  return success();
}

/// Output size of a sliding window along one dimension; nullopt when the
/// padded size or the dilated kernel overflows int64_t. All inputs are
/// non-negative and kernel, stride and dilation are >= 1.
static std::optional<int64_t> windowOutputSize(int64_t size, int64_t padBegin,
                                               int64_t padEnd, int64_t kernel,
                                               int64_t stride, int64_t dilation,
                                               bool ceilMode) {
  std::optional<int64_t> padded = llvm::checkedAdd(size, padBegin);
  if (padded)
    padded = llvm::checkedAdd(*padded, padEnd);
  std::optional<int64_t> extent =
      llvm::checkedMulAdd(dilation, kernel - 1, int64_t(1));
  if (!padded || !extent)
    return std::nullopt;
  if (*padded < *extent)
    return 0;
  // Written to not overflow: span / stride + 1 <= span + 1 <= padded.
  int64_t span = *padded - *extent;
  int64_t out = span / stride + 1;
  if (ceilMode) {
    if (span % stride != 0)
      ++out;
    // A last window that would start inside the end padding is dropped.
    std::optional<int64_t> lastStart = llvm::checkedMul(out - 1, stride);
    if (!lastStart || *lastStart >= size + padBegin)
      --out;
  }
  return out;
}

/// Checks a 2-D window configuration on an NCHW input and computes the
/// output spatial sizes.
static LogicalResult
inferWindowSizes(EmitErrorFn emitError, RankedTensorType x,
                 ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                 ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                 bool ceilMode, int64_t &outH, int64_t &outW) {
  if (x.getRank() != 4)
    return fail(emitError, "expected an NCHW input, got ", x);
  if (failed(checkList(emitError, kernel, 2, 1, "kernel")) ||
      failed(checkList(emitError, strides, 2, 1, "strides")) ||
      failed(checkList(emitError, pads, 4, 0, "pads")) ||
      failed(checkList(emitError, dilations, 2, 1, "dilations")))
    return failure();
  std::optional<int64_t> h =
      windowOutputSize(x.getDimSize(2), pads[0], pads[2], kernel[0], strides[0],
                       dilations[0], ceilMode);
  std::optional<int64_t> w =
      windowOutputSize(x.getDimSize(3), pads[1], pads[3], kernel[1], strides[1],
                       dilations[1], ceilMode);
  if (!h || !w)
    return fail(emitError, "window sizes overflow on input ", x);
  outH = *h;
  outW = *w;
  if (outH <= 0 || outW <= 0)
    return fail(emitError, "window of ", kernel[0], "x", kernel[1],
                " does not fit the input ", x);
  return success();
}

LogicalResult
mlir::oneflow::inferConv2DShape(EmitErrorFn emitError, RankedTensorType x,
                                RankedTensorType w, ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> pads,
                                ArrayRef<int64_t> dilations, int64_t groups,
                                SmallVectorImpl<int64_t> &shape) {
  if (w.getRank() != 4)
    return fail(emitError, "conv2d weight must be 4-D (OIHW)");
  int64_t outChannels = w.getDimSize(0);
  if (groups < 1 || outChannels % groups != 0)
    return fail(emitError, "groups (", groups,
                ") must divide the output channels (", outChannels, ")");
  int64_t outH, outW;
  if (failed(inferWindowSizes(emitError, x, w.getShape().drop_front(2), strides,
                              pads, dilations, false, outH, outW)))
    return failure();
  // Compared by division: w.getDimSize(1) * groups may overflow.
  if (x.getDimSize(1) % groups != 0 ||
      x.getDimSize(1) / groups != w.getDimSize(1))
    return fail(emitError, "input has ", x.getDimSize(1),
                " channels but weight expects ", w.getDimSize(1),
                " per group (", groups, " groups)");
  shape.assign({x.getDimSize(0), outChannels, outH, outW});
  return success();
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  auto w = tensorTypeOf(adaptor.getWeight());
  SmallVector<int64_t> shape;
  auto emitError = emitterAt(location);
  bool channelsLast = adaptor.getChannelsLast();
  if (channelsLast) {
    if (x.getRank() != 4)
      return emitOptionalError(location, "expected an NHWC input, got ", x);
    x = RankedTensorType::get(
        {x.getDimSize(0), x.getDimSize(3), x.getDimSize(1), x.getDimSize(2)},
        x.getElementType());
  }
  if (failed(inferConv2DShape(emitError, x, w, adaptor.getStrides(),
                              adaptor.getPads(), adaptor.getDilations(),
                              adaptor.getGroups(), shape)))
    return failure();
  int64_t outChannels = shape[1];
  if (Value bias = adaptor.getBias()) {
    // ODS cannot constrain the optional bias, so its element type is
    // checked here: it is added to the result.
    auto biasType = tensorTypeOf(bias);
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != outChannels ||
        biasType.getElementType() != x.getElementType())
      return emitOptionalError(location, "conv2d bias must be [", outChannels,
                               "] of ", x.getElementType(), ", got ", biasType);
  }
  if (channelsLast)
    shape = {shape[0], shape[2], shape[3], shape[1]};
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

LogicalResult mlir::oneflow::inferPool2DShape(
    EmitErrorFn emitError, RankedTensorType x, ArrayRef<int64_t> kernel,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
    ArrayRef<int64_t> dilations, bool ceilMode,
    SmallVectorImpl<int64_t> &shape) {
  int64_t outH, outW;
  if (failed(inferWindowSizes(emitError, x, kernel, strides, pads, dilations,
                              ceilMode, outH, outW)))
    return failure();
  shape.assign({x.getDimSize(0), x.getDimSize(1), outH, outW});
  return success();
}

/// inferReturnTypes of max_pool2d and avg_pool2d (whose `dilations` are
/// {1, 1}).
template <typename PoolAdaptor>
static LogicalResult inferPool2DResult(std::optional<Location> location,
                                       PoolAdaptor adaptor,
                                       ArrayRef<int64_t> dilations,
                                       SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  bool channelsLast = adaptor.getChannelsLast();
  return inferFromShapeRule(
      location, x.getElementType(),
      [&](EmitErrorFn emitError, SmallVectorImpl<int64_t> &shape) {
        RankedTensorType nchw = x;
        if (channelsLast && x.getRank() == 4)
          nchw = RankedTensorType::get({x.getDimSize(0), x.getDimSize(3),
                                        x.getDimSize(1), x.getDimSize(2)},
                                       x.getElementType());
        if (failed(inferPool2DShape(emitError, nchw, adaptor.getKernel(),
                                    adaptor.getStrides(), adaptor.getPads(),
                                    dilations, adaptor.getCeilMode(), shape)))
          return failure();
        if (channelsLast) {
          SmallVector<int64_t> nhwc = {shape[0], shape[2], shape[3], shape[1]};
          shape.assign(nhwc);
        }
        return success();
      },
      inferred);
}

LogicalResult MaxPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferPool2DResult(location, adaptor, adaptor.getDilations(), inferred);
}

LogicalResult AvgPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferPool2DResult(location, adaptor, {1, 1}, inferred);
}

static LogicalResult inferGlobalPool(std::optional<Location> location,
                                     Value input,
                                     SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(input);
  if (x.getRank() != 4)
    return emitOptionalError(location, "expected an NCHW input, got ", x);
  inferred.push_back(RankedTensorType::get(
      {x.getDimSize(0), x.getDimSize(1), 1, 1}, x.getElementType()));
  return success();
}

LogicalResult GlobalAvgPool2DOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferGlobalPool(location, adaptor.getX(), inferred);
}

LogicalResult GlobalMaxPool2DOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferGlobalPool(location, adaptor.getX(), inferred);
}

/// Batch-norm parameters are vectors over the channel axis (axis 1).
LogicalResult mlir::oneflow::verifyChannelParams(Operation *op,
                                                 RankedTensorType x,
                                                 RankedTensorType param) {
  if (x.getRank() < 2)
    return op->emitOpError() << "input must have rank >= 2 (N, C, ...)";
  if (param.getRank() != 1 || param.getDimSize(0) != x.getDimSize(1))
    return op->emitOpError() << "scale, bias and statistics must be ["
                             << x.getDimSize(1) << "], got " << param;
  return success();
}

LogicalResult BatchNormOp::verify() {
  return verifyChannelParams(*this, getX().getType(), getScale().getType());
}

LogicalResult BatchNormTrainOp::verify() {
  return verifyChannelParams(*this, getX().getType(), getScale().getType());
}

LogicalResult LayerNormOp::verify() {
  RankedTensorType x = getX().getType();
  if (failed(verifyAxis(*this, getAxis(), x.getRank())))
    return failure();
  ArrayRef<int64_t> normalized = x.getShape().drop_front(getAxis());
  auto checkParam = [&](Value param, StringRef name) -> LogicalResult {
    if (!param)
      return success();
    if (tensorTypeOf(param).getShape() != normalized)
      return emitOpError() << name << " shape must equal the normalized "
                           << "shape [" << normalized << "], got "
                           << param.getType();
    return success();
  };
  if (failed(checkParam(getScale(), "scale")) ||
      failed(checkParam(getBias(), "bias")))
    return failure();
  // Like batch_norm's parameters, scale and bias share one type.
  if (getBias() && getBias().getType() != getScale().getType())
    return emitOpError() << "bias type " << getBias().getType()
                         << " does not match the scale type "
                         << getScale().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType x = getX().getType(), y = getY().getType();
  if (x.getElementType() != y.getElementType())
    return emitOpError() << "reshape cannot change the element type";
  // getNumElements() would wrap silently on huge shapes.
  std::optional<int64_t> from = checkedProduct(x.getShape()),
                         to = checkedProduct(y.getShape());
  if (!from || !to)
    return emitOpError() << "element count of " << (from ? y : x)
                         << " overflows int64_t";
  if (*from != *to)
    return emitOpError() << "reshape from " << x << " (" << *from
                         << " elements) to " << y << " (" << *to
                         << " elements)";
  return success();
}

/// Replaces a reshape-like op by the equivalent oneflow.reshape.
template <typename OpTy>
struct ReshapeLikeToReshape : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getY().getType(), op.getX());
    return success();
  }
};

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis > x.getRank())
    return emitOptionalError(location, "flatten axis ", axis,
                             " is out of range [0, ", x.getRank(), "]");
  std::optional<int64_t> outer = checkedProduct(x.getShape().take_front(axis));
  std::optional<int64_t> inner = checkedProduct(x.getShape().drop_front(axis));
  if (!outer || !inner)
    return emitOptionalError(location, "flattened size of ", x,
                             " overflows int64_t");
  inferred.push_back(
      RankedTensorType::get({*outer, *inner}, x.getElementType()));
  return success();
}

void FlattenOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeLikeToReshape<FlattenOp>>(context);
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (failed(checkAxes(location, axes, x.getRank(), "squeeze")))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [dim, size] : llvm::enumerate(x.getShape())) {
    if (!llvm::is_contained(axes, (int64_t)dim)) {
      shape.push_back(size);
      continue;
    }
    if (size != 1)
      return emitOptionalError(location, "cannot squeeze dimension ", dim,
                               " of size ", size);
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

void SqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeLikeToReshape<SqueezeOp>>(context);
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  int64_t rank = x.getRank() + axes.size();
  if (failed(checkAxes(location, axes, rank, "unsqueeze")))
    return failure();
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> rest = x.getShape();
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (llvm::is_contained(axes, dim)) {
      shape.push_back(1);
    } else {
      shape.push_back(rest.front());
      rest = rest.drop_front();
    }
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

void UnsqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ReshapeLikeToReshape<UnsqueezeOp>>(context);
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if ((int64_t)perm.size() != x.getRank())
    return emitOptionalError(location, "perm has ", perm.size(),
                             " entries for a tensor of rank ", x.getRank());
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t dim : perm) {
    if (dim < 0 || dim >= x.getRank() || seen[dim])
      return emitOptionalError(location, "perm is not a permutation of [0, ",
                               x.getRank(), ")");
    seen[dim] = true;
    shape.push_back(x.getDimSize(dim));
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

namespace {
/// transpose(transpose(x, p), q) -> transpose(x, p o q).
struct ComposeTransposes : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getX().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm = llvm::map_to_vector(
        op.getPerm(), [&](int64_t dim) { return inner.getPerm()[dim]; });
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner.getX(), perm);
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

namespace {
/// A product operand transposed with its last two dims swapped is read
/// through the product's transpose flag instead: only the permutation of
/// the other dims stays, which keeps rows contiguous (q k^T of attention
/// copies k's heads out as rows instead of transposing every head).
template <typename ProductOp>
struct FoldTransposeIntoProduct : public OpRewritePattern<ProductOp> {
  using OpRewritePattern<ProductOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ProductOp op,
                                PatternRewriter &rewriter) const override {
    for (unsigned index : {0u, 1u}) {
      OpOperand &operand = op->getOpOperand(index);
      auto transpose = operand.get().template getDefiningOp<TransposeOp>();
      if (!transpose || !transpose->hasOneUse())
        continue;
      ArrayRef<int64_t> perm = transpose.getPerm();
      int64_t rank = perm.size();
      if (rank < 2)
        continue;
      // Swapping the last two picks back must leave them in order: the
      // transpose that stays then moves whole rows, not elements.
      SmallVector<int64_t> kept(perm);
      std::swap(kept[rank - 2], kept[rank - 1]);
      if (kept[rank - 2] > kept[rank - 1])
        continue;
      Value source = transpose.getX();
      rewriter.setInsertionPoint(op);
      if (!llvm::equal(kept, llvm::seq<int64_t>(0, rank)))
        source =
            TransposeOp::create(rewriter, transpose.getLoc(), source, kept);
      rewriter.modifyOpInPlace(op, [&] {
        operand.set(source);
        if (index == 0)
          op.setTransposeA(!op.getTransposeA());
        else
          op.setTransposeB(!op.getTransposeB());
      });
      rewriter.eraseOp(transpose);
      return success();
    }
    return failure();
  }
};
} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldTransposeIntoProduct<MatmulOp>>(context);
}

void BatchMatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                MLIRContext *context) {
  results.add<FoldTransposeIntoProduct<BatchMatmulOp>>(context);
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(location, "concat needs at least one input");
  auto first = tensorTypeOf(inputs.front());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOptionalError(location, "concat axis ", axis,
                             " is out of range for rank ", first.getRank());
  SmallVector<int64_t> shape = llvm::to_vector(first.getShape());
  shape[axis] = 0;
  for (Value input : inputs) {
    auto type = tensorTypeOf(input);
    if (type.getElementType() != first.getElementType() ||
        type.getRank() != first.getRank())
      return emitOptionalError(location, "concat inputs must share element "
                                         "type and rank");
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (dim != axis && type.getDimSize(dim) != first.getDimSize(dim))
        return emitOptionalError(location,
                                 "concat inputs differ in "
                                 "dimension ",
                                 dim, " (", type.getDimSize(dim), " vs ",
                                 first.getDimSize(dim), ")");
    std::optional<int64_t> sum =
        llvm::checkedAdd(shape[axis], type.getDimSize(axis));
    if (!sum)
      return emitOptionalError(location, "concat size along axis ", axis,
                               " overflows int64_t");
    shape[axis] = *sum;
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= x.getRank())
    return emitOptionalError(location, "split axis ", axis,
                             " is out of range for rank ", x.getRank());
  // A split without results has no parseable custom form (`-> ` followed by
  // nothing) and means nothing, so at least one piece is required.
  if (adaptor.getSizes().empty())
    return emitOptionalError(location, "split needs at least one size");
  int64_t total = 0;
  for (int64_t size : adaptor.getSizes()) {
    if (size < 0)
      return emitOptionalError(location, "split sizes must be >= 0");
    // A wrapped sum could match the dimension by accident.
    std::optional<int64_t> sum = llvm::checkedAdd(total, size);
    if (!sum)
      return emitOptionalError(location, "split sizes overflow int64_t");
    total = *sum;
    SmallVector<int64_t> shape = llvm::to_vector(x.getShape());
    shape[axis] = size;
    inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  }
  if (total != x.getDimSize(axis))
    return emitOptionalError(location, "split sizes sum to ", total,
                             " but dimension ", axis, " has size ",
                             x.getDimSize(axis));
  return success();
}

LogicalResult mlir::oneflow::inferSliceShape(EmitErrorFn emitError,
                                             RankedTensorType x,
                                             ArrayRef<int64_t> starts,
                                             ArrayRef<int64_t> limits,
                                             ArrayRef<int64_t> steps,
                                             SmallVectorImpl<int64_t> &shape) {
  size_t rank = x.getRank();
  if (starts.size() != rank || limits.size() != rank || steps.size() != rank)
    return fail(emitError,
                "starts, limits and steps need one entry per "
                "dimension (",
                rank, ")");
  shape.clear();
  for (size_t dim = 0; dim < rank; ++dim) {
    int64_t size = x.getDimSize(dim), start = starts[dim], limit = limits[dim],
            step = steps[dim];
    // An empty negative-step slice may start at 0 of an empty dimension,
    // but a non-empty one must start at an element.
    bool valid = step > 0 ? (0 <= start && start <= limit && limit <= size)
                          : (step < 0 && -1 <= limit && limit <= start &&
                             (start < size || (start == 0 && limit == 0)));
    if (!valid)
      return fail(emitError, "invalid slice [", start, ":", limit, ":", step,
                  "] of dimension ", dim, " of size ", size);
    // ceil(distance / |step|) in unsigned arithmetic: |step| may be 2^63,
    // and the naive (distance + |step| - 1) / |step| overflows.
    uint64_t distance =
        step > 0 ? uint64_t(limit - start) : uint64_t(start - limit);
    uint64_t absStep = step > 0 ? uint64_t(step) : 0 - uint64_t(step);
    uint64_t count = distance == 0 ? 0 : (distance - 1) / absStep + 1;
    shape.push_back(int64_t(count));
  }
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  return inferFromShapeRule(
      location, x.getElementType(),
      [&](EmitErrorFn emitError, SmallVectorImpl<int64_t> &shape) {
        return inferSliceShape(emitError, x, adaptor.getStarts(),
                               adaptor.getLimits(), adaptor.getSteps(), shape);
      },
      inferred);
}

LogicalResult mlir::oneflow::inferGatherShape(EmitErrorFn emitError,
                                              RankedTensorType data,
                                              RankedTensorType indices,
                                              int64_t axis,
                                              SmallVectorImpl<int64_t> &shape) {
  if (axis < 0 || axis >= data.getRank())
    return fail(emitError, "gather axis ", axis, " is out of range for rank ",
                data.getRank());
  shape.assign(data.getShape().take_front(axis).begin(),
               data.getShape().take_front(axis).end());
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  return success();
}

/// The shape rule of gather or gather_elements (OneFlowShapes.h).
using GatherShapeRule = LogicalResult (*)(EmitErrorFn, RankedTensorType data,
                                          RankedTensorType indices,
                                          int64_t axis,
                                          SmallVectorImpl<int64_t> &shape);

/// inferReturnTypes of gather and gather_elements: `rule` shapes the result
/// from data, indices and axis; the elements are data's.
template <typename GatherAdaptor>
static LogicalResult
inferGatherResult(std::optional<Location> location, GatherAdaptor adaptor,
                  GatherShapeRule rule, SmallVectorImpl<Type> &inferred) {
  auto data = tensorTypeOf(adaptor.getData());
  return inferFromShapeRule(
      location, data.getElementType(),
      [&](EmitErrorFn emitError, SmallVectorImpl<int64_t> &shape) {
        return rule(emitError, data, tensorTypeOf(adaptor.getIndices()),
                    adaptor.getAxis(), shape);
      },
      inferred);
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferGatherResult(location, adaptor, inferGatherShape, inferred);
}

LogicalResult ExpandOp::verify() {
  ArrayRef<int64_t> from = getX().getType().getShape(),
                    to = getY().getType().getShape();
  if (from.size() > to.size())
    return emitOpError() << "cannot expand rank " << from.size() << " to rank "
                         << to.size();
  ArrayRef<int64_t> aligned = to.take_back(from.size());
  for (auto [f, t] : llvm::zip(from, aligned))
    if (f != t && f != 1)
      return emitOpError() << "cannot broadcast " << getX().getType() << " to "
                           << getY().getType();
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  int64_t rank = x.getRank();
  if (failed(checkList(location, adaptor.getPads(), 2 * rank, 0, "pads")))
    return failure();
  ArrayRef<int64_t> pads = adaptor.getPads();
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t low = pads[dim], high = pads[rank + dim], size = x.getDimSize(dim);
    // Zero padding is always fine, even of an empty dimension.
    bool padded = low > 0 || high > 0;
    if (adaptor.getMode() == PadMode::Reflect && padded &&
        (low >= size || high >= size))
      return emitOptionalError(location, "reflect padding of dimension ", dim,
                               " must be smaller than its size ", size);
    if (adaptor.getMode() == PadMode::Edge && size == 0 && padded)
      return emitOptionalError(location, "cannot edge-pad an empty "
                                         "dimension");
    std::optional<int64_t> padSize = llvm::checkedAdd(size, low);
    if (padSize)
      padSize = llvm::checkedAdd(*padSize, high);
    if (!padSize)
      return emitOptionalError(location, "padded size of dimension ", dim,
                               " overflows int64_t");
    shape.push_back(*padSize);
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  if (failed(
          checkList(location, adaptor.getRepeats(), x.getRank(), 0, "repeats")))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [dim, size, repeat] :
       llvm::enumerate(x.getShape(), adaptor.getRepeats())) {
    std::optional<int64_t> tiled = llvm::checkedMul(size, repeat);
    if (!tiled)
      return emitOptionalError(location, "tiled size of dimension ", dim,
                               " overflows int64_t");
    shape.push_back(*tiled);
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

static Type lossType(RankedTensorType perSample, LossReduction reduction) {
  if (reduction == LossReduction::None)
    return perSample;
  return RankedTensorType::get({}, perSample.getElementType());
}

LogicalResult SoftmaxCrossEntropyOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto logits = tensorTypeOf(adaptor.getLogits());
  auto labels = tensorTypeOf(adaptor.getLabels());
  if (logits.getRank() < 1 ||
      labels.getShape() != logits.getShape().drop_back())
    return emitOptionalError(location, "labels ", labels,
                             " must have the shape of logits ", logits,
                             " without its class axis");
  inferred.push_back(lossType(
      RankedTensorType::get(labels.getShape(), logits.getElementType()),
      adaptor.getReduction()));
  return success();
}

LogicalResult MseLossOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location>,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      lossType(tensorTypeOf(adaptor.getInput()), adaptor.getReduction()));
  return success();
}

//===----------------------------------------------------------------------===//
// Transposed convolution, gather_elements, cumsum, topk
//===----------------------------------------------------------------------===//

LogicalResult ConvTranspose2DOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  auto w = tensorTypeOf(adaptor.getWeight());
  if (x.getRank() != 4 || w.getRank() != 4)
    return emitOptionalError(location, "conv_transpose2d needs a 4-D input "
                                       "and a 4-D weight [C_in, C_out / "
                                       "groups, kh, kw]");
  int64_t groups = adaptor.getGroups();
  if (groups < 1 || x.getDimSize(1) % groups != 0)
    return emitOptionalError(location, "groups (", groups,
                             ") must divide the input channels (",
                             x.getDimSize(1), ")");
  if (w.getDimSize(0) != x.getDimSize(1))
    return emitOptionalError(location, "weight has ", w.getDimSize(0),
                             " input channels but the input has ",
                             x.getDimSize(1));
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations(),
                    outputPadding = adaptor.getOutputPadding();
  if (failed(checkList(location, strides, 2, 1, "strides")) ||
      failed(checkList(location, pads, 4, 0, "pads")) ||
      failed(checkList(location, dilations, 2, 1, "dilations")) ||
      failed(checkList(location, outputPadding, 2, 0, "output_padding")))
    return failure();
  std::optional<int64_t> outChannels =
      llvm::checkedMul(w.getDimSize(1), groups);
  SmallVector<int64_t> shape = {x.getDimSize(0), outChannels.value_or(-1)};
  for (int d = 0; d < 2; ++d) {
    // (in - 1) * stride - pads + dilation * (k - 1) + output_padding + 1.
    std::optional<int64_t> size =
        llvm::checkedMul(x.getDimSize(2 + d) - 1, strides[d]);
    if (size)
      size = llvm::checkedAdd(*size, outputPadding[d] + 1);
    if (size)
      size = llvm::checkedMulAdd(dilations[d], w.getDimSize(2 + d) - 1, *size);
    if (!size || !outChannels)
      return emitOptionalError(location, "output size overflows int64_t");
    int64_t out = *size - pads[d] - pads[2 + d];
    if (out <= 0 || x.getDimSize(2 + d) == 0)
      return emitOptionalError(location,
                               "padding leaves no output along "
                               "spatial dimension ",
                               d);
    shape.push_back(out);
  }
  if (Value bias = adaptor.getBias()) {
    auto biasType = tensorTypeOf(bias);
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != *outChannels ||
        biasType.getElementType() != x.getElementType())
      return emitOptionalError(location, "conv_transpose2d bias must be [",
                               *outChannels, "] of ", x.getElementType(),
                               ", got ", biasType);
  }
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult mlir::oneflow::inferGatherElementsShape(
    EmitErrorFn emitError, RankedTensorType data, RankedTensorType indices,
    int64_t axis, SmallVectorImpl<int64_t> &shape) {
  if (data.getRank() < 1 || indices.getRank() != data.getRank())
    return fail(emitError, "indices ", indices, " must have the rank of data ",
                data);
  if (axis < 0 || axis >= data.getRank())
    return fail(emitError, "gather_elements axis ", axis,
                " is out of range for rank ", data.getRank());
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) > data.getDimSize(d))
      return fail(emitError, "indices dimension ", d, " (",
                  indices.getDimSize(d), ") exceeds the data's (",
                  data.getDimSize(d), ")");
  shape.assign(indices.getShape().begin(), indices.getShape().end());
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferGatherResult(location, adaptor, inferGatherElementsShape,
                           inferred);
}

LogicalResult CoordinateSliceOp::verify() {
  RankedTensorType x = getX().getType(), y = getY().getType();
  int64_t axis = getAxis();
  if (failed(verifyAxis(*this, axis, x.getRank())))
    return failure();
  if (x.getRank() != y.getRank())
    return emitOpError() << "keeps the rank: " << x << " vs " << y;
  for (int64_t dim = 0; dim < x.getRank(); ++dim)
    if (dim != axis && x.getDimSize(dim) != y.getDimSize(dim))
      return emitOpError() << "changes only dimension " << axis << ": " << x
                           << " vs " << y;
  int64_t meshAxes = getCoordinates().getType().getNumElements();
  if (getCoordinates().getType().getRank() != 1 || getMeshAxis() < 0 ||
      getMeshAxis() >= meshAxes)
    return emitOpError() << "reads coordinate " << getMeshAxis() << " of "
                         << getCoordinates().getType();
  return success();
}

LogicalResult CumSumOp::verify() {
  return verifyAxis(*this, getAxis(), getX().getType().getRank());
}

LogicalResult NonMaxSuppressionOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto boxes = tensorTypeOf(adaptor.getBoxes());
  auto scores = tensorTypeOf(adaptor.getScores());
  if (boxes.getRank() != 3 || boxes.getDimSize(2) != 4)
    return emitOptionalError(location,
                             "boxes must be [batches, boxes, 4], not ", boxes);
  if (scores.getRank() != 3 || scores.getDimSize(0) != boxes.getDimSize(0) ||
      scores.getDimSize(2) != boxes.getDimSize(1))
    return emitOptionalError(location, "scores must be [", boxes.getDimSize(0),
                             ", classes, ", boxes.getDimSize(1), "], not ",
                             scores);
  SmallVector<Value> limits = {adaptor.getMaxOutputBoxesPerClass(),
                               adaptor.getIouThreshold()};
  if (adaptor.getScoreThreshold())
    limits.push_back(adaptor.getScoreThreshold());
  for (Value limit : limits)
    if (tensorTypeOf(limit).getNumElements() != 1)
      return emitOptionalError(location,
                               "max_output_boxes_per_class, iou_threshold and "
                               "score_threshold hold one value each, not ",
                               limit.getType());
  int64_t perClass = boxes.getDimSize(1);
  if (std::optional<uint64_t> bound = adaptor.getMaxBoxesBound())
    perClass = std::min<int64_t>(perClass, *bound);
  Type i64 = IntegerType::get(context, 64);
  inferred.push_back(RankedTensorType::get(
      {scores.getDimSize(0) * scores.getDimSize(1) * perClass, 3}, i64));
  inferred.push_back(RankedTensorType::get({}, i64));
  return success();
}

LogicalResult UniqueOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  SmallVector<int64_t> shape = {x.getNumElements()};
  int64_t entries = x.getNumElements();
  if (std::optional<int64_t> axis = adaptor.getAxis()) {
    if (*axis < 0 || *axis >= x.getRank())
      return emitOptionalError(location, "unique axis ", *axis,
                               " is out of range for rank ", x.getRank());
    shape.assign(x.getShape().begin(), x.getShape().end());
    entries = x.getDimSize(*axis);
  }
  Type i64 = IntegerType::get(context, 64);
  auto list = RankedTensorType::get({entries}, i64);
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  inferred.append({list, list, list, RankedTensorType::get({}, i64)});
  return success();
}

LogicalResult NonZeroOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  if (x.getRank() > kMaxNonZeroRank)
    return emitOptionalError(location, "non_zero takes tensors of rank up to ",
                             kMaxNonZeroRank, ", not ", x.getRank());
  Type i64 = IntegerType::get(context, 64);
  inferred.push_back(
      RankedTensorType::get({x.getRank(), x.getNumElements()}, i64));
  inferred.push_back(RankedTensorType::get({}, i64));
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto x = tensorTypeOf(adaptor.getX());
  int64_t axis = adaptor.getAxis(), k = adaptor.getK();
  if (axis < 0 || axis >= x.getRank())
    return emitOptionalError(location, "topk axis ", axis,
                             " is out of range for rank ", x.getRank());
  if (k < 0 || k > x.getDimSize(axis))
    return emitOptionalError(location, "k = ", k, " is out of range [0, ",
                             x.getDimSize(axis), "]");
  SmallVector<int64_t> shape(x.getShape());
  shape[axis] = k;
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  inferred.push_back(
      RankedTensorType::get(shape, IntegerType::get(context, 64)));
  return success();
}
