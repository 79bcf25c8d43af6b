//===- TensorImporters.cpp - Shape ops, constants and data movement -------===//
//
// Shape, Size, ConstantOfShape and Range produce values known at import time;
// together with the oneflow folders this turns the shape arithmetic PyTorch
// exports into constants.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "mlir/Dialect/Traits.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

RankedTensorType i64Type(NodeContext &ctx, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, ctx.getBuilder().getI64Type());
}

LogicalResult setResult(NodeContext &ctx, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  ctx.setOutput(0, *value);
  return success();
}

//===----------------------------------------------------------------------===//
// Values known at import time
//===----------------------------------------------------------------------===//

LogicalResult importConstant(NodeContext &ctx) {
  MLIRContext *context = ctx.getContext();
  std::string error;
  if (const onnx::AttributeProto *attr = ctx.getAttr("value")) {
    const onnx::TensorProto &tensor = attr->t();
    Type elementType = convertElementType(context, tensor.data_type());
    if (!elementType)
      return ctx.emitError() << "constant of element type "
                             << onnxTypeName(tensor.data_type())
                             << ", which OneFlow-MLIR does not handle";
    SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
    if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
      return ctx.emitError() << "constant has a negative dimension";
    if (!boundedElementCount(shape))
      return ctx.emitError() << "constant has more than 2^48 elements";
    auto type = RankedTensorType::get(shape, elementType);
    ElementsAttr value = convertTensorProto(
        tensor, type, ctx.getNode().output(0),
        isa<FloatType>(elementType) && type.getNumElements() > 64, error);
    if (!value)
      return ctx.emitError() << "constant " << error;
    ctx.setConstantOutput(0, value);
    return success();
  }
  auto floatType = Float32Type::get(context);
  if (const onnx::AttributeProto *attr = ctx.getAttr("value_float")) {
    ctx.setConstantOutput(
        0, makeDense(RankedTensorType::get({}, floatType), {attr->f()}));
    return success();
  }
  if (const onnx::AttributeProto *attr = ctx.getAttr("value_floats")) {
    SmallVector<double> values(attr->floats().begin(), attr->floats().end());
    ctx.setConstantOutput(
        0, makeDense(RankedTensorType::get({(int64_t)values.size()},
                                           floatType),
                     values));
    return success();
  }
  if (const onnx::AttributeProto *attr = ctx.getAttr("value_int")) {
    ctx.setConstantOutput(0, makeDenseInts(i64Type(ctx, {}), {attr->i()}));
    return success();
  }
  if (const onnx::AttributeProto *attr = ctx.getAttr("value_ints")) {
    SmallVector<int64_t> values(attr->ints().begin(), attr->ints().end());
    ctx.setConstantOutput(
        0, makeDenseInts(i64Type(ctx, {(int64_t)values.size()}), values));
    return success();
  }
  return ctx.emitError() << "only tensor, float and int constants are "
                            "supported (not strings or sparse tensors)";
}

LogicalResult importShape(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = ctx.getInputType(0);
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(ctx.getInt("start", 0));
  int64_t end = clampIndex(ctx.getInt("end", rank));
  SmallVector<int64_t> dims;
  for (int64_t d = start; d < end; ++d)
    dims.push_back(type->getDimSize(d));
  ctx.setConstantOutput(
      0, makeDenseInts(i64Type(ctx, {(int64_t)dims.size()}), dims));
  return success();
}

LogicalResult importSize(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = ctx.getInputType(0);
  if (failed(type))
    return failure();
  ctx.setConstantOutput(0,
                        makeDenseInts(i64Type(ctx, {}), {type->getNumElements()}));
  return success();
}

LogicalResult importConstantOfShape(NodeContext &ctx) {
  FailureOr<SmallVector<int64_t>> shape = ctx.getConstantInts(0, "shape");
  if (failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.emitError() << "shape has a negative dimension";
  Type elementType = Float32Type::get(ctx.getContext());
  double value = 0;
  if (const onnx::AttributeProto *attr = ctx.getAttr("value")) {
    const onnx::TensorProto &tensor = attr->t();
    elementType = convertElementType(ctx.getContext(), tensor.data_type());
    if (!elementType)
      return ctx.emitError() << "value of element type "
                             << onnxTypeName(tensor.data_type())
                             << ", which OneFlow-MLIR does not handle";
    std::string error;
    ElementsAttr data = convertTensorProto(
        tensor, RankedTensorType::get({1}, elementType), "", false, error);
    if (!data)
      return ctx.emitError() << "value " << error;
    value = getFloatValues(getDenseElements(data)).front();
    if (!isa<FloatType>(elementType))
      value = getIntValues(getDenseElements(data)).front();
  }
  auto type = RankedTensorType::get(*shape, elementType);
  ctx.setConstantOutput(
      0, DenseElementsAttr::get(
             type, makeDense(RankedTensorType::get({}, elementType), {value})
                       .getSplatValue<Attribute>()));
  return success();
}

LogicalResult importRange(NodeContext &ctx) {
  DenseElementsAttr start = ctx.getConstantInput(0),
                    limit = ctx.getConstantInput(1),
                    delta = ctx.getConstantInput(2);
  if (!start || !limit || !delta)
    return ctx.emitError() << "start, limit and delta must be known at "
                              "import time"
                           << ctx.graphInputHint(!start   ? 0
                                                 : !limit ? 1
                                                          : 2);
  if (start.getNumElements() != 1 || limit.getNumElements() != 1 ||
      delta.getNumElements() != 1)
    return ctx.emitError() << "start, limit and delta must be scalars";
  auto type = cast<RankedTensorType>(start.getType());
  double s = getFloatValues(start).front(), l = getFloatValues(limit).front(),
         d = getFloatValues(delta).front();
  if (d == 0)
    return ctx.emitError() << "delta must not be zero";
  int64_t count =
      std::max<int64_t>(0, saturatingToInt64(std::ceil((l - s) / d)));
  // The range becomes a constant built element by element at import time.
  if (count > kMaxComputedConstantElements)
    return ctx.emitError() << "range of " << count
                           << " elements is too large to fold (at most "
                           << kMaxComputedConstantElements << ")";
  SmallVector<double> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(s + i * d);
  ctx.setConstantOutput(0, makeDense(type.clone({count}), values));
  return success();
}

LogicalResult importEyeLike(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = ctx.getInputType(0);
  if (failed(type))
    return failure();
  if (type->getRank() != 2)
    return ctx.emitError() << "input must be 2-D";
  Type elementType = type->getElementType();
  if (ctx.hasAttr("dtype")) {
    elementType = convertElementType(ctx.getContext(), ctx.getInt("dtype", 1));
    if (!elementType)
      return ctx.emitError() << "unsupported dtype";
  }
  int64_t rows = type->getDimSize(0), cols = type->getDimSize(1),
          k = ctx.getInt("k", 0);
  SmallVector<double> values(rows * cols, 0.0);
  for (int64_t i = 0; i < rows; ++i)
    if (i + k >= 0 && i + k < cols)
      values[i * cols + i + k] = 1.0;
  ctx.setConstantOutput(
      0, makeDense(RankedTensorType::get({rows, cols}, elementType), values));
  return success();
}

//===----------------------------------------------------------------------===//
// Reshapes
//===----------------------------------------------------------------------===//

LogicalResult importReshape(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  FailureOr<SmallVector<int64_t>> requested = ctx.getConstantInts(1, "shape");
  if (failed(x) || failed(requested))
    return failure();
  RankedTensorType type = typeOf(*x);
  bool allowZero = ctx.getInt("allowzero", 0) != 0;
  SmallVector<int64_t> shape;
  int64_t inferIndex = -1, known = 1;
  for (auto [index, dim] : llvm::enumerate(*requested)) {
    if (dim == 0 && !allowZero) {
      if ((int64_t)index >= type.getRank())
        return ctx.emitError() << "shape copies dimension " << index
                               << " of a rank-" << type.getRank() << " input";
      dim = type.getDimSize(index);
    }
    if (dim == -1) {
      if (inferIndex >= 0)
        return ctx.emitError() << "shape has more than one -1";
      inferIndex = index;
    } else if (dim < 0) {
      return ctx.emitError() << "invalid dimension " << dim << " in shape";
    }
    shape.push_back(dim);
  }
  SmallVector<int64_t> knownDims;
  for (int64_t dim : shape)
    if (dim != -1)
      knownDims.push_back(dim);
  std::optional<int64_t> knownCount = boundedElementCount(knownDims);
  if (!knownCount)
    return ctx.emitError() << "shape has more than 2^48 elements";
  known = *knownCount;
  if (inferIndex >= 0) {
    if (known == 0 || type.getNumElements() % known != 0)
      return ctx.emitError() << "cannot infer the -1 dimension of "
                             << type.getNumElements() << " elements";
    shape[inferIndex] = type.getNumElements() / known;
  }
  int64_t total = *boundedElementCount(shape);
  if (total != type.getNumElements())
    return ctx.emitError() << "cannot reshape " << type << " ("
                           << type.getNumElements() << " elements) to "
                           << total << " elements";
  ctx.setOutput(0, ctx.reshape(*x, shape));
  return success();
}

LogicalResult importFlatten(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  int64_t axis = ctx.getInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return ctx.emitError() << "axis " << ctx.getInt("axis", 1)
                           << " is out of range for rank " << rank;
  return setResult(ctx, ctx.create<FlattenOp>(*x, axis));
}

/// Axes of Squeeze/Unsqueeze: an attribute before opset 13, an input after.
FailureOr<SmallVector<int64_t>> getAxesAttrOrInput(NodeContext &ctx) {
  if (ctx.hasInput(1))
    return ctx.getConstantInts(1, "axes");
  return ctx.getInts("axes");
}

LogicalResult importSqueeze(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  FailureOr<SmallVector<int64_t>> axes = getAxesAttrOrInput(ctx);
  if (failed(x) || failed(axes))
    return failure();
  RankedTensorType type = typeOf(*x);
  SmallVector<int64_t> normalized;
  if (axes->empty()) {
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      if (size == 1)
        normalized.push_back(d);
  }
  for (int64_t axis : *axes) {
    FailureOr<int64_t> a = normalizeAxis(ctx, axis, type.getRank());
    if (failed(a))
      return failure();
    normalized.push_back(*a);
  }
  llvm::sort(normalized);
  normalized.erase(std::unique(normalized.begin(), normalized.end()),
                   normalized.end());
  return setResult(ctx, ctx.create<SqueezeOp>(*x, normalized));
}

LogicalResult importUnsqueeze(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  FailureOr<SmallVector<int64_t>> axes = getAxesAttrOrInput(ctx);
  if (failed(x) || failed(axes))
    return failure();
  int64_t rank = typeOf(*x).getRank() + axes->size();
  SmallVector<int64_t> normalized;
  for (int64_t axis : *axes) {
    FailureOr<int64_t> a = normalizeAxis(ctx, axis, rank);
    if (failed(a))
      return failure();
    normalized.push_back(*a);
  }
  llvm::sort(normalized);
  if (std::adjacent_find(normalized.begin(), normalized.end()) !=
      normalized.end())
    return ctx.emitError() << "axes repeat";
  return setResult(ctx, ctx.create<UnsqueezeOp>(*x, normalized));
}

LogicalResult importTranspose(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> perm = ctx.getInts("perm");
  if (perm.empty())
    perm = llvm::to_vector(llvm::reverse(
        llvm::seq<int64_t>(0, typeOf(*x).getRank())));
  return setResult(ctx, ctx.create<TransposeOp>(*x, perm));
}

//===----------------------------------------------------------------------===//
// Concat, split, slice, gather
//===----------------------------------------------------------------------===//

LogicalResult importConcat(NodeContext &ctx) {
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < ctx.getNumInputs(); ++i) {
    FailureOr<Value> v = ctx.getInput(i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  if (inputs.empty())
    return ctx.emitError() << "needs at least one input";
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", 0),
                                          typeOf(inputs.front()).getRank());
  if (failed(axis))
    return failure();
  return setResult(ctx, ctx.create<ConcatOp>(inputs, *axis));
}

LogicalResult importSplit(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> sizes;
  if (ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> fromInput = ctx.getConstantInts(1, "split");
    if (failed(fromInput))
      return failure();
    sizes = *fromInput;
  } else {
    sizes = ctx.getInts("split");
  }
  int64_t dim = type.getDimSize(*axis);
  unsigned count = ctx.getNumOutputs();
  if (sizes.empty()) {
    // Equal pieces; the last one smaller when they do not divide.
    int64_t piece = (dim + count - 1) / count;
    for (unsigned i = 0; i < count; ++i)
      sizes.push_back(std::max<int64_t>(
          0, std::min<int64_t>(piece, dim - (int64_t)i * piece)));
  }
  if (sizes.size() != count)
    return ctx.emitError() << "split has " << sizes.size()
                           << " sizes for " << count << " outputs";
  FailureOr<Operation *> op = ctx.createOp<SplitOp>(*x, *axis, sizes);
  if (failed(op))
    return failure();
  for (unsigned i = 0; i < count; ++i)
    ctx.setOutput(i, (*op)->getResult(i));
  return success();
}

LogicalResult importSlice(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (ctx.getOpset() < 10) {
    starts = ctx.getInts("starts");
    ends = ctx.getInts("ends");
    axes = ctx.getInts("axes");
  } else {
    FailureOr<SmallVector<int64_t>> s = ctx.getConstantInts(1, "starts"),
                                    e = ctx.getConstantInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (ctx.hasInput(3)) {
      FailureOr<SmallVector<int64_t>> a = ctx.getConstantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (ctx.hasInput(4)) {
      FailureOr<SmallVector<int64_t>> st = ctx.getConstantInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts.size()));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || starts.size() != axes.size() ||
      starts.size() != steps.size())
    return ctx.emitError() << "starts, ends, axes and steps differ in length";

  SmallVector<int64_t> begin(rank, 0), limit(type.getShape()),
      stride(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, axes[i], rank);
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return ctx.emitError() << "axis " << *axis << " is sliced twice";
    seen[*axis] = true;
    int64_t dim = type.getDimSize(*axis), step = steps[i];
    if (step == 0)
      return ctx.emitError() << "steps must not be zero";
    // ONNX clamps out-of-range bounds (INT64_MAX means "to the end").
    auto clamp = [&](int64_t value, int64_t lo, int64_t hi) {
      if (value < 0)
        value = value < -dim ? lo : value + dim;
      return std::clamp(value, lo, hi);
    };
    if (step > 0) {
      begin[*axis] = clamp(starts[i], 0, dim);
      limit[*axis] = std::max(begin[*axis], clamp(ends[i], 0, dim));
    } else {
      begin[*axis] = clamp(starts[i], 0, dim - 1);
      int64_t end = ends[i] < -dim ? -1 : clamp(ends[i], -1, dim - 1);
      limit[*axis] = std::min(begin[*axis], end);
      if (dim == 0) {
        begin[*axis] = 0;
        limit[*axis] = 0;
        step = 1;
      }
    }
    stride[*axis] = step;
  }
  return setResult(ctx, ctx.create<SliceOp>(*x, begin, limit, stride));
}

LogicalResult importGather(NodeContext &ctx) {
  FailureOr<Value> data = ctx.getInput(0), indices = ctx.getInput(1);
  if (failed(data) || failed(indices))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), typeOf(*data).getRank());
  if (failed(axis))
    return failure();
  Value index = *indices;
  // Negative indices known at import time are made positive here; the
  // kernel wraps run-time ones.
  if (DenseElementsAttr constant = ctx.getConstantInput(1)) {
    int64_t dim = typeOf(*data).getDimSize(*axis);
    SmallVector<int64_t> values = getIntValues(constant);
    for (int64_t &v : values) {
      if (v < -dim || v >= dim)
        return ctx.emitError() << "index " << v
                               << " is out of range for a dimension of "
                               << dim;
      if (v < 0)
        v += dim;
    }
    index = ctx.constant(
        makeDenseInts(cast<RankedTensorType>(constant.getType()), values));
  }
  return setResult(ctx, ctx.create<GatherOp>(*data, index, *axis));
}

//===----------------------------------------------------------------------===//
// Expand, pad, tile, trilu, one-hot
//===----------------------------------------------------------------------===//

LogicalResult importExpand(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  FailureOr<SmallVector<int64_t>> shape = ctx.getConstantInts(1, "shape");
  if (failed(x) || failed(shape))
    return failure();
  RankedTensorType type = typeOf(*x);
  SmallVector<int64_t> result;
  if (!OpTrait::util::getBroadcastedShape(type.getShape(), *shape, result))
    return ctx.emitError() << "cannot broadcast " << type << " to ["
                           << *shape << "]";
  // Expand broadcasts both ways; the input first gains leading unit dims.
  Value input = *x;
  if ((int64_t)result.size() > type.getRank()) {
    SmallVector<int64_t> padded(result.size() - type.getRank(), 1);
    llvm::append_range(padded, type.getShape());
    input = ctx.reshape(input, padded);
  }
  ctx.setOutput(0, ctx.createTyped<ExpandOp>(type.clone(result), input));
  return success();
}

LogicalResult importPad(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  SmallVector<int64_t> pads;
  double value = 0;
  if (ctx.getOpset() < 11) {
    pads = ctx.getInts("pads");
    value = ctx.getFloat("value", 0.0);
  } else {
    FailureOr<SmallVector<int64_t>> p = ctx.getConstantInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (ctx.hasInput(2)) {
      FailureOr<double> v = ctx.getConstantScalar(2, "constant_value");
      if (failed(v))
        return failure();
      value = *v;
    }
  }
  if (ctx.hasInput(3)) {
    // Pads for a subset of axes (opset 18): spread them over all axes.
    FailureOr<SmallVector<int64_t>> axes = ctx.getConstantInts(3, "axes");
    if (failed(axes))
      return failure();
    SmallVector<int64_t> full(2 * rank, 0);
    for (auto [i, axis] : llvm::enumerate(*axes)) {
      FailureOr<int64_t> a = normalizeAxis(ctx, axis, rank);
      if (failed(a))
        return failure();
      full[*a] = pads[i];
      full[rank + *a] = pads[axes->size() + i];
    }
    pads = full;
  }
  if ((int64_t)pads.size() != 2 * rank)
    return ctx.emitError() << "pads has " << pads.size()
                           << " entries for rank " << rank;
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return ctx.emitError() << "negative pads (cropping) are not supported";
  std::string mode = ctx.getString("mode", "constant");
  std::optional<PadMode> padMode = symbolizePadMode(mode);
  if (!padMode)
    return ctx.emitError() << "pad mode '" << mode << "' is not supported";
  return setResult(ctx, ctx.create<PadOp>(*x, pads, *padMode,
                                         llvm::APFloat(value)));
}

LogicalResult importTile(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  FailureOr<SmallVector<int64_t>> repeats = ctx.getConstantInts(1, "repeats");
  if (failed(x) || failed(repeats))
    return failure();
  return setResult(ctx, ctx.create<TileOp>(*x, *repeats));
}

LogicalResult importTrilu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  if (type.getRank() < 2)
    return ctx.emitError() << "input must have rank >= 2";
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    FailureOr<double> kValue = ctx.getConstantScalar(1, "k");
    if (failed(kValue))
      return failure();
    k = saturatingToInt64(*kValue);
  }
  bool upper = ctx.getInt("upper", 1) != 0;
  int64_t rows = type.getDimSize(type.getRank() - 2),
          cols = type.getDimSize(type.getRank() - 1);
  if (cols > 0 && rows > kMaxComputedConstantElements / cols)
    return ctx.emitError() << "a " << rows << "x" << cols
                           << " mask is too large to import";
  // Keep element (i, j) where j - i >= k (upper) or j - i <= k (lower).
  SmallVector<int64_t> keep;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      keep.push_back(upper ? j - i >= k : j - i <= k);
  Value mask = ctx.constant(makeDenseInts(
      RankedTensorType::get({rows, cols}, ctx.getBuilder().getI1Type()),
      keep));
  return setResult(ctx, ctx.create<WhereOp>(
                            mask, *x, ctx.splat(type.getElementType(), 0)));
}

LogicalResult importOneHot(NodeContext &ctx) {
  FailureOr<Value> indices = ctx.getInput(0), values = ctx.getInput(2);
  FailureOr<double> depthValue = ctx.getConstantScalar(1, "depth");
  if (failed(indices) || failed(values) || failed(depthValue))
    return failure();
  int64_t depth = saturatingToInt64(*depthValue);
  if (depth <= 0 || depth > kMaxComputedConstantElements)
    return ctx.emitError() << "depth " << depth << " is out of range";
  if (typeOf(*values).getNumElements() != 2)
    return ctx.emitError() << "values must hold [off, on]";
  int64_t rank = typeOf(*indices).getRank() + 1;
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  Type i64 = ctx.getBuilder().getI64Type();
  Value index = ctx.cast(*indices, i64);
  // Negative indices count from the end of the depth.
  FailureOr<Value> negative = ctx.create<LessOp>(index, ctx.splat(i64, 0));
  FailureOr<Value> wrapped =
      ctx.create<AddOp>(index, ctx.splat(i64, (double)depth));
  if (failed(negative) || failed(wrapped))
    return failure();
  FailureOr<Value> normalized = ctx.create<WhereOp>(*negative, *wrapped, index);
  if (failed(normalized))
    return failure();
  FailureOr<Value> expanded =
      ctx.create<UnsqueezeOp>(*normalized, SmallVector<int64_t>{*axis});
  if (failed(expanded))
    return failure();
  SmallVector<int64_t> iotaShape(rank, 1);
  iotaShape[*axis] = depth;
  Value iota = ctx.constant(makeDenseInts(
      RankedTensorType::get(iotaShape, i64),
      llvm::to_vector(llvm::seq<int64_t>(0, depth))));
  FailureOr<Value> hot = ctx.create<EqualOp>(*expanded, iota);
  FailureOr<Value> off = ctx.create<SliceOp>(
      *values, SmallVector<int64_t>{0}, SmallVector<int64_t>{1},
      SmallVector<int64_t>{1});
  FailureOr<Value> on = ctx.create<SliceOp>(
      *values, SmallVector<int64_t>{1}, SmallVector<int64_t>{2},
      SmallVector<int64_t>{1});
  if (failed(hot) || failed(off) || failed(on))
    return failure();
  return setResult(ctx, ctx.create<WhereOp>(*hot, ctx.reshape(*on, {}),
                                            ctx.reshape(*off, {})));
}

LogicalResult importGatherElements(NodeContext &ctx) {
  FailureOr<Value> data = ctx.getInput(0), indices = ctx.getInput(1);
  if (failed(data) || failed(indices))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), typeOf(*data).getRank());
  if (failed(axis))
    return failure();
  return setResult(ctx, ctx.create<GatherElementsOp>(*data, *indices, *axis));
}

LogicalResult importCumSum(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  FailureOr<double> axisValue = ctx.getConstantScalar(1, "axis");
  if (failed(x) || failed(axisValue))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, saturatingToInt64(*axisValue), typeOf(*x).getRank());
  if (failed(axis))
    return failure();
  OpBuilder &b = ctx.getBuilder();
  auto op = CumSumOp::create(b, ctx.getLoc(), *x, b.getI64IntegerAttr(*axis),
                             ctx.getInt("exclusive", 0) ? b.getUnitAttr()
                                                        : UnitAttr(),
                             ctx.getInt("reverse", 0) ? b.getUnitAttr()
                                                      : UnitAttr());
  ctx.setOutput(0, op.getY());
  return success();
}

LogicalResult importTopK(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  int64_t k;
  if (ctx.getOpset() < 10) {
    k = ctx.getInt("k", -1);
  } else {
    FailureOr<double> kValue = ctx.getConstantScalar(1, "k");
    if (failed(kValue))
      return failure();
    k = saturatingToInt64(*kValue);
  }
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", -1), typeOf(*x).getRank());
  if (failed(axis))
    return failure();
  FailureOr<Operation *> op = ctx.createOp<TopKOp>(
      *x, k, *axis, ctx.getInt("largest", 1) == 0,
      ctx.getInt("sorted", 1) != 0);
  if (failed(op))
    return failure();
  ctx.setOutput(0, (*op)->getResult(0));
  ctx.setOutput(1, (*op)->getResult(1));
  return success();
}

/// DepthToSpace and SpaceToDepth: a reshape, a transpose and a reshape.
LogicalResult importDepthSpace(NodeContext &ctx, bool toSpace) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  int64_t b = ctx.getInt("blocksize", 0);
  if (type.getRank() != 4 || b <= 0)
    return ctx.emitError() << "needs a 4-D input and a positive blocksize";
  // Bounded so that blocksize^2 times the channels cannot overflow.
  if (b > (int64_t(1) << 12))
    return ctx.emitError() << "blocksize " << b << " is out of range";
  int64_t n = type.getDimSize(0), c = type.getDimSize(1),
          h = type.getDimSize(2), w = type.getDimSize(3);
  SmallVector<int64_t> split, perm, result;
  if (toSpace) {
    if (c % (b * b) != 0)
      return ctx.emitError() << "channels (" << c
                             << ") are not divisible by blocksize^2";
    bool crd = ctx.getString("mode", "DCR") == "CRD";
    split = crd ? SmallVector<int64_t>{n, c / (b * b), b, b, h, w}
                : SmallVector<int64_t>{n, b, b, c / (b * b), h, w};
    perm = crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
               : SmallVector<int64_t>{0, 3, 4, 1, 5, 2};
    result = {n, c / (b * b), h * b, w * b};
  } else {
    if (h % b != 0 || w % b != 0)
      return ctx.emitError() << "spatial size is not divisible by blocksize";
    if (c > std::numeric_limits<int64_t>::max() / (b * b))
      return ctx.emitError() << "channels times blocksize^2 overflow";
    split = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    result = {n, c * b * b, h / b, w / b};
  }
  FailureOr<Value> moved =
      ctx.create<TransposeOp>(ctx.reshape(*x, split), perm);
  if (failed(moved))
    return failure();
  ctx.setOutput(0, ctx.reshape(*moved, result));
  return success();
}

/// HannWindow, HammingWindow, BlackmanWindow: a constant of the given size.
LogicalResult importWindow(NodeContext &ctx, StringRef kind) {
  FailureOr<double> sizeValue = ctx.getConstantScalar(0, "size");
  if (failed(sizeValue))
    return failure();
  int64_t size = saturatingToInt64(*sizeValue);
  if (size < 0 || size > (int64_t(1) << 24))
    return ctx.emitError() << "window size " << size << " is out of range";
  Type elementType =
      convertElementType(ctx.getContext(), ctx.getInt("output_datatype", 1));
  if (!elementType)
    return ctx.emitError() << "unsupported output_datatype";
  bool periodic = ctx.getInt("periodic", 1) != 0;
  double denominator = periodic ? size : size - 1;
  SmallVector<double> values;
  for (int64_t n = 0; n < size; ++n) {
    double phase = denominator > 0 ? 2 * M_PI * n / denominator : 0;
    if (kind == "hann")
      values.push_back(0.5 - 0.5 * std::cos(phase));
    else if (kind == "hamming")
      values.push_back(25.0 / 46 - (1 - 25.0 / 46) * std::cos(phase));
    else
      values.push_back(0.42 - 0.5 * std::cos(phase) +
                       0.08 * std::cos(2 * phase));
  }
  ctx.setConstantOutput(
      0, makeDense(RankedTensorType::get({size}, elementType), values));
  return success();
}

/// Compress with a condition known at import time: a Gather of the kept
/// positions.
LogicalResult importCompress(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  DenseElementsAttr condition = ctx.getConstantInput(1);
  if (!condition)
    return ctx.emitError() << "the condition (input #1) must be known at "
                              "import time"
                           << ctx.graphInputHint(1);
  Value input = *x;
  int64_t axis = 0;
  if (ctx.hasAttr("axis")) {
    FailureOr<int64_t> a =
        normalizeAxis(ctx, ctx.getInt("axis", 0), typeOf(input).getRank());
    if (failed(a))
      return failure();
    axis = *a;
  } else {
    input = ctx.reshape(input, {typeOf(input).getNumElements()});
  }
  SmallVector<int64_t> kept;
  for (auto [i, flag] : llvm::enumerate(getIntValues(condition)))
    if (flag)
      kept.push_back(i);
  if (!kept.empty() && kept.back() >= typeOf(input).getDimSize(axis))
    return ctx.emitError() << "the condition selects beyond the axis";
  Value index =
      ctx.constant(makeDenseInts(i64Type(ctx, {(int64_t)kept.size()}), kept));
  return setResult(ctx, ctx.create<GatherOp>(input, index, axis));
}

} // namespace

void onnx_import::registerTensorImporters(NodeImporterRegistry &r) {
  r["HannWindow"] = [](NodeContext &ctx) { return importWindow(ctx, "hann"); };
  r["HammingWindow"] = [](NodeContext &ctx) {
    return importWindow(ctx, "hamming");
  };
  r["BlackmanWindow"] = [](NodeContext &ctx) {
    return importWindow(ctx, "blackman");
  };
  r["Compress"] = importCompress;
  r["GatherElements"] = importGatherElements;
  r["CumSum"] = importCumSum;
  r["TopK"] = importTopK;
  r["DepthToSpace"] = [](NodeContext &ctx) {
    return importDepthSpace(ctx, true);
  };
  r["SpaceToDepth"] = [](NodeContext &ctx) {
    return importDepthSpace(ctx, false);
  };
  r["Constant"] = importConstant;
  r["Shape"] = importShape;
  r["Size"] = importSize;
  r["ConstantOfShape"] = importConstantOfShape;
  r["Range"] = importRange;
  r["EyeLike"] = importEyeLike;
  r["Reshape"] = importReshape;
  r["Flatten"] = importFlatten;
  r["Squeeze"] = importSqueeze;
  r["Unsqueeze"] = importUnsqueeze;
  r["Transpose"] = importTranspose;
  r["Concat"] = importConcat;
  r["Split"] = importSplit;
  r["Slice"] = importSlice;
  r["Gather"] = importGather;
  r["Expand"] = importExpand;
  r["Pad"] = importPad;
  r["Tile"] = importTile;
  r["Trilu"] = importTrilu;
  r["OneHot"] = importOneHot;
}
