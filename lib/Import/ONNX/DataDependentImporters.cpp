//===- DataDependentImporters.cpp - Ops whose output length is data -------===//
//
// NonMaxSuppression keeps as many boxes as survive, Unique as many entries
// as are distinct, NonZero as many coordinates as there are non-zeros: their
// results are padded to the most they can hold and
// carry their valid length as an extent (see Extents.cpp), which oneflow-run
// uses to write graph outputs at their real length.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

LogicalResult importNonMaxSuppression(NodeContext &ctx) {
  FailureOr<Value> boxes = ctx.getInput(0), scores = ctx.getInput(1);
  if (failed(boxes) || failed(scores))
    return failure();
  for (Value value : {*boxes, *scores})
    if (!cast<RankedTensorType>(value.getType()).getElementType().isF32())
      return ctx.emitError()
             << "boxes and scores must be f32, not " << value.getType();
  OpBuilder &b = ctx.getBuilder();
  // Absent limits: no box per class (ONNX's default), IoU threshold 0.
  Value maxOutput = ctx.splat(b.getI64Type(), 0, {1});
  Value iou = ctx.splat(b.getF32Type(), 0, {1});
  Value scoreThreshold;
  int64_t bound = 0;
  if (ctx.hasInput(2)) {
    FailureOr<Value> value = ctx.getInput(2);
    if (failed(value))
      return failure();
    maxOutput = ctx.cast(*value, b.getI64Type());
    DenseElementsAttr constant = ctx.getConstantInput(2);
    bound = constant && constant.getNumElements() == 1
                ? std::max<int64_t>(
                      0, (*constant.getValues<APInt>().begin()).getSExtValue())
                : -1;
  }
  if (ctx.hasInput(3)) {
    FailureOr<Value> value = ctx.getInput(3);
    if (failed(value))
      return failure();
    iou = ctx.cast(*value, b.getF32Type());
  }
  if (ctx.hasInput(4)) {
    FailureOr<Value> value = ctx.getInput(4);
    if (failed(value))
      return failure();
    scoreThreshold = ctx.cast(*value, b.getF32Type());
  }
  int64_t center = ctx.getInt("center_point_box", 0);
  if (center != 0 && center != 1)
    return ctx.emitError() << "center_point_box must be 0 or 1, not " << center;
  FailureOr<Operation *> op = ctx.createOp<NonMaxSuppressionOp>(
      *boxes, *scores, maxOutput, iou, scoreThreshold,
      center ? b.getUnitAttr() : UnitAttr(),
      bound >= 0 ? b.getI64IntegerAttr(bound) : IntegerAttr());
  if (failed(op))
    return failure();
  ctx.setOutputWithExtent(0, (*op)->getResult(0), (*op)->getResult(1),
                          /*axis=*/0);
  return success();
}

LogicalResult importUnique(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  OpBuilder &b = ctx.getBuilder();
  IntegerAttr axisAttr;
  int64_t extentAxis = 0;
  if (ctx.hasAttr("axis")) {
    FailureOr<int64_t> axis =
        normalizeAxis(ctx, ctx.getInt("axis", 0), type.getRank());
    if (failed(axis))
      return failure();
    axisAttr = b.getI64IntegerAttr(*axis);
    extentAxis = *axis;
  }
  FailureOr<Operation *> op = ctx.createOp<UniqueOp>(
      *x, axisAttr, ctx.getInt("sorted", 1) ? b.getUnitAttr() : UnitAttr());
  if (failed(op))
    return failure();
  Value count = (*op)->getResult(4);
  ctx.setOutputWithExtent(0, (*op)->getResult(0), count, extentAxis);
  ctx.setOutputWithExtent(1, (*op)->getResult(1), count, 0);
  ctx.setOutput(2, (*op)->getResult(2));
  ctx.setOutputWithExtent(3, (*op)->getResult(3), count, 0);
  return success();
}

LogicalResult importNonZero(NodeContext &ctx) {
  FailureOr<Value> x = ctx.getInput(0);
  if (failed(x))
    return failure();
  // Exact for every type: only zero or not matters.
  FailureOr<Operation *> op =
      ctx.createOp<NonZeroOp>(ctx.cast(*x, ctx.getBuilder().getF64Type()));
  if (failed(op))
    return failure();
  ctx.setOutputWithExtent(0, (*op)->getResult(0), (*op)->getResult(1),
                          /*axis=*/1);
  return success();
}

} // namespace

void mlir::oneflow::onnx_import::registerDataDependentImporters(
    NodeImporterRegistry &r) {
  r["NonMaxSuppression"] = importNonMaxSuppression;
  r["Unique"] = importUnique;
  r["NonZero"] = importNonZero;
}
