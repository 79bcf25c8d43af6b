//===- DataDependentLoops.cpp - NMS, Unique, NonZero as GPU loops ---------===//
//
// The CPU kernel library's NonMaxSuppression, Unique and NonZero (lib/Kernels/
// DataDependent.cpp) as loop nests for CUDA plans, computing what they
// compute, padding and count included:
//
// - NonMaxSuppression is greedy and ordered: one thread walks each batch
//   and class, taking candidates in falling score order (a selection pass
//   per candidate, as top-k does) and checking each against the boxes kept
//   so far. Fine for post-processing sizes (thousands of boxes).
// - Unique: one thread per entry finds the entry's first occurrence, then
//   each first occurrence its rank (the first occurrences before it, or
//   below it when sorted), then every entry its place and each distinct one
//   its slot; one thread counts.
// - NonZero: one thread scans the elements in order.
//
//===----------------------------------------------------------------------===//

#include "CallLoops.h"
#include "LoopMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::call_loops;

namespace {

/// Builds integer and float arithmetic with less noise.
struct Arith {
  OpBuilder &b;
  Location loc;

  Value idx(int64_t v) { return index(b, loc, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? Value(arith::AddFOp::create(b, loc, x, y))
               : Value(arith::AddIOp::create(b, loc, x, y));
  }
  Value sub(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? Value(arith::SubFOp::create(b, loc, x, y))
               : Value(arith::SubIOp::create(b, loc, x, y));
  }
  Value mul(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? Value(arith::MulFOp::create(b, loc, x, y))
               : Value(arith::MulIOp::create(b, loc, x, y));
  }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value minf(Value x, Value y) {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  Value maxf(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value fcmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value icmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value either(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value negate(Value x) {
    return arith::XOrIOp::create(
        b, loc, x, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value load(Value buffer, Value at) {
    return memref::LoadOp::create(b, loc, buffer, at);
  }
  void store(Value value, Value buffer, Value at) {
    memref::StoreOp::create(b, loc, value, buffer, at);
  }
  Value toIndex(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  Value toI64(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  }
};

/// A loop body: builder, location, induction variable, iteration values;
/// returns the next iteration values.
using ForBody = function_ref<SmallVector<Value>(Arith &, Value, ValueRange)>;

/// `scf.for iv = lower to upper iter_args(init)`, its results.
ValueRange loop(Arith &a, Value lower, Value upper, ValueRange init,
                ForBody body) {
  auto forOp = scf::ForOp::create(
      a.b, a.loc, lower, upper, a.idx(1), init,
      [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
        Arith nested{b, loc};
        scf::YieldOp::create(b, loc, body(nested, iv, args));
      });
  return forOp.getResults();
}

/// A top-level nest of `count` iterations, one GPU thread each.
void threads(OpBuilder &b, Location loc, int64_t count,
             function_ref<void(Arith &, Value)> body) {
  aroundAxis(b, loc, 1, count,
             [&](OpBuilder &nested, Location nestedLoc, Value, Value i) {
               Arith a{nested, nestedLoc};
               body(a, i);
             });
}

/// `if (condition) then()`.
void when(Arith &a, Value condition, function_ref<void(Arith &)> then) {
  auto ifOp = scf::IfOp::create(a.b, a.loc, condition, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(a.b);
  a.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  then(a);
}

//===----------------------------------------------------------------------===//
// NonMaxSuppression
//===----------------------------------------------------------------------===//

struct Box {
  Value yMin, xMin, yMax, xMax;
};

/// The box whose first coordinate is at `at`, as the CPU kernel reads it.
Box loadBox(Arith &a, Value boxes, Value at, bool centerPointBox) {
  Value c[4];
  for (int k = 0; k < 4; ++k)
    c[k] = a.load(boxes, a.add(at, a.idx(k)));
  if (centerPointBox) {
    Value halfW = a.div(c[2], a.f32(2)), halfH = a.div(c[3], a.f32(2));
    return {a.sub(c[1], halfH), a.sub(c[0], halfW), a.add(c[1], halfH),
            a.add(c[0], halfW)};
  }
  return {a.minf(c[0], c[2]), a.minf(c[1], c[3]), a.maxf(c[0], c[2]),
          a.maxf(c[1], c[3])};
}

/// Whether the IoU of `p` and `q` exceeds `threshold` (empty boxes overlap
/// nothing), in the CPU kernel's order of operations.
Value overlaps(Arith &a, const Box &p, const Box &q, Value threshold) {
  using P = arith::CmpFPredicate;
  Value yMin = a.maxf(p.yMin, q.yMin), xMin = a.maxf(p.xMin, q.xMin);
  Value yMax = a.minf(p.yMax, q.yMax), xMax = a.minf(p.xMax, q.xMax);
  Value meet = a.both(a.fcmp(P::OGT, xMax, xMin), a.fcmp(P::OGT, yMax, yMin));
  Value intersection = a.mul(a.sub(yMax, yMin), a.sub(xMax, xMin));
  Value areaP = a.mul(a.sub(p.yMax, p.yMin), a.sub(p.xMax, p.xMin));
  Value areaQ = a.mul(a.sub(q.yMax, q.yMin), a.sub(q.xMax, q.xMin));
  Value unionArea = a.sub(a.add(areaP, areaQ), intersection);
  Value zero = a.f32(0);
  Value proper =
      a.both(a.both(a.fcmp(P::OGT, areaP, zero), a.fcmp(P::OGT, areaQ, zero)),
             a.fcmp(P::OGT, unionArea, zero));
  Value above = a.fcmp(P::OGT, a.div(intersection, unionArea), threshold);
  return a.both(meet, a.both(proper, above));
}

} // namespace

LogicalResult call_loops::nonMaxSuppressionToLoops(func::CallOp call) {
  FailureOr<SmallVector<int64_t>> constants = constantScalars(call, 7);
  if (failed(constants) || constants->size() != 5)
    return failure();
  auto [batches, classes, n, rowsPerClass, center] =
      std::tuple((*constants)[0], (*constants)[1], (*constants)[2],
                 (*constants)[3], (*constants)[4]);
  OpBuilder b(call);
  Location loc = call.getLoc();
  Value boxes = flatBuffer(b, loc, call.getOperand(0));
  Value scores = flatBuffer(b, loc, call.getOperand(1));
  Value maxOutput = flatBuffer(b, loc, call.getOperand(2));
  Value iouThreshold = flatBuffer(b, loc, call.getOperand(3));
  // A null address: no score threshold.
  std::optional<int64_t> nullThreshold =
      getConstantIntValue(call.getOperand(4));
  Value scoreThreshold =
      nullThreshold == 0 ? Value() : flatBuffer(b, loc, call.getOperand(4));
  Value selected = flatBuffer(b, loc, call.getOperand(5));
  Value numSelected = flatBuffer(b, loc, call.getOperand(6));
  if (!boxes || !scores || !maxOutput || !iouThreshold || !selected ||
      !numSelected || (nullThreshold != 0 && !scoreThreshold))
    return failure();

  threads(b, loc, 1, [&](Arith &a, Value) {
    using I = arith::CmpIPredicate;
    using F = arith::CmpFPredicate;
    Value zero = a.idx(0);
    loop(a, zero, a.idx(3 * batches * classes * rowsPerClass), {},
         [&](Arith &a, Value i, ValueRange) -> SmallVector<Value> {
           a.store(a.toI64(a.idx(0)), selected, i);
           return {};
         });
    // The compile-time bound holds: min(max(max_output, 0), rows per class).
    Value limit = a.toIndex(a.load(maxOutput, zero));
    limit = arith::MaxSIOp::create(a.b, a.loc, limit, zero);
    limit = arith::MinSIOp::create(a.b, a.loc, limit, a.idx(rowsPerClass));
    Value iou = a.load(iouThreshold, zero);
    Value threshold = scoreThreshold ? a.load(scoreThreshold, zero) : Value();
    Value none = a.idx(-1);
    ValueRange total = loop(
        a, zero, a.idx(batches * classes), {zero},
        [&](Arith &a, Value list, ValueRange rows) -> SmallVector<Value> {
          Value batch =
              arith::DivUIOp::create(a.b, a.loc, list, a.idx(classes));
          Value cls = arith::RemUIOp::create(a.b, a.loc, list, a.idx(classes));
          Value scoreBase = a.mul(list, a.idx(n));
          Value boxBase = a.mul(batch, a.idx(n));
          Value start = rows[0];
          // Each round takes the next candidate in falling score order
          // (ties: lower index first) after the previous one.
          ValueRange kept = loop(
              a, zero, a.idx(n), {a.f32(0), none, zero},
              [&](Arith &a, Value, ValueRange state) -> SmallVector<Value> {
                Value previous = state[0], previousIndex = state[1];
                ValueRange best = loop(
                    a, zero, a.idx(n), {a.f32(0), none},
                    [&](Arith &a, Value j,
                        ValueRange best) -> SmallVector<Value> {
                      Value v = a.load(scores, a.add(scoreBase, j));
                      Value valid = threshold ? a.fcmp(F::OGT, v, threshold)
                                              : a.fcmp(F::ORD, v, v);
                      Value first = a.icmp(I::slt, previousIndex, zero);
                      Value after =
                          a.either(a.fcmp(F::OLT, v, previous),
                                   a.both(a.fcmp(F::OEQ, v, previous),
                                          a.icmp(I::sgt, j, previousIndex)));
                      Value empty = a.icmp(I::slt, best[1], zero);
                      Value better =
                          a.either(a.fcmp(F::OGT, v, best[0]),
                                   a.both(a.fcmp(F::OEQ, v, best[0]),
                                          a.icmp(I::slt, j, best[1])));
                      Value take = a.both(a.both(valid, a.either(first, after)),
                                          a.either(empty, better));
                      return {a.select(take, v, best[0]),
                              a.select(take, j, best[1])};
                    });
                Value found = a.icmp(I::sge, best[1], zero);
                Value candidate = a.select(found, best[1], zero);
                Box box =
                    loadBox(a, boxes,
                            a.mul(a.add(boxBase, candidate), a.idx(4)), center);
                Value count = state[2];
                ValueRange suppressed = loop(
                    a, zero, count,
                    {arith::ConstantOp::create(a.b, a.loc,
                                               a.b.getBoolAttr(false))},
                    [&](Arith &a, Value t,
                        ValueRange any) -> SmallVector<Value> {
                      Value row = a.add(start, t);
                      Value other = a.toIndex(a.load(
                          selected, a.add(a.mul(row, a.idx(3)), a.idx(2))));
                      Box kept = loadBox(a, boxes,
                                         a.mul(a.add(boxBase, other), a.idx(4)),
                                         center);
                      return {a.either(any[0], overlaps(a, box, kept, iou))};
                    });
                Value keep = a.both(a.both(found, a.icmp(I::slt, count, limit)),
                                    a.negate(suppressed[0]));
                when(a, keep, [&](Arith &a) {
                  Value at = a.mul(a.add(start, count), a.idx(3));
                  a.store(a.toI64(batch), selected, at);
                  a.store(a.toI64(cls), selected, a.add(at, a.idx(1)));
                  a.store(a.toI64(candidate), selected, a.add(at, a.idx(2)));
                });
                return {a.select(found, best[0], previous),
                        a.select(found, best[1], previousIndex),
                        a.select(keep, a.add(count, a.idx(1)), count)};
              });
          return {a.add(start, kept[2])};
        });
    a.store(a.toI64(total[0]), numSelected, zero);
  });
  call.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Unique
//===----------------------------------------------------------------------===//

namespace {

/// Entries `p` and `q` (slices of x viewed as [outer, n, inner]) compared
/// element by element: -1, 0 or 1 as an index, NaNs last and equal.
Value compareEntries(Arith &a, Value x, int64_t outer, int64_t n, int64_t inner,
                     Value p, Value q) {
  using I = arith::CmpIPredicate;
  using F = arith::CmpFPredicate;
  Value zero = a.idx(0);
  return loop(
      a, zero, a.idx(outer * inner), {zero},
      [&](Arith &a, Value e, ValueRange order) -> SmallVector<Value> {
        Value o = arith::DivUIOp::create(a.b, a.loc, e, a.idx(inner));
        Value i = arith::RemUIOp::create(a.b, a.loc, e, a.idx(inner));
        Value u = a.load(x, alongAxis(a.b, a.loc, o, n, p, inner, i));
        Value v = a.load(x, alongAxis(a.b, a.loc, o, n, q, inner, i));
        Value less, greater;
        if (isa<FloatType>(u.getType())) {
          Value uNan = a.fcmp(F::UNO, u, u), vNan = a.fcmp(F::UNO, v, v);
          less = a.either(a.fcmp(F::OLT, u, v), a.both(a.negate(uNan), vNan));
          greater =
              a.either(a.fcmp(F::OGT, u, v), a.both(uNan, a.negate(vNan)));
        } else {
          less = a.icmp(I::slt, u, v);
          greater = a.icmp(I::sgt, u, v);
        }
        Value here =
            a.select(less, a.idx(-1), a.select(greater, a.idx(1), zero));
        Value undecided = a.icmp(I::eq, order[0], zero);
        return {a.select(undecided, here, order[0])};
      })[0];
}

} // namespace

LogicalResult call_loops::uniqueToLoops(func::CallOp call) {
  FailureOr<SmallVector<int64_t>> constants = constantScalars(call, 6);
  if (failed(constants) || constants->size() != 4)
    return failure();
  int64_t outer = (*constants)[0], n = (*constants)[1], inner = (*constants)[2];
  bool sorted = (*constants)[3] != 0;
  OpBuilder b(call);
  Location loc = call.getLoc();
  Value x = flatBuffer(b, loc, call.getOperand(0));
  Value y = flatBuffer(b, loc, call.getOperand(1));
  Value indices = flatBuffer(b, loc, call.getOperand(2));
  Value inverse = flatBuffer(b, loc, call.getOperand(3));
  Value counts = flatBuffer(b, loc, call.getOperand(4));
  Value numUnique = flatBuffer(b, loc, call.getOperand(5));
  if (!x || !y || !indices || !inverse || !counts || !numUnique)
    return failure();
  using I = arith::CmpIPredicate;
  Type element = cast<MemRefType>(y.getType()).getElementType();

  // Zeros where no distinct entry lands.
  threads(b, loc, outer * n * inner, [&](Arith &a, Value e) {
    a.store(arith::ConstantOp::create(a.b, a.loc, element,
                                      a.b.getZeroAttr(element)),
            y, e);
  });
  threads(b, loc, n,
          [&](Arith &a, Value j) { a.store(a.toI64(a.idx(0)), indices, j); });
  // inverse[j] = the first entry equal to j.
  threads(b, loc, n, [&](Arith &a, Value j) {
    Value first =
        loop(a, a.idx(0), a.add(j, a.idx(1)), {j},
             [&](Arith &a, Value k, ValueRange found) -> SmallVector<Value> {
               Value equal =
                   a.icmp(I::eq, compareEntries(a, x, outer, n, inner, k, j),
                          a.idx(0));
               Value earlier = a.icmp(I::slt, k, found[0]);
               return {a.select(a.both(equal, earlier), k, found[0])};
             })[0];
    a.store(a.toI64(first), inverse, j);
  });
  // counts[j] = the rank of a first occurrence j among the distinct
  // entries, -1 for the others.
  threads(b, loc, n, [&](Arith &a, Value j) {
    Value isFirst = a.icmp(I::eq, a.toIndex(a.load(inverse, j)), j);
    Value rank =
        loop(a, a.idx(0), a.idx(n), {a.idx(0)},
             [&](Arith &a, Value f, ValueRange r) -> SmallVector<Value> {
               Value distinct = a.icmp(I::eq, a.toIndex(a.load(inverse, f)), f);
               Value before =
                   sorted ? a.icmp(I::slt,
                                   compareEntries(a, x, outer, n, inner, f, j),
                                   a.idx(0))
                          : a.icmp(I::slt, f, j);
               return {a.select(a.both(distinct, before), a.add(r[0], a.idx(1)),
                                r[0])};
             })[0];
    a.store(a.toI64(a.select(isFirst, rank, a.idx(-1))), counts, j);
  });
  // Every entry's place, each distinct entry into its slot.
  threads(b, loc, n, [&](Arith &a, Value j) {
    Value first = a.toIndex(a.load(inverse, j));
    a.store(a.load(counts, first), inverse, j);
    Value rank = a.load(counts, j);
    when(a, a.icmp(I::sge, rank, a.toI64(a.idx(0))), [&](Arith &a) {
      Value r = a.toIndex(rank);
      a.store(a.toI64(j), indices, r);
      loop(a, a.idx(0), a.idx(outer * inner), {},
           [&](Arith &a, Value e, ValueRange) -> SmallVector<Value> {
             Value o = arith::DivUIOp::create(a.b, a.loc, e, a.idx(inner));
             Value i = arith::RemUIOp::create(a.b, a.loc, e, a.idx(inner));
             a.store(a.load(x, alongAxis(a.b, a.loc, o, n, j, inner, i)), y,
                     alongAxis(a.b, a.loc, o, n, r, inner, i));
             return {};
           });
    });
  });
  // One thread: how many are distinct, and each one's count.
  threads(b, loc, 1, [&](Arith &a, Value) {
    Value zero = a.idx(0);
    Value distinct =
        loop(a, zero, a.idx(n), {zero},
             [&](Arith &a, Value j, ValueRange k) -> SmallVector<Value> {
               Value first =
                   a.icmp(I::sge, a.load(counts, j), a.toI64(a.idx(0)));
               return {a.select(first, a.add(k[0], a.idx(1)), k[0])};
             })[0];
    loop(a, zero, a.idx(n), {},
         [&](Arith &a, Value j, ValueRange) -> SmallVector<Value> {
           a.store(a.toI64(a.idx(0)), counts, j);
           return {};
         });
    loop(a, zero, a.idx(n), {},
         [&](Arith &a, Value j, ValueRange) -> SmallVector<Value> {
           Value r = a.toIndex(a.load(inverse, j));
           a.store(a.add(a.load(counts, r), a.toI64(a.idx(1))), counts, r);
           return {};
         });
    a.store(a.toI64(distinct), numUnique, zero);
  });
  call.erase();
  return success();
}

LogicalResult call_loops::nonZeroToLoops(func::CallOp call) {
  FailureOr<SmallVector<int64_t>> constants = constantScalars(call, 3);
  if (failed(constants) || constants->empty())
    return failure();
  int64_t rank = (*constants)[0];
  SmallVector<int64_t> dims(constants->begin() + 1,
                            constants->begin() + 1 + rank);
  int64_t elements = 1;
  for (int64_t d : dims)
    elements *= d;
  OpBuilder b(call);
  Location loc = call.getLoc();
  Value x = flatBuffer(b, loc, call.getOperand(0));
  Value y = flatBuffer(b, loc, call.getOperand(1));
  Value count = flatBuffer(b, loc, call.getOperand(2));
  if (!x || !y || !count)
    return failure();
  threads(b, loc, 1, [&](Arith &a, Value) {
    Value zero = a.idx(0);
    loop(a, zero, a.idx(rank * elements), {},
         [&](Arith &a, Value i, ValueRange) -> SmallVector<Value> {
           a.store(a.toI64(a.idx(0)), y, i);
           return {};
         });
    Value found = loop(
        a, zero, a.idx(elements), {zero},
        [&](Arith &a, Value e, ValueRange found) -> SmallVector<Value> {
          Value nonZero = a.fcmp(
              arith::CmpFPredicate::UNE, a.load(x, e),
              arith::ConstantOp::create(a.b, a.loc, a.b.getF64FloatAttr(0)));
          when(a, nonZero, [&](Arith &a) {
            // Row-major coordinates, last dimension fastest.
            Value rest = e;
            for (int64_t d = rank - 1; d >= 0; --d) {
              Value dim = a.idx(dims[d]);
              Value coordinate = arith::RemUIOp::create(a.b, a.loc, rest, dim);
              a.store(a.toI64(coordinate), y,
                      a.add(a.mul(a.idx(d), a.idx(elements)), found[0]));
              rest = arith::DivUIOp::create(a.b, a.loc, rest, dim);
            }
          });
          return {a.select(nonZero, a.add(found[0], a.idx(1)), found[0])};
        })[0];
    a.store(a.toI64(found), count, zero);
  });
  call.erase();
  return success();
}
