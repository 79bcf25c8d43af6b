//===- DataMovement.cpp - Shape ops, gathers, pads and pooling ------------===//

#include "Lowering.h"
#include "oneflow/Dialect/OneFlow/ElementTypeName.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::lowering;

namespace {

template <typename OpTy>
struct ReshapeLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), adaptor.getX(),
                                         op.getY().getType()));
    return success();
  }
};

/// (images, rows, cols) where `perm` keeps some leading dimensions and
/// moves the block of trailing ones in front of the block before it
/// (NCHW -> NHWC: [0, 2, 3, 1], rows c, cols h * w; NHWC -> NCHW: [0, 3,
/// 1, 2]): a transpose of `images` row-major matrices.
std::optional<std::array<int64_t, 3>> imageTranspose(ArrayRef<int64_t> shape,
                                                     ArrayRef<int64_t> perm) {
  int64_t rank = perm.size(), kept = 0;
  while (kept < rank && perm[kept] == kept)
    ++kept;
  if (kept == rank)
    return std::nullopt;
  // perm[kept..] = [m, ..., rank - 1, kept, ..., m - 1].
  int64_t m = perm[kept];
  for (int64_t i = kept; i < rank; ++i) {
    int64_t expected =
        i - kept < rank - m ? m + (i - kept) : kept + (i - kept - (rank - m));
    if (perm[i] != expected)
      return std::nullopt;
  }
  auto product = [&](int64_t from, int64_t to) {
    int64_t p = 1;
    for (int64_t d = from; d < to; ++d)
      p *= shape[d];
    return p;
  };
  return std::array<int64_t, 3>{product(0, kept), product(kept, m),
                                product(m, rank)};
}

struct TransposeLowering : public OpConversionPattern<TransposeOp> {
  TransposeLowering(MLIRContext *context, bool libraryCalls)
      : OpConversionPattern(context), libraryCalls(libraryCalls) {}
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The kernel library's image transposes where the generated loops
    // cannot fuse the transpose with anything: the kernel's input, read
    // only by library calls (a CNN's input before its first
    // channels-last conv: 3 channel planes interleaved, which the loops
    // did one strided element at a time).
    RankedTensorType type = op.getType();
    auto onlyLibraryUsers = [&] {
      return llvm::all_of(op->getUsers(), [](Operation *user) {
        return isa<Conv2DOp, Conv2DEpilogueOp, MatmulOp, BatchMatmulOp>(user);
      });
    };
    if (libraryCalls && type.getElementType().isF32() &&
        isa<BlockArgument>(op.getX()) && onlyLibraryUsers()) {
      if (std::optional<std::array<int64_t, 3>> images =
              imageTranspose(op.getX().getType().getShape(), op.getPerm())) {
        rewriter.replaceOp(
            op, buildLibraryCall(rewriter, loc, "oneflow_transpose_images_f32",
                                 {adaptor.getX()}, {type},
                                 {(*images)[0], (*images)[1], (*images)[2]}));
        return success();
      }
    }
    rewriter.replaceOp(op, linalg::TransposeOp::create(
                               rewriter, loc, adaptor.getX(),
                               emptyTensor(rewriter, loc, op.getType()),
                               op.getPerm())
                               .getResult()[0]);
    return success();
  }

private:
  bool libraryCalls;
};

/// Concatenations of more inputs than this become one tensor.concat.
static constexpr size_t kLongConcat = 16;

struct ConcatLowering : public OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t axis = op.getAxis(), offset = 0;
    // A gradient bucket concatenates a hundred tensors or more. One-shot
    // bufferization analyses a chain of insert_slices in quadratic time
    // (seconds for one kernel), but tensor.concat in linear time, at the
    // price of one copy of each input; short concatenations keep the
    // chain, whose producers can write into the result in place.
    if (adaptor.getInputs().size() > kLongConcat) {
      rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, type, axis,
                                                    adaptor.getInputs());
      return success();
    }
    Value result = emptyTensor(rewriter, loc, type);
    for (Value input : adaptor.getInputs()) {
      RankedTensorType inputType = typeOf(input);
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes,
          strides(type.getRank(), rewriter.getIndexAttr(1));
      for (int64_t d : inputType.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      offset += inputType.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SplitLowering : public OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis(), offset = 0;
    SmallVector<Value> results;
    for (Value output : op.getOutputs()) {
      RankedTensorType type = typeOf(output);
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes,
          strides(type.getRank(), rewriter.getIndexAttr(1));
      for (int64_t d : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
      results.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, type, adaptor.getX(), offsets, sizes, strides));
      offset += type.getDimSize(axis);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// A generic over the result space whose body reads `source` at indices
/// computed from the iteration indices.
Value buildIndexedRead(
    OpBuilder &b, Location loc, RankedTensorType resultType, Value source,
    ValueRange inputs, ArrayRef<AffineMap> inputMaps,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange ivs,
                                    ValueRange args)>
        sourceIndices) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs,
             ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> ivs;
               for (int64_t d = 0; d < rank; ++d)
                 ivs.push_back(linalg::IndexOp::create(nb, nl, d));
               SmallVector<Value> indices =
                   sourceIndices(nb, nl, ivs, args.drop_back());
               Value element =
                   tensor::ExtractOp::create(nb, nl, source, indices);
               linalg::YieldOp::create(nb, nl, element);
             })
      .getResult(0);
}

struct SliceLowering : public OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> starts = op.getStarts(), steps = op.getSteps();
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      SmallVector<OpFoldResult> offsets, sizes, strides;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        offsets.push_back(rewriter.getIndexAttr(starts[d]));
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
        strides.push_back(rewriter.getIndexAttr(steps[d]));
      }
      rewriter.replaceOp(op, tensor::ExtractSliceOp::create(
                                 rewriter, loc, type, adaptor.getX(), offsets,
                                 sizes, strides));
      return success();
    }
    // Negative steps: read x[start + i * step] per dimension.
    rewriter.replaceOp(
        op, buildIndexedRead(
                rewriter, loc, type, adaptor.getX(), {}, {},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                  SmallVector<Value> indices;
                  for (auto [d, iv] : llvm::enumerate(ivs))
                    indices.push_back(arith::AddIOp::create(
                        b, l, indexConstant(b, l, starts[d]),
                        arith::MulIOp::create(b, l, iv,
                                              indexConstant(b, l, steps[d]))));
                  return indices;
                }));
    return success();
  }
};

struct GatherLowering : public OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType(), data = typeOf(adaptor.getData());
    int64_t axis = op.getAxis();
    int64_t indexRank = typeOf(adaptor.getIndices()).getRank();
    // The indices tensor is read at the result dims [axis, axis + rank).
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < indexRank; ++d)
      exprs.push_back(rewriter.getAffineDimExpr(axis + d));
    AffineMap indexMap =
        AffineMap::get(type.getRank(), 0, exprs, rewriter.getContext());
    rewriter.replaceOp(
        op, buildIndexedRead(
                rewriter, loc, type, adaptor.getData(), {adaptor.getIndices()},
                {indexMap},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
                  SmallVector<Value> indices(ivs.take_front(axis));
                  indices.push_back(
                      normalizedIndex(b, l, args[0], data.getDimSize(axis)));
                  llvm::append_range(indices, ivs.drop_front(axis + indexRank));
                  return indices;
                }));
    return success();
  }
};

/// y[..., i, ...] = x[..., i + coordinates[mesh_axis] * step, ...] or zero
/// outside x: a generic reading x and the coordinates at computed indices.
struct CoordinateSliceLowering : public OpConversionPattern<CoordinateSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CoordinateSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t axis = op.getAxis();
    int64_t size = typeOf(adaptor.getX()).getDimSize(axis);
    Value source = adaptor.getX(), coordinates = adaptor.getCoordinates();
    int64_t rank = type.getRank();
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type}, ValueRange{},
            ValueRange{emptyTensor(rewriter, loc, type)},
            SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
            iterators,
            [&](OpBuilder &b, Location l, ValueRange) {
              Value coordinate = tensor::ExtractOp::create(
                  b, l, coordinates,
                  ValueRange{indexConstant(b, l, op.getMeshAxis())});
              Value start =
                  arith::MulIOp::create(b, l,
                                        arith::IndexCastOp::create(
                                            b, l, b.getIndexType(), coordinate),
                                        indexConstant(b, l, op.getStep()));
              SmallVector<Value> indices;
              for (int64_t d = 0; d < rank; ++d)
                indices.push_back(linalg::IndexOp::create(b, l, d));
              Value index = arith::AddIOp::create(b, l, indices[axis], start);
              Value inside = arith::AndIOp::create(
                  b, l,
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, index,
                                        indexConstant(b, l, 0)),
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, index,
                                        indexConstant(b, l, size)));
              indices[axis] = arith::SelectOp::create(b, l, inside, index,
                                                      indexConstant(b, l, 0));
              Value element = tensor::ExtractOp::create(b, l, source, indices);
              Value zero = arith::ConstantOp::create(
                  b, l, b.getZeroAttr(type.getElementType()));
              linalg::YieldOp::create(b, l,
                                      ValueRange{arith::SelectOp::create(
                                          b, l, inside, element, zero)});
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GatherElementsLowering : public OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType(), data = typeOf(adaptor.getData());
    int64_t axis = op.getAxis();
    rewriter.replaceOp(
        op, buildIndexedRead(
                rewriter, loc, type, adaptor.getData(), {adaptor.getIndices()},
                {rewriter.getMultiDimIdentityMap(type.getRank())},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
                  SmallVector<Value> indices(ivs);
                  indices[axis] =
                      normalizedIndex(b, l, args[0], data.getDimSize(axis));
                  return indices;
                }));
    return success();
  }
};

struct ExpandLowering : public OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op,
        buildElementwise(
            rewriter, op.getLoc(), op.getType(), {adaptor.getX()},
            [](OpBuilder &, Location, ValueRange args) { return args[0]; }));
    return success();
  }
};

struct TileLowering : public OpConversionPattern<TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType input = typeOf(adaptor.getX());
    rewriter.replaceOp(
        op, buildIndexedRead(
                rewriter, op.getLoc(), op.getType(), adaptor.getX(), {}, {},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                  SmallVector<Value> indices;
                  for (auto [d, iv] : llvm::enumerate(ivs))
                    indices.push_back(arith::RemUIOp::create(
                        b, l, iv,
                        indexConstant(
                            b, l, std::max<int64_t>(input.getDimSize(d), 1))));
                  return indices;
                }));
    return success();
  }
};

struct PadLowering : public OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType(), input = typeOf(adaptor.getX());
    int64_t rank = input.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    if (op.getMode() == PadMode::Constant) {
      SmallVector<OpFoldResult> low, high;
      for (int64_t d = 0; d < rank; ++d) {
        low.push_back(rewriter.getIndexAttr(pads[d]));
        high.push_back(rewriter.getIndexAttr(pads[rank + d]));
      }
      Value value = scalarConstant(rewriter, loc, type.getElementType(),
                                   op.getValue().convertToDouble());
      rewriter.replaceOp(op, tensor::PadOp::create(rewriter, loc, type,
                                                   adaptor.getX(), low, high,
                                                   value));
      return success();
    }
    bool reflect = op.getMode() == PadMode::Reflect;
    rewriter.replaceOp(
        op, buildIndexedRead(
                rewriter, loc, type, adaptor.getX(), {}, {},
                [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
                  SmallVector<Value> indices;
                  for (auto [d, iv] : llvm::enumerate(ivs)) {
                    int64_t n = input.getDimSize(d);
                    Value zero = indexConstant(b, l, 0),
                          last = indexConstant(b, l, n - 1);
                    Value src = arith::SubIOp::create(
                        b, l, iv, indexConstant(b, l, pads[d]));
                    if (reflect) {
                      // -src before the start, 2(n-1) - src past the end.
                      Value before = arith::CmpIOp::create(
                          b, l, arith::CmpIPredicate::slt, src, zero);
                      src = arith::SelectOp::create(
                          b, l, before, arith::SubIOp::create(b, l, zero, src),
                          src);
                      Value after = arith::CmpIOp::create(
                          b, l, arith::CmpIPredicate::sgt, src, last);
                      src = arith::SelectOp::create(
                          b, l, after,
                          arith::SubIOp::create(
                              b, l, indexConstant(b, l, 2 * (n - 1)), src),
                          src);
                    }
                    src = arith::MaxSIOp::create(b, l, src, zero);
                    indices.push_back(arith::MinSIOp::create(b, l, src, last));
                  }
                  return indices;
                }));
    return success();
  }
};

StringRef typeSuffix(Type type) { return elementTypeName(type); }

struct CumSumLowering : public OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    StringRef suffix = typeSuffix(type.getElementType());
    if (suffix.empty())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    auto [outer, n, inner] = aroundAxis(type, op.getAxis());
    rewriter.replaceOp(op, buildLibraryCall(rewriter, op.getLoc(),
                                            ("oneflow_cumsum_" + suffix).str(),
                                            {adaptor.getX()}, {type},
                                            {outer, n, inner, op.getExclusive(),
                                             op.getReverse()}));
    return success();
  }
};

struct TopKLowering : public OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = typeOf(adaptor.getX());
    StringRef suffix = typeSuffix(type.getElementType());
    if (suffix.empty())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    auto [outer, n, inner] = aroundAxis(type, op.getAxis());
    rewriter.replaceOp(
        op,
        buildLibraryCall(rewriter, op.getLoc(),
                         ("oneflow_topk_" + suffix).str(), {adaptor.getX()},
                         {op.getValues().getType(), op.getIndices().getType()},
                         {outer, n, inner, (int64_t)op.getK(), op.getSmallest(),
                          op.getSorted()}));
    return success();
  }
};

/// `oneflow_non_max_suppression_f32(boxes, scores, max_output, iou,
/// score_threshold or 0, selected, num_selected, batches, classes, boxes,
/// rows per class, center_point_box)`.
struct NonMaxSuppressionLowering
    : public OpConversionPattern<NonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NonMaxSuppressionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType scores = typeOf(adaptor.getScores());
    auto selected = cast<RankedTensorType>(op.getSelected().getType());
    int64_t lists = scores.getDimSize(0) * scores.getDimSize(1);
    int64_t perClass = lists ? selected.getDimSize(0) / lists : 0;
    rewriter.replaceOp(
        op, buildLibraryCall(
                rewriter, op.getLoc(), "oneflow_non_max_suppression_f32",
                {adaptor.getBoxes(), adaptor.getScores(),
                 adaptor.getMaxOutputBoxesPerClass(), adaptor.getIouThreshold(),
                 adaptor.getScoreThreshold()},
                {selected, op.getNumSelected().getType()},
                {scores.getDimSize(0), scores.getDimSize(1),
                 scores.getDimSize(2), perClass, op.getCenterPointBox()}));
    return success();
  }
};

/// `oneflow_unique_T(x, y, indices, inverse_indices, counts, num_unique,
/// outer, n, inner, sorted)`, x viewed as [outer, n, inner] around the axis
/// (all of it as n without one).
struct UniqueLowering : public OpConversionPattern<UniqueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UniqueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = typeOf(adaptor.getX());
    StringRef suffix = typeSuffix(type.getElementType());
    if (suffix.empty())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    int64_t outer = 1, n = type.getNumElements(), inner = 1;
    if (std::optional<int64_t> axis = op.getAxis()) {
      std::array<int64_t, 3> around = aroundAxis(type, *axis);
      outer = around[0], n = around[1], inner = around[2];
    }
    rewriter.replaceOp(op,
                       buildLibraryCall(rewriter, op.getLoc(),
                                        ("oneflow_unique_" + suffix).str(),
                                        {adaptor.getX()}, op->getResultTypes(),
                                        {outer, n, inner, op.getSorted()}));
    return success();
  }
};

/// `oneflow_non_zero_f64(x, y, count, rank, dims...)`, the dimensions
/// padded with ones to kMaxNonZeroRank.
struct NonZeroLowering : public OpConversionPattern<NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NonZeroOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = typeOf(adaptor.getX());
    SmallVector<int64_t> scalars = {type.getRank()};
    llvm::append_range(scalars, type.getShape());
    scalars.resize(1 + kMaxNonZeroRank, 1);
    rewriter.replaceOp(
        op, buildLibraryCall(rewriter, op.getLoc(), "oneflow_non_zero_f64",
                             {adaptor.getX()}, op->getResultTypes(), scalars));
    return success();
  }
};

/// The sizes a pooling call ends with: n, c, h, w, oh, ow, kh, kw, sh, sw,
/// pads (top, left, bottom, right), then `last`.
SmallVector<int64_t>
poolingScalars(RankedTensorType x, RankedTensorType y, ArrayRef<int64_t> kernel,
               ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
               ArrayRef<int64_t> last, bool channelsLast = false) {
  // The scalars name the dimensions NCHW whatever the buffers' layout.
  int64_t c = 1, h = 2, w = 3;
  if (channelsLast)
    c = 3, h = 1, w = 2;
  SmallVector<int64_t> scalars = {
      x.getDimSize(0), x.getDimSize(c), x.getDimSize(h), x.getDimSize(w),
      y.getDimSize(h), y.getDimSize(w), kernel[0],       kernel[1],
      strides[0],      strides[1],      pads[0],         pads[1],
      pads[2],         pads[3]};
  llvm::append_range(scalars, last);
  return scalars;
}

/// The kernel library's pooling function for `type`'s elements, or "" (it
/// has f32 and f64 ones).
std::string poolingCallee(StringRef kind, RankedTensorType type) {
  Type element = type.getElementType();
  if (!element.isF32() && !element.isF64())
    return "";
  return ("oneflow_" + kind + "_pool2d_" + typeSuffix(element)).str();
}

struct MaxPoolLowering : public OpConversionPattern<MaxPool2DOp> {
  MaxPoolLowering(MLIRContext *context, bool poolingCalls)
      : OpConversionPattern(context), poolingCalls(poolingCalls) {}
  LogicalResult
  matchAndRewrite(MaxPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    std::string callee = poolingCalls ? poolingCallee("max", type) : "";
    if (op.getChannelsLast()) {
      if (!element.isF32())
        return rewriter.notifyMatchFailure(
            op, "channels-last pools are lowered for f32 only");
      callee = "oneflow_max_pool2d_nhwc_f32";
    }
    if (!callee.empty()) {
      rewriter.replaceOp(
          op, buildLibraryCall(rewriter, loc, callee, {adaptor.getX()}, {type},
                               poolingScalars(typeOf(adaptor.getX()), type,
                                              op.getKernel(), op.getStrides(),
                                              op.getPads(), op.getDilations(),
                                              op.getChannelsLast())));
      return success();
    }
    Value padded = padForPooling(
        rewriter, loc, adaptor.getX(), type, op.getKernel(), op.getStrides(),
        op.getDilations(), op.getPads(), lowestValue(element));
    Value window = emptyTensor(rewriter, loc,
                               RankedTensorType::get(op.getKernel(), element));
    Value init = filledTensor(rewriter, loc, type, lowestValue(element));
    auto pool = linalg::PoolingNchwMaxOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{padded, window},
        ValueRange{init},
        {rewriter.getNamedAttr("strides",
                               rewriter.getI64VectorAttr(op.getStrides())),
         rewriter.getNamedAttr("dilations",
                               rewriter.getI64VectorAttr(op.getDilations()))});
    rewriter.replaceOp(op, pool.getResult(0));
    return success();
  }

private:
  bool poolingCalls;
};

struct AvgPoolLowering : public OpConversionPattern<AvgPool2DOp> {
  AvgPoolLowering(MLIRContext *context, bool poolingCalls)
      : OpConversionPattern(context), poolingCalls(poolingCalls) {}
  LogicalResult
  matchAndRewrite(AvgPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType(), input = typeOf(adaptor.getX());
    Type element = type.getElementType();
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      pads = op.getPads();
    std::string callee = poolingCalls ? poolingCallee("avg", type) : "";
    if (op.getChannelsLast()) {
      if (!element.isF32())
        return rewriter.notifyMatchFailure(
            op, "channels-last pools are lowered for f32 only");
      callee = "oneflow_avg_pool2d_nhwc_f32";
    }
    if (!callee.empty()) {
      rewriter.replaceOp(
          op,
          buildLibraryCall(rewriter, loc, callee, {adaptor.getX()}, {type},
                           poolingScalars(input, type, kernel, strides, pads,
                                          {(int64_t)op.getCountIncludePad()},
                                          op.getChannelsLast())));
      return success();
    }
    SmallVector<int64_t> dilations = {1, 1};
    Value padded =
        padForPooling(rewriter, loc, adaptor.getX(), type, kernel, strides,
                      dilations, pads, rewriter.getZeroAttr(element));
    Value window =
        emptyTensor(rewriter, loc, RankedTensorType::get(kernel, element));
    Value init =
        filledTensor(rewriter, loc, type, rewriter.getZeroAttr(element));
    Value sum = linalg::PoolingNchwSumOp::create(
                    rewriter, loc, TypeRange{type}, ValueRange{padded, window},
                    ValueRange{init},
                    {rewriter.getNamedAttr("strides",
                                           rewriter.getI64VectorAttr(strides)),
                     rewriter.getNamedAttr(
                         "dilations", rewriter.getI64VectorAttr(dilations))})
                    .getResult(0);
    // The divisor of each output position depends only on shapes.
    Value scale = avgPoolReciprocals(rewriter, loc, element, type.getDimSize(2),
                                     type.getDimSize(3), input.getDimSize(2),
                                     input.getDimSize(3), kernel, strides, pads,
                                     op.getCountIncludePad());
    rewriter.replaceOp(
        op,
        buildElementwise(
            rewriter, loc, type, {sum, scale},
            [](OpBuilder &b, Location l, ValueRange args) {
              return arith::MulFOp::create(b, l, args[0], args[1]).getResult();
            }));
    return success();
  }

private:
  bool poolingCalls;
};

} // namespace

void lowering::populateDataMovementPatterns(RewritePatternSet &patterns,
                                            bool poolingCalls) {
  patterns.add<ReshapeLowering<ReshapeOp>, ReshapeLowering<FlattenOp>,
               ReshapeLowering<SqueezeOp>, ReshapeLowering<UnsqueezeOp>,
               ConcatLowering, SplitLowering, SliceLowering, GatherLowering,
               GatherElementsLowering, CoordinateSliceLowering, ExpandLowering,
               TileLowering, PadLowering, CumSumLowering, TopKLowering,
               NonMaxSuppressionLowering, UniqueLowering, NonZeroLowering>(
      patterns.getContext());
  patterns.add<TransposeLowering, MaxPoolLowering, AvgPoolLowering>(
      patterns.getContext(), poolingCalls);
}
