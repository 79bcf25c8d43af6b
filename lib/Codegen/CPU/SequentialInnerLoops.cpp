//===- SequentialInnerLoops.cpp - Vectorizable inner loops ----------------===//

#include "oneflow/Codegen/Passes.h"

#include "oneflow/Codegen/LoopWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SEQUENTIALINNERLOOPS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

/// Rebuilds `op` as a parallel loop over its first dimensions whose body is
/// an scf.for over its last one.
static void peelInnermost(scf::ParallelOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  unsigned rank = op.getNumLoops();
  auto outer = scf::ParallelOp::create(
      builder, loc, op.getLowerBound().drop_back(),
      op.getUpperBound().drop_back(), op.getStep().drop_back());
  builder.setInsertionPointToStart(outer.getBody());
  auto inner =
      scf::ForOp::create(builder, loc, op.getLowerBound()[rank - 1],
                         op.getUpperBound()[rank - 1], op.getStep()[rank - 1]);
  IRMapping mapping;
  for (unsigned d = 0; d + 1 < rank; ++d)
    mapping.map(op.getInductionVars()[d], outer.getInductionVars()[d]);
  mapping.map(op.getInductionVars()[rank - 1], inner.getInductionVar());
  builder.setInsertionPointToStart(inner.getBody());
  for (Operation &nested : op.getBody()->without_terminator())
    builder.clone(nested, mapping);
  op.erase();
}

/// Rebuilds a one-dimensional `op` as a parallel loop over blocks of `block`
/// iterations, each an scf.for.
static void blockLoop(scf::ParallelOp op, int64_t block) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  Value lower = op.getLowerBound()[0], upper = op.getUpperBound()[0],
        step = op.getStep()[0];
  Value blockStep = arith::MulIOp::create(
      builder, loc, step, arith::ConstantIndexOp::create(builder, loc, block));
  auto outer = scf::ParallelOp::create(builder, loc, lower, upper, blockStep);
  builder.setInsertionPointToStart(outer.getBody());
  Value start = outer.getInductionVars()[0];
  Value end = arith::MinSIOp::create(
      builder, loc, arith::AddIOp::create(builder, loc, start, blockStep),
      upper);
  auto inner = scf::ForOp::create(builder, loc, start, end, step);
  IRMapping mapping;
  mapping.map(op.getInductionVars()[0], inner.getInductionVar());
  builder.setInsertionPointToStart(inner.getBody());
  for (Operation &nested : op.getBody()->without_terminator())
    builder.clone(nested, mapping);
  op.erase();
}

namespace {
struct SequentialInnerLoopsPass
    : public oneflow::impl::SequentialInnerLoopsBase<SequentialInnerLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation()->walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() && op.getNumReductions() == 0)
        loops.push_back(op);
    });
    for (scf::ParallelOp op : loops) {
      if (op.getNumLoops() >= 2)
        peelInnermost(op);
      else if (int64_t iterations =
                   block / oneflow::workOfBlock(*op.getBody(), block);
               iterations > 1)
        // A fused row loop has whole rows per iteration: fewer per block.
        blockLoop(op, iterations);
    }
  }
};
} // namespace
