//===- ControlFlowImporters.cpp - If, Loop and Scan -----------------------===//
//
// Control flow becomes straight-line code at import time. An If whose
// condition is known imports only the branch taken; otherwise both branches
// run and a Where selects between their outputs (which must then agree in
// shape). A Loop with a trip count and conditions known at import time, and
// a Scan over its static sequence length, unroll: the body is imported once
// per iteration with its inputs bound to the previous iteration's values.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

/// Iterations beyond this are refused rather than unrolled.
constexpr int64_t kMaxUnroll = 4096;

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

const onnx::GraphProto *getGraphAttr(NodeContext &ctx, StringRef name) {
  const onnx::AttributeProto *attr = ctx.getAttr(name);
  return attr && attr->has_g() ? &attr->g() : nullptr;
}

/// The value of subgraph output `name`; failure (with an error unless an
/// unsupported or failed node poisoned it) when it is unavailable.
FailureOr<ValueInfo> subgraphOutput(NodeContext &ctx, StringRef name) {
  ValueInfo *info = ctx.getGraph().lookup(name);
  if (!info)
    return ctx.emitError() << "subgraph output '" << name
                           << "' is not produced";
  if (info->poisoned)
    return failure();
  return *info;
}

FailureOr<Value> materialize(NodeContext &ctx, ValueInfo info, StringRef name) {
  return ctx.getGraph().materialize(info, name, ctx.getLoc());
}

/// A boolean known at import time, or nullopt.
std::optional<bool> knownBool(const ValueInfo &info) {
  DenseElementsAttr attr =
      info.constant ? getDenseElements(info.constant) : DenseElementsAttr();
  if (!attr && info.value)
    if (auto constant = info.value.getDefiningOp<ConstantOp>())
      attr = getDenseElements(constant.getValue());
  if (!attr || attr.getNumElements() != 1)
    return std::nullopt;
  return getIntValues(attr).front() != 0;
}

LogicalResult importIf(NodeContext &ctx) {
  const onnx::GraphProto *thenBranch = getGraphAttr(ctx, "then_branch"),
                         *elseBranch = getGraphAttr(ctx, "else_branch");
  if (!thenBranch || !elseBranch)
    return ctx.emitError() << "needs then_branch and else_branch graphs";
  unsigned count = ctx.getNumOutputs();
  if (thenBranch->output_size() != (int)count ||
      elseBranch->output_size() != (int)count)
    return ctx.emitError() << "branches must have " << count << " outputs";
  FailureOr<Value> cond = ctx.getInput(0);
  if (failed(cond))
    return failure();
  if (typeOf(*cond).getNumElements() != 1)
    return ctx.emitError() << "the condition must hold one element";
  GraphImporter &graph = ctx.getGraph();
  if (DenseElementsAttr known = ctx.getConstantInput(0)) {
    const onnx::GraphProto *taken =
        getIntValues(known).front() != 0 ? thenBranch : elseBranch;
    if (failed(graph.importSubgraph(*taken)))
      return failure();
    for (unsigned i = 0; i < count; ++i) {
      FailureOr<ValueInfo> out = subgraphOutput(ctx, taken->output(i).name());
      if (failed(out))
        return failure();
      if (ctx.hasOutput(i))
        graph.define(ctx.getNode().output(i), *out);
    }
    return success();
  }
  // A condition known only at run time: both branches, then a select.
  if (failed(graph.importSubgraph(*thenBranch)) ||
      failed(graph.importSubgraph(*elseBranch)))
    return failure();
  Value flag = ctx.reshape(*cond, {});
  for (unsigned i = 0; i < count; ++i) {
    FailureOr<ValueInfo> a = subgraphOutput(ctx, thenBranch->output(i).name()),
                         b = subgraphOutput(ctx, elseBranch->output(i).name());
    if (failed(a) || failed(b))
      return failure();
    FailureOr<Value> va = materialize(ctx, *a, thenBranch->output(i).name()),
                     vb = materialize(ctx, *b, elseBranch->output(i).name());
    if (failed(va) || failed(vb))
      return failure();
    if (va->getType() != vb->getType())
      return ctx.emitError()
             << "with a condition known only at run time, the branches' "
                "output #"
             << i << " must agree in type: " << va->getType() << " vs "
             << vb->getType();
    FailureOr<Value> selected = ctx.create<WhereOp>(flag, *va, *vb);
    if (failed(selected))
      return failure();
    ctx.setOutput(i, *selected);
  }
  return success();
}

/// Stacks per-iteration values along a new axis `axis`.
FailureOr<Value> stack(NodeContext &ctx, ArrayRef<Value> values, int64_t axis) {
  SmallVector<Value> expanded;
  for (Value v : values) {
    SmallVector<int64_t> shape(typeOf(v).getShape());
    if (axis < 0 || axis > (int64_t)shape.size())
      return ctx.emitError()
             << "scan output axis " << axis << " is out of range";
    shape.insert(shape.begin() + axis, 1);
    expanded.push_back(ctx.reshape(v, shape));
  }
  if (expanded.size() == 1)
    return expanded.front();
  return ctx.create<ConcatOp>(expanded, axis);
}

LogicalResult importLoop(NodeContext &ctx) {
  const onnx::GraphProto *body = getGraphAttr(ctx, "body");
  if (!body)
    return ctx.emitError() << "needs a body graph";
  int64_t carried = (int64_t)ctx.getNumInputs() - 2;
  if (carried < 0 || body->input_size() != carried + 2 ||
      body->output_size() < carried + 1)
    return ctx.emitError() << "the body's inputs and outputs do not match "
                              "the loop's "
                           << std::max<int64_t>(carried, 0)
                           << " carried values";
  int64_t scans = body->output_size() - 1 - carried;
  if (!ctx.hasInput(0))
    return ctx.emitError() << "only loops with a trip count are supported";
  FailureOr<double> trip = ctx.getConstantScalar(0, "trip count");
  if (failed(trip))
    return failure();
  if (*trip > kMaxUnroll)
    return ctx.emitError() << "a trip count of " << *trip
                           << " is too large to unroll";
  bool cond = true;
  if (ctx.hasInput(1)) {
    FailureOr<double> c = ctx.getConstantScalar(1, "condition");
    if (failed(c))
      return failure();
    cond = *c != 0;
  }
  GraphImporter &graph = ctx.getGraph();
  SmallVector<ValueInfo> state;
  for (int64_t j = 0; j < carried; ++j) {
    FailureOr<Value> v = ctx.getInput(2 + j);
    if (failed(v))
      return failure();
    state.push_back(ValueInfo{*v, {}, nullptr, false});
  }
  SmallVector<SmallVector<Value>> scanned(scans);
  Type i64 = ctx.getBuilder().getI64Type();
  const int64_t tripCount = saturatingToInt64(*trip);
  for (int64_t i = 0; cond && i < tripCount; ++i) {
    graph.define(body->input(0).name(),
                 ValueInfo{{},
                           makeDenseInts(RankedTensorType::get({}, i64), {i}),
                           nullptr,
                           false});
    graph.define(body->input(1).name(),
                 ValueInfo{{},
                           makeDenseInts(RankedTensorType::get(
                                             {}, ctx.getBuilder().getI1Type()),
                                         {1}),
                           nullptr,
                           false});
    for (int64_t j = 0; j < carried; ++j)
      graph.define(body->input(2 + j).name(), state[j]);
    if (failed(graph.importSubgraph(*body)))
      return failure();
    FailureOr<ValueInfo> next = subgraphOutput(ctx, body->output(0).name());
    if (failed(next))
      return failure();
    std::optional<bool> known = knownBool(*next);
    if (!known)
      return ctx.emitError() << "the body's condition must be known at "
                                "import time to unroll the loop";
    cond = *known;
    for (int64_t j = 0; j < carried; ++j) {
      FailureOr<ValueInfo> v = subgraphOutput(ctx, body->output(1 + j).name());
      if (failed(v))
        return failure();
      state[j] = *v;
    }
    for (int64_t s = 0; s < scans; ++s) {
      StringRef name = body->output(1 + carried + s).name();
      FailureOr<ValueInfo> v = subgraphOutput(ctx, name);
      if (failed(v))
        return failure();
      FailureOr<Value> m = materialize(ctx, *v, name);
      if (failed(m))
        return failure();
      scanned[s].push_back(*m);
    }
  }
  for (int64_t j = 0; j < carried; ++j)
    if (ctx.hasOutput(j))
      graph.define(ctx.getNode().output(j), state[j]);
  for (int64_t s = 0; s < scans; ++s) {
    if (scanned[s].empty())
      return ctx.emitError() << "a loop without iterations has no scan "
                                "output shape";
    FailureOr<Value> stacked = stack(ctx, scanned[s], 0);
    if (failed(stacked))
      return failure();
    ctx.setOutput(carried + s, *stacked);
  }
  return success();
}

LogicalResult importScan(NodeContext &ctx) {
  if (ctx.getOpset() < 9)
    return ctx.emitError() << "Scan before opset 9 (with a batch axis) is "
                              "not supported";
  const onnx::GraphProto *body = getGraphAttr(ctx, "body");
  if (!body)
    return ctx.emitError() << "needs a body graph";
  int64_t numScanInputs = ctx.getInt("num_scan_inputs", 0);
  int64_t numState = (int64_t)ctx.getNumInputs() - numScanInputs;
  int64_t numScanOutputs = body->output_size() - numState;
  if (numScanInputs < 1 || numState < 0 || numScanOutputs < 0 ||
      body->input_size() != (int)ctx.getNumInputs())
    return ctx.emitError() << "the body's inputs and outputs do not match "
                              "the node's";
  auto attrOr = [&](StringRef name, int64_t count) {
    SmallVector<int64_t> v = ctx.getInts(name);
    if (v.empty())
      v.assign(count, 0);
    return v;
  };
  SmallVector<int64_t> inAxes = attrOr("scan_input_axes", numScanInputs),
                       inDirs = attrOr("scan_input_directions", numScanInputs),
                       outAxes = attrOr("scan_output_axes", numScanOutputs),
                       outDirs =
                           attrOr("scan_output_directions", numScanOutputs);
  if ((int64_t)inAxes.size() != numScanInputs ||
      (int64_t)inDirs.size() != numScanInputs ||
      (int64_t)outAxes.size() != numScanOutputs ||
      (int64_t)outDirs.size() != numScanOutputs)
    return ctx.emitError() << "scan axes and directions do not match the "
                              "scan inputs and outputs";
  SmallVector<ValueInfo> state;
  for (int64_t j = 0; j < numState; ++j) {
    FailureOr<Value> v = ctx.getInput(j);
    if (failed(v))
      return failure();
    state.push_back(ValueInfo{*v, {}, nullptr, false});
  }
  SmallVector<Value> inputs;
  int64_t length = -1;
  for (int64_t s = 0; s < numScanInputs; ++s) {
    FailureOr<Value> v = ctx.getInput(numState + s);
    if (failed(v))
      return failure();
    FailureOr<int64_t> axis =
        normalizeAxis(ctx, inAxes[s], typeOf(*v).getRank());
    if (failed(axis))
      return failure();
    inAxes[s] = *axis;
    int64_t n = typeOf(*v).getDimSize(*axis);
    if (length >= 0 && n != length)
      return ctx.emitError() << "scan inputs differ in length";
    length = n;
    inputs.push_back(*v);
  }
  if (length > kMaxUnroll)
    return ctx.emitError() << "a sequence of " << length
                           << " is too long to unroll";
  GraphImporter &graph = ctx.getGraph();
  SmallVector<SmallVector<Value>> scanned(numScanOutputs);
  for (int64_t t = 0; t < length; ++t) {
    for (int64_t j = 0; j < numState; ++j)
      graph.define(body->input(j).name(), state[j]);
    for (int64_t s = 0; s < numScanInputs; ++s) {
      RankedTensorType type = typeOf(inputs[s]);
      int64_t at = inDirs[s] ? length - 1 - t : t;
      SmallVector<int64_t> begin(type.getRank(), 0), limit(type.getShape()),
          step(type.getRank(), 1);
      begin[inAxes[s]] = at;
      limit[inAxes[s]] = at + 1;
      FailureOr<Value> slice =
          ctx.create<SliceOp>(inputs[s], begin, limit, step);
      if (failed(slice))
        return failure();
      SmallVector<int64_t> shape(type.getShape());
      shape.erase(shape.begin() + inAxes[s]);
      graph.define(body->input(numState + s).name(),
                   ValueInfo{ctx.reshape(*slice, shape), {}, nullptr, false});
    }
    if (failed(graph.importSubgraph(*body)))
      return failure();
    for (int64_t j = 0; j < numState; ++j) {
      FailureOr<ValueInfo> v = subgraphOutput(ctx, body->output(j).name());
      if (failed(v))
        return failure();
      state[j] = *v;
    }
    for (int64_t s = 0; s < numScanOutputs; ++s) {
      StringRef name = body->output(numState + s).name();
      FailureOr<ValueInfo> v = subgraphOutput(ctx, name);
      if (failed(v))
        return failure();
      FailureOr<Value> m = materialize(ctx, *v, name);
      if (failed(m))
        return failure();
      scanned[s].push_back(*m);
    }
  }
  for (int64_t j = 0; j < numState; ++j)
    if (ctx.hasOutput(j))
      ctx.getGraph().define(ctx.getNode().output(j), state[j]);
  for (int64_t s = 0; s < numScanOutputs; ++s) {
    if (scanned[s].empty())
      return ctx.emitError() << "an empty scan has no output shape";
    if (outDirs[s])
      std::reverse(scanned[s].begin(), scanned[s].end());
    int64_t rank = typeOf(scanned[s].front()).getRank() + 1;
    FailureOr<int64_t> axis = normalizeAxis(ctx, outAxes[s], rank);
    if (failed(axis))
      return failure();
    FailureOr<Value> stacked = stack(ctx, scanned[s], *axis);
    if (failed(stacked))
      return failure();
    ctx.setOutput(numState + s, *stacked);
  }
  return success();
}

} // namespace

void onnx_import::registerControlFlowImporters(NodeImporterRegistry &r) {
  r["If"] = importIf;
  r["Loop"] = importLoop;
  r["Scan"] = importScan;
}
