//===- PromoteLoopAccumulators.cpp - Keep loop-invariant cells in values --===//
//
// Reductions lowered from linalg read and write their accumulator in memory
// at every iteration (`acc[i] = acc[i] + x[i, k]` for k), and kernels read
// row statistics the same way (`mean[i]` for every k). Inside an OpenMP
// region the buffers arrive through the outlined function's context, so
// LLVM no longer knows they do not alias the tensors the loop stores to: it
// keeps the loads and stores in the loop and does not vectorize it (a layer
// norm gradient's row sums ran as scalar code). Here, where the buffers are
// still visible, an scf.for's loads of a cell the loop never writes move
// before the loop, and a cell the loop reads and writes at invariant indices
// becomes a loop-carried value stored once after the loop.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Codegen/LoopWork.h"
#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_PROMOTELOOPACCUMULATORS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

namespace {

/// The buffer a memref value views (through subviews, reshapes, casts).
Value baseOf(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// Whether `base` is known to overlap no other buffer of the function: a
/// local allocation, or an argument the kernel compiler marked noalias.
bool isDistinctBuffer(Value base) {
  if (Operation *def = base.getDefiningOp())
    return isa<memref::AllocOp, memref::AllocaOp>(def);
  auto arg = dyn_cast<BlockArgument>(base);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : nullptr;
  return func && arg.getOwner() == &func.getBody().front() &&
         func.getArgAttr(arg.getArgNumber(),
                         LLVM::LLVMDialect::getNoAliasAttrName());
}

/// The memory accesses of a loop body, or failure if some op may touch
/// memory other than through memref.load / memref.store (a call, a copy).
struct Accesses {
  SmallVector<memref::LoadOp> loads;
  SmallVector<memref::StoreOp> stores;
};

FailureOr<Accesses> collectAccesses(scf::ForOp loop) {
  Accesses accesses;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      accesses.loads.push_back(load);
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      accesses.stores.push_back(store);
    else if (!isMemoryEffectFree(op) && !op->hasTrait<OpTrait::IsTerminator>() &&
             !isa<scf::ForOp, scf::IfOp, scf::ParallelOp, scf::ReduceOp,
                  memref::AllocaOp>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return accesses;
}

bool invariantIndices(scf::ForOp loop, ValueRange indices) {
  return llvm::all_of(indices,
                      [&](Value v) { return loop.isDefinedOutsideOfLoop(v); });
}

/// Whether the access to `memref` at `indices` may touch the memory of the
/// one to `other` at `otherIndices`: the same buffer, unless both name
/// different constant elements, or a buffer not known to be distinct.
bool mayAlias(Value memref, ValueRange indices, Value other,
              ValueRange otherIndices) {
  Value a = baseOf(memref), b = baseOf(other);
  if (a != b)
    return !isDistinctBuffer(a) && !isDistinctBuffer(b);
  if (memref != other || indices.size() != otherIndices.size())
    return true;
  for (auto [x, y] : llvm::zip(indices, otherIndices)) {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy && *cx != *cy)
      return false;
  }
  return true;
}

/// Hoists loads at invariant indices of buffers no store in the loop may
/// write. Returns whether it moved any.
bool hoistInvariantLoads(scf::ForOp loop, const Accesses &accesses) {
  bool changed = false;
  for (memref::LoadOp load : accesses.loads) {
    if (load->getParentOp() != loop ||
        !loop.isDefinedOutsideOfLoop(load.getMemRef()) ||
        !invariantIndices(loop, load.getIndices()))
      continue;
    if (llvm::any_of(accesses.stores, [&](memref::StoreOp store) {
          return mayAlias(load.getMemRef(), load.getIndices(),
                          store.getMemRef(), store.getIndices());
        }))
      continue;
    load->moveBefore(loop);
    changed = true;
  }
  return changed;
}

/// Finds a cell the loop reads and writes only at the same invariant
/// indices, with every access in the loop's own block (so their order is
/// the block's), that no other access of the loop may touch.
memref::StoreOp findAccumulator(scf::ForOp loop, const Accesses &accesses) {
  for (memref::StoreOp candidate : accesses.stores) {
    Value memref = candidate.getMemRef();
    ValueRange indices = candidate.getIndices();
    if (candidate->getParentOp() != loop ||
        !loop.isDefinedOutsideOfLoop(memref) ||
        !invariantIndices(loop, indices) || !isDistinctBuffer(baseOf(memref)))
      continue;
    auto sameCell = [&](Operation *op, Value other, ValueRange otherIndices) {
      return op->getParentOp() == loop && other == memref &&
             llvm::equal(otherIndices, indices);
    };
    bool alone = llvm::all_of(accesses.stores, [&](memref::StoreOp store) {
      return sameCell(store, store.getMemRef(), store.getIndices()) ||
             !mayAlias(store.getMemRef(), store.getIndices(), memref, indices);
    });
    alone &= llvm::all_of(accesses.loads, [&](memref::LoadOp load) {
      return sameCell(load, load.getMemRef(), load.getIndices()) ||
             !mayAlias(load.getMemRef(), load.getIndices(), memref, indices);
    });
    if (alone)
      return candidate;
  }
  return nullptr;
}

/// Carries `cell` (stored by `store`) through the loop as an iter_arg:
/// loaded once before, stored once after.
scf::ForOp promote(scf::ForOp loop, memref::StoreOp store) {
  Value memref = store.getMemRef();
  SmallVector<Value> indices(store.getIndices());
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  Value init = memref::LoadOp::create(rewriter, loop.getLoc(), memref, indices);
  auto isCell = [&](Value other, ValueRange otherIndices) {
    return other == memref && llvm::equal(otherIndices, indices);
  };
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        // Called before the body moves into the new loop.
        Value current = args.front();
        for (Operation &op : llvm::make_early_inc_range(*loop.getBody())) {
          if (auto load = dyn_cast<memref::LoadOp>(op);
              load && isCell(load.getMemRef(), load.getIndices())) {
            rewriter.replaceOp(load, current);
          } else if (auto cellStore = dyn_cast<memref::StoreOp>(op);
                     cellStore &&
                     isCell(cellStore.getMemRef(), cellStore.getIndices())) {
            current = cellStore.getValueToStore();
            rewriter.eraseOp(cellStore);
          }
        }
        return SmallVector<Value>{current};
      });
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  rewriter.setInsertionPointAfter(newLoop);
  memref::StoreOp::create(rewriter, newLoop.getLoc(),
                          newLoop.getResults().back(), memref, indices);
  return newLoop;
}

struct PromoteLoopAccumulatorsPass
    : public oneflow::impl::PromoteLoopAccumulatorsBase<
          PromoteLoopAccumulatorsPass> {
  void runOnOperation() override {
    // Innermost loops first: a value promoted out of one loop may then be
    // promoted out of the loop around it.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      std::optional<int64_t> trips = oneflow::tripCount(
          loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
      // Moved accesses must have run at least once in the original.
      if (!trips || *trips < 1)
        continue;
      while (true) {
        FailureOr<Accesses> accesses = collectAccesses(loop);
        if (failed(accesses))
          break;
        if (hoistInvariantLoads(loop, *accesses))
          continue;
        memref::StoreOp accumulator = findAccumulator(loop, *accesses);
        if (!accumulator)
          break;
        loop = promote(loop, accumulator);
      }
    }
  }
};
} // namespace
