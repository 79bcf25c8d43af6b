//===- PrepareLoopsForGPU.cpp - Kernel loops in the shape the GPU maps ----===//
//
// oneflow-map-loops-to-gpu maps top-level parallel nests. Two forms that
// bufferization and the linalg lowering leave are not such nests:
//
// - `memref.copy` (bufferization's copies into views, e.g. a slice of a
//   fused QKV product) becomes an elementwise parallel nest;
// - a reduction over leading dimensions into a vector (a bias or layer-norm
//   weight gradient: `for b, s { parallel j { acc[j] += x[b, s, j] } }`,
//   reduction loops outside because they come first in the generic) is
//   interchanged into `parallel j { for b, s { ... } }` when the parallel
//   iterations touch disjoint elements, so each column becomes a row nest
//   (one block per column, its threads over the reduced elements).
//
//===----------------------------------------------------------------------===//

#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_PREPARELOOPSFORGPU
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// `memref.copy` as a parallel nest of loads and stores over the target.
LogicalResult copyToLoops(memref::CopyOp copy) {
  auto target = cast<MemRefType>(copy.getTarget().getType());
  if (!target.hasStaticShape())
    return copy.emitOpError() << "copies a dynamically shaped buffer; GPU "
                                 "kernels need static shapes";
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  if (target.getRank() == 0) {
    Value value = memref::LoadOp::create(b, loc, copy.getSource());
    memref::StoreOp::create(b, loc, value, copy.getTarget());
    copy.erase();
    return success();
  }
  SmallVector<Value> lower, upper, steps;
  for (int64_t size : target.getShape()) {
    lower.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    upper.push_back(arith::ConstantIndexOp::create(b, loc, size));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  Value source = copy.getSource(), dest = copy.getTarget();
  scf::ParallelOp::create(
      b, loc, lower, upper, steps,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange ivs) {
        Value value = memref::LoadOp::create(nested, nestedLoc, source, ivs);
        memref::StoreOp::create(nested, nestedLoc, value, dest, ivs);
      });
  copy.erase();
  return success();
}

/// The scf.for nest around a single scf.parallel, outermost first, or
/// empty when `loop` is not such a perfect nest.
SmallVector<scf::ForOp> forsAroundParallel(scf::ForOp loop,
                                           scf::ParallelOp &inner) {
  SmallVector<scf::ForOp> fors;
  Operation *op = loop;
  while (auto forOp = dyn_cast<scf::ForOp>(op)) {
    if (forOp.getNumResults() != 0 ||
        forOp.getBody()->without_terminator().empty() ||
        std::next(forOp.getBody()->without_terminator().begin()) !=
            forOp.getBody()->without_terminator().end())
      return {};
    fors.push_back(forOp);
    op = &forOp.getBody()->front();
  }
  inner = dyn_cast<scf::ParallelOp>(op);
  if (!inner || inner.getNumResults() != 0)
    return {};
  return fors;
}

/// Whether the iterations of `inner` touch disjoint elements of every
/// buffer it writes: each access to such a buffer uses one index list that
/// names every induction variable of `inner`. Then they stay independent
/// when the loops around them move inside.
bool parallelIterationsDisjoint(scf::ParallelOp inner) {
  llvm::DenseMap<Value, SmallVector<Value>> written;
  WalkResult walk = inner.getBody()->walk([&](memref::StoreOp store) {
    auto indices = llvm::to_vector(store.getIndices());
    auto [it, inserted] = written.try_emplace(store.getMemRef(), indices);
    if (!inserted && it->second != indices)
      return WalkResult::interrupt();
    for (Value iv : inner.getInductionVars())
      if (!llvm::is_contained(indices, iv))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return false;
  walk = inner.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      auto it = written.find(load.getMemRef());
      if (it != written.end() &&
          it->second != llvm::to_vector(load.getIndices()))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    // Other accesses to written buffers (views, calls) are not analysed.
    if (!isa<memref::StoreOp>(op))
      for (Value operand : op->getOperands())
        if (written.count(operand))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// `for ... { parallel (ivs) { body } }` into `parallel (ivs) { for ... {
/// body } }` where legal.
void interchange(scf::ForOp outer) {
  scf::ParallelOp inner;
  SmallVector<scf::ForOp> fors = forsAroundParallel(outer, inner);
  if (fors.empty())
    return;
  auto definedOutside = [&](ValueRange values) {
    return llvm::all_of(
        values, [&](Value v) { return outer.isDefinedOutsideOfLoop(v); });
  };
  if (!definedOutside(inner.getLowerBound()) ||
      !definedOutside(inner.getUpperBound()) ||
      !definedOutside(inner.getStep()) || !parallelIterationsDisjoint(inner))
    return;
  for (scf::ForOp forOp : fors)
    if (!definedOutside(
            {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()}))
      return;

  OpBuilder b(outer);
  Location loc = outer.getLoc();
  IRMapping mapping;
  scf::ParallelOp::create(
      b, loc, inner.getLowerBound(), inner.getUpperBound(), inner.getStep(),
      [&](OpBuilder &nested, Location, ValueRange ivs) {
        for (auto [from, to] : llvm::zip(inner.getInductionVars(), ivs))
          mapping.map(from, to);
        OpBuilder::InsertionGuard guard(nested);
        for (scf::ForOp forOp : fors) {
          auto clone =
              scf::ForOp::create(nested, forOp.getLoc(), forOp.getLowerBound(),
                                 forOp.getUpperBound(), forOp.getStep());
          mapping.map(forOp.getInductionVar(), clone.getInductionVar());
          nested.setInsertionPointToStart(clone.getBody());
        }
        for (Operation &op : inner.getBody()->without_terminator())
          nested.clone(op, mapping);
      });
  outer.erase();
}

struct PrepareLoopsForGPUPass
    : public oneflow::impl::PrepareLoopsForGPUBase<PrepareLoopsForGPUPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    Block &body = func.getBody().front();
    for (auto copy : llvm::make_early_inc_range(body.getOps<memref::CopyOp>()))
      if (failed(copyToLoops(copy)))
        return signalPassFailure();
    for (auto loop : llvm::make_early_inc_range(body.getOps<scf::ForOp>()))
      interchange(loop);
  }
};

} // namespace
