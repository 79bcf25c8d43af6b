//===- WidenLowPrecision.cpp - Accumulate bf16/f16 work in f32 ------------===//
//
// Ops that accumulate (products, convolutions, reductions, softmax,
// normalizations and their gradients) compute in f32 when their tensors are
// bf16 or f16: their operands are widened (exactly), the op runs in f32 and
// its results are rounded back once. That is what bf16 GEMMs do on every
// device (f32 accumulation), lets the CPU use the f32 BLAS, and keeps sums
// over long axes from losing the low type's 8 or 11 bits at every step.
// The values between ops stay in the low type, so activations, messages
// and kept tensors keep their size. A bias added to a product is added
// before the rounding, as a GEMM epilogue does.
//
// On CUDA plans (keep-products) matmul and batch_matmul are left in the low
// type: cuBLASLt runs them as bf16/f16 GEMMs with f32 accumulation (twice
// the TF32 rate of a widened product on an A100, and no casts) and rounds
// the result once, as the widened op would. The result stays in the low
// type rather than f32 so the graph's values and registers are the same as
// on CPU plans; a bias add is then the GEMM's accumulation into the
// broadcast bias (the _acc call), also rounded once.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_WIDENLOWPRECISION
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

bool accumulates(Operation *op) {
  return isa<MatmulOp, BatchMatmulOp, MatmulActGradOp, Conv2DOp,
             ConvTranspose2DOp, Conv2DGradFilterOp, AvgPool2DOp,
             GlobalAvgPool2DOp, AvgPool2DGradOp, BatchNormOp, BatchNormTrainOp,
             BatchNormGradOp, LayerNormOp, LayerNormGradOp, ReduceSumOp,
             ReduceMeanOp, ReduceProdOp, SoftmaxOp, LogSoftmaxOp, CumSumOp,
             GatherGradOp, GatherElementsGradOp, SoftmaxCrossEntropyOp,
             SoftmaxCrossEntropyGradOp, MseLossOp>(op);
}

bool isLowFloat(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         (tensor.getElementType().isBF16() || tensor.getElementType().isF16());
}

/// Whether `value` is a parameter read in the low type (a bias).
bool isLowParameter(Value value) {
  auto cast = value.getDefiningOp<CastOp>();
  return cast && isLowFloat(value.getType()) &&
         cast.getX().getDefiningOp<VariableOp>();
}

/// Widens `op`; returns the casts that round its results back.
SmallVector<CastOp> widen(Operation *op, OpBuilder &builder) {
  Type f32 = builder.getF32Type();
  builder.setInsertionPoint(op);
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!isLowFloat(type))
      continue;
    // A value rounded from f32 by a widened op is read unrounded.
    auto rounded = operand.get().getDefiningOp<CastOp>();
    if (rounded && rounded->hasAttr("oneflow.widened"))
      operand.set(rounded.getX());
    else
      operand.set(CastOp::create(builder, op->getLoc(), type.clone(f32),
                                 operand.get()));
  }
  builder.setInsertionPointAfter(op);
  SmallVector<CastOp> backs;
  for (OpResult result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!isLowFloat(type))
      continue;
    result.setType(type.clone(f32));
    auto back = CastOp::create(builder, op->getLoc(), type, result);
    result.replaceAllUsesExcept(back.getResult(), back);
    backs.push_back(back);
  }
  return backs;
}

struct WidenLowPrecisionPass
    : public oneflow::impl::WidenLowPrecisionBase<WidenLowPrecisionPass> {
  using WidenLowPrecisionBase::WidenLowPrecisionBase;

  void runOnOperation() override {
    SmallVector<Operation *> work;
    getOperation().walk([&](Operation *op) {
      if (keepProducts && isa<MatmulOp, BatchMatmulOp>(op))
        return;
      if (accumulates(op) && (llvm::any_of(op->getOperandTypes(), isLowFloat) ||
                              llvm::any_of(op->getResultTypes(), isLowFloat)))
        work.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (Operation *op : work)
      for (CastOp back : widen(op, builder)) {
        // A linear layer's bias joins its product before the one rounding
        // (as a bf16 GEMM's epilogue adds it to the f32 accumulator).
        if (!back->hasOneUse())
          continue;
        auto add = dyn_cast<AddOp>(*back->user_begin());
        if (!add || !isa<MatmulOp, BatchMatmulOp, Conv2DOp>(op) ||
            !llvm::any_of(add->getOperands(), isLowParameter))
          continue;
        back->setAttr("oneflow.widened", builder.getUnitAttr());
        widen(add, builder);
        back->erase();
      }
  }
};
} // namespace
