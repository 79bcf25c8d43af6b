//===- SerializeSmallParallelLoops.cpp - Keep tiny loops sequential -------===//

#include "oneflow/Codegen/Passes.h"

#include "oneflow/Codegen/LoopWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SERIALIZESMALLPARALLELLOOPS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using mlir::oneflow::workOf;

/// Rewrites a reduction-free scf.parallel as nested scf.for loops.
static void serialize(scf::ParallelOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  IRMapping mapping;
  Block *body = op.getBody();
  for (auto [iv, l, u, s] : llvm::zip(op.getInductionVars(), op.getLowerBound(),
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
