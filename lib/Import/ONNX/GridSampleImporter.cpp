//===- GridSampleImporter.cpp - GridSample as gathers of corners ----------===//
//
// The sampling positions come from a run-time grid, so they are computed
// with elementwise ops: unnormalize, pad (border clamps, reflection
// mirrors), then for bilinear the four corners' flat indices and weights
// (a corner outside the image weighs zero), for nearest the rounded
// position. Each corner is a GatherElements over the flattened image.
// Gradients reach both the image (through the gathers) and the grid
// (through the weights).
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

/// Elementwise building with failure propagation (a null Value poisons).
class Sampler {
public:
  Sampler(NodeContext &ctx, Type f) : ctx(ctx), f(f) {}
  bool failed() const { return poisoned; }
  Value c(double v) { return ctx.splat(f, v); }
  Value ci(int64_t v) { return ctx.splat(ctx.getBuilder().getI64Type(), v); }
  template <typename OpTy> Value op(Value a, Value b) {
    if (!a || !b)
      return poison();
    FailureOr<Value> r = ctx.create<OpTy>(a, b);
    return mlir::failed(r) ? poison() : *r;
  }
  template <typename OpTy> Value unary(Value a) {
    return a ? ctx.createTyped<OpTy>(a) : poison();
  }
  Value where(Value m, Value a, Value b) {
    if (!m || !a || !b)
      return poison();
    FailureOr<Value> r = ctx.create<WhereOp>(m, a, b);
    return mlir::failed(r) ? poison() : *r;
  }
  Value cast(Value v, Type t) { return v ? ctx.cast(v, t) : poison(); }

  /// Mirrors x into [lo, hi] (ONNX's reflect).
  Value reflect(Value x, double lo, double hi) {
    double span = hi - lo;
    if (span <= 0)
      return op<MulOp>(x, c(0));
    Value d = unary<AbsOp>(op<SubOp>(x, c(lo)));
    Value flips = unary<FloorOp>(op<DivOp>(d, c(span)));
    Value extra = op<SubOp>(d, op<MulOp>(flips, c(span)));
    Value half = unary<FloorOp>(op<DivOp>(flips, c(2)));
    Value even = op<EqualOp>(op<MulOp>(half, c(2)), flips);
    return where(even, op<AddOp>(extra, c(lo)), op<SubOp>(c(hi), extra));
  }

  Value poison() {
    poisoned = true;
    return Value();
  }

private:
  NodeContext &ctx;
  Type f;
  bool poisoned = false;
};

LogicalResult importGridSample(NodeContext &ctx) {
  FailureOr<Value> xValue = ctx.getInput(0), gridValue = ctx.getInput(1);
  if (failed(xValue) || failed(gridValue))
    return failure();
  RankedTensorType xType = typeOf(*xValue), gType = typeOf(*gridValue);
  if (xType.getRank() != 4 || gType.getRank() != 4 ||
      gType.getDimSize(3) != 2 || gType.getDimSize(0) != xType.getDimSize(0))
    return ctx.emitError() << "only 2-D sampling is supported: X [N, C, H, "
                              "W] and grid [N, Ho, Wo, 2]";
  Type f = xType.getElementType();
  if (!isa<FloatType>(f) || gType.getElementType() != f)
    return ctx.emitError() << "X and grid must share a floating-point type";
  std::string mode = ctx.getString("mode", "bilinear");
  std::string padding = ctx.getString("padding_mode", "zeros");
  bool alignCorners = ctx.getInt("align_corners", 0) != 0;
  if (mode != "bilinear" && mode != "nearest")
    return ctx.emitError() << "mode '" << mode << "' is not supported";
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return ctx.emitError() << "unknown padding_mode '" << padding << "'";
  int64_t n = xType.getDimSize(0), ch = xType.getDimSize(1),
          h = xType.getDimSize(2), w = xType.getDimSize(3),
          ho = gType.getDimSize(1), wo = gType.getDimSize(2);
  int64_t points = ho * wo;
  Type i64 = ctx.getBuilder().getI64Type();
  Sampler s(ctx, f);

  // Grid coordinates [N, P] each (x along W, y along H).
  auto coordinate = [&](int64_t index, int64_t size) -> Value {
    FailureOr<Value> part =
        ctx.create<SliceOp>(*gridValue, SmallVector<int64_t>{0, 0, 0, index},
                            SmallVector<int64_t>{n, ho, wo, index + 1},
                            SmallVector<int64_t>{1, 1, 1, 1});
    if (failed(part))
      return s.poison();
    Value g = ctx.reshape(*part, {n, points});
    Value x = alignCorners
                  ? s.op<MulOp>(s.op<AddOp>(g, s.c(1)), s.c((size - 1) / 2.0))
                  : s.op<DivOp>(s.op<SubOp>(s.op<MulOp>(s.op<AddOp>(g, s.c(1)),
                                                        s.c(size)),
                                            s.c(1)),
                                s.c(2));
    if (padding == "border")
      return s.op<MinOp>(s.op<MaxOp>(x, s.c(0)), s.c(size - 1));
    if (padding == "reflection")
      x = alignCorners ? s.reflect(x, 0, size - 1)
                       : s.reflect(x, -0.5, size - 0.5);
    // Reflection without aligned corners may land within half a pixel
    // outside; those reads clamp to the border.
    if (padding == "reflection")
      x = s.op<MinOp>(s.op<MaxOp>(x, s.c(0)), s.c(size - 1));
    return x;
  };
  Value gx = coordinate(0, w), gy = coordinate(1, h);

  Value image = ctx.reshape(*xValue, {n, ch, h * w});
  // One corner: the image at integer position (ix, iy) [N, P] (floats),
  // zero outside, times `weight`.
  auto corner = [&](Value ix, Value iy, Value weight) -> Value {
    Value inside = s.op<AndOp>(
        s.op<AndOp>(s.op<GreaterOp>(ix, s.c(-1)), s.op<LessOp>(ix, s.c(w))),
        s.op<AndOp>(s.op<GreaterOp>(iy, s.c(-1)), s.op<LessOp>(iy, s.c(h))));
    Value cx = s.op<MinOp>(s.op<MaxOp>(ix, s.c(0)), s.c(w - 1));
    Value cy = s.op<MinOp>(s.op<MaxOp>(iy, s.c(0)), s.c(h - 1));
    Value flat = s.cast(s.op<AddOp>(s.op<MulOp>(cy, s.c(w)), cx), i64);
    if (s.failed())
      return Value();
    Value index =
        ctx.createTyped<ExpandOp>(RankedTensorType::get({n, ch, points}, i64),
                                  ctx.reshape(flat, {n, 1, points}));
    FailureOr<Value> picked =
        ctx.create<GatherElementsOp>(image, index, int64_t(2));
    if (failed(picked))
      return s.poison();
    Value scale = s.where(inside, weight, s.c(0));
    if (!scale)
      return Value();
    return s.op<MulOp>(*picked, ctx.reshape(scale, {n, 1, points}));
  };

  Value result;
  if (mode == "nearest") {
    // Round half to even, as ONNX Runtime's nearbyint.
    Value rx = s.unary<RoundOp>(gx), ry = s.unary<RoundOp>(gy);
    result = corner(rx, ry, s.op<AddOp>(s.op<MulOp>(gx, s.c(0)), s.c(1)));
  } else {
    Value x0 = s.unary<FloorOp>(gx), y0 = s.unary<FloorOp>(gy);
    Value x1 = s.op<AddOp>(x0, s.c(1)), y1 = s.op<AddOp>(y0, s.c(1));
    Value wx1 = s.op<SubOp>(gx, x0), wy1 = s.op<SubOp>(gy, y0);
    Value wx0 = s.op<SubOp>(s.c(1), wx1), wy0 = s.op<SubOp>(s.c(1), wy1);
    result = s.op<AddOp>(s.op<AddOp>(corner(x0, y0, s.op<MulOp>(wx0, wy0)),
                                     corner(x1, y0, s.op<MulOp>(wx1, wy0))),
                         s.op<AddOp>(corner(x0, y1, s.op<MulOp>(wx0, wy1)),
                                     corner(x1, y1, s.op<MulOp>(wx1, wy1))));
  }
  if (s.failed() || !result)
    return failure();
  ctx.setOutput(0, ctx.reshape(result, {n, ch, ho, wo}));
  return success();
}

} // namespace

void onnx_import::registerGridSampleImporter(NodeImporterRegistry &r) {
  r["GridSample"] = importGridSample;
}
