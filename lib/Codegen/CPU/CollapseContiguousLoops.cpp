//===- CollapseContiguousLoops.cpp - One loop over contiguous rows --------===//
//
// Merges the trailing dimensions of an elementwise parallel nest whose
// indices address contiguous memory, so that the innermost loop runs over
// the whole contiguous span: a [64, 64, 3, 3] filter update becomes one loop
// of 36,864 iterations that LLVM vectorizes, instead of rows of 3.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_COLLAPSECONTIGUOUSLOOPS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

namespace {
/// A load or store and where its indices sit among its operands.
struct Access {
  Operation *op;
  Value memref;
  OperandRange indices;
};
} // namespace

static std::optional<Access> getAccess(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return Access{op, load.getMemRef(), load.getIndices()};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return Access{op, store.getMemRef(), store.getIndices()};
  return std::nullopt;
}

/// Whether `access` indexes its buffer's last ivs.size() dimensions with
/// exactly `ivs`, in order, and nowhere else, on an identity-layout buffer
/// whose trailing sizes are `sizes`.
static bool indexesTrailingSpan(const Access &access, ValueRange ivs,
                                ArrayRef<int64_t> sizes) {
  auto type = dyn_cast<MemRefType>(access.memref.getType());
  size_t rank = access.indices.size(), span = ivs.size();
  if (!type || !type.getLayout().isIdentity() || rank < span)
    return false;
  for (size_t i = 0; i < rank; ++i) {
    Value index = access.indices[i];
    bool trailing = i >= rank - span;
    if (!trailing) {
      if (llvm::is_contained(ivs, index))
        return false;
      continue;
    }
    size_t j = i - (rank - span);
    if (index != ivs[j] || type.getDimSize(i) != sizes[j])
      return false;
  }
  return true;
}

/// The accesses through which `loop` uses its induction variables from
/// `first` on, if every use is a trailing span as above.
static std::optional<SmallVector<Access>>
collapsibleAccesses(scf::ParallelOp loop, unsigned first,
                    ArrayRef<int64_t> sizes) {
  ValueRange ivs = ValueRange(loop.getBody()->getArguments()).drop_front(first);
  ArrayRef<int64_t> spanSizes = sizes.drop_front(first);
  SmallVector<Access> accesses;
  llvm::SmallPtrSet<Operation *, 16> seen;
  for (Value iv : ivs) {
    for (Operation *user : iv.getUsers()) {
      std::optional<Access> access = getAccess(user);
      // (A stored index is a use the merge cannot rewrite.)
      auto store = dyn_cast<memref::StoreOp>(user);
      if (!access || (store && store.getValueToStore() == iv) ||
          !indexesTrailingSpan(*access, ivs, spanSizes))
        return std::nullopt;
      if (seen.insert(user).second)
        accesses.push_back(*access);
    }
  }
  return accesses;
}

/// The buffer `memref` with its last `span` dimensions merged, created
/// before `loop` when the buffer is defined outside it (once per buffer).
static Value collapsed(OpBuilder &builder, scf::ParallelOp loop,
                       const Access &access, unsigned span,
                       DenseMap<Value, Value> &hoisted) {
  Value memref = access.memref;
  bool outside = !loop.getRegion().isAncestor(memref.getParentRegion());
  if (outside)
    if (Value known = hoisted.lookup(memref))
      return known;
  auto type = cast<MemRefType>(memref.getType());
  unsigned rank = type.getRank();
  SmallVector<ReassociationIndices> groups;
  for (unsigned i = 0; i < rank - span; ++i)
    groups.push_back({static_cast<int64_t>(i)});
  ReassociationIndices merged;
  for (unsigned i = rank - span; i < rank; ++i)
    merged.push_back(i);
  groups.push_back(merged);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(outside ? loop.getOperation() : access.op);
  Value result = memref::CollapseShapeOp::create(builder, access.op->getLoc(),
                                                 memref, groups);
  if (outside)
    hoisted[memref] = result;
  return result;
}

/// Rebuilds `loop` with its dimensions from `first` on merged into one.
static void collapse(scf::ParallelOp loop, unsigned first,
                     ArrayRef<int64_t> sizes, ArrayRef<Access> accesses) {
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  int64_t total = 1;
  for (int64_t size : sizes.drop_front(first))
    total *= size;
  SmallVector<Value> lower(loop.getLowerBound().take_front(first)),
      upper(loop.getUpperBound().take_front(first)),
      step(loop.getStep().take_front(first));
  lower.push_back(arith::ConstantIndexOp::create(builder, loc, 0));
  upper.push_back(arith::ConstantIndexOp::create(builder, loc, total));
  step.push_back(arith::ConstantIndexOp::create(builder, loc, 1));
  auto merged = scf::ParallelOp::create(builder, loc, lower, upper, step);
  Value index = merged.getInductionVars().back();

  unsigned span = sizes.size() - first;
  DenseMap<Value, Value> hoisted;
  for (const Access &access : accesses) {
    Value memref = collapsed(builder, merged, access, span, hoisted);
    SmallVector<Value> indices(access.indices.drop_back(span));
    indices.push_back(index);
    builder.setInsertionPoint(access.op);
    if (auto load = dyn_cast<memref::LoadOp>(access.op)) {
      load.replaceAllUsesWith(
          memref::LoadOp::create(builder, load.getLoc(), memref, indices)
              .getResult());
    } else {
      auto store = cast<memref::StoreOp>(access.op);
      memref::StoreOp::create(builder, store.getLoc(), store.getValueToStore(),
                              memref, indices);
    }
    access.op->erase();
  }
  for (unsigned d = 0; d < first; ++d)
    loop.getInductionVars()[d].replaceAllUsesWith(merged.getInductionVars()[d]);
  Block *body = merged.getBody();
  body->getTerminator()->erase();
  body->getOperations().splice(body->end(), loop.getBody()->getOperations());
  loop.erase();
}

namespace {
struct CollapseContiguousLoopsPass
    : public oneflow::impl::CollapseContiguousLoopsBase<
          CollapseContiguousLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation()->walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() &&
          op.getNumReductions() == 0 && op.getNumLoops() >= 2)
        loops.push_back(op);
    });
    for (scf::ParallelOp loop : loops) {
      auto sizes =
          getConstantIntValues(getAsOpFoldResult(loop.getUpperBound()));
      if (!sizes ||
          !areAllConstantIntValue(getAsOpFoldResult(loop.getLowerBound()), 0) ||
          !areAllConstantIntValue(getAsOpFoldResult(loop.getStep()), 1))
        continue;
      // Merging [first, n) is legal whenever merging [first - 1, n) is:
      // the first legal start is the widest span.
      unsigned n = loop.getNumLoops();
      for (unsigned first = 0; first + 2 <= n; ++first) {
        if (auto accesses = collapsibleAccesses(loop, first, *sizes)) {
          collapse(loop, first, *sizes, *accesses);
          break;
        }
      }
    }
  }
};
} // namespace
