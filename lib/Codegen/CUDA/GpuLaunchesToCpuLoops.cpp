//===- GpuLaunchesToCpuLoops.cpp - Run GPU launches as CPU loops ----------===//
//
// There is no GPU in CI, so the CUDA backend's loop mapping is checked on
// the CPU: every gpu.launch becomes sequential loops with exactly the GPU
// semantics (MCUDA's "loop fission at barriers"):
//
// - a loop nest over the grid's blocks;
// - inside it, the launch body split at each top-level gpu.barrier and
//   gpu.all_reduce into phases, each phase a loop nest over the block's
//   threads: every thread finishes a phase before any starts the next, which
//   is all a barrier promises;
// - a value computed by a thread in one phase and used in a later one lives
//   in a per-thread buffer (an alloca of blockDim elements), unless it is
//   uniform (pure and computed from block-level values only: it is then
//   computed once per block, outside the thread loops);
// - a gpu.all_reduce stores its operand per thread and folds the threads in
//   order (thread 0 first) after the phase; its result is uniform.
//
// Barriers and all-reduces nested in other regions would need the threads
// to diverge around them: they are rejected, as are warp-level operations
// (oneflow-map-loops-to-gpu never makes them).
//
//===----------------------------------------------------------------------===//

#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_GPULAUNCHESTOCPULOOPS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// Calls `fn` on every value `op` (or an op nested in it) uses that is
/// defined outside `op`.
void forEachUsedValue(Operation *op, function_ref<void(Value)> fn) {
  op->walk([&](Operation *nested) {
    for (Value value : nested->getOperands()) {
      Region *region = value.getParentRegion();
      if (!region || !op->isAncestor(region->getParentOp()))
        fn(value);
    }
  });
}

/// `lhs <kind> rhs` for a gpu.all_reduce's named combining kind.
Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
              Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(lhs.getType()));
  switch (kind) {
  case gpu::AllReduceOperation::ADD:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case gpu::AllReduceOperation::MUL:
    return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
  case gpu::AllReduceOperation::MINUI:
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MINSI:
    return arith::MinSIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MAXUI:
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MAXSI:
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::AND:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::OR:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::XOR:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MINNUMF:
    return arith::MinNumFOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("unknown all-reduce kind");
}

/// Opens nested scf.for loops from 0 to each of `sizes` (the first
/// outermost; none for a size of 1), leaves `b` in the innermost body and
/// returns the induction variables (0 for a size of 1) in the order of
/// `sizes`; with `reverse`, each runs from its size - 1 down to 0.
SmallVector<Value> openLoopNest(OpBuilder &b, Location loc,
                                ArrayRef<Value> sizes, bool reverse = false) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> ivs;
  for (Value size : sizes) {
    if (getConstantIntValue(size) == 1) {
      ivs.push_back(zero);
      continue;
    }
    auto loop = scf::ForOp::create(b, loc, zero, size, one);
    b.setInsertionPointToStart(loop.getBody());
    Value iv = loop.getInductionVar();
    if (reverse)
      iv = arith::SubIOp::create(b, loc,
                                 arith::SubIOp::create(b, loc, size, one), iv);
    ivs.push_back(iv);
  }
  return ivs;
}

/// A run of the launch body between two synchronizations: its per-thread
/// ops, run in a loop over the threads, and the all-reduce that ends it.
struct Phase {
  SmallVector<Operation *> uniformOps, threadOps;
  gpu::AllReduceOp reduce;
  /// Per-thread values stored at its end and loaded at its start.
  llvm::SetVector<Value> stores, loads;
};

class LaunchLowering {
public:
  LaunchLowering(gpu::LaunchOp launch, bool reverseThreads)
      : launch(launch), body(launch.getBody().front()),
        reverseThreads(reverseThreads) {}

  LogicalResult run() {
    if (failed(check()))
      return failure();
    replaceIdOps();
    if (failed(splitPhases()) || failed(findPerThreadValues()))
      return failure();
    emit();
    launch.erase();
    return success();
  }

private:
  LogicalResult check() {
    if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
      return launch.emitOpError("is asynchronous; only synchronous launches "
                                "run as CPU loops");
    if (launch.hasClusterSize())
      return launch.emitOpError("has thread block clusters; they do not run "
                                "as CPU loops");
    if (launch.getDynamicSharedMemorySize() ||
        !launch.getWorkgroupAttributions().empty() ||
        !launch.getPrivateAttributions().empty())
      return launch.emitOpError("uses shared or private memory attributions; "
                                "they do not run as CPU loops");
    if (!llvm::hasSingleElement(launch.getBody()))
      return launch.emitOpError("has a body of several blocks; only a single "
                                "block runs as CPU loops");
    WalkResult walk = body.walk<WalkOrder::PreOrder>([&](Operation *op) {
      bool topLevel = op->getBlock() == &body;
      if (isa<gpu::BarrierOp, gpu::AllReduceOp>(op) && !topLevel) {
        op->emitOpError("is nested in '")
            << op->getParentOp()->getName()
            << "'; only barriers and all-reduces at the top level of a "
               "launch body can be run as CPU loops (the threads would have "
               "to diverge around it)";
        return WalkResult::interrupt();
      }
      if (isa<gpu::AllReduceOp>(op))
        return WalkResult::skip(); // its region is a plain combiner
      if (isa<gpu::BarrierOp, gpu::TerminatorOp, gpu::ThreadIdOp,
              gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp>(op) ||
          !isa<gpu::GPUDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitOpError("has no CPU loop equivalent (oneflow-map-loops-to-gpu "
                      "never makes it)");
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }

  /// gpu.thread_id and friends become the launch body's arguments.
  void replaceIdOps() {
    auto pick = [](gpu::KernelDim3 dims, gpu::Dimension dim) {
      return dim == gpu::Dimension::x   ? dims.x
             : dim == gpu::Dimension::y ? dims.y
                                        : dims.z;
    };
    body.walk([&](Operation *op) {
      Value replacement;
      if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
        replacement = pick(launch.getThreadIds(), id.getDimension());
      else if (auto id = dyn_cast<gpu::BlockIdOp>(op))
        replacement = pick(launch.getBlockIds(), id.getDimension());
      else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
        replacement = pick(launch.getBlockSize(), dim.getDimension());
      else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
        replacement = pick(launch.getGridSize(), dim.getDimension());
      if (!replacement)
        return;
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    });
  }

  bool isUniform(Value value) {
    gpu::KernelDim3 threads = launch.getThreadIds();
    if (value == threads.x || value == threads.y || value == threads.z)
      return false;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &body)
      return true; // defined outside the launch, or a block-level argument
    return uniformOps.contains(def) || isa<gpu::AllReduceOp>(def);
  }

  /// Cuts the body at each barrier and all-reduce; pure ops computed from
  /// uniform values only are uniform (run once per block).
  LogicalResult splitPhases() {
    phases.emplace_back();
    for (Operation &op : body.without_terminator()) {
      if (isa<gpu::BarrierOp>(op)) {
        phases.emplace_back();
        continue;
      }
      phaseOf[&op] = phases.size() - 1;
      if (auto reduce = dyn_cast<gpu::AllReduceOp>(op)) {
        phases.back().reduce = reduce;
        phases.emplace_back();
        continue;
      }
      bool uniform = isMemoryEffectFree(&op);
      forEachUsedValue(&op, [&](Value value) { uniform &= isUniform(value); });
      if (uniform) {
        uniformOps.insert(&op);
        phases.back().uniformOps.push_back(&op);
      } else {
        phases.back().threadOps.push_back(&op);
      }
    }
    return success();
  }

  /// The phase in which `value`, a per-thread value, is available.
  unsigned phaseOfValue(Value value, unsigned use) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &body)
      return use; // a thread id: known in every phase
    return phaseOf.lookup(def);
  }

  LogicalResult needPerThread(Value value, unsigned use, Operation *user) {
    if (isUniform(value))
      return success();
    unsigned def = phaseOfValue(value, use);
    bool isReduced = isa<gpu::AllReduceOp>(user);
    if (def == use && !isReduced)
      return success();
    Type type = value.getType();
    if (!MemRefType::isValidElementType(type) || isa<MemRefType>(type))
      return user->emitOpError("uses a per-thread ")
             << type
             << " from before a barrier; it cannot be kept in a per-thread "
                "buffer";
    phases[def].stores.insert(value);
    if (def != use)
      phases[use].loads.insert(value);
    return success();
  }

  LogicalResult findPerThreadValues() {
    for (auto [index, phase] : llvm::enumerate(phases)) {
      for (Operation *op : phase.threadOps) {
        LogicalResult result = success();
        forEachUsedValue(op, [&](Value value) {
          if (succeeded(result))
            result = needPerThread(value, index, op);
        });
        if (failed(result))
          return failure();
      }
      if (phase.reduce &&
          failed(needPerThread(phase.reduce.getValue(), index, phase.reduce)))
        return failure();
    }
    return success();
  }

  void emit() {
    Location loc = launch.getLoc();
    OpBuilder b(launch);
    SmallVector<Value> blockSizes = {
        launch.getBlockSizeZ(), launch.getBlockSizeY(), launch.getBlockSizeX()};
    SmallVector<Value> gridSizes = {
        launch.getGridSizeZ(), launch.getGridSizeY(), launch.getGridSizeX()};
    // One slot per thread of a block for every per-thread value, allocated
    // once before the block loops (the blocks run one after the other).
    Value numThreads = b.createOrFold<arith::MulIOp>(
        loc, b.createOrFold<arith::MulIOp>(loc, blockSizes[0], blockSizes[1]),
        blockSizes[2]);
    std::optional<int64_t> staticThreads = getConstantIntValue(numThreads);
    for (Phase &phase : phases)
      for (Value value : phase.stores) {
        MemRefType type =
            staticThreads
                ? MemRefType::get({*staticThreads}, value.getType())
                : MemRefType::get({ShapedType::kDynamic}, value.getType());
        buffers[value] =
            staticThreads
                ? memref::AllocaOp::create(b, loc, type).getResult()
                : memref::AllocaOp::create(b, loc, type, ValueRange{numThreads})
                      .getResult();
      }

    IRMapping blockMapping;
    SmallVector<Value> blockIvs = openLoopNest(b, loc, gridSizes);
    gpu::KernelDim3 blockIds = launch.getBlockIds();
    blockMapping.map(blockIds.z, blockIvs[0]);
    blockMapping.map(blockIds.y, blockIvs[1]);
    blockMapping.map(blockIds.x, blockIvs[2]);
    auto mapDims = [&](gpu::KernelDim3 args, ArrayRef<Value> values) {
      blockMapping.map(args.z, values[0]);
      blockMapping.map(args.y, values[1]);
      blockMapping.map(args.x, values[2]);
    };
    mapDims(launch.getGridSize(), gridSizes);
    mapDims(launch.getBlockSize(), blockSizes);

    for (Phase &phase : phases) {
      for (Operation *op : phase.uniformOps)
        b.clone(*op, blockMapping);
      if (!phase.threadOps.empty() || !phase.stores.empty()) {
        OpBuilder::InsertionGuard guard(b);
        IRMapping mapping = blockMapping;
        SmallVector<Value> threadIvs =
            openLoopNest(b, loc, blockSizes, reverseThreads);
        gpu::KernelDim3 threadIds = launch.getThreadIds();
        mapping.map(threadIds.z, threadIvs[0]);
        mapping.map(threadIds.y, threadIvs[1]);
        mapping.map(threadIds.x, threadIvs[2]);
        // Thread (x, y, z) is slot x + X * (y + Y * z), CUDA's linear order.
        Value slot;
        if (!phase.loads.empty() || !phase.stores.empty())
          slot = b.createOrFold<arith::AddIOp>(
              loc, threadIvs[2],
              b.createOrFold<arith::MulIOp>(
                  loc, blockSizes[2],
                  b.createOrFold<arith::AddIOp>(
                      loc, threadIvs[1],
                      b.createOrFold<arith::MulIOp>(loc, blockSizes[1],
                                                    threadIvs[0]))));
        for (Value value : phase.loads)
          mapping.map(value, memref::LoadOp::create(b, loc, buffers[value],
                                                    ValueRange{slot}));
        for (Operation *op : phase.threadOps)
          b.clone(*op, mapping);
        for (Value value : phase.stores)
          memref::StoreOp::create(b, loc, mapping.lookupOrDefault(value),
                                  buffers[value], ValueRange{slot});
      }
      if (phase.reduce)
        blockMapping.map(phase.reduce.getResult(),
                         fold(b, phase.reduce, blockMapping, numThreads));
    }
  }

  /// The threads' values of `reduce`'s operand combined in thread order.
  Value fold(OpBuilder &b, gpu::AllReduceOp reduce, IRMapping &mapping,
             Value numThreads) {
    Location loc = reduce.getLoc();
    Value operand = reduce.getValue();
    auto valueOf = [&](Value slot) -> Value {
      auto buffer = buffers.find(operand);
      if (buffer == buffers.end())
        return mapping.lookupOrDefault(operand); // uniform
      return memref::LoadOp::create(b, loc, buffer->second, ValueRange{slot});
    };
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value first = valueOf(zero);
    auto loop =
        scf::ForOp::create(b, loc, one, numThreads, one, ValueRange{first});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value acc = loop.getRegionIterArgs()[0];
    Value next = valueOf(loop.getInductionVar());
    Value combined;
    if (std::optional<gpu::AllReduceOperation> kind = reduce.getOp()) {
      combined = combine(b, loc, *kind, acc, next);
    } else {
      // The combiner region: one block of (lhs, rhs) yielding the result.
      Block &combiner = reduce.getBody().front();
      IRMapping regionMapping = mapping;
      regionMapping.map(combiner.getArgument(0), acc);
      regionMapping.map(combiner.getArgument(1), next);
      for (Operation &op : combiner.without_terminator())
        b.clone(op, regionMapping);
      combined = regionMapping.lookupOrDefault(
          combiner.getTerminator()->getOperand(0));
    }
    scf::YieldOp::create(b, loc, combined);
    return loop.getResult(0);
  }

  gpu::LaunchOp launch;
  Block &body;
  bool reverseThreads;
  SmallVector<Phase> phases;
  llvm::DenseMap<Operation *, unsigned> phaseOf;
  llvm::SmallPtrSet<Operation *, 16> uniformOps;
  llvm::DenseMap<Value, Value> buffers;
};

struct GpuLaunchesToCpuLoopsPass
    : public oneflow::impl::GpuLaunchesToCpuLoopsBase<
          GpuLaunchesToCpuLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches)
      if (failed(LaunchLowering(launch, reverseThreads).run()))
        return signalPassFailure();
  }
};
} // namespace
