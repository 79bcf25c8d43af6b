//===- SplitFusedProjections.cpp - One projection per split piece ---------===//
//
// `split(matmul(x, W) + b)` along the output features (a fused QKV
// projection) becomes one matmul (+ bias) per piece, with W and b sliced at
// compile time. Each piece can then be column-parallel on its own, so tensor
// parallelism splits attention by heads instead of cutting the fused output
// across Q, K and V.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/ElementsUtils.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SPLITFUSEDPROJECTIONS
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {
/// A parameter with data or an initializer, sliced into `sizes` pieces along
/// `dim`. Pieces of an initializer draw their part of the whole parameter.
static FailureOr<SmallVector<Value>> sliceParameter(OpBuilder &builder,
                                                    VariableOp variable,
                                                    int64_t dim,
                                                    ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(variable.getOutput().getType());
  SmallVector<Value> pieces;
  int64_t offset = 0;
  for (auto [index, size] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> shape(type.getShape()), offsets(type.getRank(), 0);
    shape[dim] = size;
    offsets[dim] = offset;
    offset += size;
    auto pieceType = type.clone(shape);
    std::string name = (variable.getVarName() + ".part" + Twine(index)).str();
    ElementsAttr data;
    if (ElementsAttr whole = variable.getInitialValueAttr()) {
      FailureOr<ElementsAttr> sliced =
          sliceElements(whole, offsets, pieceType, name);
      if (failed(sliced))
        return failure();
      data = *sliced;
    }
    auto piece = VariableOp::create(builder, variable.getLoc(), pieceType,
                                    builder.getStringAttr(name), data,
                                    variable.getInitializerAttr());
    // Checkpoints and exports see the whole parameter.
    piece->setAttr(kLogicalNameAttrName, variable.getVarNameAttr());
    piece->setAttr(kLogicalShapeAttrName,
                   builder.getDenseI64ArrayAttr(type.getShape()));
    piece->setAttr(kLogicalOffsetsAttrName,
                   builder.getDenseI64ArrayAttr(offsets));
    pieces.push_back(piece);
  }
  return pieces;
}

/// The parameter feeding `value`, if it holds data (or an initializer) and
/// has one use.
static VariableOp parameterOf(Value value) {
  auto variable = value.getDefiningOp<VariableOp>();
  if (!variable ||
      !(variable.getInitialValueAttr() || variable.getInitializerAttr()) ||
      !value.hasOneUse())
    return {};
  return variable;
}

static LogicalResult splitProjection(SplitOp split) {
  auto type = cast<RankedTensorType>(split.getX().getType());
  int64_t axis =
      split.getAxis() < 0 ? split.getAxis() + type.getRank() : split.getAxis();
  if (axis != type.getRank() - 1 || !split.getX().hasOneUse())
    return failure();

  // Optional bias: add(bias, matmul) or add(matmul, bias).
  Operation *projection = split.getX().getDefiningOp();
  AddOp add = dyn_cast_or_null<AddOp>(projection);
  VariableOp bias;
  unsigned biasOperand = 0;
  if (add) {
    for (unsigned i = 0; i < 2; ++i) {
      auto candidate = parameterOf(add->getOperand(i));
      auto biasType =
          candidate ? cast<RankedTensorType>(candidate.getOutput().getType())
                    : RankedTensorType();
      if (biasType && biasType.getRank() == 1 &&
          biasType.getDimSize(0) == type.getDimSize(axis)) {
        bias = candidate;
        biasOperand = i;
      }
    }
    if (!bias)
      return failure();
    projection = add->getOperand(1 - biasOperand).getDefiningOp();
    if (!projection || !projection->hasOneUse())
      return failure();
  }
  if (!isa_and_nonnull<MatmulOp, BatchMatmulOp>(projection) ||
      projection->hasAttr("transpose_a"))
    return failure();
  VariableOp weight = parameterOf(projection->getOperand(1));
  if (!weight ||
      cast<RankedTensorType>(weight.getOutput().getType()).getRank() != 2)
    return failure();
  int64_t weightDim = projection->hasAttr("transpose_b") ? 0 : 1;

  SmallVector<int64_t> sizes;
  for (Value piece : split.getResults())
    sizes.push_back(cast<RankedTensorType>(piece.getType()).getDimSize(axis));
  OpBuilder builder(split);
  builder.setInsertionPoint(weight);
  FailureOr<SmallVector<Value>> weights =
      sliceParameter(builder, weight, weightDim, sizes);
  if (failed(weights))
    return failure();
  SmallVector<Value> biases;
  if (bias) {
    builder.setInsertionPoint(bias);
    FailureOr<SmallVector<Value>> sliced =
        sliceParameter(builder, bias, 0, sizes);
    if (failed(sliced))
      return failure();
    biases = *sliced;
  }

  builder.setInsertionPoint(split);
  for (auto [index, piece] : llvm::enumerate(split.getResults())) {
    Operation *matmul = builder.clone(*projection);
    matmul->setOperand(1, (*weights)[index]);
    matmul->getResult(0).setType(piece.getType());
    Value result = matmul->getResult(0);
    if (add) {
      Operation *newAdd = builder.clone(*add);
      newAdd->setOperand(biasOperand, biases[index]);
      newAdd->setOperand(1 - biasOperand, result);
      newAdd->getResult(0).setType(piece.getType());
      result = newAdd->getResult(0);
    }
    piece.replaceAllUsesWith(result);
  }
  split.erase();
  if (add)
    add.erase();
  projection->erase();
  weight.erase();
  if (bias)
    bias.erase();
  return success();
}

struct SplitFusedProjectionsPass
    : public oneflow::impl::SplitFusedProjectionsBase<
          SplitFusedProjectionsPass> {
  void runOnOperation() override {
    SmallVector<SplitOp> splits;
    getOperation().walk([&](SplitOp split) { splits.push_back(split); });
    for (SplitOp split : splits)
      (void)splitProjection(split);
  }
};
} // namespace
