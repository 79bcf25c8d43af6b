//===- MoveHostWorkToGPU.cpp - Nothing but launches touches device memory -===//
//
// After oneflow-map-loops-to-gpu a kernel body's host code may still read
// or write buffers, which live on the device: the scalar loop of a full
// reduction (a loss), a 0-d store, a scalar computed from a buffer and
// captured by a launch (AdamW's bias correction from the step counter).
// This pass leaves the host only launches, library calls, allocations and
// views:
//
// - a launch that captures a scalar computed on the host from buffers
//   recomputes it itself (the ops are cloned into its body); a launch that
//   reads a constant global reads the device copy of it (the get_global
//   moves into the body, and outlining copies the global into the GPU
//   module);
// - every remaining run of host ops that touch buffers becomes a launch:
//   of one block when it holds a reduction nest (a loss, a sum into a
//   scalar: its iterations are strided over the threads and combined by
//   gpu.all_reduce, the rest runs on thread 0, as a row of
//   oneflow-map-loops-to-gpu), else of one thread (correct; such code is
//   small: scalar updates, short loops).
//
//===----------------------------------------------------------------------===//

#include "LoopMapping.h"
#include "oneflow/Codegen/LoopWork.h"
#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_MOVEHOSTWORKTOGPU
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// Host ops that never touch buffer contents.
bool staysOnHost(Operation *op) {
  return isa<gpu::LaunchOp, func::CallOp, func::ReturnOp, memref::AllocOp,
             memref::AllocaOp, memref::DeallocOp, memref::GetGlobalOp,
             memref::ExtractAlignedPointerAsIndexOp,
             memref::ExtractStridedMetadataOp, ViewLikeOpInterface>(op) ||
         op->hasTrait<OpTrait::ConstantLike>();
}

/// Whether `op` (or anything nested in it) reads or writes a buffer.
bool touchesBuffers(Operation *op) {
  WalkResult walk = op->walk([](Operation *nested) {
    if (isa<memref::LoadOp, memref::StoreOp, memref::CopyOp>(nested))
      return WalkResult::interrupt();
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      // Unknown effects: treat as touching unless it is known to be pure.
      return nested->getNumRegions() == 0 && !isMemoryEffectFree(nested) &&
                     !nested->hasTrait<OpTrait::IsTerminator>()
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    }
    if (effects.hasEffect<MemoryEffects::Read>() ||
        effects.hasEffect<MemoryEffects::Write>())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Clones into `launch` the host computation of the values it captures that
/// are not buffers or constants: the ops they come from (pure, or reading
/// buffers) up to buffers and constants.
LogicalResult recomputeCapturedScalars(gpu::LaunchOp launch) {
  Region &body = launch.getBody();
  llvm::SetVector<Operation *> slice;
  SmallVector<Operation *> worklist;
  auto capture = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getParentRegion() != launch->getParentRegion())
      return;
    if (isa<memref::GetGlobalOp>(def) ||
        (!isa<MemRefType>(value.getType()) &&
         !def->hasTrait<OpTrait::ConstantLike>()))
      worklist.push_back(def);
  };
  body.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!body.isAncestor(operand.getParentRegion()))
        capture(operand);
  });
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!slice.insert(op))
      continue;
    if (isa<gpu::LaunchOp, func::CallOp>(op) ||
        (touchesBuffers(op) && !isa<memref::LoadOp>(op) &&
         !isa<memref::GetGlobalOp>(op)))
      return launch.emitOpError()
             << "captures a value the host computes with '" << op->getName()
             << "', which cannot be recomputed on the GPU";
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (!op->isAncestor(operand.getParentBlock()->getParentOp()))
          capture(operand);
    });
  }
  if (slice.empty())
    return success();
  // Clone in the host order, at the start of the body.
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  OpBuilder b = OpBuilder::atBlockBegin(&body.front());
  IRMapping mapping;
  for (Operation *op : ordered)
    b.clone(*op, mapping);
  for (Operation *op : ordered)
    for (auto [from, to] :
         llvm::zip(op->getResults(), mapping.lookup(op)->getResults()))
      from.replaceUsesWithIf(to, [&](OpOperand &use) {
        return body.isAncestor(use.getOwner()->getParentRegion());
      });
  return success();
}

/// Erases host ops whose results are unused and that write nothing.
void eraseDeadHostOps(Block &block) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
      if (op.getNumResults() == 0 || !op.use_empty())
        continue;
      if (isMemoryEffectFree(&op) || isa<memref::LoadOp>(op)) {
        op.erase();
        changed = true;
      }
    }
  }
}

/// Fails (diagnosed) when the host uses a value `ops` compute after them.
LogicalResult checkNoValueEscapes(ArrayRef<Operation *> ops) {
  Operation *first = ops.front();
  llvm::SmallPtrSet<Operation *, 16> inRun(ops.begin(), ops.end());
  for (Operation *op : ops)
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers()) {
        Operation *top = first->getBlock()->findAncestorOpInBlock(*user);
        if (!inRun.contains(top))
          return op->emitOpError()
                 << "computes a value the host uses after it; it cannot "
                    "run on the GPU";
      }
  return success();
}

/// Moves `ops` (contiguous, in order) into a new launch of one thread.
LogicalResult wrapInSingleThreadLaunch(ArrayRef<Operation *> ops) {
  if (failed(checkNoValueEscapes(ops)))
    return failure();
  Operation *first = ops.front();
  OpBuilder b(first);
  Location loc = first->getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(b, loc);
  for (Operation *op : ops)
    op->moveBefore(terminator);
  return success();
}

/// The levels of the perfect loop nest `nest` whose iterations touch
/// distinct slices of every buffer the nest writes: each access to such a
/// buffer, through one memref, has in one dimension the same index, which
/// names the level's induction variable one to one. Empty if none, or if
/// `nest` is not a perfect nest of static loops with loads and stores only
/// in its innermost body.
SmallVector<scf::ForOp> independentLevels(scf::ForOp nest,
                                          const BufferRoots &buffers) {
  SmallVector<scf::ForOp> levels;
  for (scf::ForOp level = nest; level;) {
    if (level.getNumResults() != 0 ||
        !tripCount(level.getLowerBound(), level.getUpperBound(),
                   level.getStep()) ||
        !llvm::all_of(ValueRange{level.getLowerBound(), level.getUpperBound(),
                                 level.getStep()},
                      [&](Value v) { return nest.isDefinedOutsideOfLoop(v); }))
      return {};
    levels.push_back(level);
    scf::ForOp inner;
    for (Operation &op : level.getBody()->without_terminator()) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (inner)
          return {};
        inner = loop;
      } else if (op.getNumRegions() != 0 ||
                 (!isMemoryEffectFree(&op) &&
                  !isa<memref::LoadOp, memref::StoreOp>(op))) {
        return {};
      }
    }
    if (inner &&
        llvm::any_of(level.getBody()->without_terminator(), [](Operation &op) {
          return isa<memref::LoadOp, memref::StoreOp>(op);
        }))
      return {};
    level = inner;
  }
  // Per written buffer: its accesses (memref, indices).
  Block *innermost = levels.back().getBody();
  llvm::MapVector<Value, SmallVector<std::pair<Value, ValueRange>>> written;
  for (auto store : innermost->getOps<memref::StoreOp>())
    written[buffers.rootOf(store.getMemRef())];
  for (Operation &op : innermost->without_terminator()) {
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndices();
    } else {
      continue;
    }
    auto it = written.find(buffers.rootOf(memref));
    if (it != written.end())
      it->second.push_back({memref, indices});
  }
  SmallVector<scf::ForOp> independent;
  for (scf::ForOp level : levels) {
    Value iv = level.getInductionVar();
    bool everyBuffer = llvm::all_of(written, [&](auto &entry) {
      ArrayRef<std::pair<Value, ValueRange>> accesses = entry.second;
      Value memref = accesses.front().first;
      if (llvm::any_of(accesses, [&](auto &a) { return a.first != memref; }))
        return false;
      for (unsigned dim = 0, e = accesses.front().second.size(); dim < e;
           ++dim) {
        Value index = accesses.front().second[dim];
        if (followsInductionVar(index, iv, nest) &&
            llvm::all_of(accesses,
                         [&](auto &a) { return a.second[dim] == index; }))
          return true;
      }
      return false;
    });
    if (everyBuffer)
      independent.push_back(level);
  }
  return independent;
}

/// Moves `ops` (contiguous, in order: one loop nest and pure ops) into a
/// launch of one thread per iteration of the nest's independent levels
/// (the other levels run in order in each thread); failure if it has none.
LogicalResult wrapInThreadPerIterationLaunch(ArrayRef<Operation *> ops,
                                             const BufferRoots &buffers) {
  scf::ForOp nest;
  for (Operation *op : ops) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (nest)
        return failure();
      nest = loop;
    } else if (op->getNumRegions() != 0 || !isMemoryEffectFree(op)) {
      return failure();
    }
  }
  if (!nest)
    return failure();
  SmallVector<scf::ForOp> parallel = independentLevels(nest, buffers);
  if (parallel.empty())
    return failure();
  for (Operation *op : ops)
    for (Operation *user : op->getUsers())
      if (!llvm::is_contained(ops,
                              op->getBlock()->findAncestorOpInBlock(*user)))
        return failure(); // diagnosed by the one-thread launch

  OpBuilder b(ops.front());
  Location loc = nest.getLoc();
  SmallVector<Value> lower, upper, steps;
  for (scf::ForOp level : parallel) {
    lower.push_back(level.getLowerBound());
    upper.push_back(level.getUpperBound());
    steps.push_back(level.getStep());
  }
  auto loop = scf::ParallelOp::create(b, loc, lower, upper, steps);
  loop->setAttr(kThreadPerIterationAttr, b.getUnitAttr());
  IRMapping mapping;
  for (auto [level, iv] : llvm::zip(parallel, loop.getInductionVars()))
    mapping.map(level.getInductionVar(), iv);
  b.setInsertionPointToStart(loop.getBody());
  for (Operation *op : ops)
    if (op != nest)
      b.clone(*op, mapping);
  // The other levels in order, every level's pure ops in the innermost body.
  SmallVector<Block *> bodies;
  for (scf::ForOp level = nest; level;) {
    bodies.push_back(level.getBody());
    if (!llvm::is_contained(parallel, level)) {
      auto inner = scf::ForOp::create(b, loc, level.getLowerBound(),
                                      level.getUpperBound(), level.getStep());
      mapping.map(level.getInductionVar(), inner.getInductionVar());
      b.setInsertionPointToStart(inner.getBody());
    }
    auto inner = level.getBody()->getOps<scf::ForOp>();
    level = inner.empty() ? scf::ForOp() : *inner.begin();
  }
  for (Block *body : bodies)
    for (Operation &op : body->without_terminator())
      if (!isa<scf::ForOp>(op))
        b.clone(op, mapping);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  return mapLoopNestToGPU(loop);
}

/// Whether `ops` can run as one block of threads: they hold a reduction
/// nest the threads can share (a loss, a sum into a scalar), and their ops
/// with side effects (run by thread 0 there) yield nothing.
bool runsAsBlock(ArrayRef<Operation *> ops) {
  bool reduction = false;
  for (Operation *op : ops) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      reduction |= isReductionNest(loop);
    if (!isMemoryEffectFree(op) && !isa<memref::LoadOp>(op) &&
        op->getNumResults() != 0)
      return false;
  }
  return reduction;
}

/// Moves `ops` (contiguous, in order) into a launch of one block: they
/// become a row nest of one row, which oneflow-map-loops-to-gpu's mapping
/// runs with its reductions strided over the threads and combined by
/// gpu.all_reduce, other stores on thread 0.
LogicalResult wrapInBlockLaunch(ArrayRef<Operation *> ops) {
  if (failed(checkNoValueEscapes(ops)))
    return failure();
  Operation *first = ops.front();
  OpBuilder b(first);
  Location loc = first->getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto row = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one},
                                     ValueRange{one});
  for (Operation *op : ops)
    op->moveBefore(row.getBody()->getTerminator());
  return mapLoopNestToGPU(row);
}

struct MoveHostWorkToGPUPass
    : public oneflow::impl::MoveHostWorkToGPUBase<MoveHostWorkToGPUPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    Block &block = func.getBody().front();
    BufferRoots buffers(func);
    for (auto launch : llvm::to_vector(block.getOps<gpu::LaunchOp>()))
      if (failed(recomputeCapturedScalars(launch)))
        return signalPassFailure();
    eraseDeadHostOps(block);

    // Runs of host ops touching buffers, with the pure ops between them
    // whose results only they use.
    SmallVector<SmallVector<Operation *>> runs;
    SmallVector<Operation *> current, pending;
    auto usedOnlyLater = [&](Operation *op) {
      return llvm::all_of(op->getUsers(), [&](Operation *user) {
        Operation *top = block.findAncestorOpInBlock(*user);
        return top && op->isBeforeInBlock(top) && !staysOnHost(top);
      });
    };
    for (Operation &op : block) {
      if (!staysOnHost(&op) && touchesBuffers(&op)) {
        current.append(pending.begin(), pending.end());
        pending.clear();
        current.push_back(&op);
        continue;
      }
      if (!staysOnHost(&op) && !current.empty() && usedOnlyLater(&op)) {
        pending.push_back(&op);
        continue;
      }
      if (!current.empty() && staysOnHost(&op) && isMemoryEffectFree(&op) &&
          op.getNumRegions() == 0 &&
          llvm::none_of(op.getOperands(), [&](Value v) {
            return llvm::is_contained(current, v.getDefiningOp()) ||
                   llvm::is_contained(pending, v.getDefiningOp());
          }))
        continue; // a constant or view between: it may stay before the run
      if (!current.empty())
        runs.push_back(std::exchange(current, {}));
      pending.clear();
    }
    if (!current.empty())
      runs.push_back(current);
    for (ArrayRef<Operation *> run : runs) {
      // Constants and views that ended up between the run's ops move above
      // it: they depend on nothing the run computes.
      for (Operation *op = run.front(); op != run.back();) {
        Operation *next = op->getNextNode();
        if (!llvm::is_contained(run, op))
          op->moveBefore(run.front());
        op = next;
      }
      if (runsAsBlock(run)) {
        if (failed(wrapInBlockLaunch(run)))
          return signalPassFailure();
        continue;
      }
      if (succeeded(wrapInThreadPerIterationLaunch(run, buffers)))
        continue;
      if (failed(wrapInSingleThreadLaunch(run)))
        return signalPassFailure();
    }
  }
};

} // namespace
