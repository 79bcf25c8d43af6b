//===- Gradients.cpp - Gradient ops ---------------------------------------===//
//
// The backward ops of OneFlowGradOps.td. Scatter-adds are written as gathers
// where each output element can find its sources cheaply (pooling, slice):
// a parallel linalg.generic per result. Data-dependent scatters (gather,
// gather_elements) are sequential scf.for nests over tensors, which one-shot
// bufferization turns into in-place stores. The weight gradient of conv2d
// is im2col + GEMM through the kernel library for f32 and f64 (a
// linalg.generic contraction otherwise).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "oneflow/Dialect/OneFlow/ElementTypeName.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::lowering;

namespace {

Value zeros(OpBuilder &b, Location loc, RankedTensorType type) {
  return filledTensor(b, loc, type, b.getZeroAttr(type.getElementType()));
}

/// Replaces `op` by zeros of `type`: the gradient where nothing flows back.
LogicalResult replaceWithZeros(ConversionPatternRewriter &rewriter,
                               Operation *op, RankedTensorType type) {
  rewriter.replaceOp(op, zeros(rewriter, op->getLoc(), type));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise and reduction helpers on whole tensors
//===----------------------------------------------------------------------===//

/// Sum (or max) over `axes`, dropping them.
Value reduceDrop(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                 bool max = false) {
  Type element = typeOf(x).getElementType();
  TypedAttr init = max ? lowestValue(element) : b.getZeroAttr(element);
  return buildReduction(
      b, loc, x, axes, init, [&](OpBuilder &nb, Location nl, ValueRange args) {
        return max ? (Value)arith::MaximumFOp::create(nb, nl, args[0], args[1])
                   : (Value)arith::AddFOp::create(nb, nl, args[0], args[1]);
      });
}

/// A parallel generic over `resultType` with trailing reduction dims of
/// `reductionSizes`: `body(ivs, acc)` returns the new accumulator; the
/// output starts at zero. ivs lists the result dims, then the reduction
/// dims.
Value buildGatherSum(
    OpBuilder &b, Location loc, RankedTensorType resultType,
    ArrayRef<int64_t> reductionSizes,
    function_ref<Value(OpBuilder &, Location, ValueRange ivs, Value acc)>
        body) {
  MLIRContext *context = b.getContext();
  int64_t rank = resultType.getRank();
  int64_t loops = rank + reductionSizes.size();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(reductionSizes.size(), utils::IteratorType::reduction);
  // The reduction dims' sizes come from a dummy operand that only fixes
  // the loop bounds.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  if (!reductionSizes.empty()) {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = rank; d < loops; ++d)
      exprs.push_back(getAffineDimExpr(d, context));
    inputs.push_back(emptyTensor(
        b, loc,
        RankedTensorType::get(reductionSizes, resultType.getElementType())));
    maps.push_back(AffineMap::get(loops, 0, exprs, context));
  }
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, context));
  maps.push_back(AffineMap::get(loops, 0, outExprs, context));
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs,
             ValueRange{zeros(b, loc, resultType)}, maps, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> ivs;
               for (int64_t d = 0; d < loops; ++d)
                 ivs.push_back(linalg::IndexOp::create(nb, nl, d));
               linalg::YieldOp::create(nb, nl, body(nb, nl, ivs, args.back()));
             })
      .getResult(0);
}

/// For input position `i` (unpadded) and kernel offset `k` along one
/// spatial dim: the window `o` with o * stride + k * dilation == i + pad,
/// clamped into [0, outSize), and whether it exists.
std::pair<Value, Value> windowAt(OpBuilder &b, Location loc, Value i, Value k,
                                 int64_t pad, int64_t stride, int64_t dilation,
                                 int64_t outSize) {
  Value zero = indexConstant(b, loc, 0);
  Value pos = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, i, indexConstant(b, loc, pad)),
      arith::MulIOp::create(b, loc, k, indexConstant(b, loc, dilation)));
  Value s = indexConstant(b, loc, stride);
  Value o = arith::DivSIOp::create(b, loc, pos, s);
  Value valid = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, pos, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            arith::RemSIOp::create(b, loc, pos, s), zero));
  valid = arith::AndIOp::create(
      b, loc, valid,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, o,
                            indexConstant(b, loc, outSize)));
  Value clamped = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, o, zero),
      indexConstant(b, loc, std::max<int64_t>(outSize - 1, 0)));
  return {clamped, valid};
}

/// The row-major position kh * kernelW + kw inside a pooling window, as
/// i64.
Value windowOffset(OpBuilder &b, Location loc, Value kh, Value kw,
                   int64_t kernelW) {
  Value flat = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, kh, indexConstant(b, loc, kernelW)),
      kw);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), flat);
}

//===----------------------------------------------------------------------===//
// conv2d_grad_filter
//===----------------------------------------------------------------------===//

struct Conv2DGradFilterLowering
    : public OpConversionPattern<Conv2DGradFilterOp> {
  Conv2DGradFilterLowering(MLIRContext *context, bool libraryCalls)
      : OpConversionPattern(context), libraryCalls(libraryCalls) {}
  LogicalResult
  matchAndRewrite(Conv2DGradFilterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType xType = typeOf(adaptor.getX()),
                     dyType = typeOf(adaptor.getDy()),
                     dwType = op.getDweight().getType();
    Type element = dwType.getElementType();
    int64_t n = xType.getDimSize(0), groups = op.getGroups();
    int64_t cg = dwType.getDimSize(1), o = dwType.getDimSize(0),
            og = o / groups, kh = dwType.getDimSize(2),
            kw = dwType.getDimSize(3), oh = dyType.getDimSize(2),
            ow = dyType.getDimSize(3);
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations();
    // On CPU, f32 filters of outputs of 8x8 pixels and more (depthwise
    // ones excepted) take oneDNN's backward-weights convolution
    // (oneflow_conv2d_grad_filter_f32). Measured on ResNet-18's layers at
    // batch 8: 1.9x faster at 16x16 outputs, 1.3x at 8x8, even at 4x4,
    // 1.6x slower at 2x2 (the reorders to its blocked layouts dominate).
    int64_t c = xType.getDimSize(1);
    bool depthwise = groups == c && o == c;
    if (libraryCalls && element.isF32() && !depthwise && oh * ow >= 64 &&
        xType.getNumElements() > 0 && dyType.getNumElements() > 0) {
      SmallVector<int64_t> scalars = {n,
                                      c,
                                      xType.getDimSize(2),
                                      xType.getDimSize(3),
                                      o,
                                      kh,
                                      kw,
                                      oh,
                                      ow,
                                      strides[0],
                                      strides[1],
                                      pads[0],
                                      pads[1],
                                      dilations[0],
                                      dilations[1],
                                      groups};
      rewriter.replaceOp(op, buildLibraryCall(rewriter, loc,
                                              "oneflow_conv2d_grad_filter_f32",
                                              {adaptor.getX(), adaptor.getDy()},
                                              {dwType}, scalars));
      return success();
    }
    int64_t k = n * oh * ow, patch = cg * kh * kw;
    if (k == 0 || dwType.getNumElements() == 0)
      return replaceWithZeros(rewriter, op, dwType);

    // Every window of the zero-padded input is in bounds.
    Value xp = padSpatial(rewriter, loc, adaptor.getX(), {pads[0], pads[1]},
                          {pads[2], pads[3]}, rewriter.getZeroAttr(element));
    RankedTensorType xpType = typeOf(xp);
    Value x5 = reshapeTensor(
        rewriter, loc, xp,
        RankedTensorType::get(
            {n, groups, cg, xpType.getDimSize(2), xpType.getDimSize(3)},
            element));
    // cols[g, c, i, j, n, y, x] = xp[n, g * cg + c, y * s + i * d, ...].
    auto expr = [&](unsigned d) { return getAffineDimExpr(d, context); };
    AffineMap readMap =
        AffineMap::get(7, 0,
                       {expr(4), expr(0), expr(1),
                        expr(5) * strides[0] + expr(2) * dilations[0],
                        expr(6) * strides[1] + expr(3) * dilations[1]},
                       context);
    auto colsType =
        RankedTensorType::get({groups, cg, kh, kw, n, oh, ow}, element);
    Value cols =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{colsType}, ValueRange{x5},
            ValueRange{emptyTensor(rewriter, loc, colsType)},
            {readMap, rewriter.getMultiDimIdentityMap(7)},
            SmallVector<utils::IteratorType>(7, utils::IteratorType::parallel),
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);
    cols = reshapeTensor(rewriter, loc, cols,
                         RankedTensorType::get({groups, patch, k}, element));
    // dy as [g, og, n * oh * ow].
    auto dyTType = RankedTensorType::get({o, n, oh, ow}, element);
    Value dyT = linalg::TransposeOp::create(rewriter, loc, adaptor.getDy(),
                                            emptyTensor(rewriter, loc, dyTType),
                                            ArrayRef<int64_t>{1, 0, 2, 3})
                    .getResult()[0];
    dyT = reshapeTensor(rewriter, loc, dyT,
                        RankedTensorType::get({groups, og, k}, element));

    auto resultType = RankedTensorType::get({groups, og, patch}, element);
    Value dw;
    StringRef suffix = blasSuffix(element);
    if (!suffix.empty()) {
      // dw[g] = dy[g] cols[g]^T.
      dw = buildLibraryCall(rewriter, loc,
                            ("oneflow_batch_gemm_" + suffix).str(), {dyT, cols},
                            {resultType},
                            {groups, og, patch, k, 0, 1, og * k, patch * k})
               .front();
    } else {
      AffineMap aMap =
                    AffineMap::get(4, 0, {expr(0), expr(1), expr(3)}, context),
                bMap =
                    AffineMap::get(4, 0, {expr(0), expr(2), expr(3)}, context),
                cMap =
                    AffineMap::get(4, 0, {expr(0), expr(1), expr(2)}, context);
      dw = linalg::GenericOp::create(
               rewriter, loc, TypeRange{resultType}, ValueRange{dyT, cols},
               ValueRange{zeros(rewriter, loc, resultType)}, {aMap, bMap, cMap},
               {utils::IteratorType::parallel, utils::IteratorType::parallel,
                utils::IteratorType::parallel, utils::IteratorType::reduction},
               [](OpBuilder &b, Location l, ValueRange args) {
                 Value product = arith::MulFOp::create(b, l, args[0], args[1]);
                 linalg::YieldOp::create(
                     b, l,
                     arith::AddFOp::create(b, l, args[2], product).getResult());
               })
               .getResult(0);
    }
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, dw, dwType));
    return success();
  }

private:
  bool libraryCalls;
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

struct MaxPool2DGradLowering : public OpConversionPattern<MaxPool2DGradOp> {
  MaxPool2DGradLowering(MLIRContext *context, bool poolingCalls)
      : OpConversionPattern(context), poolingCalls(poolingCalls) {}
  LogicalResult
  matchAndRewrite(MaxPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType xType = typeOf(adaptor.getX()),
                     dyType = typeOf(adaptor.getDy());
    Type element = xType.getElementType(), i64 = rewriter.getI64Type();
    if (dyType.getNumElements() == 0)
      return replaceWithZeros(rewriter, op, xType);
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      pads = op.getPads(), dilations = op.getDilations();
    if (poolingCalls && (element.isF32() || element.isF64())) {
      SmallVector<int64_t> scalars = {xType.getDimSize(0),
                                      xType.getDimSize(1),
                                      xType.getDimSize(2),
                                      xType.getDimSize(3),
                                      dyType.getDimSize(2),
                                      dyType.getDimSize(3),
                                      kernel[0],
                                      kernel[1],
                                      strides[0],
                                      strides[1],
                                      pads[0],
                                      pads[1],
                                      pads[2],
                                      pads[3],
                                      dilations[0],
                                      dilations[1]};
      rewriter.replaceOp(
          op, buildLibraryCall(
                  rewriter, loc,
                  ("oneflow_max_pool2d_grad_" + elementTypeName(element)).str(),
                  {adaptor.getX(), adaptor.getDy()}, {xType}, scalars));
      return success();
    }
    int64_t outH = dyType.getDimSize(2), outW = dyType.getDimSize(3);
    int64_t sizes[2] = {xType.getDimSize(2), xType.getDimSize(3)};
    // Pad so that every window (ceil mode included) is in bounds; padded
    // positions never win (they are masked, not just -inf).
    Value xp = padForPooling(rewriter, loc, adaptor.getX(), dyType, kernel,
                             strides, dilations, pads, lowestValue(element));

    // The first (row-major) maximum of each window, as kh * kw_size + kw.
    auto expr = [&](unsigned d) { return getAffineDimExpr(d, context); };
    AffineMap readMap = AffineMap::get(
        6, 0,
        {expr(0), expr(1), expr(2) * strides[0] + expr(4) * dilations[0],
         expr(3) * strides[1] + expr(5) * dilations[1]},
        context);
    AffineMap windowMap = AffineMap::get(6, 0, {expr(4), expr(5)}, context);
    AffineMap outMap =
        AffineMap::get(6, 0, {expr(0), expr(1), expr(2), expr(3)}, context);
    auto valueType = RankedTensorType::get(dyType.getShape(), element);
    auto indexType = RankedTensorType::get(dyType.getShape(), i64);
    Value window =
        emptyTensor(rewriter, loc, RankedTensorType::get(kernel, element));
    int64_t none = std::numeric_limits<int64_t>::max();
    auto argmax = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, indexType}, ValueRange{xp, window},
        ValueRange{filledTensor(rewriter, loc, valueType, lowestValue(element)),
                   filledTensor(rewriter, loc, indexType,
                                rewriter.getI64IntegerAttr(none))},
        {readMap, windowMap, outMap, outMap},
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::reduction, utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = args[0], best = args[2], bestIndex = args[3];
          SmallVector<Value> ivs;
          for (int d = 0; d < 6; ++d)
            ivs.push_back(linalg::IndexOp::create(b, l, d));
          // Inside the unpadded input?
          Value valid;
          for (int d = 0; d < 2; ++d) {
            Value pos = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, ivs[2 + d],
                                      indexConstant(b, l, strides[d])),
                arith::MulIOp::create(b, l, ivs[4 + d],
                                      indexConstant(b, l, dilations[d])));
            Value inside = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, pos,
                                      indexConstant(b, l, pads[d])),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, pos,
                                      indexConstant(b, l, pads[d] + sizes[d])));
            valid = valid
                        ? arith::AndIOp::create(b, l, valid, inside).getResult()
                        : inside;
          }
          Value flat = windowOffset(b, l, ivs[4], ivs[5], kernel[1]);
          // Order-independent: larger value, or equal value at an earlier
          // position, or the first valid position at all.
          Value greater =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, best);
          Value equal =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, v, best);
          Value earlier = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                                flat, bestIndex);
          Value empty = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, bestIndex,
              arith::ConstantOp::create(b, l, b.getI64IntegerAttr(none)));
          Value better = arith::OrIOp::create(
              b, l, greater,
              arith::OrIOp::create(
                  b, l, empty, arith::AndIOp::create(b, l, equal, earlier)));
          better = arith::AndIOp::create(b, l, valid, better);
          linalg::YieldOp::create(
              b, l,
              ValueRange{
                  arith::SelectOp::create(b, l, better, v, best),
                  arith::SelectOp::create(b, l, better, flat, bestIndex)});
        });
    Value winners = argmax.getResult(1), dy = adaptor.getDy();

    // dx[n, c, i, j] sums dy over the windows whose winner is (i, j).
    Value dx = buildGatherSum(
        rewriter, loc, xType, kernel,
        [&](OpBuilder &b, Location l, ValueRange ivs, Value acc) {
          auto [oi, validI] = windowAt(b, l, ivs[2], ivs[4], pads[0],
                                       strides[0], dilations[0], outH);
          auto [oj, validJ] = windowAt(b, l, ivs[3], ivs[5], pads[1],
                                       strides[1], dilations[1], outW);
          SmallVector<Value> at = {ivs[0], ivs[1], oi, oj};
          Value flat = windowOffset(b, l, ivs[4], ivs[5], kernel[1]);
          Value wins = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq,
              tensor::ExtractOp::create(b, l, winners, at), flat);
          Value take = arith::AndIOp::create(
              b, l, wins, arith::AndIOp::create(b, l, validI, validJ));
          Value g = tensor::ExtractOp::create(b, l, dy, at);
          Value sum = arith::AddFOp::create(b, l, acc, g);
          return arith::SelectOp::create(b, l, take, sum, acc).getResult();
        });
    rewriter.replaceOp(op, dx);
    return success();
  }

private:
  bool poolingCalls;
};

struct AvgPool2DGradLowering : public OpConversionPattern<AvgPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType dxType = op.getDx().getType(),
                     dyType = typeOf(adaptor.getDy());
    Type element = dxType.getElementType();
    if (dyType.getNumElements() == 0)
      return replaceWithZeros(rewriter, op, dxType);
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      pads = op.getPads();
    int64_t outH = dyType.getDimSize(2), outW = dyType.getDimSize(3);
    // The divisors of avg_pool2d.
    Value scale = avgPoolReciprocals(
        rewriter, loc, element, outH, outW, dxType.getDimSize(2),
        dxType.getDimSize(3), kernel, strides, pads, op.getCountIncludePad());
    Value scaled = mulF(rewriter, loc, adaptor.getDy(), scale);
    Value dx = buildGatherSum(
        rewriter, loc, dxType, kernel,
        [&](OpBuilder &b, Location l, ValueRange ivs, Value acc) {
          auto [oi, validI] =
              windowAt(b, l, ivs[2], ivs[4], pads[0], strides[0], 1, outH);
          auto [oj, validJ] =
              windowAt(b, l, ivs[3], ivs[5], pads[1], strides[1], 1, outW);
          Value g = tensor::ExtractOp::create(
              b, l, scaled, ValueRange{ivs[0], ivs[1], oi, oj});
          Value sum = arith::AddFOp::create(b, l, acc, g);
          return arith::SelectOp::create(
                     b, l, arith::AndIOp::create(b, l, validI, validJ), sum,
                     acc)
              .getResult();
        });
    rewriter.replaceOp(op, dx);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gathers and slices
//===----------------------------------------------------------------------===//

/// acc[at] += value.
Value accumulate(OpBuilder &b, Location loc, Value acc, ValueRange at,
                 Value value) {
  Value old = tensor::ExtractOp::create(b, loc, acc, at);
  Value sum = arith::AddFOp::create(b, loc, old, value);
  return tensor::InsertOp::create(b, loc, sum, acc, at);
}

/// A sequential loop nest over `sizes` threading `init`; `body` returns the
/// next value of the threaded tensor.
Value scatterLoops(
    OpBuilder &b, Location loc, ArrayRef<int64_t> sizes, Value init,
    function_ref<Value(OpBuilder &, Location, ValueRange ivs, Value acc)>
        body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : sizes) {
    lbs.push_back(indexConstant(b, loc, 0));
    ubs.push_back(indexConstant(b, loc, size));
    steps.push_back(indexConstant(b, loc, 1));
  }
  scf::LoopNest nest =
      scf::buildLoopNest(b, loc, lbs, ubs, steps, ValueRange{init},
                         [&](OpBuilder &nb, Location nl, ValueRange ivs,
                             ValueRange iterArgs) -> scf::ValueVector {
                           return {body(nb, nl, ivs, iterArgs[0])};
                         });
  return nest.results.front();
}

struct GatherGradLowering : public OpConversionPattern<GatherGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType dataType = op.getDdata().getType(),
                     indexType = typeOf(adaptor.getIndices());
    Type element = dataType.getElementType();
    auto [outer, size, inner] = aroundAxis(dataType, op.getAxis());
    int64_t count = indexType.getNumElements();
    Value result = zeros(rewriter, loc, dataType);
    if (outer * count * inner == 0 || size == 0) {
      rewriter.replaceOp(op, result);
      return success();
    }
    // ddata[o, indices[i], q] += dy[o, i, q], on flattened views.
    Value acc =
        reshapeTensor(rewriter, loc, result,
                      RankedTensorType::get({outer, size, inner}, element));
    Value dy =
        reshapeTensor(rewriter, loc, adaptor.getDy(),
                      RankedTensorType::get({outer, count, inner}, element));
    Value indices = reshapeTensor(
        rewriter, loc, adaptor.getIndices(),
        RankedTensorType::get({count}, indexType.getElementType()));
    acc = scatterLoops(
        rewriter, loc, {outer, count, inner}, acc,
        [&](OpBuilder &b, Location l, ValueRange ivs, Value acc) {
          Value row = normalizedIndex(
              b, l, tensor::ExtractOp::create(b, l, indices, ivs[1]), size);
          Value g = tensor::ExtractOp::create(b, l, dy, ivs);
          return accumulate(b, l, acc, {ivs[0], row, ivs[2]}, g);
        });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, acc, dataType));
    return success();
  }
};

struct GatherElementsGradLowering
    : public OpConversionPattern<GatherElementsGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherElementsGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType dataType = op.getDdata().getType(),
                     indexType = typeOf(adaptor.getIndices());
    int64_t axis = op.getAxis(), size = dataType.getDimSize(axis);
    Value result = zeros(rewriter, loc, dataType);
    if (indexType.getNumElements() == 0 || size == 0) {
      rewriter.replaceOp(op, result);
      return success();
    }
    Value indices = adaptor.getIndices(), dy = adaptor.getDy();
    result = scatterLoops(
        rewriter, loc, indexType.getShape(), result,
        [&](OpBuilder &b, Location l, ValueRange ivs, Value acc) {
          SmallVector<Value> at(ivs);
          at[axis] = normalizedIndex(
              b, l, tensor::ExtractOp::create(b, l, indices, ivs), size);
          Value g = tensor::ExtractOp::create(b, l, dy, ivs);
          return accumulate(b, l, acc, at, g);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SliceGradLowering : public OpConversionPattern<SliceGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType dxType = op.getDx().getType(),
                     dyType = typeOf(adaptor.getDy());
    ArrayRef<int64_t> starts = op.getStarts(), steps = op.getSteps();
    if (dyType.getNumElements() == 0)
      return replaceWithZeros(rewriter, op, dxType);
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      Value result = zeros(rewriter, loc, dxType);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      for (int64_t d = 0; d < dxType.getRank(); ++d) {
        offsets.push_back(rewriter.getIndexAttr(starts[d]));
        sizes.push_back(rewriter.getIndexAttr(dyType.getDimSize(d)));
        strides.push_back(rewriter.getIndexAttr(steps[d]));
      }
      rewriter.replaceOp(
          op, tensor::InsertSliceOp::create(rewriter, loc, adaptor.getDy(),
                                            result, offsets, sizes, strides));
      return success();
    }
    // Negative steps: dx[i] = dy[(i - start) / step] where that is a whole
    // index in range, else 0.
    Value dy = adaptor.getDy();
    rewriter.replaceOp(
        op,
        buildGatherSum(
            rewriter, loc, dxType, {},
            [&](OpBuilder &b, Location l, ValueRange ivs, Value acc) {
              Value zero = indexConstant(b, l, 0), valid;
              SmallVector<Value> at;
              for (auto [d, iv] : llvm::enumerate(ivs)) {
                Value step = indexConstant(b, l, steps[d]);
                Value offset = arith::SubIOp::create(
                    b, l, iv, indexConstant(b, l, starts[d]));
                Value q = arith::DivSIOp::create(b, l, offset, step);
                Value ok = arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(
                        b, l, arith::CmpIPredicate::eq,
                        arith::RemSIOp::create(b, l, offset, step), zero),
                    arith::AndIOp::create(
                        b, l,
                        arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                              q, zero),
                        arith::CmpIOp::create(
                            b, l, arith::CmpIPredicate::slt, q,
                            indexConstant(b, l, dyType.getDimSize(d)))));
                valid = valid
                            ? arith::AndIOp::create(b, l, valid, ok).getResult()
                            : ok;
                at.push_back(arith::MinSIOp::create(
                    b, l, arith::MaxSIOp::create(b, l, q, zero),
                    indexConstant(b, l, dyType.getDimSize(d) - 1)));
              }
              Value g = tensor::ExtractOp::create(b, l, dy, at);
              return arith::SelectOp::create(b, l, valid, g, acc).getResult();
            }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Losses and normalizations
//===----------------------------------------------------------------------===//
//
// Written as few passes as possible over the large tensors: row statistics
// are reductions reading the inputs directly, and each result is one
// linalg.generic computing the normalized values on the fly (nothing fuses
// linalg ops later in the pipeline).

/// The map from `loops` loop dims to the listed ones.
AffineMap dimsMap(MLIRContext *context, int64_t loops, ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : dims)
    exprs.push_back(getAffineDimExpr(d, context));
  return AffineMap::get(loops, 0, exprs, context);
}

using GenericBody =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange args)>;

/// A linalg.generic with the given operands and maps; `body` receives the
/// input elements, then the output (accumulator) elements, and returns the
/// outputs' new values.
SmallVector<Value> buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                                ValueRange inits, ArrayRef<AffineMap> maps,
                                ArrayRef<utils::IteratorType> iterators,
                                GenericBody body) {
  return linalg::GenericOp::create(
             b, loc, TypeRange(inits), inputs, inits, maps, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, body(nb, nl, args));
             })
      .getResults();
}

/// Iterators over `rank` loops: the listed ones reduce.
SmallVector<utils::IteratorType> iteratorsReducing(int64_t rank,
                                                   ArrayRef<int64_t> reduced) {
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d)
    iterators.push_back(llvm::is_contained(reduced, d)
                            ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
  return iterators;
}

/// (v - mean) * invStd: the normalized value of a layer or batch norm.
Value normalizedValue(OpBuilder &b, Location loc, Value v, Value mean,
                      Value invStd) {
  return arith::MulFOp::create(b, loc, arith::SubFOp::create(b, loc, v, mean),
                               invStd);
}

/// The scale and bias gradients of a normalization, sum(dy * xhat) and
/// sum(dy) into zeros of `paramType`: `maps` read x, dy, mean, invStd and
/// write both sums; `iterators` reduce over the normalized axes.
SmallVector<Value>
buildScaleBiasGrads(OpBuilder &b, Location loc, Value x, Value dy, Value mean,
                    Value invStd, RankedTensorType paramType,
                    ArrayRef<AffineMap> maps,
                    ArrayRef<utils::IteratorType> iterators) {
  return buildGeneric(
      b, loc, {x, dy, mean, invStd},
      {zeros(b, loc, paramType), zeros(b, loc, paramType)}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> SmallVector<Value> {
        Value xhat = normalizedValue(nb, nl, args[0], args[2], args[3]);
        return {
            arith::AddFOp::create(nb, nl, args[4],
                                  arith::MulFOp::create(nb, nl, args[1], xhat)),
            arith::AddFOp::create(nb, nl, args[5], args[1])};
      });
}

struct SoftmaxCrossEntropyGradLowering
    : public OpConversionPattern<SoftmaxCrossEntropyGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value logits = adaptor.getLogits();
    RankedTensorType type = typeOf(logits);
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    SmallVector<int64_t> rows =
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
    auto rowType = RankedTensorType::get(type.getShape().drop_back(), element);
    AffineMap all = rewriter.getMultiDimIdentityMap(rank),
              row = dimsMap(context, rank, rows);
    auto iterators = iteratorsReducing(rank, {rank - 1});
    // The row max, then the row sum of exp(x - max).
    Value max = reduceDrop(rewriter, loc, logits, {rank - 1}, /*max=*/true);
    Value sum = buildGeneric(
                    rewriter, loc, {logits, max},
                    {zeros(rewriter, loc, rowType)}, {all, row, row}, iterators,
                    [](OpBuilder &b, Location l,
                       ValueRange args) -> SmallVector<Value> {
                      Value e = math::ExpOp::create(
                          b, l, arith::SubFOp::create(b, l, args[0], args[1]));
                      return {arith::AddFOp::create(b, l, args[2], e)};
                    })
                    .front();
    // (softmax - onehot(label)) * dloss, zero at ignored labels.
    std::optional<int64_t> ignore = op.getIgnoreIndex();
    Value dlogits =
        buildGeneric(
            rewriter, loc,
            {logits, max, sum, adaptor.getLabels(), adaptor.getDloss()},
            {emptyTensor(rewriter, loc, type)}, {all, row, row, row, row, all},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              Value x = args[0], rowMax = args[1], rowSum = args[2],
                    label = args[3], dloss = args[4];
              // exp * (1 / sum): the inverse is loop-invariant along a row.
              Value inverse = arith::DivFOp::create(
                  b, l, scalarConstant(b, l, element, 1), rowSum);
              Value p = arith::MulFOp::create(
                  b, l,
                  math::ExpOp::create(b, l,
                                      arith::SubFOp::create(b, l, x, rowMax)),
                  inverse);
              Value index = arith::IndexCastOp::create(
                  b, l, label.getType(),
                  linalg::IndexOp::create(b, l, rank - 1));
              Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                index, label);
              Value onehot = arith::SelectOp::create(
                  b, l, hit, scalarConstant(b, l, element, 1),
                  scalarConstant(b, l, element, 0));
              Value g = arith::MulFOp::create(
                  b, l, arith::SubFOp::create(b, l, p, onehot), dloss);
              if (ignore) {
                Value ignored = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::eq, label,
                    scalarConstant(b, l, label.getType(), *ignore));
                g = arith::SelectOp::create(
                    b, l, ignored, scalarConstant(b, l, element, 0), g);
              }
              return {g};
            })
            .front();
    rewriter.replaceOp(op, dlogits);
    return success();
  }
};

struct LayerNormGradLowering : public OpConversionPattern<LayerNormGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value x = adaptor.getX(), dy = adaptor.getDy(), scale = adaptor.getScale();
    RankedTensorType xType = typeOf(x);
    Type element = xType.getElementType();
    int64_t rank = xType.getRank(), axis = op.getAxis();
    SmallVector<int64_t> batch = llvm::to_vector(llvm::seq<int64_t>(0, axis));
    SmallVector<int64_t> normalized =
        llvm::to_vector(llvm::seq<int64_t>(axis, rank));
    double inv = 1.0 / std::max<int64_t>(countOver(xType, normalized), 1);
    auto rowType =
        RankedTensorType::get(xType.getShape().take_front(axis), element);
    AffineMap all = rewriter.getMultiDimIdentityMap(rank),
              row = dimsMap(context, rank, batch),
              param = dimsMap(context, rank, normalized);
    auto rowIterators = iteratorsReducing(rank, normalized);
    auto parallel =
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);

    // Statistics as the forward computes them: the mean, then the mean of
    // the squared deviations.
    Value mean =
        scaleF(rewriter, loc, reduceDrop(rewriter, loc, x, normalized), inv);
    Value sumSq =
        buildGeneric(rewriter, loc, {x, mean}, {zeros(rewriter, loc, rowType)},
                     {all, row, row}, rowIterators,
                     [](OpBuilder &b, Location l,
                        ValueRange args) -> SmallVector<Value> {
                       Value c = arith::SubFOp::create(b, l, args[0], args[1]);
                       return {arith::AddFOp::create(
                           b, l, args[2], arith::MulFOp::create(b, l, c, c))};
                     })
            .front();
    Value invStd = invStdOf(rewriter, loc, scaleF(rewriter, loc, sumSq, inv),
                            op.getEpsilon().convertToDouble());

    // Row sums of g = dy * scale and of g * xhat.
    SmallVector<Value> sums = buildGeneric(
        rewriter, loc, {x, dy, scale, mean, invStd},
        {zeros(rewriter, loc, rowType), zeros(rewriter, loc, rowType)},
        {all, all, param, row, row, row, row}, rowIterators,
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value g = arith::MulFOp::create(b, l, args[1], args[2]);
          Value xhat = normalizedValue(b, l, args[0], args[3], args[4]);
          return {arith::AddFOp::create(b, l, args[5], g),
                  arith::AddFOp::create(b, l, args[6],
                                        arith::MulFOp::create(b, l, g, xhat))};
        });

    // dx = invstd * (g - mean(g) - xhat * mean(g * xhat)).
    Value dx =
        buildGeneric(rewriter, loc,
                     {x, dy, scale, mean, invStd, sums[0], sums[1]},
                     {emptyTensor(rewriter, loc, xType)},
                     {all, all, param, row, row, row, row, all}, parallel,
                     [&](OpBuilder &b, Location l,
                         ValueRange args) -> SmallVector<Value> {
                       Value n = scalarConstant(b, l, element, inv);
                       Value g = arith::MulFOp::create(b, l, args[1], args[2]);
                       Value xhat =
                           normalizedValue(b, l, args[0], args[3], args[4]);
                       Value meanG = arith::MulFOp::create(b, l, args[5], n);
                       Value meanGX = arith::MulFOp::create(b, l, args[6], n);
                       Value d = arith::SubFOp::create(
                           b, l, arith::SubFOp::create(b, l, g, meanG),
                           arith::MulFOp::create(b, l, xhat, meanGX));
                       return {arith::MulFOp::create(b, l, d, args[4])};
                     })
            .front();

    // dscale = sum over the batch of dy * xhat, dbias = sum of dy.
    RankedTensorType paramType = op.getDscale().getType();
    SmallVector<Value> paramGrads = buildScaleBiasGrads(
        rewriter, loc, x, dy, mean, invStd, paramType,
        {all, all, row, row, param, param}, iteratorsReducing(rank, batch));
    rewriter.replaceOp(op, {dx, paramGrads[0], paramGrads[1]});
    return success();
  }
};

struct BatchNormGradLowering : public OpConversionPattern<BatchNormGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value x = adaptor.getX(), dy = adaptor.getDy();
    RankedTensorType xType = typeOf(x);
    RankedTensorType paramType = op.getDscale().getType();
    Type element = xType.getElementType();
    int64_t rank = xType.getRank();
    SmallVector<int64_t> axes = batchNormAxes(rank);
    double inv = 1.0 / std::max<int64_t>(countOver(xType, axes), 1);
    AffineMap all = rewriter.getMultiDimIdentityMap(rank),
              channel = dimsMap(context, rank, {1});
    // dscale = sum of dy * xhat, dbias = sum of dy, over N and the spatial
    // dims, with the saved statistics.
    SmallVector<Value> paramGrads = buildScaleBiasGrads(
        rewriter, loc, x, dy, adaptor.getSavedMean(), adaptor.getSavedInvStd(),
        paramType, {all, all, channel, channel, channel, channel},
        iteratorsReducing(rank, axes));
    Value dscale = paramGrads[0], dbias = paramGrads[1];
    // dx = scale * invstd * (dy - dbias / M - xhat * dscale / M).
    Value dx =
        buildGeneric(
            rewriter, loc,
            {x, dy, adaptor.getScale(), adaptor.getSavedMean(),
             adaptor.getSavedInvStd(), dscale, dbias},
            {emptyTensor(rewriter, loc, xType)},
            {all, all, channel, channel, channel, channel, channel, all},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l,
                ValueRange args) -> SmallVector<Value> {
              Value n = scalarConstant(b, l, element, inv);
              Value xhat = normalizedValue(b, l, args[0], args[3], args[4]);
              Value d = arith::SubFOp::create(
                  b, l,
                  arith::SubFOp::create(
                      b, l, args[1], arith::MulFOp::create(b, l, args[6], n)),
                  arith::MulFOp::create(
                      b, l, xhat, arith::MulFOp::create(b, l, args[5], n)));
              return {arith::MulFOp::create(
                  b, l, d, arith::MulFOp::create(b, l, args[2], args[4]))};
            })
            .front();
    rewriter.replaceOp(op, {dx, dscale, dbias});
    return success();
  }
};

} // namespace

void lowering::populateGradientPatterns(RewritePatternSet &patterns,
                                        bool poolingCalls) {
  patterns.add<MaxPool2DGradLowering, Conv2DGradFilterLowering>(
      patterns.getContext(), poolingCalls);
  patterns.add<AvgPool2DGradLowering, GatherGradLowering,
               GatherElementsGradLowering, SliceGradLowering,
               SoftmaxCrossEntropyGradLowering, LayerNormGradLowering,
               BatchNormGradLowering>(patterns.getContext());
}
