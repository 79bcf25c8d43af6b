//===- SerializeSmallParallelLoops.cpp - Keep tiny loops sequential -------===//

#include "oneflow/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SERIALIZESMALLPARALLELLOOPS
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

/// Static trip count of a loop dimension, or nullopt.
static std::optional<int64_t> tripCount(Value lower, Value upper, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lower),
                         u = getConstantIntValue(upper),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
}

/// Iterations of the innermost bodies of `op`'s loop nest; unknown trip
/// counts count as large (they stay parallel).
static int64_t workOf(Operation *op, int64_t cap) {
  int64_t own = 1;
  auto multiply = [&](std::optional<int64_t> count) {
    own = count ? std::min(cap, own * std::max<int64_t>(*count, 1)) : cap;
  };
  if (auto parallel = dyn_cast<scf::ParallelOp>(op))
    for (auto [l, u, s] : llvm::zip(parallel.getLowerBound(),
                                    parallel.getUpperBound(),
                                    parallel.getStep()))
      multiply(tripCount(l, u, s));
  if (auto loop = dyn_cast<scf::ForOp>(op))
    multiply(tripCount(loop.getLowerBound(), loop.getUpperBound(),
                       loop.getStep()));
  int64_t inner = 1;
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps())
      if (isa<scf::ParallelOp, scf::ForOp>(nested))
        inner = std::max(inner, workOf(&nested, cap));
  return std::min(cap, own * inner);
}

/// Rewrites a reduction-free scf.parallel as nested scf.for loops.
static void serialize(scf::ParallelOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  IRMapping mapping;
  Block *body = op.getBody();
  for (auto [iv, l, u, s] :
       llvm::zip(op.getInductionVars(), op.getLowerBound(),
                 op.getUpperBound(), op.getStep())) {
    auto loop = scf::ForOp::create(builder, loc, l, u, s);
    mapping.map(iv, loop.getInductionVar());
    builder.setInsertionPointToStart(loop.getBody());
  }
  for (Operation &nested : body->without_terminator())
    builder.clone(nested, mapping);
  op.erase();
}

namespace {
struct SerializeSmallParallelLoopsPass
    : public oneflow::impl::SerializeSmallParallelLoopsBase<
          SerializeSmallParallelLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> small;
    getOperation()->walk([&](scf::ParallelOp op) {
      if (op->getParentOfType<scf::ParallelOp>() || op.getNumReductions() != 0)
        return;
      if (workOf(op, minWork) < minWork)
        small.push_back(op);
    });
    for (scf::ParallelOp op : small)
      serialize(op);
  }
};
} // namespace
