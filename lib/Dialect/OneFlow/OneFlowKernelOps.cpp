//===- OneFlowKernelOps.cpp - fused kernel regions ------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/OneFlow/OneFlowShapes.h"

using namespace mlir;
using namespace mlir::oneflow;

void FusedOp::build(OpBuilder &builder, OperationState &state,
                    TypeRange resultTypes) {
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  body->push_back(new Block);
}

LogicalResult FusedOp::verify() {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values whose types differ from its "
                         << getNumResults() << " results";
  return success();
}

//===----------------------------------------------------------------------===//
// Products with epilogues (OneFlowEpilogueOps.td)
//===----------------------------------------------------------------------===//

RankedTensorType mlir::oneflow::getEpilogueAuxType(
    MLIRContext *context, EpilogueActivation activation, int64_t m, int64_t n) {
  if (activation == EpilogueActivation::Relu)
    return RankedTensorType::get({m, (n + 127) / 128 * 128 / 32},
                                 IntegerType::get(context, 32));
  return RankedTensorType::get({m, (n + 7) / 8 * 8}, Float32Type::get(context));
}

/// Checks an epilogue product's operands against its [m, n] result and its
/// aux; `n` is set from the result.
static LogicalResult verifyAuxProduct(Operation *op, Value a, Value b,
                                      bool transposeA, bool transposeB, Value c,
                                      Value aux, EpilogueActivation activation,
                                      int64_t &n) {
  auto typeOf = [](Value v) { return cast<RankedTensorType>(v.getType()); };
  for (Value value : {a, b, c, aux})
    if (!typeOf(value).hasStaticShape())
      return op->emitOpError("takes static shapes only");
  ArrayRef<int64_t> sa = typeOf(a).getShape(), sb = typeOf(b).getShape();
  int64_t m = transposeA ? sa[1] : sa[0], k = transposeA ? sa[0] : sa[1];
  int64_t kb = transposeB ? sb[1] : sb[0];
  n = transposeB ? sb[0] : sb[1];
  if (k != kb)
    return op->emitOpError() << "multiplies op(a) with " << k
                             << " columns by op(b) with " << kb << " rows";
  if (typeOf(c).getShape() != ArrayRef<int64_t>{m, n})
    return op->emitOpError()
           << "computes a " << m << "x" << n << " product, not " << typeOf(c);
  RankedTensorType expected =
      getEpilogueAuxType(op->getContext(), activation, m, n);
  if (aux.getType() != expected)
    return op->emitOpError()
           << "keeps its " << stringifyEnum(activation) << " aux as "
           << expected << ", not " << aux.getType();
  return success();
}

LogicalResult MatmulActAuxOp::verify() {
  int64_t n = 0;
  if (failed(verifyAuxProduct(*this, getA(), getB(), getTransposeA(),
                              getTransposeB(), getC(), getAux(),
                              getActivation(), n)))
    return failure();
  if (getBias().getType().getDimSize(0) != n)
    return emitOpError() << "adds a bias of "
                         << getBias().getType().getDimSize(0)
                         << " values to rows of " << n;
  return success();
}

LogicalResult MatmulActGradOp::verify() {
  int64_t n = 0;
  if (failed(verifyAuxProduct(*this, getA(), getB(), getTransposeA(),
                              getTransposeB(), getC(), getAux(),
                              getActivation(), n)))
    return failure();
  if (Value biasGrad = getBiasGrad();
      biasGrad && cast<RankedTensorType>(biasGrad.getType()).getDimSize(0) != n)
    return emitOpError() << "sums rows of " << n << " into a bias gradient of "
                         << biasGrad.getType();
  return success();
}

LogicalResult Conv2DEpilogueOp::verify() {
  RankedTensorType x = getX().getType(), y = getY().getType();
  if (x.getRank() != 4 || y.getRank() != 4)
    return emitOpError("takes and makes NHWC (4-D) activations");
  // The conv's NCHW shape, its channels then moved last.
  auto nchw = RankedTensorType::get(
      {x.getDimSize(0), x.getDimSize(3), x.getDimSize(1), x.getDimSize(2)},
      x.getElementType());
  SmallVector<int64_t> shape;
  if (failed(inferConv2DShape([&] { return emitOpError(); }, nchw,
                              getWeight().getType(), getStrides(), getPads(),
                              getDilations(), getGroups(), shape)))
    return failure();
  SmallVector<int64_t> nhwc = {shape[0], shape[2], shape[3], shape[1]};
  if (y.getShape() != ArrayRef<int64_t>(nhwc))
    return emitOpError() << "computes [" << nhwc << "], not " << y;
  if (Value bias = getBias();
      bias && cast<RankedTensorType>(bias.getType()).getShape() !=
                  ArrayRef<int64_t>{shape[1]})
    return emitOpError() << "adds a bias of " << bias.getType() << " to "
                         << shape[1] << " channels";
  if (Value residual = getResidual(); residual && residual.getType() != y)
    return emitOpError() << "adds a residual of " << residual.getType()
                         << " to " << y;
  bool clip = getActivation() == ConvActivation::Clip;
  if (clip != (getClipMin().has_value() && getClipMax().has_value()) ||
      (!clip && (getClipMin() || getClipMax())))
    return emitOpError("takes clip_min and clip_max with a clip activation "
                       "(both) and only then");
  if (clip && getClipMin()->convertToDouble() > getClipMax()->convertToDouble())
    return emitOpError() << "clips to an empty range ["
                         << getClipMin()->convertToDouble() << ", "
                         << getClipMax()->convertToDouble() << "]";
  return success();
}
