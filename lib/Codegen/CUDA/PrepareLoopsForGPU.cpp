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
//   (one block per column, its threads over the reduced elements);
// - the CPU kernel library's running sums and top-k along an axis
//   (`oneflow_cumsum_*`, `oneflow_topk_*`, which have no CUDA version)
//   become loop nests: one GPU thread per position around the axis, each
//   scanning the axis in order (top-k as k selection passes; fine for the
//   small k and axes models use); NonMaxSuppression, Unique and NonZero too
//   (DataDependentLoops.cpp).
//
//===----------------------------------------------------------------------===//

#include "CallLoops.h"
#include "LoopMapping.h"
#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

} // namespace

//===----------------------------------------------------------------------===//
// Library calls as loops (CallLoops.h)
//===----------------------------------------------------------------------===//

Value call_loops::flatBuffer(OpBuilder &b, Location loc, Value argument) {
  auto indexCast = argument.getDefiningOp<arith::IndexCastOp>();
  if (!indexCast)
    return {};
  auto pointer =
      indexCast.getIn().getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>();
  if (!pointer)
    return {};
  Value buffer = pointer.getSource();
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return {};
  int64_t count = type.getNumElements();
  return memref::ReinterpretCastOp::create(
      b, loc, MemRefType::get({count}, type.getElementType()), buffer,
      /*offset=*/0, /*sizes=*/ArrayRef<int64_t>{count},
      /*strides=*/ArrayRef<int64_t>{1});
}

Value call_loops::index(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value call_loops::alongAxis(OpBuilder &b, Location loc, Value o, int64_t n,
                            Value j, int64_t inner, Value i) {
  Value row = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, o, index(b, loc, n)), j);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, index(b, loc, inner)), i);
}

void call_loops::aroundAxis(
    OpBuilder &b, Location loc, int64_t outer, int64_t inner,
    function_ref<void(OpBuilder &, Location, Value, Value)> body) {
  auto loop = scf::ParallelOp::create(
      b, loc, ValueRange{index(b, loc, 0), index(b, loc, 0)},
      ValueRange{index(b, loc, outer), index(b, loc, inner)},
      ValueRange{index(b, loc, 1), index(b, loc, 1)},
      [&](OpBuilder &nested, Location nestedLoc, ValueRange ivs) {
        body(nested, nestedLoc, ivs[0], ivs[1]);
      });
  loop->setAttr(kThreadPerIterationAttr, b.getUnitAttr());
}

FailureOr<SmallVector<int64_t>> call_loops::constantScalars(func::CallOp call,
                                                            unsigned first) {
  SmallVector<int64_t> scalars;
  for (Value operand : call.getOperands().drop_front(first)) {
    std::optional<int64_t> value = getConstantIntValue(operand);
    if (!value)
      return failure();
    scalars.push_back(*value);
  }
  return scalars;
}

namespace {

using namespace call_loops;

/// `oneflow_cumsum_T(x, y, outer, n, inner, exclusive, reverse)` as loops.
LogicalResult cumsumToLoops(func::CallOp call) {
  FailureOr<SmallVector<int64_t>> constants = constantScalars(call, 2);
  if (failed(constants))
    return failure();
  ArrayRef<int64_t> scalars = *constants;
  OpBuilder b(call);
  Location loc = call.getLoc();
  Value x = flatBuffer(b, loc, call.getOperand(0));
  Value y = flatBuffer(b, loc, call.getOperand(1));
  if (!x || !y || scalars.size() != 5)
    return failure();
  int64_t outer = scalars[0], n = scalars[1], inner = scalars[2];
  bool exclusive = scalars[3] != 0, reverse = scalars[4] != 0;
  Type type = cast<MemRefType>(x.getType()).getElementType();
  aroundAxis(
      b, loc, outer, inner, [&](OpBuilder &b, Location loc, Value o, Value i) {
        Value zero =
            arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
        scf::ForOp::create(
            b, loc, index(b, loc, 0), index(b, loc, n), index(b, loc, 1),
            ValueRange{zero},
            [&](OpBuilder &b, Location loc, Value s, ValueRange sum) {
              Value j = reverse ? Value(arith::SubIOp::create(
                                      b, loc, index(b, loc, n - 1), s))
                                : s;
              Value at = alongAxis(b, loc, o, n, j, inner, i);
              Value v = memref::LoadOp::create(b, loc, x, at);
              Value next =
                  isa<FloatType>(type)
                      ? Value(arith::AddFOp::create(b, loc, sum[0], v))
                      : Value(arith::AddIOp::create(b, loc, sum[0], v));
              memref::StoreOp::create(b, loc, exclusive ? sum[0] : next, y, at);
              scf::YieldOp::create(b, loc, next);
            });
      });
  call.erase();
  return success();
}

/// Whether (av, aj) comes before (bv, bj) in top-k order: larger (smaller)
/// values first, ties by the lower index, as the CPU kernel orders them.
Value precedes(OpBuilder &b, Location loc, bool smallest, Value av, Value aj,
               Value bv, Value bj) {
  Value strict, equal;
  if (isa<FloatType>(av.getType())) {
    strict = arith::CmpFOp::create(b, loc,
                                   smallest ? arith::CmpFPredicate::OLT
                                            : arith::CmpFPredicate::OGT,
                                   av, bv);
    equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, av, bv);
  } else {
    strict = arith::CmpIOp::create(b, loc,
                                   smallest ? arith::CmpIPredicate::slt
                                            : arith::CmpIPredicate::sgt,
                                   av, bv);
    equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, av, bv);
  }
  Value lower =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, aj, bj);
  return arith::OrIOp::create(b, loc, strict,
                              arith::AndIOp::create(b, loc, equal, lower));
}

/// `oneflow_topk_T(x, values, indices, outer, n, inner, k, smallest,
/// sorted)` as loops: k passes over the axis, each picking the first
/// element after the previous pick in top-k order; unsorted results keep
/// the axis order (a last pass takes every element up to the k-th pick).
LogicalResult topkToLoops(func::CallOp call) {
  FailureOr<SmallVector<int64_t>> constants = constantScalars(call, 3);
  if (failed(constants))
    return failure();
  ArrayRef<int64_t> scalars = *constants;
  OpBuilder b(call);
  Location loc = call.getLoc();
  Value x = flatBuffer(b, loc, call.getOperand(0));
  Value values = flatBuffer(b, loc, call.getOperand(1));
  Value indices = flatBuffer(b, loc, call.getOperand(2));
  if (!x || !values || !indices || scalars.size() != 6)
    return failure();
  int64_t outer = scalars[0], n = scalars[1], inner = scalars[2],
          k = scalars[3];
  bool smallest = scalars[4] != 0, sorted = scalars[5] != 0;
  Type type = cast<MemRefType>(x.getType()).getElementType();
  Type i64 = b.getI64Type();
  aroundAxis(
      b, loc, outer, inner, [&](OpBuilder &b, Location loc, Value o, Value i) {
        Value none = index(b, loc, -1);
        Value zero =
            arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
        auto store = [&](OpBuilder &b, Location loc, Value r, Value v,
                         Value j) {
          Value at = alongAxis(b, loc, o, k, r, inner, i);
          memref::StoreOp::create(b, loc, v, values, at);
          memref::StoreOp::create(
              b, loc, arith::IndexCastOp::create(b, loc, i64, j), indices, at);
        };
        auto picks = scf::ForOp::create(
            b, loc, index(b, loc, 0), index(b, loc, k), index(b, loc, 1),
            ValueRange{zero, none},
            [&](OpBuilder &b, Location loc, Value r, ValueRange previous) {
              auto pass = scf::ForOp::create(
                  b, loc, index(b, loc, 0), index(b, loc, n), index(b, loc, 1),
                  ValueRange{zero, none},
                  [&](OpBuilder &b, Location loc, Value j, ValueRange best) {
                    Value v = memref::LoadOp::create(
                        b, loc, x, alongAxis(b, loc, o, n, j, inner, i));
                    Value first =
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              previous[1], index(b, loc, 0));
                    Value eligible = arith::OrIOp::create(
                        b, loc, first,
                        precedes(b, loc, smallest, previous[0], previous[1], v,
                                 j));
                    Value empty =
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              best[1], index(b, loc, 0));
                    Value better = arith::OrIOp::create(
                        b, loc, empty,
                        precedes(b, loc, smallest, v, j, best[0], best[1]));
                    Value take =
                        arith::AndIOp::create(b, loc, eligible, better);
                    scf::YieldOp::create(
                        b, loc,
                        ValueRange{
                            arith::SelectOp::create(b, loc, take, v, best[0]),
                            arith::SelectOp::create(b, loc, take, j, best[1])});
                  });
              if (sorted)
                store(b, loc, r, pass.getResult(0), pass.getResult(1));
              scf::YieldOp::create(b, loc, pass.getResults());
            });
        if (sorted)
          return;
        Value last = picks.getResult(0), lastIndex = picks.getResult(1);
        scf::ForOp::create(
            b, loc, index(b, loc, 0), index(b, loc, n), index(b, loc, 1),
            ValueRange{index(b, loc, 0)},
            [&](OpBuilder &b, Location loc, Value j, ValueRange r) {
              Value v = memref::LoadOp::create(
                  b, loc, x, alongAxis(b, loc, o, n, j, inner, i));
              Value keep = arith::OrIOp::create(
                  b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, j,
                                        lastIndex),
                  precedes(b, loc, smallest, v, j, last, lastIndex));
              auto guard = scf::IfOp::create(b, loc, keep, /*withElse=*/false);
              {
                OpBuilder::InsertionGuard insertion(b);
                b.setInsertionPointToStart(&guard.getThenRegion().front());
                store(b, loc, r[0], v, j);
              }
              Value next = arith::SelectOp::create(
                  b, loc, keep,
                  arith::AddIOp::create(b, loc, r[0], index(b, loc, 1)), r[0]);
              scf::YieldOp::create(b, loc, next);
            });
      });
  call.erase();
  return success();
}

/// Library calls with no CUDA version that are loops here.
void libraryCallsToLoops(Block &body) {
  for (auto call : llvm::make_early_inc_range(body.getOps<func::CallOp>())) {
    StringRef callee = call.getCallee();
    // A call whose arguments are not in the expected form stays a call:
    // oneflow-gpu-launches-to-runtime-calls reports it.
    if (callee.starts_with("oneflow_cumsum_"))
      (void)cumsumToLoops(call);
    else if (callee.starts_with("oneflow_topk_"))
      (void)topkToLoops(call);
    else if (callee == "oneflow_non_max_suppression_f32")
      (void)nonMaxSuppressionToLoops(call);
    else if (callee.starts_with("oneflow_unique_"))
      (void)uniqueToLoops(call);
    else if (callee == "oneflow_non_zero_f64")
      (void)nonZeroToLoops(call);
  }
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
    libraryCallsToLoops(body);
  }
};

} // namespace
