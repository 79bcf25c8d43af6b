//===- Extents.cpp - Data-dependent lengths through the ops after them ----===//
//
// NonMaxSuppression's output has as many rows as boxes survive. Plans have
// static shapes, so such a value is padded to its most entries along one
// axis and carries a 0-d i64 `extent`, the count of valid ones (see
// ValueInfo). Ops that treat every entry along that axis alike (elementwise
// ops, gathers by it (GatherND by index tuples) or along another axis,
// views that keep it, reductions, softmax, top-k and scans along other
// axes) give their result the same extent; a slice from its start shortens
// it. Anything else (a reduction over it, a shape read, a concat along it)
// would see the padding, and is refused with the node and the op the length
// comes from.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Ops applied entry by entry (numpy broadcasting): an extent passes through.
const llvm::StringSet<> &elementwiseOps() {
  static const llvm::StringSet<> ops = {
      "Identity", "Cast",        "CastLike",      "Neg",  "Abs",  "Relu",
      "Sigmoid",  "Tanh",        "Exp",           "Log",  "Sqrt", "Reciprocal",
      "Floor",    "Ceil",        "Round",         "Sign", "Not",  "IsNaN",
      "IsInf",    "Clip",        "Add",           "Sub",  "Mul",  "Div",
      "Pow",      "Mod",         "Min",           "Max",  "Sum",  "Mean",
      "Equal",    "Less",        "Greater",       "And",  "Or",   "Xor",
      "Where",    "LessOrEqual", "GreaterOrEqual"};
  return ops;
}

/// Where `axis` of `from` lies in `to` when `to` is `from` with unit
/// dimensions added or removed (Squeeze, Unsqueeze, a Reshape or Flatten
/// that keeps the axis whole), or -1.
int64_t keptAxis(ArrayRef<int64_t> from, int64_t axis, ArrayRef<int64_t> to) {
  int64_t before = 1;
  for (int64_t d : from.take_front(axis))
    before *= d;
  int64_t product = 1;
  for (auto [j, d] : llvm::enumerate(to)) {
    if (product == before && d == from[axis])
      return j;
    product *= d;
  }
  return -1;
}

class ExtentPropagation {
public:
  ExtentPropagation(NodeContext &ctx) : ctx(ctx), node(ctx.getNode()) {}

  LogicalResult run() {
    for (auto [index, name] : llvm::enumerate(node.input())) {
      if (name.empty())
        continue;
      ValueInfo *info = ctx.getGraph().lookup(name);
      if (info && info->extent)
        inputs.push_back({(unsigned)index, info});
    }
    if (inputs.empty())
      return success();
    StringRef op = node.op_type();
    if (elementwiseOps().contains(op))
      return elementwise();
    if (op == "Gather")
      return gather();
    if (op == "GatherND")
      return gatherND();
    if (op == "Slice")
      return slice();
    if (op == "Squeeze" || op == "Unsqueeze" || op == "Reshape" ||
        op == "Flatten")
      return view();
    if (op == "Transpose")
      return transpose();
    if (op.starts_with("Reduce") || op == "ArgMax" || op == "ArgMin" ||
        op == "Softmax" || op == "LogSoftmax" || op == "Hardmax" ||
        op == "TopK" || op == "CumSum")
      return alongAnotherAxis();
    if (op == "Concat")
      return concat();
    return refuse(inputs.front(),
                  "only elementwise ops, Gather, GatherND, Slice from the "
                  "start, Squeeze, Unsqueeze, Reshape keeping that axis, "
                  "Transpose, and Concat, reductions, softmax, TopK and "
                  "CumSum along another axis may read it");
  }

private:
  struct Input {
    unsigned index;
    ValueInfo *info;
  };

  LogicalResult refuse(const Input &input, const Twine &why) {
    return ctx.emitError() << "input '" << node.input(input.index)
                           << "' has a length along axis "
                           << input.info->extentAxis
                           << " that depends on the data (from "
                           << input.info->extentOrigin << "): " << why;
  }

  /// Only data inputs may have an extent (not shapes, axes or indices of
  /// a Slice).
  LogicalResult onlyData(unsigned dataInputs) {
    for (const Input &input : inputs)
      if (input.index >= dataInputs)
        return refuse(input, "it is read as a shape, axes or bounds");
    return success();
  }

  Value output(unsigned index) {
    ValueInfo *info = index < (unsigned)node.output_size()
                          ? ctx.getGraph().lookup(node.output(index))
                          : nullptr;
    return info ? info->value : Value();
  }

  LogicalResult define(unsigned index, const Input &from, Value extent,
                       int64_t axis) {
    ValueInfo *info = ctx.getGraph().lookup(node.output(index));
    if (!info || !info->value)
      return refuse(from, "its result is computed at import time");
    info->extent = extent;
    info->extentAxis = axis;
    info->extentOrigin = from.info->extentOrigin;
    return success();
  }

  LogicalResult elementwise() {
    Value result = output(0);
    if (!result)
      return refuse(inputs.front(), "its result is computed at import time");
    int64_t rank = typeOf(result).getRank(), axis = -1;
    Value extent;
    for (const Input &input : inputs) {
      int64_t at =
          input.info->extentAxis + rank - typeOf(input.info->value).getRank();
      if (extent && (extent != input.info->extent || at != axis))
        return refuse(input, "it is combined with a value of another "
                             "data-dependent length");
      extent = input.info->extent, axis = at;
    }
    for (auto [index, name] : llvm::enumerate(node.input())) {
      ValueInfo *info = name.empty() ? nullptr : ctx.getGraph().lookup(name);
      if (!info || info->extent)
        continue;
      Type type = info->value
                      ? info->value.getType()
                      : (info->constant ? info->constant.getType() : Type());
      auto shaped = dyn_cast_or_null<RankedTensorType>(type);
      if (!shaped)
        continue;
      int64_t at = axis - (rank - shaped.getRank());
      if (at >= 0 && shaped.getDimSize(at) != 1)
        return refuse(inputs.front(),
                      "it is combined entry by entry with '" + name +
                          "', whose length along that axis is fixed");
    }
    return define(0, inputs.front(), extent, axis);
  }

  LogicalResult gather() {
    if (failed(onlyData(2)))
      return failure();
    Value result = output(0);
    if (!result)
      return refuse(inputs.front(), "its result is computed at import time");
    int64_t dataRank = typeOf(ctx.getInput(0).value()).getRank();
    int64_t indicesRank = typeOf(ctx.getInput(1).value()).getRank();
    int64_t gatherAxis = ctx.getInt("axis", 0);
    if (gatherAxis < 0)
      gatherAxis += dataRank;
    std::optional<std::pair<const Input *, int64_t>> found;
    for (const Input &input : inputs) {
      int64_t a = input.info->extentAxis, at;
      if (input.index == 0) {
        // Indices pick entries of the valid part (a Gather by the selected
        // rows); nothing carries over.
        if (a == gatherAxis)
          continue;
        at = a < gatherAxis ? a : a - 1 + indicesRank;
      } else {
        at = gatherAxis + a;
      }
      if (found)
        return refuse(input, "both the data and the indices of this Gather "
                             "have a data-dependent length");
      found = {&input, at};
    }
    if (!found)
      return success();
    return define(0, *found->first, found->first->info->extent, found->second);
  }

  /// Rows picked by index tuples of data-dependent count: the result has
  /// as many.
  LogicalResult gatherND() {
    const Input &input = inputs.front();
    int64_t indicesRank = typeOf(input.info->value).getRank();
    int64_t axis = input.info->extentAxis;
    if (input.index != 1 || axis < ctx.getInt("batch_dims", 0) ||
        axis >= indicesRank - 1 || !output(0))
      return refuse(input, "only GatherND's indices, along an axis of index "
                           "tuples after the batch axes, may have it");
    return define(0, input, input.info->extent, axis);
  }

  LogicalResult slice() {
    if (failed(onlyData(1)))
      return failure();
    const Input &input = inputs.front();
    Value result = output(0);
    int64_t axis = input.info->extentAxis;
    if (result == input.info->value)
      return define(0, input, input.info->extent, axis);
    auto sliceOp = result ? result.getDefiningOp<SliceOp>() : SliceOp();
    if (!sliceOp)
      return refuse(input, "the slice could not be followed");
    int64_t start = sliceOp.getStarts()[axis],
            limit = sliceOp.getLimits()[axis], step = sliceOp.getSteps()[axis];
    int64_t padded = typeOf(input.info->value).getDimSize(axis);
    if (start == 0 && step == 1 && limit == padded)
      return define(0, input, input.info->extent, axis);
    // Ends counted from the back would count from the padded end.
    SmallVector<int64_t> ends;
    if (ctx.getOpset() < 10) {
      ends = ctx.getInts("ends");
    } else if (DenseElementsAttr attr = ctx.getConstantInput(2)) {
      for (const APInt &value : attr.getValues<APInt>())
        ends.push_back(value.getSExtValue());
    }
    if (start != 0 || step != 1 ||
        llvm::any_of(ends, [](int64_t end) { return end < 0; }))
      return refuse(input, "only a slice from its start with step 1 and a "
                           "non-negative end can be cut from it");
    // The valid entries are the first min(extent, limit).
    OpBuilder &b = ctx.getBuilder();
    Value bound = ctx.splat(b.getI64Type(), limit);
    FailureOr<Value> shorter = ctx.create<MinOp>(input.info->extent, bound);
    if (failed(shorter))
      return failure();
    return define(0, input, *shorter, axis);
  }

  LogicalResult view() {
    if (failed(onlyData(1)))
      return failure();
    const Input &input = inputs.front();
    Value result = output(0);
    if (!result)
      return refuse(input, "its result is computed at import time");
    int64_t axis = keptAxis(typeOf(input.info->value).getShape(),
                            input.info->extentAxis, typeOf(result).getShape());
    if (axis < 0)
      return refuse(input, "this reshape merges or splits that axis");
    return define(0, input, input.info->extent, axis);
  }

  /// Reductions, normalizations, top-k and scans along axes other than the
  /// data-dependent one treat its entries alike.
  LogicalResult alongAnotherAxis() {
    StringRef op = node.op_type();
    if (failed(onlyData(1)))
      return failure();
    const Input &input = inputs.front();
    int64_t rank = typeOf(input.info->value).getRank();
    int64_t axis = input.info->extentAxis;
    auto normalized = [&](int64_t a) { return a < 0 ? a + rank : a; };
    SmallVector<int64_t> along;
    bool keepDims = true;
    if (op.starts_with("Reduce")) {
      bool identity;
      FailureOr<SmallVector<int64_t>> axes = getReduceAxes(ctx, rank, identity);
      if (failed(axes))
        return failure();
      along = *axes;
      keepDims = ctx.getInt("keepdims", 1) != 0;
    } else if (op == "ArgMax" || op == "ArgMin") {
      along = {normalized(ctx.getInt("axis", 0))};
      keepDims = ctx.getInt("keepdims", 1) != 0;
    } else if (op == "TopK") {
      along = {normalized(ctx.getInt("axis", -1))};
    } else if (op == "CumSum") {
      FailureOr<SmallVector<int64_t>> a = ctx.getConstantInts(1, "axis");
      if (failed(a) || a->size() != 1)
        return failure();
      along = {normalized(a->front())};
    } else if (ctx.getOpset() < 13) {
      // Softmax-like before opset 13: over the block from `axis` on.
      for (int64_t a = normalized(ctx.getInt("axis", 1)); a < rank; ++a)
        along.push_back(a);
    } else {
      along = {normalized(ctx.getInt("axis", -1))};
    }
    if (llvm::is_contained(along, axis))
      return refuse(input, "it works along that axis");
    int64_t at = axis;
    if (!keepDims)
      at -= llvm::count_if(along, [&](int64_t a) { return a < axis; });
    for (unsigned index = 0; index < (unsigned)node.output_size(); ++index) {
      if (node.output(index).empty())
        continue;
      if (failed(define(index, input, input.info->extent, at)))
        return failure();
    }
    return success();
  }

  LogicalResult transpose() {
    const Input &input = inputs.front();
    int64_t rank = typeOf(input.info->value).getRank();
    SmallVector<int64_t> perm = ctx.getInts("perm");
    if (perm.empty())
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    auto *it = llvm::find(perm, input.info->extentAxis);
    if (it == perm.end() || !output(0))
      return refuse(input, "the transpose could not be followed");
    return define(0, input, input.info->extent, it - perm.begin());
  }

  LogicalResult concat() {
    const Input &first = inputs.front();
    int64_t rank = typeOf(first.info->value).getRank();
    int64_t axis = ctx.getInt("axis", 0);
    if (axis < 0)
      axis += rank;
    if (axis == first.info->extentAxis)
      return refuse(first, "it is concatenated along that axis");
    if ((int)inputs.size() != node.input_size())
      return refuse(first, "it is concatenated with values of fixed length "
                           "along that axis");
    for (const Input &input : inputs)
      if (input.info->extent != first.info->extent ||
          input.info->extentAxis != first.info->extentAxis)
        return refuse(input, "it is concatenated with a value of another "
                             "data-dependent length");
    if (!output(0))
      return refuse(first, "its result is computed at import time");
    return define(0, first, first.info->extent, first.info->extentAxis);
  }

  NodeContext &ctx;
  const onnx::NodeProto &node;
  SmallVector<Input> inputs;
};

} // namespace

LogicalResult mlir::oneflow::onnx_import::propagateExtents(NodeContext &ctx) {
  return ExtentPropagation(ctx).run();
}
