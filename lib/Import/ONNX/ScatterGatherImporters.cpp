//===- ScatterGatherImporters.cpp - GatherND, scatters, ReverseSequence ---===//
//
// Each index tuple becomes one linear index into the flattened data.
// GatherND is then a Gather of rows. A scatter is a product with the one-hot
// matrix of the linear indices, [updates, data rows]: its transpose sums the
// updates into their rows (reduction "add"), and rows that receive an update
// drop their old value (reduction "none"). The products cost updates x rows,
// which suits the small index sets of these ops, and give gradients and SBP
// for free. ReverseSequence is a GatherElements along time by indices
// computed from the run-time lengths.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// Indices into dimensions `dims`, negative ones counted from the end.
FailureOr<Value> wrapNegative(NodeContext &ctx, Value index, Value dims) {
  Type i64 = ctx.getBuilder().getI64Type();
  FailureOr<Value> negative = ctx.create<LessOp>(index, ctx.splat(i64, 0));
  FailureOr<Value> wrapped = ctx.create<AddOp>(index, dims);
  if (failed(negative) || failed(wrapped))
    return failure();
  return ctx.create<WhereOp>(*negative, *wrapped, index);
}

/// The linear row of each index tuple of `indices` ([..., k]) into data
/// whose leading dimensions after `batchDims` are `dims` (k of them), plus
/// the batch offset of each tuple: shape indices.shape[:-1].
FailureOr<Value> linearIndex(NodeContext &ctx, Value indices,
                             ArrayRef<int64_t> batch, ArrayRef<int64_t> dims) {
  Type i64 = ctx.getBuilder().getI64Type();
  RankedTensorType type = typeOf(indices);
  int64_t k = dims.size();
  SmallVector<int64_t> strides(k, 1);
  for (int64_t j = k - 2; j >= 0; --j)
    strides[j] = strides[j + 1] * dims[j + 1];
  Value index = ctx.cast(indices, i64);
  auto kType = RankedTensorType::get({k}, i64);
  FailureOr<Value> wrapped =
      wrapNegative(ctx, index, ctx.constant(makeDenseInts(kType, dims)));
  if (failed(wrapped))
    return failure();
  FailureOr<Value> scaled =
      ctx.create<MulOp>(*wrapped, ctx.constant(makeDenseInts(kType, strides)));
  if (failed(scaled))
    return failure();
  FailureOr<Value> linear = ctx.create<ReduceSumOp>(
      *scaled, SmallVector<int64_t>{type.getRank() - 1}, false);
  if (failed(linear) || batch.empty())
    return linear;
  // Tuple i of batch b addresses row b * rows + linear.
  ArrayRef<int64_t> outer = type.getShape().drop_back();
  int64_t rows = product(dims), inner = product(outer.drop_front(batch.size()));
  SmallVector<int64_t> offsets;
  for (int64_t b = 0; b < product(batch); ++b)
    offsets.append(inner, b * rows);
  return ctx.create<AddOp>(
      *linear,
      ctx.constant(makeDenseInts(RankedTensorType::get(outer, i64), offsets)));
}

LogicalResult importGatherND(NodeContext &ctx) {
  FailureOr<Value> data = ctx.getInput(0), indices = ctx.getInput(1);
  if (failed(data) || failed(indices))
    return failure();
  RankedTensorType dType = typeOf(*data), iType = typeOf(*indices);
  int64_t b = ctx.getInt("batch_dims", 0);
  if (iType.getRank() < 1)
    return ctx.emitError() << "indices must have rank >= 1";
  int64_t k = iType.getShape().back();
  if (b < 0 || b >= std::min(dType.getRank(), iType.getRank()) || k < 1 ||
      b + k > dType.getRank())
    return ctx.emitError() << "batch_dims " << b << " and index depth " << k
                           << " do not fit data of rank " << dType.getRank();
  if (dType.getShape().take_front(b) != iType.getShape().take_front(b))
    return ctx.emitError() << "the batch dimensions of data and indices "
                              "differ";
  ArrayRef<int64_t> batch = dType.getShape().take_front(b),
                    dims = dType.getShape().slice(b, k),
                    rest = dType.getShape().drop_front(b + k);
  FailureOr<Value> linear = linearIndex(ctx, *indices, batch, dims);
  if (failed(linear))
    return failure();
  SmallVector<int64_t> rows{product(batch) * product(dims)};
  llvm::append_range(rows, rest);
  FailureOr<Value> y =
      ctx.create<GatherOp>(ctx.reshape(*data, rows), *linear, int64_t(0));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// Scatters `updates` ([count, width]) into `data` ([rows, width]) at rows
/// `linear` ([count]).
FailureOr<Value> scatterRows(NodeContext &ctx, Value data, Value linear,
                             Value updates, StringRef reduction) {
  Type i64 = ctx.getBuilder().getI64Type();
  RankedTensorType type = typeOf(data);
  Type elementType = type.getElementType();
  int64_t rows = type.getDimSize(0), count = typeOf(linear).getDimSize(0);
  Value iota =
      ctx.constant(makeDenseInts(RankedTensorType::get({1, rows}, i64),
                                 llvm::to_vector(llvm::seq<int64_t>(0, rows))));
  FailureOr<Value> hot =
      ctx.create<EqualOp>(ctx.reshape(linear, {count, 1}), iota);
  if (failed(hot))
    return failure();
  Value oneHot = ctx.cast(*hot, elementType); // [count, rows]
  FailureOr<Value> scattered =
      ctx.create<MatmulOp>(oneHot, updates, true, false); // [rows, width]
  if (failed(scattered))
    return failure();
  if (reduction == "add")
    return ctx.create<AddOp>(data, *scattered);
  // Rows that receive an update keep nothing of their old value.
  FailureOr<Value> hit =
      ctx.create<ReduceMaxOp>(oneHot, SmallVector<int64_t>{0}, false);
  if (failed(hit))
    return failure();
  FailureOr<Value> kept = ctx.create<SubOp>(ctx.splat(elementType, 1),
                                            ctx.reshape(*hit, {rows, 1}));
  if (failed(kept))
    return failure();
  FailureOr<Value> old = ctx.create<MulOp>(data, *kept);
  if (failed(old))
    return failure();
  return ctx.create<AddOp>(*old, *scattered);
}

FailureOr<StringRef> getReduction(NodeContext &ctx, Type elementType) {
  static const std::string none = "none", add = "add";
  std::string reduction = ctx.getString("reduction", "none");
  if (reduction != "none" && reduction != "add")
    return ctx.emitError() << "reduction '" << reduction
                           << "' is not supported (only none and add)";
  if (!isa<FloatType>(elementType))
    return ctx.emitError() << "only floating-point data can be scattered";
  return StringRef(reduction == "add" ? add : none);
}

LogicalResult importScatterND(NodeContext &ctx) {
  FailureOr<Value> data = ctx.getInput(0), indices = ctx.getInput(1),
                   updates = ctx.getInput(2);
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  RankedTensorType dType = typeOf(*data), iType = typeOf(*indices);
  FailureOr<StringRef> reduction = getReduction(ctx, dType.getElementType());
  if (failed(reduction))
    return failure();
  if (iType.getRank() < 1)
    return ctx.emitError() << "indices must have rank >= 1";
  int64_t k = iType.getShape().back();
  if (k < 1 || k > dType.getRank())
    return ctx.emitError() << "index depth " << k << " does not fit data of "
                           << "rank " << dType.getRank();
  SmallVector<int64_t> updateShape(iType.getShape().drop_back());
  llvm::append_range(updateShape, dType.getShape().drop_front(k));
  if (typeOf(*updates).getShape() != ArrayRef<int64_t>(updateShape))
    return ctx.emitError() << "updates must have shape [" << updateShape
                           << "], got " << typeOf(*updates);
  ArrayRef<int64_t> dims = dType.getShape().take_front(k);
  int64_t width = product(dType.getShape().drop_front(k));
  int64_t count = product(iType.getShape().drop_back());
  FailureOr<Value> linear = linearIndex(ctx, *indices, {}, dims);
  if (failed(linear))
    return failure();
  FailureOr<Value> y =
      scatterRows(ctx, ctx.reshape(*data, {product(dims), width}),
                  ctx.reshape(*linear, {count}),
                  ctx.reshape(*updates, {count, width}), *reduction);
  if (failed(y))
    return failure();
  ctx.setOutput(0, ctx.reshape(*y, dType.getShape()));
  return success();
}

/// ScatterElements (and the deprecated Scatter).
LogicalResult importScatterElements(NodeContext &ctx) {
  FailureOr<Value> data = ctx.getInput(0), indices = ctx.getInput(1),
                   updates = ctx.getInput(2);
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  RankedTensorType dType = typeOf(*data), iType = typeOf(*indices);
  FailureOr<StringRef> reduction = getReduction(ctx, dType.getElementType());
  if (failed(reduction))
    return failure();
  int64_t rank = dType.getRank();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  if (iType.getRank() != rank ||
      typeOf(*updates).getShape() != iType.getShape())
    return ctx.emitError() << "indices and updates must have one shape of "
                              "data's rank";
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && iType.getDimSize(d) > dType.getDimSize(d))
      return ctx.emitError() << "indices exceed data along axis " << d;
  // Element p goes to p with p[axis] replaced by its index: a constant base
  // (p with p[axis] = 0) plus index * stride.
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * dType.getDimSize(d + 1);
  int64_t count = iType.getNumElements();
  if (count > kMaxComputedConstantElements)
    return ctx.emitError() << "indices of " << count
                           << " elements are too many to import";
  SmallVector<int64_t> base(count, 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t i = rest % iType.getDimSize(d);
      rest /= iType.getDimSize(d);
      if (d != *axis)
        base[flat] += i * strides[d];
    }
  }
  Type i64 = ctx.getBuilder().getI64Type();
  FailureOr<Value> wrapped =
      wrapNegative(ctx, ctx.cast(*indices, i64),
                   ctx.splat(i64, (double)dType.getDimSize(*axis)));
  if (failed(wrapped))
    return failure();
  FailureOr<Value> scaled =
      ctx.create<MulOp>(*wrapped, ctx.splat(i64, (double)strides[*axis]));
  if (failed(scaled))
    return failure();
  FailureOr<Value> linear = ctx.create<AddOp>(
      *scaled, ctx.constant(makeDenseInts(iType.clone(i64), base)));
  if (failed(linear))
    return failure();
  FailureOr<Value> y =
      scatterRows(ctx, ctx.reshape(*data, {dType.getNumElements(), 1}),
                  ctx.reshape(*linear, {count}),
                  ctx.reshape(*updates, {count, 1}), *reduction);
  if (failed(y))
    return failure();
  ctx.setOutput(0, ctx.reshape(*y, dType.getShape()));
  return success();
}

/// `y[t, b] = x[len[b] - 1 - t, b]` for t < len[b], `x[t, b]` after (time
/// and batch axes 0 and 1 either way round).
LogicalResult importReverseSequence(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0), lens = ctx.getInput(1);
  if (failed(x) || failed(lens))
    return failure();
  RankedTensorType type = typeOf(*x);
  int64_t timeAxis = ctx.getInt("time_axis", 0),
          batchAxis = ctx.getInt("batch_axis", 1);
  if (type.getRank() < 2 || timeAxis == batchAxis || timeAxis < 0 ||
      timeAxis > 1 || batchAxis < 0 || batchAxis > 1)
    return ctx.emitError() << "time_axis and batch_axis must be 0 and 1 (in "
                              "either order) of a tensor of rank >= 2";
  int64_t steps = type.getDimSize(timeAxis), batch = type.getDimSize(batchAxis);
  if (typeOf(*lens).getNumElements() != batch)
    return ctx.emitError() << "sequence_lens must have " << batch
                           << " entries, one per batch, not "
                           << typeOf(*lens).getNumElements();
  Type i64 = ctx.getBuilder().getI64Type();
  SmallVector<int64_t> timeShape(type.getRank(), 1),
      batchShape(type.getRank(), 1);
  timeShape[timeAxis] = steps;
  batchShape[batchAxis] = batch;
  SmallVector<int64_t> positions(steps);
  for (int64_t t = 0; t < steps; ++t)
    positions[t] = t;
  Value time = ctx.constant(DenseElementsAttr::get(
      RankedTensorType::get(timeShape, i64), ArrayRef<int64_t>(positions)));
  Value length = ctx.reshape(ctx.cast(*lens, i64), batchShape);
  FailureOr<Value> last = ctx.create<SubOp>(length, ctx.splat(i64, 1));
  if (failed(last))
    return failure();
  FailureOr<Value> reversed = ctx.create<SubOp>(*last, time);
  FailureOr<Value> inside = ctx.create<LessOp>(time, length);
  if (failed(reversed) || failed(inside))
    return failure();
  FailureOr<Value> index = ctx.create<WhereOp>(*inside, *reversed, time);
  if (failed(index))
    return failure();
  Value full = ctx.createTyped<ExpandOp>(type.clone(i64), *index);
  FailureOr<Value> y = ctx.create<GatherElementsOp>(*x, full, timeAxis);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

} // namespace

void onnx_import::registerScatterGatherImporters(NodeImporterRegistry &r) {
  r["GatherND"] = importGatherND;
  r["ScatterND"] = importScatterND;
  r["ScatterElements"] = importScatterElements;
  r["Scatter"] = importScatterElements;
  r["ReverseSequence"] = importReverseSequence;
}
