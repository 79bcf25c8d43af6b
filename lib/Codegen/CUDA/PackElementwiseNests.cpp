//===- PackElementwiseNests.cpp - Independent elementwise work per launch -===//
//
// Each top-level parallel nest of a kernel becomes one GPU launch. The
// optimizer's updates of all parameters are one kernel (horizontal fusion),
// whose elementwise nests oneflow-fuse-row-loops merges by their shared
// leading dimension (output channels) into row nests: one pass per row is
// what a CPU wants, but on a GPU a row nest runs one block per row (16 or
// 32 blocks for the ResNet), strides only the outer loop of each
// parameter's row over the block's threads (3 of 256 busy for a 3x3x3
// filter), has thread 0 store the per-row scalars behind barriers, and
// walks ~40 buffers in turn in one long kernel of 130+ arguments, which
// ptxas spills. This pass gives such work the shape of PyTorch's
// multi-tensor apply:
//
// - a row nest whose body is independent parts (no part touches a buffer
//   another part writes), each elementwise (every access to a buffer the
//   part writes uses one index list naming every induction variable of the
//   row and of the part's loops, so iterations touch distinct elements),
//   is split into its parts, each flattened into one iteration space;
// - consecutive such parts and elementwise nests that are independent of
//   each other become one parallel nest over their iteration spaces laid
//   end to end, each rounded up to whole 256-thread blocks: one launch,
//   one thread per element, and a block runs one part, picked by a binary
//   search over the part boundaries, so a thread's registers are those of
//   the largest part, not of all of them.
//
// The kernel's other nests (reductions, rows whose parts depend on each
// other) are left as they are. Launch arguments are 8-byte slots; a launch
// takes at most `max-arguments` of them (512: CUDA's 4 KB of kernel
// parameters), beyond which the parts go to the next launch.
//
//===----------------------------------------------------------------------===//

#include "LoopMapping.h"
#include "oneflow/Codegen/LoopWork.h"
#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_PACKELEMENTWISENESTS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

bool isPureOp(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// One independent piece of elementwise work: some ops of a nest's body,
/// run for every point of the nest's dimensions and of the loops around
/// its innermost ops.
struct Part {
  scf::ParallelOp nest;
  /// The nest's body ops it runs, in order; `loop` (if any) among them.
  SmallVector<Operation *> ops;
  scf::ForOp loop;
  /// Whether it is all of a nest without inner loops (already elementwise).
  bool whole = false;
  /// Per dimension (the nest's, then the loops'): induction variable,
  /// first value, trip count, step.
  SmallVector<Value> ivs;
  SmallVector<int64_t> lower, count, step;
  llvm::SmallDenseSet<Value> reads, writes;
  /// Values from above the nest it uses: its launch arguments.
  llvm::SetVector<Value> arguments;

  int64_t size() const {
    int64_t total = 1;
    for (int64_t c : count)
      total *= c;
    return total;
  }
};

/// Appends a dimension running `lower`, `lower + step`, ... `upper`
/// (exclusive); false unless static and not empty.
bool addDimension(Part &part, Value iv, Value lower, Value upper, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lower),
                         s = getConstantIntValue(step);
  std::optional<int64_t> n = tripCount(lower, upper, step);
  if (!l || !s || !n || *n <= 0)
    return false;
  part.ivs.push_back(iv);
  part.lower.push_back(*l);
  part.count.push_back(*n);
  part.step.push_back(*s);
  return true;
}

/// Records the buffers `op` (and what it holds) reads and writes; false if
/// it touches memory other than by loads and stores.
bool collectAccesses(Operation *op, const BufferRoots &buffers, Part &part) {
  WalkResult walk = op->walk([&](Operation *nested) {
    if (auto load = dyn_cast<memref::LoadOp>(nested))
      part.reads.insert(buffers.rootOf(load.getMemRef()));
    else if (auto store = dyn_cast<memref::StoreOp>(nested))
      part.writes.insert(buffers.rootOf(store.getMemRef()));
    else if (!isa<scf::ForOp>(nested) && !isMemoryEffectFree(nested))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

void collectArguments(Part &part) {
  Region &body = part.nest.getRegion();
  for (Operation *op : part.ops)
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        if (body.isAncestor(operand.getParentRegion()))
          continue;
        Operation *def = operand.getDefiningOp();
        // Outlining copies constants into the kernel.
        if (def && def->hasTrait<OpTrait::ConstantLike>())
          continue;
        part.arguments.insert(operand);
      }
    });
}

/// Whether `part`'s points are independent: every access to a buffer it
/// writes uses one index list naming each of its induction variables (so
/// points touch distinct elements and read only their own), through one
/// memref (or arguments of one type: an in-place pair).
bool pointsIndependent(Part &part, const BufferRoots &buffers) {
  struct Access {
    Value memref;
    SmallVector<Value> indices;
  };
  DenseMap<Value, Access> seen;
  bool independent = true;
  for (Operation *op : part.ops)
    op->walk([&](Operation *nested) {
      Value memref;
      ValueRange indices;
      if (auto load = dyn_cast<memref::LoadOp>(nested)) {
        memref = load.getMemRef();
        indices = load.getIndices();
      } else if (auto store = dyn_cast<memref::StoreOp>(nested)) {
        memref = store.getMemRef();
        indices = store.getIndices();
      } else {
        return;
      }
      Value root = buffers.rootOf(memref);
      if (!part.writes.contains(root))
        return;
      auto [it, inserted] =
          seen.try_emplace(root, Access{memref, llvm::to_vector(indices)});
      if (inserted) {
        for (Value iv : part.ivs)
          independent &= llvm::is_contained(indices, iv);
        return;
      }
      const Access &first = it->second;
      bool sameMemref =
          first.memref == memref ||
          (isa<BlockArgument>(first.memref) && isa<BlockArgument>(memref) &&
           first.memref.getType() == memref.getType());
      independent &= sameMemref && first.indices == llvm::to_vector(indices);
    });
  return independent;
}

/// Gives `part` (its ops chosen) its loops and dimensions; false unless it
/// is elementwise: ops at the row level that are pure, loads or (without a
/// loop) stores, and at most one perfect nest of static loops holding
/// loads, stores and pure ops in its innermost body.
bool shapePart(Part &part, const BufferRoots &buffers) {
  for (Operation *op : part.ops) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (part.loop)
        return false;
      part.loop = loop;
    }
  }
  for (Operation *op : part.ops)
    if (op != part.loop && !isPureOp(op) && !isa<memref::LoadOp>(op) &&
        (part.loop || !isa<memref::StoreOp>(op)))
      return false;
  for (scf::ForOp level = part.loop; level;) {
    if (level.getNumResults() != 0 ||
        !addDimension(part, level.getInductionVar(), level.getLowerBound(),
                      level.getUpperBound(), level.getStep()))
      return false;
    scf::ForOp inner;
    bool stores = false;
    for (Operation &op : level.getBody()->without_terminator()) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (inner)
          return false;
        inner = loop;
      } else if (isa<memref::StoreOp>(op)) {
        stores = true;
      } else if (!isPureOp(&op) && !isa<memref::LoadOp>(op)) {
        return false;
      }
    }
    if (inner && stores)
      return false;
    // Inner bounds must not depend on the outer loops.
    if (inner &&
        !llvm::all_of(
            ValueRange{inner.getLowerBound(), inner.getUpperBound(),
                       inner.getStep()},
            [&](Value v) { return part.loop.isDefinedOutsideOfLoop(v); }))
      return false;
    level = inner;
  }
  return pointsIndependent(part, buffers);
}

/// The dimensions of `nest` as the first ones of `part`.
bool addNestDimensions(Part &part, scf::ParallelOp nest) {
  for (auto [iv, l, u, s] :
       llvm::zip(nest.getInductionVars(), nest.getLowerBound(),
                 nest.getUpperBound(), nest.getStep()))
    if (!addDimension(part, iv, l, u, s))
      return false;
  return true;
}

/// The independent elementwise parts of `nest`, or nothing if it is not
/// made of such parts. A nest without inner loops is one part.
std::optional<std::vector<Part>> partsOf(scf::ParallelOp nest,
                                         const BufferRoots &buffers) {
  if (nest.getNumResults() != 0 || nest->hasAttr(kThreadPerIterationAttr))
    return std::nullopt;
  SmallVector<Operation *> body;
  for (Operation &op : nest.getBody()->without_terminator())
    body.push_back(&op);

  if (llvm::none_of(body, [](Operation *op) { return op->getNumRegions(); })) {
    Part part;
    part.nest = nest;
    part.ops = body;
    part.whole = true;
    if (!addNestDimensions(part, nest))
      return std::nullopt;
    for (Operation *op : body)
      if (!collectAccesses(op, buffers, part))
        return std::nullopt;
    collectArguments(part);
    std::vector<Part> parts;
    parts.push_back(std::move(part));
    return parts;
  }

  // A row nest: ops with effects (and loops) joined by the values they
  // pass (through pure ops) and by the buffers one of them writes.
  DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(body))
    position[op] = index;
  llvm::EquivalenceClasses<unsigned> classes;
  SmallVector<unsigned> effectful;
  for (auto [index, op] : llvm::enumerate(body))
    if (!isPureOp(op)) {
      classes.insert(index);
      effectful.push_back(index);
    }
  // The effectful ops and pure ops of the body that `op` depends on.
  auto dependencies = [&](Operation *op, SmallVectorImpl<unsigned> &effects,
                          llvm::SmallDenseSet<unsigned> &pure) {
    SmallVector<Value> worklist;
    op->walk([&](Operation *nested) {
      llvm::append_range(worklist, nested->getOperands());
    });
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != nest.getBody())
        continue;
      unsigned index = position.lookup(def);
      if (!isPureOp(def)) {
        effects.push_back(index);
      } else if (pure.insert(index).second) {
        llvm::append_range(worklist, def->getOperands());
      }
    }
  };
  DenseMap<Value, SmallVector<unsigned>> accessors;
  DenseSet<Value> written;
  for (unsigned index : effectful) {
    SmallVector<unsigned> effects;
    llvm::SmallDenseSet<unsigned> pure;
    dependencies(body[index], effects, pure);
    for (unsigned other : effects)
      classes.unionSets(index, other);
    Part access;
    if (!collectAccesses(body[index], buffers, access))
      return std::nullopt;
    for (Value root : access.reads)
      accessors[root].push_back(index);
    for (Value root : access.writes) {
      accessors[root].push_back(index);
      written.insert(root);
    }
  }
  for (Value root : written)
    for (unsigned index : accessors[root])
      classes.unionSets(accessors[root].front(), index);

  // One part per class, in the order of its first op.
  std::vector<Part> parts;
  DenseMap<unsigned, unsigned> partOfLeader;
  for (unsigned index : effectful) {
    unsigned leader = classes.getLeaderValue(index);
    auto [it, inserted] = partOfLeader.try_emplace(leader, parts.size());
    if (inserted) {
      parts.emplace_back();
      parts.back().nest = nest;
    }
    parts[it->second].ops.push_back(body[index]);
  }
  for (Part &part : parts) {
    llvm::SmallDenseSet<unsigned> members;
    for (Operation *op : part.ops) {
      SmallVector<unsigned> effects;
      members.insert(position.lookup(op));
      dependencies(op, effects, members);
    }
    SmallVector<unsigned> sorted(members.begin(), members.end());
    llvm::sort(sorted);
    part.ops.clear();
    for (unsigned index : sorted)
      part.ops.push_back(body[index]);
    if (!addNestDimensions(part, nest))
      return std::nullopt;
    for (Operation *op : part.ops)
      if (!collectAccesses(op, buffers, part))
        return std::nullopt;
    if (!shapePart(part, buffers))
      return std::nullopt;
    collectArguments(part);
  }
  return parts;
}

/// Whether one of `a` and `b` writes a buffer the other touches.
bool conflict(const Part &a, const Part &b) {
  auto touches = [](const Part &part, Value root) {
    return part.reads.contains(root) || part.writes.contains(root);
  };
  return llvm::any_of(a.writes, [&](Value r) { return touches(b, r); }) ||
         llvm::any_of(b.writes, [&](Value r) { return touches(a, r); });
}

/// Whether `op`, between two nests, may stay above the launch that runs
/// both: it touches no buffer and runs no code of its own.
bool canStayAbove(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isMemoryEffectFree(op) || isa<memref::AllocOp, memref::AllocaOp>(op));
}

/// Index constants, created once above the nest being built.
class Constants {
public:
  explicit Constants(Operation *anchor) : builder(anchor) {}

  void setInsertionPoint(Operation *op) { builder.setInsertionPoint(op); }

  Value get(int64_t value) {
    Value &constant = cache[value];
    if (!constant)
      constant = arith::ConstantIndexOp::create(builder,
                                                builder.getUnknownLoc(), value);
    return constant;
  }

private:
  OpBuilder builder;
  DenseMap<int64_t, Value> cache;
};

/// The zero-based indices of the point at `linear`, row-major over
/// `counts`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Constants &c,
                               Value linear, ArrayRef<int64_t> counts) {
  SmallVector<Value> indices(counts.size());
  Value rest = linear;
  for (int64_t dim = counts.size() - 1; dim >= 0; --dim) {
    indices[dim] = rest;
    if (dim > 0) {
      Value size = c.get(counts[dim]);
      indices[dim] = arith::RemUIOp::create(b, loc, rest, size);
      rest = arith::DivUIOp::create(b, loc, rest, size);
    }
  }
  return indices;
}

/// Clones `part`'s ops for the point at zero-based `indices`, its loops'
/// bodies flattened into one.
void emitPart(OpBuilder &b, Location loc, Constants &c, Part &part,
              ValueRange indices) {
  IRMapping mapping;
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value iv = index;
    if (part.step[dim] != 1)
      iv = arith::MulIOp::create(b, loc, iv, c.get(part.step[dim]));
    if (part.lower[dim] != 0)
      iv = arith::AddIOp::create(b, loc, iv, c.get(part.lower[dim]));
    mapping.map(part.ivs[dim], iv);
  }
  std::function<void(Block &)> cloneLevel = [&](Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (auto loop = dyn_cast<scf::ForOp>(op))
        cloneLevel(*loop.getBody());
      else
        b.clone(op, mapping);
    }
  };
  for (Operation *op : part.ops) {
    if (op == part.loop.getOperation())
      cloneLevel(*part.loop.getBody());
    else
      b.clone(*op, mapping);
  }
}

struct Placed {
  Part *part;
  int64_t start;
  bool guarded;
};

/// Runs the part whose range holds `linear`: a binary search over the
/// part boundaries (block-aligned, so every thread of a block agrees).
void dispatch(OpBuilder &b, Location loc, Constants &c, Value linear,
              ArrayRef<Placed> placed) {
  if (placed.size() == 1) {
    const Placed &only = placed.front();
    Value local = linear;
    if (only.start != 0)
      local = arith::SubIOp::create(b, loc, linear, c.get(only.start));
    if (!only.guarded) {
      emitPart(b, loc, c, *only.part,
               delinearize(b, loc, c, local, only.part->count));
      return;
    }
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         local, c.get(only.part->size()));
    auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPoint(guard.thenYield());
    emitPart(b, loc, c, *only.part,
             delinearize(b, loc, c, local, only.part->count));
    return;
  }
  size_t half = placed.size() / 2;
  Value before = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       linear, c.get(placed[half].start));
  auto split = scf::IfOp::create(b, loc, before, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard insertion(b);
  b.setInsertionPoint(split.thenYield());
  dispatch(b, loc, c, linear, placed.take_front(half));
  b.setInsertionPoint(split.elseYield());
  dispatch(b, loc, c, linear, placed.drop_front(half));
}

/// Replaces `parts` by one parallel nest, before `anchor`.
void emitGroup(ArrayRef<Part *> parts, Operation *anchor) {
  Location loc = parts.front()->nest.getLoc();
  Constants c(anchor);
  SmallVector<Value> lower, upper, steps;
  SmallVector<Placed> placed;
  if (parts.size() == 1) {
    // One part: a nest over its dimensions.
    for (int64_t count : parts.front()->count) {
      lower.push_back(c.get(0));
      upper.push_back(c.get(count));
      steps.push_back(c.get(1));
    }
  } else {
    int64_t start = 0;
    for (auto [index, part] : llvm::enumerate(parts)) {
      int64_t size = part->size();
      int64_t range = index + 1 == parts.size()
                          ? size
                          : llvm::alignTo(size, kElementwiseBlockSize);
      placed.push_back({part, start, range != size});
      start += range;
    }
    lower.push_back(c.get(0));
    upper.push_back(c.get(start));
    steps.push_back(c.get(1));
  }
  OpBuilder b(anchor);
  auto nest = scf::ParallelOp::create(b, loc, lower, upper, steps);
  c.setInsertionPoint(nest);
  b.setInsertionPointToStart(nest.getBody());
  if (parts.size() == 1)
    emitPart(b, loc, c, *parts.front(), nest.getInductionVars());
  else
    dispatch(b, loc, c, nest.getInductionVars().front(), placed);
}

struct PackElementwiseNestsPass
    : public oneflow::impl::PackElementwiseNestsBase<PackElementwiseNestsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    BufferRoots buffers(func);
    Block &block = func.getBody().front();

    // Parts of consecutive packable nests; each group becomes one nest.
    SmallVector<std::unique_ptr<Part>> owned;
    SmallVector<Part *> group;
    llvm::SetVector<Value> groupArguments;
    SmallVector<Operation *> rewritten;
    auto flush = [&]() {
      if (group.empty())
        return;
      // A lone nest without inner loops is already what the group would be.
      if (group.size() > 1 || !group.front()->whole) {
        emitGroup(group, group.back()->nest);
        for (Part *part : group)
          if (!llvm::is_contained(rewritten, part->nest.getOperation()))
            rewritten.push_back(part->nest);
      }
      group.clear();
      groupArguments.clear();
    };
    auto fits = [&](Part &part) {
      llvm::SetVector<Value> arguments = groupArguments;
      arguments.insert(part.arguments.begin(), part.arguments.end());
      return arguments.size() <= maxArguments &&
             llvm::none_of(group,
                           [&](Part *other) { return conflict(*other, part); });
    };

    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto nest = dyn_cast<scf::ParallelOp>(op);
      if (!nest) {
        if (!canStayAbove(&op))
          flush();
        continue;
      }
      std::optional<std::vector<Part>> parts = partsOf(nest, buffers);
      if (!parts) {
        flush();
        continue;
      }
      for (Part &part : *parts) {
        if (!group.empty() && !fits(part))
          flush();
        owned.push_back(std::make_unique<Part>(std::move(part)));
        group.push_back(owned.back().get());
        groupArguments.insert(owned.back()->arguments.begin(),
                              owned.back()->arguments.end());
      }
    }
    flush();
    for (Operation *nest : rewritten)
      nest->erase();
  }
};

} // namespace

BufferRoots::BufferRoots(func::FuncOp func) {
  auto inPlace =
      func->getAttrOfType<DenseI64ArrayAttr>(kUpdatesInPlaceAttrName);
  if (!inPlace || inPlace.size() > func.getNumArguments())
    return;
  // buffer-results-to-out-params appended one out-parameter per result.
  unsigned firstOut = func.getNumArguments() - inPlace.size();
  for (auto [index, argNumber] : llvm::enumerate(inPlace.asArrayRef()))
    if (argNumber >= 0 && argNumber < func.getNumArguments())
      sameAs[func.getArgument(firstOut + index)] = func.getArgument(argNumber);
}

Value BufferRoots::rootOf(Value memref) const {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  auto it = sameAs.find(memref);
  return it == sameAs.end() ? memref : it->second;
}
