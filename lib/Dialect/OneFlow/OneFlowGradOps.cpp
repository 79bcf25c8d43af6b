//===- OneFlowGradOps.cpp - verifiers of the gradient ops -----------------===//
//
// A gradient op's operands and result are its forward op's operands,
// results and their gradients, so each verifier replays the forward op's
// shape rule (OneFlowShapes.h) on them.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/OneFlow/OneFlowShapes.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::oneflow;

/// Replays a forward shape rule on `op`: its errors become op errors that
/// name the forward op, and the shape it gives must be that of `expected`.
template <typename InferFn>
static LogicalResult
checkForwardShape(Operation *op, StringRef forward, StringRef expectedName,
                  RankedTensorType expected, InferFn infer) {
  auto emitError = [&]() {
    InFlightDiagnostic diag = op->emitOpError();
    diag << "as " << forward << ": ";
    return diag;
  };
  SmallVector<int64_t> shape;
  if (failed(infer(EmitErrorFn(emitError), shape)))
    return failure();
  if (expected.getShape() != ArrayRef<int64_t>(shape))
    return op->emitOpError()
           << expectedName << " type " << expected << " does not match the "
           << forward << " output shape [" << ArrayRef<int64_t>(shape) << "]";
  return success();
}

LogicalResult Conv2DGradFilterOp::verify() {
  RankedTensorType x = getX().getType(), dw = getDweight().getType();
  return checkForwardShape(
      *this, "conv2d(x, dweight)", "dy", getDy().getType(),
      [&](EmitErrorFn emitError, SmallVectorImpl<int64_t> &shape) {
        return inferConv2DShape(emitError, x, dw, getStrides(), getPads(),
                                getDilations(), getGroups(), shape);
      });
}

LogicalResult MaxPool2DGradOp::verify() {
  return checkForwardShape(
      *this, "max_pool2d(x)", "dy", getDy().getType(),
      [&](EmitErrorFn emitError, SmallVectorImpl<int64_t> &shape) {
        return inferPool2DShape(emitError, getX().getType(), getKernel(),
                                getStrides(), getPads(), getDilations(),
                                getCeilMode(), shape);
      });
}

LogicalResult AvgPool2DGradOp::verify() {
  return checkForwardShape(
      *this, "avg_pool2d(dx)", "dy", getDy().getType(),
      [&](EmitErrorFn emitError, SmallVectorImpl<int64_t> &shape) {
        return inferPool2DShape(emitError, getDx().getType(), getKernel(),
                                getStrides(), getPads(), {1, 1}, getCeilMode(),
                                shape);
      });
}

LogicalResult GatherGradOp::verify() {
  return checkForwardShape(
      *this, "gather(ddata, indices)", "dy", getDy().getType(),
      [&](EmitErrorFn emitError, SmallVectorImpl<int64_t> &shape) {
        return inferGatherShape(emitError, getDdata().getType(),
                                getIndices().getType(), getAxis(), shape);
      });
}

LogicalResult GatherElementsGradOp::verify() {
  return checkForwardShape(
      *this, "gather_elements(ddata, indices)", "dy", getDy().getType(),
      [&](EmitErrorFn emitError, SmallVectorImpl<int64_t> &shape) {
        return inferGatherElementsShape(emitError, getDdata().getType(),
                                        getIndices().getType(), getAxis(),
                                        shape);
      });
}

LogicalResult SliceGradOp::verify() {
  return checkForwardShape(
      *this, "slice(dx)", "dy", getDy().getType(),
      [&](EmitErrorFn emitError, SmallVectorImpl<int64_t> &shape) {
        return inferSliceShape(emitError, getDx().getType(), getStarts(),
                               getLimits(), getSteps(), shape);
      });
}

LogicalResult SoftmaxCrossEntropyGradOp::verify() {
  RankedTensorType logits = getLogits().getType(),
                   labels = getLabels().getType(), dloss = getDloss().getType();
  if (logits.getRank() < 1 ||
      labels.getShape() != logits.getShape().drop_back())
    return emitOpError() << "labels " << labels
                         << " must have the shape of logits " << logits
                         << " without its class axis";
  if (dloss.getShape() != labels.getShape() ||
      dloss.getElementType() != logits.getElementType())
    return emitOpError() << "dloss must have the labels' shape and the "
                            "logits' element type, got "
                         << dloss;
  return success();
}

LogicalResult LayerNormGradOp::verify() {
  RankedTensorType x = getX().getType(), scale = getScale().getType();
  if (failed(verifyAxis(*this, getAxis(), x.getRank())))
    return failure();
  ArrayRef<int64_t> normalized = x.getShape().drop_front(getAxis());
  if (scale.getShape() != normalized ||
      scale.getElementType() != x.getElementType())
    return emitOpError() << "scale must have the normalized shape ["
                         << normalized << "] and the element type of x, got "
                         << scale;
  if (getEpsilon().convertToDouble() < 0)
    return emitOpError() << "epsilon must be >= 0, got "
                         << getEpsilon().convertToDouble();
  return success();
}

LogicalResult BatchNormGradOp::verify() {
  RankedTensorType x = getX().getType(), scale = getScale().getType();
  if (failed(verifyChannelParams(*this, x, scale)))
    return failure();
  if (scale.getElementType() != x.getElementType())
    return emitOpError() << "scale and statistics must have the element "
                            "type of x, got "
                         << scale;
  return success();
}
