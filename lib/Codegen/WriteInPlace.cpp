//===- WriteInPlace.cpp - Elementwise results over dead operands ----------===//

#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_WRITEINPLACE
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

/// Whether every other use of the operand's value is by an op of the same
/// block before the operand's owner (so nothing reads it afterwards).
static bool isLastUse(OpOperand &operand) {
  Operation *owner = operand.getOwner();
  return llvm::all_of(operand.get().getUses(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    return &use == &operand || user == owner ||
           (user->getBlock() == owner->getBlock() &&
            user->isBeforeInBlock(owner));
  });
}

namespace {
/// generic ins(..., %x, ...) outs(tensor.empty) -> generic ins(..., %x, ...)
/// outs(%x), when nothing reads %x afterwards and it is read elementwise.
struct ReuseDeadInput : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumParallelLoops() != op.getNumLoops())
      return failure();
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (!init.get().getDefiningOp<tensor::EmptyOp>() ||
          op.payloadUsesValueFromOperand(&init) ||
          !op.getMatchingIndexingMap(&init).isIdentity())
        continue;
      for (OpOperand *input : op.getDpsInputOperands()) {
        Value value = input->get();
        // A fused generic with several results gives each its own input.
        bool takenByAnotherResult = llvm::is_contained(op.getDpsInits(), value);
        if (value.getType() != init.get().getType() ||
            !op.getMatchingIndexingMap(input).isIdentity() ||
            isa<BlockArgument>(value) ||
            value.getDefiningOp<arith::ConstantOp>() || takenByAnotherResult ||
            !isLastUse(*input))
          continue;
        rewriter.modifyOpInPlace(op, [&] { init.set(value); });
        return success();
      }
    }
    return failure();
  }
};

struct WriteInPlacePass
    : public oneflow::impl::WriteInPlaceBase<WriteInPlacePass> {
  void runOnOperation() override {
    auto readOnly = BoolAttr::get(&getContext(), false);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isDeclaration())
        continue;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName,
              readOnly);
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<ReuseDeadInput>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
