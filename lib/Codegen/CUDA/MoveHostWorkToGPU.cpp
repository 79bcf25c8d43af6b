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
#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
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
      if (failed(runsAsBlock(run) ? wrapInBlockLaunch(run)
                                  : wrapInSingleThreadLaunch(run)))
        return signalPassFailure();
    }
  }
};

} // namespace
