//===- ResizeImporters.cpp - Resize and Upsample --------------------------===//
//
// Every interpolation ONNX defines is separable: each resized axis maps its
// input through a constant [out, in] matrix of weights that follows from the
// mode, the coordinate transformation and the scale. Nearest picks one input
// per output (a Gather with constant indices, for any element type); linear
// and cubic multiply by the weight matrix (a MatMul, or a broadcast batched
// MatMul for an inner axis). Gradients and SBP come with those ops.
// Outputs that tf_crop_and_resize places outside the input get
// extrapolation_value: their weight rows are zero and a constant adds it.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

/// Elements of one axis's dense [out, in] weight matrix, at most.
constexpr int64_t kMaxAxisWeights = int64_t(1) << 26;

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

enum class Mode { Nearest, Linear, Cubic };

struct ResizeOptions {
  Mode mode = Mode::Nearest;
  std::string coordinates = "half_pixel";
  std::string nearest = "round_prefer_floor";
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;
  double extrapolation = 0;
};

/// One axis: its sizes, scale and (tf_crop_and_resize) region.
struct AxisResize {
  int64_t in, out;
  double scale;
  double roiStart = 0, roiEnd = 1;
};

/// The input coordinate of output index `x` (ONNX's
/// coordinate_transformation_mode).
double sourceCoordinate(const ResizeOptions &o, const AxisResize &a,
                        int64_t x) {
  const std::string &m = o.coordinates;
  // The resized length is in * scale, not rounded (as ONNX's reference).
  double length = a.in * a.scale;
  if (m == "asymmetric")
    return x / a.scale;
  if (m == "align_corners")
    return length == 1 ? 0 : x * double(a.in - 1) / (length - 1);
  if (m == "pytorch_half_pixel")
    return length > 1 ? (x + 0.5) / a.scale - 0.5 : 0;
  if (m == "tf_half_pixel_for_nn")
    return (x + 0.5) / a.scale;
  if (m == "tf_crop_and_resize")
    return length > 1 ? a.roiStart * (a.in - 1) + x * (a.roiEnd - a.roiStart) *
                                                      (a.in - 1) / (length - 1)
                      : 0.5 * (a.roiStart + a.roiEnd) * (a.in - 1);
  if (m == "half_pixel_symmetric") {
    double adjustment = a.out / (a.scale * a.in);
    double center = a.in / 2.0;
    double offset = center * (1 - adjustment);
    return offset + (x + 0.5) / a.scale - 0.5;
  }
  // half_pixel
  return (x + 0.5) / a.scale - 0.5;
}

int64_t nearestIndex(const std::string &mode, double x) {
  double f = std::floor(x);
  if (mode == "floor")
    return saturatingToInt64(f);
  if (mode == "ceil")
    return saturatingToInt64(std::ceil(x));
  double frac = x - f;
  if (frac == 0.5)
    return saturatingToInt64(mode == "round_prefer_ceil" ? f + 1 : f);
  return saturatingToInt64(std::round(x));
}

/// The filter weights for neighbors base+start, base+start+1, ... of a
/// point at `ratio` in (0, 1] past `base` (ONNX's reference: the `n`
/// nearest inputs, ties to the left).
SmallVector<double> filterWeights(const ResizeOptions &o, double ratio,
                                  double scale, int64_t &start) {
  double s = o.antialias ? std::min(scale, 1.0) : 1.0;
  SmallVector<double> w;
  if (o.mode == Mode::Linear) {
    start = saturatingToInt64(std::floor(-1 / s)) + 1;
    int64_t footprint = 2 - 2 * start;
    for (int64_t i = start; i < start + footprint; ++i)
      w.push_back(std::clamp(1 - std::abs((i - ratio) * s), 0.0, 1.0));
  } else {
    double a = o.cubicA;
    auto cubic = [&](double x) {
      x = std::abs(x);
      if (x <= 1)
        return ((a + 2) * x - (a + 3)) * x * x + 1;
      if (x < 2)
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
      return 0.0;
    };
    start = saturatingToInt64(std::floor(-2 / s)) + 1;
    for (int64_t i = start; i < 2 - start; ++i)
      w.push_back(cubic(s * (i - ratio)));
  }
  double sum = 0;
  for (double v : w)
    sum += v;
  if (o.antialias && sum != 0)
    for (double &v : w)
      v /= sum;
  return w;
}

/// Whether output `x` lies outside the input (tf_crop_and_resize only).
bool extrapolated(const ResizeOptions &o, const AxisResize &a, int64_t x) {
  if (o.coordinates != "tf_crop_and_resize")
    return false;
  double c = sourceCoordinate(o, a, x);
  return c < 0 || c > a.in - 1;
}

/// The [out, in] weights of an axis.
SmallVector<double> weightMatrix(const ResizeOptions &o, const AxisResize &a) {
  SmallVector<double> m(a.out * a.in, 0.0);
  for (int64_t x = 0; x < a.out; ++x) {
    if (extrapolated(o, a, x))
      continue;
    double c = sourceCoordinate(o, a, x);
    if (o.mode == Mode::Nearest) {
      m[x * a.in +
        std::clamp<int64_t>(nearestIndex(o.nearest, c), 0, a.in - 1)] = 1;
      continue;
    }
    // The point sits in (base, base + 1]: an integer coordinate is the right
    // end of its interval, as in ONNX's reference.
    int64_t base = saturatingToInt64(std::ceil(c) - 1);
    double ratio = c - base;
    int64_t start;
    SmallVector<double> w = filterWeights(o, ratio, a.scale, start);
    double kept = 0;
    for (auto [i, weight] : llvm::enumerate(w)) {
      int64_t index = base + start + (int64_t)i;
      if (o.excludeOutside && (index < 0 || index >= a.in))
        continue;
      kept += weight;
      m[x * a.in + std::clamp<int64_t>(index, 0, a.in - 1)] += weight;
    }
    if (o.excludeOutside && kept != 0)
      for (int64_t i = 0; i < a.in; ++i)
        m[x * a.in + i] /= kept;
  }
  return m;
}

/// Resizes `x` along `axis`.
FailureOr<Value> resizeAxis(NodeContext &ctx, const ResizeOptions &o, Value x,
                            int64_t axis, const AxisResize &a) {
  RankedTensorType type = typeOf(x);
  // Nearest is a gather, except where outputs are extrapolated.
  if (o.mode == Mode::Nearest && o.coordinates != "tf_crop_and_resize") {
    SmallVector<int64_t> indices;
    for (int64_t i = 0; i < a.out; ++i)
      indices.push_back(std::clamp<int64_t>(
          nearestIndex(o.nearest, sourceCoordinate(o, a, i)), 0, a.in - 1));
    Value index = ctx.constant(makeDenseInts(
        RankedTensorType::get({a.out}, ctx.getBuilder().getI64Type()),
        indices));
    return ctx.create<GatherOp>(x, index, axis);
  }
  Value matrix = ctx.constant(
      makeDense(RankedTensorType::get({a.out, a.in}, type.getElementType()),
                weightMatrix(o, a)));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = a.out;
  FailureOr<Value> y =
      inner == 1 ? ctx.create<MatmulOp>(ctx.reshape(x, {outer, a.in}), matrix,
                                        false, true)
      : outer == 1
          ? ctx.create<MatmulOp>(matrix, ctx.reshape(x, {a.in, inner}), false,
                                 false)
          : ctx.create<BatchMatmulOp>(
                matrix, ctx.reshape(x, {outer, a.in, inner}), false, false);
  if (failed(y))
    return failure();
  return ctx.reshape(*y, shape);
}

/// The constant extrapolation_value where tf_crop_and_resize samples outside
/// the input, zero elsewhere; null when no output does.
Value extrapolationTerm(NodeContext &ctx, const ResizeOptions &o,
                        RankedTensorType resultType,
                        ArrayRef<std::optional<AxisResize>> axes) {
  if (o.coordinates != "tf_crop_and_resize" || o.extrapolation == 0)
    return Value();
  int64_t rank = resultType.getRank();
  SmallVector<int64_t> shape(rank, 1);
  for (int64_t d = 0; d < rank; ++d)
    if (axes[d])
      shape[d] = axes[d]->out;
  int64_t count = 1;
  for (int64_t s : shape)
    count *= s;
  SmallVector<double> values(count, 0.0);
  bool any = false;
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    bool outside = false;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t i = rest % shape[d];
      rest /= shape[d];
      if (axes[d] && extrapolated(o, *axes[d], i))
        outside = true;
    }
    if (outside) {
      values[flat] = o.extrapolation;
      any = true;
    }
  }
  if (!any)
    return Value();
  return ctx.constant(makeDense(
      RankedTensorType::get(shape, resultType.getElementType()), values));
}

/// Resize (opset 10-19) and Upsample (opset 7-9).
LogicalResult importResize(NodeContext &ctx, bool upsample) {
  FailureOr<Value> xValue = ctx.getInput(0);
  if (failed(xValue))
    return failure();
  RankedTensorType type = typeOf(*xValue);
  int64_t rank = type.getRank();
  int64_t opset = ctx.getOpset();
  bool legacy = upsample || opset < 11; // Upsample and Resize-10.

  ResizeOptions o;
  std::string mode = ctx.getString("mode", "nearest");
  if (mode == "nearest")
    o.mode = Mode::Nearest;
  else if (mode == "linear" || mode == "bilinear")
    o.mode = Mode::Linear;
  else if (mode == "cubic" && !legacy)
    o.mode = Mode::Cubic;
  else
    return ctx.emitError() << "unknown mode '" << mode << "'";
  if (legacy) {
    o.coordinates = "asymmetric";
    o.nearest = "floor";
  } else {
    o.coordinates =
        ctx.getString("coordinate_transformation_mode", "half_pixel");
    o.nearest = ctx.getString("nearest_mode", "round_prefer_floor");
    o.cubicA = ctx.getFloat("cubic_coeff_a", -0.75);
    o.excludeOutside = ctx.getInt("exclude_outside", 0) != 0;
    o.antialias = ctx.getInt("antialias", 0) != 0;
    o.extrapolation = ctx.getFloat("extrapolation_value", 0.0);
  }
  if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric",
                           "pytorch_half_pixel", "align_corners", "asymmetric",
                           "tf_half_pixel_for_nn", "tf_crop_and_resize"},
                          StringRef(o.coordinates)))
    return ctx.emitError() << "unknown coordinate_transformation_mode '"
                           << o.coordinates << "'";
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
          StringRef(o.nearest)))
    return ctx.emitError() << "unknown nearest_mode '" << o.nearest << "'";
  if ((o.mode != Mode::Nearest || o.coordinates == "tf_crop_and_resize") &&
      !isa<FloatType>(type.getElementType()))
    return ctx.emitError() << mode << " interpolation with " << o.coordinates
                           << " needs a floating-point input";

  // The resized axes (opset 18's `axes`, else all).
  SmallVector<int64_t> axes;
  for (int64_t axis : ctx.getInts("axes")) {
    FailureOr<int64_t> a = normalizeAxis(ctx, axis, rank);
    if (failed(a))
      return failure();
    if (llvm::is_contained(axes, *a))
      return ctx.emitError() << "axis " << *a << " repeats";
    axes.push_back(*a);
  }
  if (axes.empty())
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  int64_t n = axes.size();

  // Scales or sizes: Upsample-7's attribute, else an input (Upsample-9 and
  // Resize-10: input 1; Resize-11+: scales 2, sizes 3, roi 1).
  SmallVector<double> scales;
  SmallVector<int64_t> sizes;
  SmallVector<double> roi;
  if (upsample && !ctx.hasInput(1)) {
    for (float s : ctx.getAttr("scales")
                       ? ctx.getAttr("scales")->floats()
                       : google::protobuf::RepeatedField<float>())
      scales.push_back(s);
  } else if (legacy) {
    DenseElementsAttr s = ctx.getConstantInput(1);
    if (!s)
      return ctx.emitError()
             << "scales must be known at import time" << ctx.graphInputHint(1);
    scales = getFloatValues(s);
  } else {
    DenseElementsAttr s =
        ctx.hasInput(2) ? ctx.getConstantInput(2) : DenseElementsAttr();
    DenseElementsAttr z =
        ctx.hasInput(3) ? ctx.getConstantInput(3) : DenseElementsAttr();
    if ((ctx.hasInput(2) && !s) || (ctx.hasInput(3) && !z))
      return ctx.emitError()
             << "scales and sizes must be known at import "
                "time"
             << ctx.graphInputHint(ctx.hasInput(2) && !s ? 2 : 3);
    if (s && s.getNumElements() > 0)
      scales = getFloatValues(s);
    if (z && z.getNumElements() > 0)
      sizes = getIntValues(z);
    if (o.coordinates == "tf_crop_and_resize" && ctx.hasInput(1)) {
      DenseElementsAttr r = ctx.getConstantInput(1);
      if (!r)
        return ctx.emitError()
               << "roi must be known at import time" << ctx.graphInputHint(1);
      roi = getFloatValues(r);
    }
  }
  if (scales.empty() == sizes.empty())
    return ctx.emitError() << "needs exactly one of scales and sizes";
  if ((!scales.empty() && (int64_t)scales.size() != n) ||
      (!sizes.empty() && (int64_t)sizes.size() != n))
    return ctx.emitError() << "scales or sizes must have " << n << " entries";
  if (o.coordinates == "tf_crop_and_resize" && (int64_t)roi.size() != 2 * n)
    return ctx.emitError() << "tf_crop_and_resize needs a roi of " << 2 * n
                           << " entries";

  SmallVector<std::optional<AxisResize>> plan(rank);
  if (!sizes.empty()) {
    std::string policy = ctx.getString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" &&
        policy != "not_smaller")
      return ctx.emitError()
             << "unknown keep_aspect_ratio_policy '" << policy << "'";
    double common = policy == "not_larger" ? INFINITY : 0;
    for (int64_t i = 0; i < n; ++i) {
      double s = double(sizes[i]) / type.getDimSize(axes[i]);
      common =
          policy == "not_larger" ? std::min(common, s) : std::max(common, s);
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t in = type.getDimSize(axes[i]);
      if (policy == "stretch")
        scales.push_back(double(sizes[i]) / in);
      else {
        scales.push_back(common);
        sizes[i] = saturatingToInt64(common * in + 0.5);
      }
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t in = type.getDimSize(axes[i]);
    if (!(scales[i] > 0) || !std::isfinite(scales[i]))
      return ctx.emitError() << "scale " << scales[i] << " of axis " << axes[i]
                             << " is not positive";
    int64_t out = sizes.empty() ? saturatingToInt64(in * scales[i]) : sizes[i];
    if (out <= 0 || out > (int64_t(1) << 24))
      return ctx.emitError() << "output size " << out << " of axis " << axes[i]
                             << " is out of range";
    if (in == 0)
      return ctx.emitError() << "cannot resize an empty axis";
    // Each axis is a dense [out, in] weight matrix (and an antialiased
    // filter spans up to 2 in / out inputs per output).
    if (in > kMaxAxisWeights / out)
      return ctx.emitError() << "resizing axis " << axes[i] << " from " << in
                             << " to " << out << " is too large";
    AxisResize a{in, out, scales[i]};
    if (!roi.empty()) {
      a.roiStart = roi[i];
      a.roiEnd = roi[n + i];
    }
    plan[axes[i]] = a;
  }

  Value y = *xValue;
  SmallVector<int64_t> resultShape(type.getShape());
  for (int64_t d = 0; d < rank; ++d) {
    if (!plan[d])
      continue;
    resultShape[d] = plan[d]->out;
    // An axis that keeps its size and maps each output to its own input is
    // left alone.
    if (plan[d]->in == plan[d]->out && plan[d]->scale == 1.0 &&
        o.coordinates != "tf_crop_and_resize" &&
        o.coordinates != "align_corners" && !o.antialias) {
      bool identity = true;
      for (int64_t i = 0; i < plan[d]->in && identity; ++i)
        identity = sourceCoordinate(o, *plan[d], i) == double(i);
      if (identity)
        continue;
    }
    FailureOr<Value> resized = resizeAxis(ctx, o, y, d, *plan[d]);
    if (failed(resized))
      return failure();
    y = *resized;
  }
  if (Value term = extrapolationTerm(ctx, o, type.clone(resultShape), plan)) {
    FailureOr<Value> sum = ctx.create<AddOp>(y, term);
    if (failed(sum))
      return failure();
    y = *sum;
  }
  ctx.setOutput(0, y);
  return success();
}

} // namespace

void onnx_import::registerResizeImporters(NodeImporterRegistry &r) {
  r["Resize"] = [](NodeContext &ctx) { return importResize(ctx, false); };
  r["Upsample"] = [](NodeContext &ctx) { return importResize(ctx, true); };
}
