//===- LinalgImporters.cpp - MatMul, Gemm, Conv and pooling ---------------===//

#include "ImportContext.h"

#include <limits>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

LogicalResult importMatMul(NodeContext &ctx) {
  FailureOr<Value> a = ctx.getInput(0), b = ctx.getInput(1);
  if (failed(a) || failed(b))
    return failure();
  // numpy.matmul: a 1-D operand gains a unit dimension that the result drops.
  int64_t rankA = typeOf(*a).getRank(), rankB = typeOf(*b).getRank();
  if (rankA == 0 || rankB == 0)
    return ctx.emitError() << "operands must have rank >= 1";
  Value lhs = *a, rhs = *b;
  if (rankA == 1)
    lhs = ctx.reshape(lhs, {1, typeOf(lhs).getDimSize(0)});
  if (rankB == 1)
    rhs = ctx.reshape(rhs, {typeOf(rhs).getDimSize(0), 1});
  FailureOr<Value> product =
      typeOf(lhs).getRank() == 2 && typeOf(rhs).getRank() == 2
          ? ctx.create<MatmulOp>(lhs, rhs, false, false)
          : ctx.create<BatchMatmulOp>(lhs, rhs, false, false);
  if (failed(product))
    return failure();
  SmallVector<int64_t> shape(typeOf(*product).getShape());
  if (rankA == 1)
    shape.erase(shape.end() - 2);
  if (rankB == 1)
    shape.pop_back();
  ctx.setOutput(0, ctx.reshape(*product, shape));
  return success();
}

LogicalResult importGemm(NodeContext &ctx) {
  FailureOr<Value> a = ctx.getInput(0), b = ctx.getInput(1);
  if (failed(a) || failed(b))
    return failure();
  if (typeOf(*a).getRank() != 2 || typeOf(*b).getRank() != 2)
    return ctx.emitError() << "A and B must be 2-D";
  FailureOr<Value> result = ctx.create<MatmulOp>(
      *a, *b, ctx.getInt("transA", 0) != 0, ctx.getInt("transB", 0) != 0);
  if (failed(result))
    return failure();
  Type elementType = typeOf(*a).getElementType();
  double alpha = ctx.getFloat("alpha", 1.0), beta = ctx.getFloat("beta", 1.0);
  if (alpha != 1.0)
    result = ctx.create<MulOp>(*result, ctx.splat(elementType, alpha));
  if (succeeded(result) && ctx.hasInput(2) && beta != 0.0) {
    FailureOr<Value> c = ctx.getInput(2);
    if (failed(c))
      return failure();
    Value bias = *c;
    if (beta != 1.0) {
      FailureOr<Value> scaled =
          ctx.create<MulOp>(bias, ctx.splat(elementType, beta));
      if (failed(scaled))
        return failure();
      bias = *scaled;
    }
    result = ctx.create<AddOp>(*result, bias);
  }
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result);
  return success();
}

/// Window attributes of Conv and the pools, normalized to two spatial
/// dimensions. One-dimensional windows run as 2-D with a unit height.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads; // pads: t, l, b, r
  bool lifted = false;
};

FailureOr<Window> getWindow(NodeContext &ctx, RankedTensorType x,
                            ArrayRef<int64_t> kernel) {
  int64_t spatial = x.getRank() - 2;
  if (spatial != 1 && spatial != 2)
    return ctx.emitError() << "only 1-D and 2-D windows are supported, got "
                           << spatial << " spatial dimensions";
  if ((int64_t)kernel.size() != spatial)
    return ctx.emitError() << "kernel has " << kernel.size()
                           << " dimensions for " << spatial
                           << " spatial dimensions";
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = ctx.getInts("strides");
  w.dilations = ctx.getInts("dilations");
  if (w.strides.empty())
    w.strides.assign(spatial, 1);
  if (w.dilations.empty())
    w.dilations.assign(spatial, 1);
  SmallVector<int64_t> pads = ctx.getInts("pads");
  if (pads.empty())
    pads.assign(2 * spatial, 0);
  if ((int64_t)w.strides.size() != spatial ||
      (int64_t)w.dilations.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial)
    return ctx.emitError() << "strides, dilations and pads must match the "
                              "spatial rank "
                           << spatial;
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int64_t d = 0; d < spatial; ++d) {
      int64_t size = x.getDimSize(2 + d);
      int64_t out = (size + w.strides[d] - 1) / w.strides[d];
      int64_t total = std::max<int64_t>(
          0, (out - 1) * w.strides[d] +
                 (w.kernel[d] - 1) * w.dilations[d] + 1 - size);
      int64_t small = total / 2, large = total - small;
      pads[d] = autoPad == "SAME_UPPER" ? small : large;
      pads[spatial + d] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad == "VALID") {
    pads.assign(2 * spatial, 0);
  } else if (autoPad != "NOTSET") {
    return ctx.emitError() << "unknown auto_pad '" << autoPad << "'";
  }
  if (spatial == 1) {
    w.lifted = true;
    w.kernel.insert(w.kernel.begin(), 1);
    w.strides.insert(w.strides.begin(), 1);
    w.dilations.insert(w.dilations.begin(), 1);
    w.pads = {0, pads[0], 0, pads[1]};
  } else {
    w.pads = {pads[0], pads[1], pads[2], pads[3]};
  }
  return w;
}

/// [N, C, L] -> [N, C, 1, L].
Value liftTo2D(NodeContext &ctx, Value value) {
  ArrayRef<int64_t> s = typeOf(value).getShape();
  return ctx.reshape(value, {s[0], s[1], 1, s[2]});
}

/// [N, C, 1, L] -> [N, C, L].
Value lowerFrom2D(NodeContext &ctx, Value value) {
  ArrayRef<int64_t> s = typeOf(value).getShape();
  return ctx.reshape(value, {s[0], s[1], s[3]});
}

/// 3-D windows run as 2-D windows over every depth slice (depth folded into
/// the batch), combined along depth.
struct Window3D {
  SmallVector<int64_t> kernel, strides, dilations, pads; // pads: d, h, w x2
  int64_t outDepth;
};

FailureOr<Window3D> getWindow3D(NodeContext &ctx, RankedTensorType x,
                                ArrayRef<int64_t> kernel, bool ceil) {
  Window3D w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = ctx.getInts("strides");
  w.dilations = ctx.getInts("dilations");
  w.pads = ctx.getInts("pads");
  if (w.strides.empty())
    w.strides.assign(3, 1);
  if (w.dilations.empty())
    w.dilations.assign(3, 1);
  if (w.pads.empty())
    w.pads.assign(6, 0);
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  if (autoPad == "VALID")
    w.pads.assign(6, 0);
  else if (autoPad != "NOTSET")
    return ctx.emitError() << "auto_pad " << autoPad
                           << " is not supported for 3-D windows";
  if (w.kernel.size() != 3 || w.strides.size() != 3 ||
      w.dilations.size() != 3 || w.pads.size() != 6 ||
      llvm::any_of(w.strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(w.dilations, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(w.kernel, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(w.pads, [](int64_t v) { return v < 0; }))
    return ctx.emitError() << "invalid 3-D window attributes";
  int64_t span = x.getDimSize(2) + w.pads[0] + w.pads[3] -
                 w.dilations[0] * (w.kernel[0] - 1) - 1;
  if (span < 0)
    return ctx.emitError() << "the window is larger than the padded depth";
  w.outDepth =
      (ceil ? (span + w.strides[0] - 1) / w.strides[0] : span / w.strides[0]) +
      1;
  return w;
}

/// [N, C, D, H, W] -> [N * D, C, H, W].
Value foldDepth(NodeContext &ctx, Value x) {
  ArrayRef<int64_t> s = typeOf(x).getShape();
  FailureOr<Value> moved =
      ctx.create<TransposeOp>(x, SmallVector<int64_t>{0, 2, 1, 3, 4});
  if (failed(moved))
    return Value();
  return ctx.reshape(*moved, {s[0] * s[2], s[1], s[3], s[4]});
}

/// [N * D, C, H, W] -> [N, C, D, H, W].
Value unfoldDepth(NodeContext &ctx, Value y, int64_t n) {
  ArrayRef<int64_t> s = typeOf(y).getShape();
  Value split = ctx.reshape(y, {n, s[0] / n, s[1], s[2], s[3]});
  FailureOr<Value> moved =
      ctx.create<TransposeOp>(split, SmallVector<int64_t>{0, 2, 1, 3, 4});
  return failed(moved) ? Value() : *moved;
}

/// Depth slices start, start + step, ... (count of them) of [N, C, D, H, W].
Value depthSlices(NodeContext &ctx, Value x, int64_t start, int64_t step,
                  int64_t count) {
  SmallVector<int64_t> begin(5, 0), limit(typeOf(x).getShape()), stride(5, 1);
  begin[2] = start;
  limit[2] = start + (count - 1) * step + 1;
  stride[2] = step;
  FailureOr<Value> s = ctx.create<SliceOp>(x, begin, limit, stride);
  return failed(s) ? Value() : *s;
}

/// Pads the depth of [N, C, D, H, W] with `value`.
Value padDepth(NodeContext &ctx, Value x, int64_t before, int64_t after,
               double value) {
  if (before == 0 && after == 0)
    return x;
  SmallVector<int64_t> pads(10, 0);
  pads[2] = before;
  pads[7] = after;
  FailureOr<Value> p =
      ctx.create<PadOp>(x, pads, PadMode::Constant, llvm::APFloat(value));
  return failed(p) ? Value() : *p;
}

LogicalResult importConv3D(NodeContext &ctx, Value x, Value w, Value bias) {
  RankedTensorType wType = typeOf(w);
  SmallVector<int64_t> kernel = ctx.getInts("kernel_shape");
  if (kernel.empty())
    kernel.assign(wType.getShape().begin() + 2, wType.getShape().end());
  FailureOr<Window3D> win = getWindow3D(ctx, typeOf(x), kernel, false);
  if (failed(win))
    return failure();
  int64_t n = typeOf(x).getDimSize(0);
  Value padded = padDepth(ctx, x, win->pads[0], win->pads[3], 0.0);
  if (!padded)
    return failure();
  // y = sum over kernel depth k of conv2d(input slices k*dd + s*sd, w[k]).
  Value sum;
  for (int64_t k = 0; k < win->kernel[0]; ++k) {
    Value slices = depthSlices(ctx, padded, k * win->dilations[0],
                               win->strides[0], win->outDepth);
    if (!slices)
      return failure();
    FailureOr<Value> wk = ctx.create<SliceOp>(
        w, SmallVector<int64_t>{0, 0, k, 0, 0},
        SmallVector<int64_t>{wType.getDimSize(0), wType.getDimSize(1), k + 1,
                             wType.getDimSize(3), wType.getDimSize(4)},
        SmallVector<int64_t>{1, 1, 1, 1, 1});
    if (failed(wk))
      return failure();
    Value folded = foldDepth(ctx, slices);
    if (!folded)
      return failure();
    FailureOr<Value> y = ctx.create<Conv2DOp>(
        folded,
        ctx.reshape(*wk, {wType.getDimSize(0), wType.getDimSize(1),
                          wType.getDimSize(3), wType.getDimSize(4)}),
        k == 0 ? bias : Value(),
        SmallVector<int64_t>{win->strides[1], win->strides[2]},
        SmallVector<int64_t>{win->pads[1], win->pads[2], win->pads[4],
                             win->pads[5]},
        SmallVector<int64_t>{win->dilations[1], win->dilations[2]},
        ctx.getInt("group", 1));
    if (failed(y))
      return failure();
    if (!sum) {
      sum = *y;
      continue;
    }
    FailureOr<Value> added = ctx.create<AddOp>(sum, *y);
    if (failed(added))
      return failure();
    sum = *added;
  }
  Value result = unfoldDepth(ctx, sum, n);
  if (!result)
    return failure();
  ctx.setOutput(0, result);
  return success();
}

LogicalResult importPool3D(NodeContext &ctx, Value x, bool isMax) {
  bool ceil = ctx.getInt("ceil_mode", 0) != 0;
  if (!isMax && ceil)
    return ctx.emitError() << "3-D average pooling with ceil_mode is not "
                              "supported";
  FailureOr<Window3D> win =
      getWindow3D(ctx, typeOf(x), ctx.getInts("kernel_shape"), ceil);
  if (failed(win))
    return failure();
  if (!isMax && win->dilations[0] != 1)
    return ctx.emitError() << "dilated average pooling is not supported";
  int64_t n = typeOf(x).getDimSize(0), depth = typeOf(x).getDimSize(2);
  bool includePad = ctx.getInt("count_include_pad", 0) != 0;
  // The 2-D pool of every depth slice.
  Value folded = foldDepth(ctx, x);
  if (!folded)
    return failure();
  SmallVector<int64_t> kernel2{win->kernel[1], win->kernel[2]},
      strides2{win->strides[1], win->strides[2]},
      pads2{win->pads[1], win->pads[2], win->pads[4], win->pads[5]},
      dilations2{win->dilations[1], win->dilations[2]};
  FailureOr<Value> pooled =
      isMax ? ctx.create<MaxPool2DOp>(folded, kernel2, strides2, pads2,
                                      dilations2, ceil)
            : ctx.create<AvgPool2DOp>(folded, kernel2, strides2, pads2, ceil,
                                      includePad);
  if (failed(pooled))
    return failure();
  Value planes = unfoldDepth(ctx, *pooled, n);
  if (!planes)
    return failure();
  // Combine along depth: pad (the end also for ceil_mode), then take the
  // kernel's strided slices.
  int64_t needed = (win->outDepth - 1) * win->strides[0] +
                   win->dilations[0] * (win->kernel[0] - 1) + 1;
  int64_t after = std::max<int64_t>(0, needed - depth - win->pads[0]);
  Type f = typeOf(x).getElementType();
  Value padded =
      padDepth(ctx, planes, win->pads[0], after,
               isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  if (!padded)
    return failure();
  Value acc;
  for (int64_t k = 0; k < win->kernel[0]; ++k) {
    Value slices = depthSlices(ctx, padded, k * win->dilations[0],
                               win->strides[0], win->outDepth);
    if (!slices)
      return failure();
    if (!acc) {
      acc = slices;
      continue;
    }
    FailureOr<Value> combined =
        isMax ? ctx.create<MaxOp>(acc, slices) : ctx.create<AddOp>(acc, slices);
    if (failed(combined))
      return failure();
    acc = *combined;
  }
  if (!isMax) {
    // Divide by the window's depth count (valid positions unless padding
    // counts).
    SmallVector<double> counts;
    for (int64_t o = 0; o < win->outDepth; ++o) {
      int64_t count = 0;
      for (int64_t k = 0; k < win->kernel[0]; ++k) {
        int64_t d = o * win->strides[0] + k - win->pads[0];
        count += includePad || (d >= 0 && d < depth);
      }
      counts.push_back(std::max<int64_t>(count, 1));
    }
    Value divisor = ctx.constant(makeDense(
        RankedTensorType::get({1, 1, win->outDepth, 1, 1}, f), counts));
    FailureOr<Value> mean = ctx.create<DivOp>(acc, divisor);
    if (failed(mean))
      return failure();
    acc = *mean;
  }
  ctx.setOutput(0, acc);
  return success();
}

LogicalResult importConv(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0), w = ctx.getInput(1);
  if (failed(x) || failed(w))
    return failure();
  RankedTensorType wType = typeOf(*w);
  if (wType.getRank() < 3 || typeOf(*x).getRank() != wType.getRank())
    return ctx.emitError() << "input and weight ranks must match and be >= 3";
  if (wType.getRank() == 5) {
    Value bias;
    if (ctx.hasInput(2)) {
      FailureOr<Value> b = ctx.getInput(2);
      if (failed(b))
        return failure();
      bias = *b;
    }
    return importConv3D(ctx, *x, *w, bias);
  }
  SmallVector<int64_t> kernel = ctx.getInts("kernel_shape");
  if (kernel.empty())
    kernel.assign(wType.getShape().begin() + 2, wType.getShape().end());
  FailureOr<Window> window = getWindow(ctx, typeOf(*x), kernel);
  if (failed(window))
    return failure();
  Value input = *x, weight = *w, bias;
  if (window->lifted) {
    input = liftTo2D(ctx, input);
    weight = liftTo2D(ctx, weight);
  }
  if (ctx.hasInput(2)) {
    FailureOr<Value> b = ctx.getInput(2);
    if (failed(b))
      return failure();
    bias = *b;
  }
  FailureOr<Value> y = ctx.create<Conv2DOp>(
      input, weight, bias, window->strides, window->pads, window->dilations,
      ctx.getInt("group", 1));
  if (failed(y))
    return failure();
  ctx.setOutput(0, window->lifted ? lowerFrom2D(ctx, *y) : *y);
  return success();
}

LogicalResult importConvTranspose(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0), w = ctx.getInput(1);
  if (failed(x) || failed(w))
    return failure();
  RankedTensorType xType = typeOf(*x), wType = typeOf(*w);
  int64_t spatial = xType.getRank() - 2;
  if (wType.getRank() != xType.getRank() || (spatial != 1 && spatial != 2))
    return ctx.emitError() << "only 1-D and 2-D transposed convolutions are "
                              "supported";
  SmallVector<int64_t> kernel = ctx.getInts("kernel_shape");
  if (kernel.empty())
    kernel.assign(wType.getShape().begin() + 2, wType.getShape().end());
  SmallVector<int64_t> strides = ctx.getInts("strides"),
                       dilations = ctx.getInts("dilations"),
                       outputPadding = ctx.getInts("output_padding"),
                       pads = ctx.getInts("pads"),
                       outputShape = ctx.getInts("output_shape");
  if (strides.empty())
    strides.assign(spatial, 1);
  if (dilations.empty())
    dilations.assign(spatial, 1);
  if (outputPadding.empty())
    outputPadding.assign(spatial, 0);
  if (pads.empty())
    pads.assign(2 * spatial, 0);
  if ((int64_t)kernel.size() != spatial || (int64_t)strides.size() != spatial ||
      (int64_t)dilations.size() != spatial ||
      (int64_t)outputPadding.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial)
    return ctx.emitError() << "attributes must match the spatial rank "
                           << spatial;
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  if (!outputShape.empty() || autoPad == "SAME_UPPER" ||
      autoPad == "SAME_LOWER") {
    // Padding follows from the wanted output size (ONNX's equations).
    if (outputShape.empty())
      for (int64_t d = 0; d < spatial; ++d)
        outputShape.push_back(xType.getDimSize(2 + d) * strides[d]);
    if ((int64_t)outputShape.size() < spatial)
      return ctx.emitError() << "output_shape has too few entries";
    ArrayRef<int64_t> wanted = ArrayRef<int64_t>(outputShape).take_back(spatial);
    for (int64_t d = 0; d < spatial; ++d) {
      int64_t total = strides[d] * (xType.getDimSize(2 + d) - 1) +
                      outputPadding[d] + (kernel[d] - 1) * dilations[d] + 1 -
                      wanted[d];
      if (total < 0)
        return ctx.emitError() << "output_shape is larger than the "
                                  "transposed convolution can produce";
      bool upper = autoPad == "SAME_UPPER";
      pads[d] = upper ? total / 2 : total - total / 2;
      pads[spatial + d] = upper ? total - total / 2 : total / 2;
    }
  } else if (autoPad == "VALID") {
    pads.assign(2 * spatial, 0);
  } else if (autoPad != "NOTSET") {
    return ctx.emitError() << "unknown auto_pad '" << autoPad << "'";
  }
  Value input = *x, weight = *w, bias;
  // A 1-D transposed convolution has two pads (begin, end).
  SmallVector<int64_t> pads2D =
      spatial == 1 ? SmallVector<int64_t>{0, pads[0], 0, pads[1]}
                   : SmallVector<int64_t>{pads[0], pads[1], pads[2], pads[3]};
  if (spatial == 1) {
    input = liftTo2D(ctx, input);
    weight = liftTo2D(ctx, weight);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
    outputPadding.insert(outputPadding.begin(), 0);
  }
  if (ctx.hasInput(2)) {
    FailureOr<Value> b = ctx.getInput(2);
    if (failed(b))
      return failure();
    bias = *b;
  }
  FailureOr<Value> y = ctx.create<ConvTranspose2DOp>(
      input, weight, bias, strides, pads2D, dilations, outputPadding,
      ctx.getInt("group", 1));
  if (failed(y))
    return failure();
  ctx.setOutput(0, spatial == 1 ? lowerFrom2D(ctx, *y) : *y);
  return success();
}

LogicalResult importPool(NodeContext &ctx, bool isMax) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  if (isMax && ctx.hasOutput(1))
    return ctx.emitError() << "the Indices output of MaxPool is not supported";
  if (ctx.getInt("storage_order", 0) != 0)
    return ctx.emitError() << "column-major storage_order is not supported";
  if (typeOf(*x).getRank() < 3)
    return ctx.emitError() << "input must have rank >= 3";
  if (typeOf(*x).getRank() == 5)
    return importPool3D(ctx, *x, isMax);
  FailureOr<Window> window =
      getWindow(ctx, typeOf(*x), ctx.getInts("kernel_shape"));
  if (failed(window))
    return failure();
  Value input = window->lifted ? liftTo2D(ctx, *x) : *x;
  bool ceil = ctx.getInt("ceil_mode", 0) != 0;
  FailureOr<Value> y =
      isMax ? ctx.create<MaxPool2DOp>(input, window->kernel, window->strides,
                                      window->pads, window->dilations, ceil)
            : ctx.create<AvgPool2DOp>(input, window->kernel, window->strides,
                                      window->pads, ceil,
                                      ctx.getInt("count_include_pad", 0) != 0);
  if (!isMax && llvm::any_of(window->dilations, [](int64_t d) { return d != 1; }))
    return ctx.emitError() << "dilated average pooling is not supported";
  if (failed(y))
    return failure();
  ctx.setOutput(0, window->lifted ? lowerFrom2D(ctx, *y) : *y);
  return success();
}

template <typename OpTy>
LogicalResult importGlobalPool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  int64_t rank = typeOf(*x).getRank();
  if (rank != 3 && rank != 4)
    return ctx.emitError() << "only 1-D and 2-D global pooling is supported";
  Value input = rank == 3 ? liftTo2D(ctx, *x) : *x;
  FailureOr<Value> y = ctx.create<OpTy>(input);
  if (failed(y))
    return failure();
  ctx.setOutput(0, rank == 3 ? lowerFrom2D(ctx, *y) : *y);
  return success();
}

} // namespace

void onnx_import::registerLinalgImporters(NodeImporterRegistry &r) {
  r["MatMul"] = importMatMul;
  r["Gemm"] = importGemm;
  r["Conv"] = importConv;
  r["ConvTranspose"] = importConvTranspose;
  r["MaxPool"] = [](NodeContext &ctx) { return importPool(ctx, true); };
  r["AveragePool"] = [](NodeContext &ctx) { return importPool(ctx, false); };
  r["GlobalAveragePool"] = importGlobalPool<GlobalAvgPool2DOp>;
  r["GlobalMaxPool"] = importGlobalPool<GlobalMaxPool2DOp>;
}
