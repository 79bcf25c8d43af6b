//===- FuseRowLoops.cpp - One pass per row over a kernel's loop nests -----===//

#include "oneflow/Codegen/Passes.h"

#include "oneflow/Codegen/LoopWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_FUSEROWLOOPS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

namespace {
/// A load or store seen through the views between it and its buffer.
struct Access {
  Value root;
  bool write;
  /// Whether root dimension d is indexed by the loop's induction variable d
  /// for every d below the prefix length checked.
  bool leadingIndicesAreLoopIndices;
};
} // namespace

/// The dimension of a reassociation group that is not a static 1, or the
/// first when all are; nullopt when several are not.
static std::optional<int64_t> onlyNonUnitDim(ArrayRef<int64_t> shape,
                                             ReassociationIndicesRef group) {
  std::optional<int64_t> found;
  for (int64_t d : group)
    if (shape[d] != 1) {
      if (found)
        return std::nullopt;
      found = d;
    }
  return found ? found : std::optional<int64_t>(group.front());
}

/// The buffer an access through `view` at `indices` touches, and the index of
/// each of its dimensions where known (null where not). Reshapes that only
/// add or drop unit dimensions keep indices known.
static std::pair<Value, SmallVector<Value>> rootOf(Value view,
                                                   ValueRange indices) {
  SmallVector<Value> current(indices.begin(), indices.end());
  while (Operation *def = view.getDefiningOp()) {
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(def)) {
      // One source dimension per group of result dimensions.
      SmallVector<Value> source;
      for (ReassociationIndices group : expand.getReassociationIndices()) {
        std::optional<int64_t> d =
            onlyNonUnitDim(expand.getResultType().getShape(), group);
        source.push_back(d ? current[*d] : Value());
      }
      current = std::move(source);
      view = expand.getSrc();
    } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
      // One result dimension per group of source dimensions.
      ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
      SmallVector<Value> source(shape.size());
      for (auto [r, group] :
           llvm::enumerate(collapse.getReassociationIndices()))
        if (std::optional<int64_t> d = onlyNonUnitDim(shape, group))
          source[*d] = current[r];
      current = std::move(source);
      view = collapse.getSrc();
    } else if (auto viewLike = dyn_cast<ViewLikeOpInterface>(def)) {
      current.assign(current.size(), Value());
      view = viewLike.getViewSource();
      current.resize(cast<MemRefType>(view.getType()).getRank());
    } else {
      break;
    }
  }
  return {view, current};
}

/// Every memory access in `loop`, or failure if something else touches
/// memory (a call, a copy) whose footprint is unknown.
static FailureOr<SmallVector<Access>> collectAccesses(scf::ParallelOp loop,
                                                      unsigned prefix) {
  SmallVector<Access> accesses;
  auto add = [&](Value memref, ValueRange indices, bool write) {
    auto [root, rootIndices] = rootOf(memref, indices);
    bool leading = rootIndices.size() >= prefix;
    for (unsigned d = 0; leading && d < prefix; ++d)
      leading = rootIndices[d] == loop.getInductionVars()[d];
    accesses.push_back({root, write, leading});
  };
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      add(load.getMemRef(), load.getIndices(), /*write=*/false);
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      add(store.getMemRef(), store.getIndices(), /*write=*/true);
    else if (!isa<scf::ForOp, scf::YieldOp, scf::ReduceOp>(op) && !isPure(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return accesses;
}

static bool sameBound(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
  return x && y && *x == *y;
}

/// How many leading dimensions the two loops share (same bounds and steps).
static unsigned commonPrefix(scf::ParallelOp a, scf::ParallelOp b) {
  unsigned n = std::min(a.getNumLoops(), b.getNumLoops()), d = 0;
  while (d < n && sameBound(a.getLowerBound()[d], b.getLowerBound()[d]) &&
         sameBound(a.getUpperBound()[d], b.getUpperBound()[d]) &&
         sameBound(a.getStep()[d], b.getStep()[d]))
    ++d;
  return d;
}

/// Innermost-body iterations per index of the first `prefix` dimensions.
static int64_t rowWork(scf::ParallelOp loop, unsigned prefix, int64_t cap) {
  int64_t work = oneflow::workOfBlock(*loop.getBody(), cap);
  for (unsigned d = prefix; d < loop.getNumLoops(); ++d) {
    std::optional<int64_t> trips = oneflow::tripCount(
        loop.getLowerBound()[d], loop.getUpperBound()[d], loop.getStep()[d]);
    work = trips ? std::min(cap, work * std::max<int64_t>(*trips, 1)) : cap;
  }
  return work;
}

/// Whether running, for each index of the shared prefix, `first`'s
/// iterations and then `second`'s reads and writes what running all of
/// `first` before all of `second` does: every buffer one loop writes and the
/// other touches is accessed, in both, only at the prefix's own index.
static bool isFusionLegal(scf::ParallelOp first, scf::ParallelOp second,
                          unsigned prefix) {
  FailureOr<SmallVector<Access>> a = collectAccesses(first, prefix);
  FailureOr<SmallVector<Access>> b = collectAccesses(second, prefix);
  if (failed(a) || failed(b))
    return false;
  // Buffers one loop writes and the other touches.
  DenseSet<Value> writtenByA, writtenByB, conflicting;
  for (const Access &access : *a)
    if (access.write)
      writtenByA.insert(access.root);
  for (const Access &access : *b)
    if (access.write)
      writtenByB.insert(access.root);
  for (const Access &access : *a)
    if (writtenByB.contains(access.root))
      conflicting.insert(access.root);
  for (const Access &access : *b)
    if (writtenByA.contains(access.root))
      conflicting.insert(access.root);
  for (ArrayRef<Access> accesses : {ArrayRef<Access>(*a), ArrayRef<Access>(*b)})
    for (const Access &access : accesses)
      if (conflicting.contains(access.root) &&
          !access.leadingIndicesAreLoopIndices)
        return false;
  return true;
}

/// Builds, at `builder`'s point, the dimensions of `loop` after `prefix` as
/// sequential loops around a copy of its body.
static void cloneInner(OpBuilder &builder, scf::ParallelOp loop,
                       unsigned prefix, ValueRange prefixIvs) {
  IRMapping mapping;
  for (unsigned d = 0; d < prefix; ++d)
    mapping.map(loop.getInductionVars()[d], prefixIvs[d]);
  OpBuilder::InsertionGuard guard(builder);
  for (unsigned d = prefix; d < loop.getNumLoops(); ++d) {
    auto inner =
        scf::ForOp::create(builder, loop.getLoc(), loop.getLowerBound()[d],
                           loop.getUpperBound()[d], loop.getStep()[d]);
    mapping.map(loop.getInductionVars()[d], inner.getInductionVar());
    builder.setInsertionPointToStart(inner.getBody());
  }
  for (Operation &op : loop.getBody()->without_terminator())
    builder.clone(op, mapping);
}

/// Ops between two loops that may move above the first: they touch no
/// memory (or only allocate) and, loops having no results, need nothing the
/// first loop computes.
static bool canHoistAbove(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isPure(op) || isa<memref::AllocOp, memref::AllocaOp>(op));
}

namespace {
struct FuseRowLoopsPass
    : public oneflow::impl::FuseRowLoopsBase<FuseRowLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() &&
          !llvm::is_contained(blocks, loop->getBlock()))
        blocks.push_back(loop->getBlock());
    });
    for (Block *block : blocks)
      fuseInBlock(*block);
  }

  void fuseInBlock(Block &block) {
    scf::ParallelOp current;
    for (Operation *op = &block.front(); op;) {
      Operation *next = op->getNextNode();
      auto loop = dyn_cast<scf::ParallelOp>(op);
      if (!loop || loop.getNumResults() != 0) {
        if (current && !canHoistAbove(op))
          current = nullptr;
        op = next;
        continue;
      }
      if (current) {
        if (scf::ParallelOp fused = tryFuse(current, loop)) {
          current = fused;
          op = fused->getNextNode();
          continue;
        }
      }
      current = loop;
      op = next;
    }
  }

  /// Fuses `second` into `first` over their shared leading dimensions.
  scf::ParallelOp tryFuse(scf::ParallelOp first, scf::ParallelOp second) {
    unsigned prefix = commonPrefix(first, second);
    if (prefix == 0)
      return nullptr;
    if (rowWork(first, prefix, maxRow + 1) > maxRow ||
        rowWork(second, prefix, maxRow + 1) > maxRow ||
        !isFusionLegal(first, second, prefix))
      return nullptr;
    // What lies between the loops moves above the first.
    for (Operation *op = first->getNextNode(); op != second;) {
      Operation *next = op->getNextNode();
      op->moveBefore(first);
      op = next;
    }
    OpBuilder builder(first);
    auto fused = scf::ParallelOp::create(
        builder, first.getLoc(), first.getLowerBound().take_front(prefix),
        first.getUpperBound().take_front(prefix),
        first.getStep().take_front(prefix));
    builder.setInsertionPointToStart(fused.getBody());
    cloneInner(builder, first, prefix, fused.getInductionVars());
    cloneInner(builder, second, prefix, fused.getInductionVars());
    first.erase();
    second.erase();
    return fused;
  }
};
} // namespace
