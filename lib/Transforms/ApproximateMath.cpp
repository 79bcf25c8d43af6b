//===- ApproximateMath.cpp - Vectorizable f32 transcendentals -------------===//

#include "oneflow/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

namespace {
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
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
