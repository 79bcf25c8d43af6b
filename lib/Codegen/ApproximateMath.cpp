//===- ApproximateMath.cpp - Vectorizable f32 transcendentals -------------===//

#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

namespace {
/// x / c -> x * (1 / c) for an f32 constant c whose reciprocal is a normal
/// number: a multiply instead of a divide, which is ~10x slower and not
/// pipelined (the reciprocal is rounded: results move by at most an ulp).
struct DivideByConstant : public OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    FloatAttr divisor;
    if (!op.getType().isF32() ||
        !matchPattern(op.getRhs(), m_Constant(&divisor)))
      return failure();
    APFloat reciprocal(1.0f);
    reciprocal.divide(divisor.getValue(), APFloat::rmNearestTiesToEven);
    if (!reciprocal.isNormal())
      return failure();
    Value factor = arith::ConstantOp::create(
        rewriter, op.getLoc(), rewriter.getF32FloatAttr(
                                   reciprocal.convertToFloat()));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), factor,
                                               op.getFastmathAttr());
    return success();
  }
};

struct ApproximateMathPass
    : public oneflow::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The approximations match f32 only; f64 stays with libm.
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return llvm::is_contained(
          {math::ExpOp::getOperationName(), math::ExpM1Op::getOperationName(),
           math::LogOp::getOperationName(), math::Log1pOp::getOperationName(),
           math::Log2Op::getOperationName(), math::TanhOp::getOperationName(),
           math::ErfOp::getOperationName()},
          name);
    });
    patterns.add<DivideByConstant>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
