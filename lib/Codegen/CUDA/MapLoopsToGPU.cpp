//===- MapLoopsToGPU.cpp - Kernel loop nests onto GPU blocks and threads --===//
//
// After bufferization and the shared loop passes, a kernel body is a
// sequence of parallel loop nests over buffers. Each becomes a gpu.launch:
//
// - an elementwise nest (no loops inside) runs one thread per iteration: a
//   1-D grid of 256-thread blocks over the flattened iteration space, each
//   thread delinearizing its index;
// - a row nest (oneflow-fuse-row-loops' form: a parallel loop over rows
//   whose body runs loops over the row in turn) runs one block per row.
//   Loops over the row are strided over the block's threads, with a barrier
//   after each; a loop that accumulates into a row cell (a reduction: load
//   the cell, combine, store it) accumulates per thread and combines the
//   threads with gpu.all_reduce (warp shuffles and shared memory once
//   lowered to NVVM); stores outside loops are done by thread 0.
//
// Nothing is left on the host but the launches; scratch buffers and library
// calls stay where they are.
//
//===----------------------------------------------------------------------===//

#include "LoopMapping.h"
#include "oneflow/Codegen/LoopWork.h"
#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_MAPLOOPSTOGPU
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// Static trip counts of every dimension of `loop`, or failure (diagnosed).
FailureOr<SmallVector<int64_t>> staticTripCounts(scf::ParallelOp loop) {
  SmallVector<int64_t> counts;
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> count = tripCount(lower, upper, step);
    if (!count)
      return loop.emitOpError() << "has a dynamic trip count; GPU kernels "
                                   "need static loop bounds";
    counts.push_back(*count);
  }
  return counts;
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Maps the induction variables of `loop` to the dimensions of the linear
/// index `linear` over `counts` (row-major).
void delinearize(OpBuilder &b, Location loc, Value linear,
                 ArrayRef<int64_t> counts, scf::ParallelOp loop,
                 IRMapping &mapping) {
  Value rest = linear;
  for (int64_t dim = counts.size() - 1; dim >= 0; --dim) {
    Value index = rest;
    if (dim > 0) {
      Value size = indexConstant(b, loc, counts[dim]);
      index = arith::RemUIOp::create(b, loc, rest, size);
      rest = arith::DivUIOp::create(b, loc, rest, size);
    }
    Value scaled = arith::MulIOp::create(b, loc, index, loop.getStep()[dim]);
    mapping.map(
        loop.getInductionVars()[dim],
        arith::AddIOp::create(b, loc, scaled, loop.getLowerBound()[dim]));
  }
}

/// Clones `block`'s ops but its terminator.
void cloneBody(OpBuilder &b, Block &block, IRMapping &mapping) {
  for (Operation &op : block.without_terminator())
    b.clone(op, mapping);
}

/// A loop nest that accumulates into one cell: `cell[...] =
/// combine(cell[...], value)` in the innermost body, with the cell's indices
/// fixed in the nest. A loop over a row is a nest of one; a reduction over
/// several dimensions (a global pooling, a loss over a whole batch) has one
/// loop per dimension.
struct RowReduction {
  SmallVector<scf::ForOp> nest; // outermost first
  SmallVector<int64_t> counts;  // static trip counts of a nest of several
  memref::LoadOp load;
  memref::StoreOp store;
  Operation *combine;
  Value value; // the nest's contribution, combined with the cell
  gpu::AllReduceOperation kind;
};

std::optional<gpu::AllReduceOperation> reductionKind(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return gpu::AllReduceOperation::ADD;
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return gpu::AllReduceOperation::MUL;
  if (isa<arith::MaximumFOp>(op))
    return gpu::AllReduceOperation::MAXIMUMF;
  if (isa<arith::MinimumFOp>(op))
    return gpu::AllReduceOperation::MINIMUMF;
  if (isa<arith::MaxNumFOp>(op))
    return gpu::AllReduceOperation::MAXNUMF;
  if (isa<arith::MinNumFOp>(op))
    return gpu::AllReduceOperation::MINNUMF;
  if (isa<arith::MaxSIOp>(op))
    return gpu::AllReduceOperation::MAXSI;
  if (isa<arith::MinSIOp>(op))
    return gpu::AllReduceOperation::MINSI;
  return std::nullopt;
}

/// The perfect nest of scf.for starting at `loop`: each outer level holds
/// one loop and otherwise only pure ops and loads (recomputed per
/// iteration once the nest is flattened), loops yield nothing, and inner
/// bounds are fixed in the nest.
SmallVector<scf::ForOp> reductionNest(scf::ForOp loop) {
  SmallVector<scf::ForOp> nest = {loop};
  while (true) {
    scf::ForOp level = nest.back();
    if (level.getNumResults() != 0)
      return {};
    scf::ForOp next;
    bool onlyPure = true;
    for (Operation &op : level.getBody()->without_terminator()) {
      if (auto forOp = dyn_cast<scf::ForOp>(op)) {
        if (next)
          return {};
        next = forOp;
      } else if (!isMemoryEffectFree(&op) && !isa<memref::LoadOp>(op)) {
        onlyPure = false;
      }
    }
    if (!next)
      return nest;
    if (!onlyPure ||
        !llvm::all_of(ValueRange{next.getLowerBound(), next.getUpperBound(),
                                 next.getStep()},
                      [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }))
      return {};
    nest.push_back(next);
  }
}

std::optional<RowReduction> matchRowReduction(scf::ForOp loop) {
  SmallVector<scf::ForOp> nest = reductionNest(loop);
  if (nest.empty())
    return std::nullopt;
  SmallVector<int64_t> counts;
  if (nest.size() > 1) {
    // The flattened nest is strided over the threads: its shape must be
    // known.
    for (scf::ForOp level : nest) {
      std::optional<int64_t> count = tripCount(
          level.getLowerBound(), level.getUpperBound(), level.getStep());
      if (!count)
        return std::nullopt;
      counts.push_back(*count);
    }
  }
  scf::ForOp innermost = nest.back();
  SmallVector<memref::StoreOp> stores;
  loop.getBody()->walk([&](memref::StoreOp store) { stores.push_back(store); });
  if (stores.size() != 1 || stores[0]->getBlock() != innermost.getBody())
    return std::nullopt;
  memref::StoreOp store = stores[0];
  if (!llvm::all_of(store.getIndices(), [&](Value index) {
        return loop.isDefinedOutsideOfLoop(index);
      }))
    return std::nullopt;
  Operation *combine = store.getValue().getDefiningOp();
  if (!combine || combine->getBlock() != innermost.getBody() ||
      combine->getNumOperands() != 2)
    return std::nullopt;
  std::optional<gpu::AllReduceOperation> kind = reductionKind(combine);
  if (!kind)
    return std::nullopt;
  for (unsigned side = 0; side < 2; ++side) {
    auto load = combine->getOperand(side).getDefiningOp<memref::LoadOp>();
    if (!load || load.getMemRef() != store.getMemRef() ||
        load.getIndices() != store.getIndices() || !load->hasOneUse())
      continue;
    // The cell is read nowhere else in the nest.
    bool onlyRead = true;
    loop.getBody()->walk([&](memref::LoadOp other) {
      if (other != load && other.getMemRef() == store.getMemRef())
        onlyRead = false;
    });
    if (!onlyRead)
      return std::nullopt;
    return RowReduction{nest,  counts,  load,
                        store, combine, combine->getOperand(1 - side),
                        *kind};
  }
  return std::nullopt;
}

/// Whether every store in `loop` (nested loops included) writes an element
/// chosen by the loop's own iteration, and every access to a written buffer
/// uses the same index in the dimensions that iteration chooses, so
/// iterations never write one location twice nor read another's, and may
/// run on different threads.
bool writesDistinctElements(scf::ForOp loop) {
  // Per written buffer: the dimensions its stores pick by the iteration,
  // with the index there.
  llvm::DenseMap<Value, SmallVector<std::pair<unsigned, Value>>> written;
  WalkResult walk = loop.getBody()->walk([&](memref::StoreOp store) {
    SmallVector<std::pair<unsigned, Value>> chosen;
    for (auto [dim, index] : llvm::enumerate(store.getIndices()))
      if (followsInductionVar(index, loop.getInductionVar(), loop))
        chosen.push_back({dim, index});
    if (chosen.empty())
      return WalkResult::interrupt();
    auto [it, inserted] = written.try_emplace(store.getMemRef(), chosen);
    return inserted || it->second == chosen ? WalkResult::advance()
                                            : WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return false;
  walk = loop.getBody()->walk([&](memref::LoadOp load) {
    auto it = written.find(load.getMemRef());
    if (it == written.end())
      return WalkResult::advance();
    for (auto [dim, index] : it->second)
      if (load.getIndices()[dim] != index)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

TypedAttr identityOf(gpu::AllReduceOperation kind, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (kind) {
    case gpu::AllReduceOperation::ADD:
      return FloatAttr::get(type, llvm::APFloat::getZero(sem));
    case gpu::AllReduceOperation::MUL:
      return FloatAttr::get(type, llvm::APFloat::getOne(sem));
    case gpu::AllReduceOperation::MAXIMUMF:
    case gpu::AllReduceOperation::MAXNUMF:
      return FloatAttr::get(type, llvm::APFloat::getInf(sem, true));
    default:
      return FloatAttr::get(type, llvm::APFloat::getInf(sem, false));
    }
  }
  auto intType = cast<IntegerType>(type);
  unsigned width = intType.getWidth();
  switch (kind) {
  case gpu::AllReduceOperation::ADD:
    return IntegerAttr::get(type, 0);
  case gpu::AllReduceOperation::MUL:
    return IntegerAttr::get(type, 1);
  case gpu::AllReduceOperation::MAXSI:
    return IntegerAttr::get(type, llvm::APInt::getSignedMinValue(width));
  default:
    return IntegerAttr::get(type, llvm::APInt::getSignedMaxValue(width));
  }
}

class LoopMapper {
public:
  explicit LoopMapper(scf::ParallelOp loop) : loop(loop), b(loop) {}

  LogicalResult map() {
    FailureOr<SmallVector<int64_t>> counts = staticTripCounts(loop);
    if (failed(counts))
      return failure();
    bool hasInnerLoops = false;
    for (Operation &op : loop.getBody()->without_terminator())
      hasInnerLoops |= isa<scf::ForOp, scf::ParallelOp>(op);
    if (loop->hasAttr(kThreadPerIterationAttr))
      hasInnerLoops = false;
    if (hasInnerLoops ? failed(mapRows(*counts)) : failed(mapElements(*counts)))
      return failure();
    loop.erase();
    return success();
  }

private:
  int64_t product(ArrayRef<int64_t> counts) {
    int64_t total = 1;
    for (int64_t count : counts)
      total *= count;
    return total;
  }

  /// Starts a launch of `blocks` x `threads` and returns its thread index.
  gpu::LaunchOp launch(int64_t blocks, int64_t threads) {
    Location loc = loop.getLoc();
    Value one = indexConstant(b, loc, 1);
    auto op =
        gpu::LaunchOp::create(b, loc, indexConstant(b, loc, blocks), one, one,
                              indexConstant(b, loc, threads), one, one);
    b.setInsertionPointToStart(&op.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&op.getBody().front());
    return op;
  }

  LogicalResult mapElements(ArrayRef<int64_t> counts) {
    Location loc = loop.getLoc();
    int64_t total = product(counts);
    int64_t threads = std::min(total, kElementwiseBlockSize);
    gpu::LaunchOp op = launch((total + threads - 1) / threads, threads);
    Value linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, op.getBlockIds().x,
                              indexConstant(b, loc, threads)),
        op.getThreadIds().x);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         linear, indexConstant(b, loc, total));
    auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
    IRMapping mapping;
    delinearize(b, loc, linear, counts, loop, mapping);
    cloneBody(b, *loop.getBody(), mapping);
    return success();
  }

  LogicalResult mapRows(ArrayRef<int64_t> counts) {
    Location loc = loop.getLoc();
    // Enough threads for the longest loop over a row, in whole warps.
    int64_t longest = 1;
    for (Operation &op : loop.getBody()->without_terminator())
      longest = std::max(longest, workOf(&op, kElementwiseBlockSize));
    int64_t threads = 32;
    while (threads < std::min(longest, kElementwiseBlockSize))
      threads *= 2;
    gpu::LaunchOp op = launch(product(counts), threads);
    thread = op.getThreadIds().x;
    numThreads = indexConstant(b, loc, threads);
    IRMapping mapping;
    delinearize(b, loc, op.getBlockIds().x, counts, loop, mapping);
    for (Operation &inner : loop.getBody()->without_terminator())
      if (failed(mapRowOp(inner, mapping)))
        return failure();
    return success();
  }

  void barrier(Location loc) {
    gpu::BarrierOp::create(b, loc);
    loadsSinceBarrier = false;
  }

  /// Runs `build` on thread 0 only, then waits for it.
  template <typename Fn> void onFirstThread(Location loc, Fn build) {
    if (loadsSinceBarrier)
      barrier(loc);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        thread, indexConstant(b, loc, 0));
    auto guard = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
      build();
    }
    barrier(loc);
  }

  LogicalResult mapRowOp(Operation &op, IRMapping &mapping) {
    Location loc = op.getLoc();
    if (auto inner = dyn_cast<scf::ForOp>(op)) {
      if (!op.use_empty())
        return op.emitOpError("yields values used after it; cannot map it to "
                              "a GPU block");
      // A loop of one iteration (a unit dimension of a row) is its body: the
      // loops inside are mapped on their own.
      if (inner.getNumResults() == 0 &&
          tripCount(mapping.lookupOrDefault(inner.getLowerBound()),
                    mapping.lookupOrDefault(inner.getUpperBound()),
                    mapping.lookupOrDefault(inner.getStep())) == 1) {
        mapping.map(inner.getInductionVar(),
                    mapping.lookupOrDefault(inner.getLowerBound()));
        for (Operation &nested : inner.getBody()->without_terminator())
          if (failed(mapRowOp(nested, mapping)))
            return failure();
        return success();
      }
      if (std::optional<RowReduction> reduction = matchRowReduction(inner))
        return mapReduction(inner, *reduction, mapping);
      if (inner.getNumResults() != 0 || !writesDistinctElements(inner)) {
        // Iterations may write one location (a recurrence, a reduction over
        // several loops): one thread runs the loop, in order.
        onFirstThread(loc, [&] { b.clone(op, mapping); });
        return success();
      }
      // Iterations are independent (each writes its own element): stride
      // them over the threads.
      Value start = arith::AddIOp::create(
          b, loc, mapping.lookupOrDefault(inner.getLowerBound()),
          arith::MulIOp::create(b, loc, thread,
                                mapping.lookupOrDefault(inner.getStep())));
      Value stride = arith::MulIOp::create(
          b, loc, mapping.lookupOrDefault(inner.getStep()), numThreads);
      auto strided = scf::ForOp::create(
          b, loc, start, mapping.lookupOrDefault(inner.getUpperBound()),
          stride);
      {
        OpBuilder::InsertionGuard insertion(b);
        b.setInsertionPointToStart(strided.getBody());
        mapping.map(inner.getInductionVar(), strided.getInductionVar());
        cloneBody(b, *inner.getBody(), mapping);
      }
      barrier(loc);
      return success();
    }
    if (auto inner = dyn_cast<scf::ParallelOp>(op)) {
      FailureOr<SmallVector<int64_t>> counts = staticTripCounts(inner);
      if (failed(counts))
        return failure();
      auto strided = scf::ForOp::create(
          b, loc, thread, indexConstant(b, loc, product(*counts)), numThreads);
      {
        OpBuilder::InsertionGuard insertion(b);
        b.setInsertionPointToStart(strided.getBody());
        delinearize(b, loc, strided.getInductionVar(), *counts, inner, mapping);
        cloneBody(b, *inner.getBody(), mapping);
      }
      barrier(loc);
      return success();
    }
    if (isMemoryEffectFree(&op) || isa<memref::LoadOp>(op)) {
      b.clone(op, mapping);
      loadsSinceBarrier |= isa<memref::LoadOp>(op);
      return success();
    }
    if (op.getNumResults() != 0)
      return op.emitOpError("has side effects and results; cannot map it to a "
                            "GPU block");
    onFirstThread(loc, [&] { b.clone(op, mapping); });
    return success();
  }

  /// Each thread accumulates its stride of the row (of the flattened
  /// iterations of a nest); gpu.all_reduce combines the threads, and thread
  /// 0 folds the total into the cell.
  LogicalResult mapReduction(scf::ForOp inner, RowReduction reduction,
                             IRMapping &mapping) {
    Location loc = inner.getLoc();
    Type type = reduction.store.getValue().getType();
    Value identity =
        arith::ConstantOp::create(b, loc, identityOf(reduction.kind, type));
    scf::ForOp strided;
    if (reduction.nest.size() == 1) {
      Value step = mapping.lookupOrDefault(inner.getStep());
      Value start = arith::AddIOp::create(
          b, loc, mapping.lookupOrDefault(inner.getLowerBound()),
          arith::MulIOp::create(b, loc, thread, step));
      Value stride = arith::MulIOp::create(b, loc, step, numThreads);
      strided = scf::ForOp::create(
          b, loc, start, mapping.lookupOrDefault(inner.getUpperBound()), stride,
          ValueRange{identity});
    } else {
      strided = scf::ForOp::create(
          b, loc, thread, indexConstant(b, loc, product(reduction.counts)),
          numThreads, ValueRange{identity});
    }
    {
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPointToStart(strided.getBody());
      if (reduction.nest.size() == 1) {
        mapping.map(inner.getInductionVar(), strided.getInductionVar());
      } else {
        // Row-major delinearization of the flattened index into the
        // nest's induction variables.
        Value rest = strided.getInductionVar();
        for (int64_t level = reduction.nest.size() - 1; level >= 0; --level) {
          scf::ForOp forOp = reduction.nest[level];
          Value index = rest;
          if (level > 0) {
            Value size = indexConstant(b, loc, reduction.counts[level]);
            index = arith::RemUIOp::create(b, loc, rest, size);
            rest = arith::DivUIOp::create(b, loc, rest, size);
          }
          Value scaled = arith::MulIOp::create(
              b, loc, index, mapping.lookupOrDefault(forOp.getStep()));
          mapping.map(forOp.getInductionVar(),
                      arith::AddIOp::create(
                          b, loc, scaled,
                          mapping.lookupOrDefault(forOp.getLowerBound())));
        }
      }
      for (scf::ForOp level : reduction.nest)
        for (Operation &op : level.getBody()->without_terminator())
          if (!isa<scf::ForOp>(op) && &op != reduction.load &&
              &op != reduction.store && &op != reduction.combine)
            b.clone(op, mapping);
      IRMapping combine;
      combine.map(reduction.combine->getOperand(0),
                  strided.getRegionIterArgs()[0]);
      combine.map(reduction.combine->getOperand(1),
                  mapping.lookupOrDefault(reduction.value));
      Value next = b.clone(*reduction.combine, combine)->getResult(0);
      scf::YieldOp::create(b, loc, next);
    }
    Value total = gpu::AllReduceOp::create(b, loc, strided.getResult(0),
                                           gpu::AllReduceOperationAttr::get(
                                               b.getContext(), reduction.kind),
                                           b.getUnitAttr())
                      .getResult();
    // gpu.all_reduce waits for every thread: their loads are done.
    loadsSinceBarrier = false;
    onFirstThread(loc, [&] {
      Operation *load = b.clone(*reduction.load, mapping);
      IRMapping combine;
      combine.map(reduction.load.getResult(), load->getResult(0));
      combine.map(reduction.value, total);
      Operation *folded = b.clone(*reduction.combine, combine);
      IRMapping store(mapping);
      store.map(reduction.combine->getResult(0), folded->getResult(0));
      b.clone(*reduction.store, store);
    });
    return success();
  }

  scf::ParallelOp loop;
  OpBuilder b;
  Value thread, numThreads;
  /// Whether every thread loaded from a buffer since the last barrier: a
  /// store by thread 0 must wait for those loads (it may overwrite what
  /// they read).
  bool loadsSinceBarrier = false;
};

struct MapLoopsToGPUPass
    : public oneflow::impl::MapLoopsToGPUBase<MapLoopsToGPUPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    for (auto loop : llvm::make_early_inc_range(
             func.getBody().front().getOps<scf::ParallelOp>()))
      if (failed(LoopMapper(loop).map()))
        return signalPassFailure();
  }
};
} // namespace

bool mlir::oneflow::isReductionNest(scf::ForOp loop) {
  return matchRowReduction(loop).has_value();
}

LogicalResult mlir::oneflow::mapLoopNestToGPU(scf::ParallelOp loop) {
  return LoopMapper(loop).map();
}

bool mlir::oneflow::followsInductionVar(Value index, Value iv,
                                        scf::ForOp nest) {
  if (index == iv)
    return true;
  Operation *def = index.getDefiningOp();
  if (!def || !isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return false;
  Value lhs = def->getOperand(0), rhs = def->getOperand(1);
  auto fixed = [&](Value v) { return nest.isDefinedOutsideOfLoop(v); };
  if (isa<arith::MulIOp>(def)) {
    auto nonZero = [](Value v) {
      std::optional<int64_t> c = getConstantIntValue(v);
      return c && *c != 0;
    };
    return (followsInductionVar(lhs, iv, nest) && nonZero(rhs)) ||
           (followsInductionVar(rhs, iv, nest) && nonZero(lhs));
  }
  return (followsInductionVar(lhs, iv, nest) && fixed(rhs)) ||
         (followsInductionVar(rhs, iv, nest) && fixed(lhs));
}
