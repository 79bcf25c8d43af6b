//===- Linalg.cpp - Matmul and convolutions -------------------------------===//
//
// f32/f64 matmuls and convolutions call the OneFlow kernel library (BLAS
// GEMM; convolutions as im2col + GEMM), and so do bf16/f16 matmuls of CUDA
// plans (cuBLASLt, f32 accumulation); other element types use
// linalg.matmul on materialized transposes. The products with aux
// epilogues (CUDA plans) are one library call each.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::lowering;

namespace {

Value transpose2D(OpBuilder &b, Location loc, Value value) {
  RankedTensorType type = typeOf(value);
  auto resultType = RankedTensorType::get(
      {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
  return linalg::TransposeOp::create(b, loc, value,
                                     emptyTensor(b, loc, resultType),
                                     ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

/// Whether a product's bias add is better done by starting the product at
/// the bias. It is, unless the sum only feeds elementwise arithmetic inside
/// the kernel (a residual add): that loop adds the bias on its way, while
/// broadcasting it first would cost a pass over the output.
bool startsFromBias(Operation *add) {
  return !llvm::all_of(add->getUsers(), [](Operation *user) {
    return isa<AddOp, SubOp, MulOp, DivOp>(user);
  });
}

/// Replaces `op` by a call of the GEMM `symbol`. When its product only feeds
/// a bias add and `startsFromBias` says so, the call's output starts at the
/// broadcast bias and the _acc GEMM accumulates into it: the add disappears
/// (the call goes where the add was, which every operand dominates).
void replaceByGemm(ConversionPatternRewriter &rewriter, Operation *op,
                   StringRef symbol, ValueRange operands,
                   RankedTensorType resultType, ArrayRef<int64_t> scalars) {
  auto [add, bias] = biasAddOf(op->getResult(0));
  if (!add || !startsFromBias(add)) {
    rewriter.replaceOp(op, buildLibraryCall(rewriter, op->getLoc(), symbol,
                                            operands, {resultType}, scalars));
    return;
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(add);
  std::string accumulating = symbol.str();
  accumulating.insert(accumulating.rfind('_'), "_acc");
  rewriter.replaceOp(add,
                     buildLibraryCall(rewriter, op->getLoc(), accumulating,
                                      operands, {resultType}, scalars, {bias}));
  rewriter.eraseOp(op);
}

struct MatmulLowering : public OpConversionPattern<MatmulOp> {
  MatmulLowering(MLIRContext *context, bool lowPrecision)
      : OpConversionPattern(context), lowPrecision(lowPrecision) {}
  bool lowPrecision;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getC().getType();
    StringRef suffix = gemmSuffix(resultType.getElementType(), lowPrecision);
    Value a = adaptor.getA(), b = adaptor.getB();
    int64_t m = resultType.getDimSize(0), n = resultType.getDimSize(1);
    int64_t k = op.getTransposeA() ? typeOf(a).getDimSize(0)
                                   : typeOf(a).getDimSize(1);
    if (!suffix.empty()) {
      replaceByGemm(rewriter, op, ("oneflow_gemm_" + suffix).str(), {a, b},
                    resultType,
                    {m, n, k, op.getTransposeA(), op.getTransposeB()});
      return success();
    }
    if (op.getTransposeA())
      a = transpose2D(rewriter, loc, a);
    if (op.getTransposeB())
      b = transpose2D(rewriter, loc, b);
    Value zero = filledTensor(rewriter, loc, resultType,
                              rewriter.getZeroAttr(resultType.getElementType()));
    rewriter.replaceOp(op, linalg::MatmulOp::create(rewriter, loc,
                                                    ValueRange{a, b},
                                                    ValueRange{zero})
                               .getResult(0));
    return success();
  }
};

/// Broadcasts `value` to `shape` (numpy rules), materialized.
Value broadcastTo(OpBuilder &b, Location loc, Value value,
                  ArrayRef<int64_t> shape) {
  RankedTensorType type = typeOf(value);
  if (type.getShape() == shape)
    return value;
  return buildElementwise(
      b, loc, RankedTensorType::get(shape, type.getElementType()), {value},
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

struct BatchMatmulLowering : public OpConversionPattern<BatchMatmulOp> {
  BatchMatmulLowering(MLIRContext *context, bool lowPrecision)
      : OpConversionPattern(context), lowPrecision(lowPrecision) {}
  bool lowPrecision;
  LogicalResult
  matchAndRewrite(BatchMatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getC().getType();
    StringRef suffix = gemmSuffix(resultType.getElementType(), lowPrecision);
    if (suffix.empty())
      return rewriter.notifyMatchFailure(
          op, "batch_matmul is lowered for f32 and f64 (and, on CUDA, bf16 "
              "and f16) only");
    Value a = adaptor.getA(), b = adaptor.getB();
    int64_t rank = resultType.getRank();
    ArrayRef<int64_t> batchShape = resultType.getShape().drop_back(2);
    int64_t batch = 1;
    for (int64_t d : batchShape)
      batch *= d;
    int64_t m = resultType.getDimSize(rank - 2),
            n = resultType.getDimSize(rank - 1);
    RankedTensorType aType = typeOf(a);
    int64_t k = op.getTransposeA() ? aType.getDimSize(aType.getRank() - 2)
                                   : aType.getDimSize(aType.getRank() - 1);
    // An operand whose batch dims are all 1 is shared by every batch (stride
    // 0); otherwise it is broadcast to the full batch shape.
    auto prepare = [&](Value operand, int64_t &stride) {
      RankedTensorType type = typeOf(operand);
      ArrayRef<int64_t> matrix = type.getShape().take_back(2);
      int64_t own = 1;
      for (int64_t d : type.getShape().drop_back(2))
        own *= d;
      if (own == 1) {
        stride = 0;
        return operand;
      }
      SmallVector<int64_t> full(batchShape);
      full.append(matrix.begin(), matrix.end());
      stride = matrix[0] * matrix[1];
      return broadcastTo(rewriter, loc, operand, full);
    };
    int64_t strideA, strideB;
    a = prepare(a, strideA);
    b = prepare(b, strideB);
    replaceByGemm(rewriter, op, ("oneflow_batch_gemm_" + suffix).str(), {a, b},
                  resultType,
                  {batch, m, n, k, op.getTransposeA(), op.getTransposeB(),
                   strideA, strideB});
    return success();
  }
};

/// The shape scalars of a conv call (Conv.h's ConvShape): n, c, h, w, o,
/// kh, kw, oh, ow, strides, top and left pads, dilations, groups. They name
/// the dimensions NCHW whatever the buffers' layout.
template <typename OpTy, typename AdaptorTy>
SmallVector<int64_t> convScalars(OpTy op, AdaptorTy adaptor,
                                 bool channelsLast) {
  RankedTensorType x = typeOf(adaptor.getX()), w = typeOf(adaptor.getWeight()),
                   y = op.getY().getType();
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                    dilations = op.getDilations();
  SmallVector<int64_t> xDims(x.getShape()), yDims(y.getShape());
  if (channelsLast) {
    xDims = {xDims[0], xDims[3], xDims[1], xDims[2]};
    yDims = {yDims[0], yDims[3], yDims[1], yDims[2]};
  }
  return {xDims[0], xDims[1],        xDims[2],        xDims[3],
          yDims[1], w.getDimSize(2), w.getDimSize(3), yDims[2],
          yDims[3], strides[0],      strides[1],      pads[0],
          pads[1],  dilations[0],    dilations[1],    (int64_t)op.getGroups()};
}

template <typename OpTy>
struct ConvLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getY().getType();
    StringRef suffix = blasSuffix(resultType.getElementType());
    if (suffix.empty())
      return rewriter.notifyMatchFailure(
          op, "convolutions are lowered for f32 and f64 only");
    constexpr bool transposed = std::is_same_v<OpTy, ConvTranspose2DOp>;
    bool channelsLast = false;
    if constexpr (!transposed)
      channelsLast = op.getChannelsLast();
    if (channelsLast && suffix != "f32")
      return rewriter.notifyMatchFailure(
          op, "channels-last convolutions are lowered for f32 only");
    SmallVector<int64_t> scalars = convScalars(op, adaptor, channelsLast);
    std::string name =
        ((transposed ? "oneflow_conv_transpose2d_" : "oneflow_conv2d_") +
         suffix)
            .str();
    if constexpr (!transposed) {
      if (channelsLast)
        name = op.getConstantWeight()
                   ? "oneflow_conv2d_nhwc_constant_weight_f32"
                   : "oneflow_conv2d_nhwc_f32";
      else if (op.getConstantWeight() && suffix == "f32")
        name = "oneflow_conv2d_constant_weight_f32";
    }
    rewriter.replaceOp(op,
                       buildLibraryCall(rewriter, op.getLoc(), name,
                                        {adaptor.getX(), adaptor.getWeight(),
                                         adaptor.getBias()},
                                        {resultType}, scalars));
    return success();
  }
};

/// conv2d_epilogue -> oneflow_conv2d_nhwc_epilogue_f32(x, w, bias,
/// residual, y, the conv's shape scalars, activation, clip_min, clip_max):
/// the activation as lib/Kernels/Conv.h's ConvEpilogue codes (0 for none),
/// the bounds as the bits of doubles.
struct ConvEpilogueLowering : public OpConversionPattern<Conv2DEpilogueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2DEpilogueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<int64_t> scalars =
        convScalars(op, adaptor, /*channelsLast=*/true);
    std::optional<ConvActivation> activation = op.getActivation();
    scalars.push_back(activation ? int64_t(*activation) : 0);
    for (std::optional<APFloat> bound : {op.getClipMin(), op.getClipMax()})
      scalars.push_back(
          llvm::bit_cast<int64_t>(bound ? bound->convertToDouble() : 0.0));
    rewriter.replaceOp(
        op, buildLibraryCall(rewriter, op.getLoc(),
                             "oneflow_conv2d_nhwc_epilogue_f32",
                             {adaptor.getX(), adaptor.getWeight(),
                              adaptor.getBias(), adaptor.getResidual()},
                             {op.getY().getType()}, scalars));
    return success();
  }
};

/// "relu" or "gelu": the activation part of an aux epilogue call's name.
StringRef auxActivationName(EpilogueActivation activation) {
  return activation == EpilogueActivation::Relu ? "relu" : "gelu";
}

/// The sizes every product call ends with: m, n, k, ta, tb.
SmallVector<int64_t> productSizes(RankedTensorType result, Value a,
                                  bool transposeA, bool transposeB) {
  return {result.getDimSize(0), result.getDimSize(1),
          typeOf(a).getDimSize(transposeA ? 0 : 1), transposeA, transposeB};
}

/// matmul_act_aux -> oneflow_gemm_bias_{relu,gelu}_aux_f32(a, b, bias, c,
/// aux, m, n, k, ta, tb).
struct MatmulActAuxLowering : public OpConversionPattern<MatmulActAuxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulActAuxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::string name = ("oneflow_gemm_bias_" +
                        auxActivationName(op.getActivation()) + "_aux_f32")
                           .str();
    rewriter.replaceOp(
        op,
        buildLibraryCall(rewriter, op.getLoc(), name,
                         {adaptor.getA(), adaptor.getB(), adaptor.getBias()},
                         op->getResultTypes(),
                         productSizes(op.getC().getType(), adaptor.getA(),
                                      op.getTransposeA(), op.getTransposeB())));
    return success();
  }
};

/// matmul_act_grad -> oneflow_gemm_d{relu,gelu}_f32(a, b, aux, c, m, n, k,
/// ta, tb), or with the bias gradient _bgrad_f32(a, b, aux, c, bias_grad,
/// ...).
struct MatmulActGradLowering : public OpConversionPattern<MatmulActGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulActGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::string name =
        ("oneflow_gemm_d" + auxActivationName(op.getActivation()) +
         (op.getBiasGrad() ? "_bgrad_f32" : "_f32"))
            .str();
    rewriter.replaceOp(
        op,
        buildLibraryCall(rewriter, op.getLoc(), name,
                         {adaptor.getA(), adaptor.getB(), adaptor.getAux()},
                         op->getResultTypes(),
                         productSizes(op.getC().getType(), adaptor.getA(),
                                      op.getTransposeA(), op.getTransposeB())));
    return success();
  }
};

} // namespace

void lowering::populateLinalgPatterns(RewritePatternSet &patterns,
                                      bool lowPrecisionGemms) {
  patterns.add<MatmulLowering, BatchMatmulLowering>(patterns.getContext(),
                                                    lowPrecisionGemms);
  patterns
      .add<ConvLowering<Conv2DOp>, ConvLowering<ConvTranspose2DOp>,
           ConvEpilogueLowering, MatmulActAuxLowering, MatmulActGradLowering>(
          patterns.getContext());
}
