//===- SbpBucketCollectives.cpp - Coalesce independent collectives --------===//
//
// After sbp-localize, data parallelism leaves one collective per parameter:
// a reduce-scatter (or all-reduce) of each gradient and an all-gather of
// each updated parameter, most of them a few hundred bytes. Each costs a
// launch and a latency; DDP and ZeRO coalesce them into buckets. Here, in
// each rank's program, collectives of the same kind, group and element
// type that do not depend on each other are packed into one:
//
//   all_reduce      x_i -> reshape [n_i] -> concat -> all_reduce -> split
//                   -> reshape x_i's shape
//   reduce_scatter  x_i [A, G*m, C] (along axis a) -> reshape [A, G, m*C]
//                   -> transpose [G, A, m*C] (A > 1) -> reshape [G, p_i]
//                   -> concat axis 1 -> reduce_scatter axis 0 -> [1, P]
//                   -> split axis 1 -> reshape [A, m, C]
//   all_gather      y_i [A, m, C] -> reshape [1, q_i] -> concat axis 1
//                   -> all_gather axis 0 -> [G, Q] -> split axis 1
//                   -> reshape [G, A, m*C] -> transpose [A, G, m*C] (A > 1)
//                   -> reshape [A, G*m, C]
//
// so member g's block of the packed tensor holds, for every member
// collective, exactly the piece that member g's block held before.
//
// Buckets are runs of the candidates in program order, closed when the
// next one would exceed `bucket-bytes` or `bucket-members` (the packing and
// unpacking kernels take a pointer per member, and a CUDA kernel's
// parameters may not exceed 4352 bytes), or depends on the open bucket's
// results (one kind at a time, so runs of one kind cannot form a cycle
// through buckets of another). A bucket never spans a send, a receive or
// a collective of another group: merging only collectives that the
// group's members meet between the same communications with everyone
// else keeps the cross-rank order (pipeline schedules rely on it). Every
// rank applies the same rule to its program; a bucket whose tags differ
// between its ranks is left apart.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>
#include <set>

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SBPBUCKETCOLLECTIVES
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

constexpr StringLiteral kBucketableKinds[] = {"all_reduce", "reduce_scatter",
                                              "all_gather"};

int64_t bytesOf(RankedTensorType type) {
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// Collectives that may share a bucket.
struct BucketKey {
  std::string kind;
  SmallVector<int64_t> group;
  Type elementType;
  bool operator==(const BucketKey &other) const {
    return kind == other.kind && group == other.group &&
           elementType == other.elementType;
  }
  bool operator<(const BucketKey &other) const {
    if (kind != other.kind)
      return kind < other.kind;
    if (group != other.group)
      return std::lexicographical_compare(
          group.begin(), group.end(), other.group.begin(), other.group.end());
    return elementType.getAsOpaquePointer() <
           other.elementType.getAsOpaquePointer();
  }
};

std::optional<BucketKey> keyOf(sbp::CollectiveOp op) {
  if (!llvm::is_contained(kBucketableKinds, op.getKind()))
    return std::nullopt;
  auto type = cast<RankedTensorType>(op.getInput().getType());
  if (!type.hasStaticShape())
    return std::nullopt;
  return BucketKey{op.getKind().str(), SmallVector<int64_t>(op.getGroup()),
                   type.getElementType()};
}

/// Splits `shape` around `axis` into [A, n, C] (A, C element products).
std::array<int64_t, 3> around(ArrayRef<int64_t> shape, int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
    inner *= shape[d];
  return {outer, shape[axis], inner};
}

class Packer {
public:
  Packer(OpBuilder &builder, Location loc, Type elementType)
      : builder(builder), loc(loc), elementType(elementType) {}

  RankedTensorType type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, elementType);
  }
  /// A reshape of one of ours reshapes its source instead.
  Value reshape(Value value, ArrayRef<int64_t> shape) {
    if (auto previous = value.getDefiningOp<ReshapeOp>();
        previous && created.contains(previous)) {
      value = previous.getX();
      if (previous->use_empty()) {
        created.erase(previous);
        previous->erase();
      }
    }
    if (cast<RankedTensorType>(value.getType()).getShape() == shape)
      return value;
    auto op = ReshapeOp::create(builder, loc, type(shape), value);
    created.insert(op);
    return op;
  }
  /// [x, y, z] -> [y, x, z].
  Value swapOuter(Value value) {
    auto shape = cast<RankedTensorType>(value.getType()).getShape();
    if (shape[0] == 1 || shape[1] == 1)
      return reshape(value, {shape[1], shape[0], shape[2]});
    return TransposeOp::create(builder, loc,
                               type({shape[1], shape[0], shape[2]}), value,
                               builder.getDenseI64ArrayAttr({1, 0, 2}));
  }
  Value concat(ArrayRef<Value> values, int64_t axis) {
    if (values.size() == 1)
      return values.front();
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(values.front().getType()).getShape());
    shape[axis] = 0;
    for (Value value : values)
      shape[axis] += cast<RankedTensorType>(value.getType()).getDimSize(axis);
    return ConcatOp::create(builder, loc, type(shape), values,
                            builder.getI64IntegerAttr(axis));
  }
  SmallVector<Value> split(Value value, int64_t axis, ArrayRef<int64_t> sizes) {
    if (sizes.size() == 1)
      return {value};
    SmallVector<Type> types;
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(value.getType()).getShape());
    for (int64_t size : sizes) {
      shape[axis] = size;
      types.push_back(type(shape));
    }
    auto op = SplitOp::create(builder, loc, types, value,
                              builder.getI64IntegerAttr(axis),
                              builder.getDenseI64ArrayAttr(sizes));
    return SmallVector<Value>(op.getResults());
  }

  OpBuilder &builder;
  Location loc;
  Type elementType;
  llvm::SmallPtrSet<Operation *, 8> created;
};

/// Replaces the collectives of `bucket` (program order, same key) with one
/// collective under the first one's tag, placed at the last one.
void packBucket(SmallVector<sbp::CollectiveOp> bucket) {
  sbp::CollectiveOp last = bucket.back();
  // What this function creates goes between `prevOfLast` and `last`.
  Operation *prevOfLast = last->getPrevNode();
  OpBuilder builder(last);
  SmallVector<Location> locs;
  for (sbp::CollectiveOp op : bucket)
    locs.push_back(op.getLoc());
  Location loc = builder.getFusedLoc(locs);
  auto firstType = cast<RankedTensorType>(bucket.front().getInput().getType());
  Packer packer(builder, loc, firstType.getElementType());
  const int64_t groupSize = bucket.front().getGroup().size();
  StringRef kind = bucket.front().getKind();

  SmallVector<Value> packed;
  SmallVector<int64_t> sizes;
  for (sbp::CollectiveOp op : bucket) {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    int64_t n = in.getNumElements();
    if (kind == "all_reduce") {
      packed.push_back(packer.reshape(op.getInput(), {n}));
      sizes.push_back(n);
    } else if (kind == "reduce_scatter") {
      auto [outer, dim, inner] = around(in.getShape(), op.getAxis());
      Value value = packer.reshape(op.getInput(),
                                   {outer, groupSize, dim / groupSize * inner});
      value = packer.swapOuter(value);
      packed.push_back(packer.reshape(value, {groupSize, n / groupSize}));
      sizes.push_back(n / groupSize);
    } else { // all_gather
      packed.push_back(packer.reshape(op.getInput(), {1, n}));
      sizes.push_back(n);
    }
  }
  int64_t packAxis = kind == "all_reduce" ? 0 : 1;
  Value input = packer.concat(packed, packAxis);
  SmallVector<int64_t> outShape(
      cast<RankedTensorType>(input.getType()).getShape());
  if (kind == "reduce_scatter")
    outShape[0] = 1;
  else if (kind == "all_gather")
    outShape[0] = groupSize;
  auto collective = sbp::CollectiveOp::create(
      builder, loc, packer.type(outShape), bucket.front().getKindAttr(), input,
      bucket.front().getGroupAttr(), builder.getI64IntegerAttr(0),
      builder.getI64IntegerAttr(0), bucket.front().getTagAttr(),
      bucket.front().getMeshAxisAttr());
  SmallVector<Value> pieces =
      packer.split(collective.getOutput(), packAxis, sizes);
  for (auto [index, piece] : llvm::enumerate(pieces)) {
    sbp::CollectiveOp op = bucket[index];
    auto out = cast<RankedTensorType>(op.getOutput().getType());
    Value result = piece;
    if (kind == "all_gather") {
      auto [outer, dim, inner] = around(out.getShape(), op.getAxis());
      result =
          packer.reshape(result, {groupSize, outer, dim / groupSize * inner});
      result = packer.swapOuter(result);
    }
    result = packer.reshape(result, out.getShape());
    op.getOutput().replaceAllUsesWith(result);
  }
  // Ops before the bucket that use (transitively) an earlier member's
  // result now follow it, in their order. Nothing else moves: in
  // particular no read of a variable passes its assign (which has no SSA
  // edge from the reads).
  Operation *anchor = last->getPrevNode();
  Operation *firstCreated = prevOfLast->getNextNode();
  llvm::SmallPtrSet<Operation *, 16> packing, moving;
  for (Operation *op = firstCreated; op != last.getOperation();
       op = op->getNextNode())
    packing.insert(op);
  SmallVector<Operation *> order;
  for (Operation *op = bucket.front()->getNextNode(); op != firstCreated;
       op = op->getNextNode()) {
    bool usesMoved = llvm::any_of(op->getOperands(), [&](Value operand) {
      Operation *def = operand.getDefiningOp();
      return def && (packing.contains(def) || moving.contains(def));
    });
    if (usesMoved) {
      moving.insert(op);
      order.push_back(op);
    }
  }
  for (sbp::CollectiveOp op : bucket)
    op.erase();
  for (Operation *op : order) {
    op->moveAfter(anchor);
    anchor = op;
  }
}

/// Forms the buckets of `key` in `program` (program order, closed on
/// size or dependence). Singletons are not buckets.
std::vector<SmallVector<sbp::CollectiveOp>> formBuckets(func::FuncOp program,
                                                        const BucketKey &key,
                                                        int64_t maxBytes,
                                                        int64_t maxMembers) {
  std::vector<SmallVector<sbp::CollectiveOp>> buckets;
  SmallVector<sbp::CollectiveOp> open;
  int64_t openBytes = 0;
  // Ops that depend on a result of the open bucket.
  llvm::DenseSet<Operation *> tainted;
  auto close = [&]() {
    if (open.size() > 1)
      buckets.push_back(open);
    open.clear();
    openBytes = 0;
    tainted.clear();
  };
  for (Operation &op : program.getBody().front()) {
    bool dependsOnOpen = llvm::any_of(op.getOperands(), [&](Value operand) {
      Operation *def = operand.getDefiningOp();
      return def && tainted.contains(def);
    });
    auto collective = dyn_cast<sbp::CollectiveOp>(op);
    std::optional<BucketKey> opKey;
    if (collective)
      opKey = keyOf(collective);
    bool sameKey = opKey && *opKey == key;
    // Communication with other ranks keeps its order: a bucket never
    // spans a send, a receive or a collective of another group, so every
    // rank still meets its peers in the order it did.
    if (isa<sbp::SendOp, sbp::RecvOp>(op) ||
        (collective && collective.getGroup() != ArrayRef<int64_t>(key.group)))
      close();
    if (!sameKey) {
      if (dependsOnOpen)
        tainted.insert(&op);
      continue;
    }
    int64_t bytes =
        bytesOf(cast<RankedTensorType>(collective.getInput().getType()));
    if (dependsOnOpen ||
        (!open.empty() &&
         (openBytes + bytes > maxBytes || int64_t(open.size()) >= maxMembers)))
      close();
    open.push_back(collective);
    openBytes += bytes;
    tainted.insert(&op);
  }
  close();
  return buckets;
}

struct SbpBucketCollectivesPass
    : public oneflow::impl::SbpBucketCollectivesBase<SbpBucketCollectivesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (bucketBytes <= 0)
      return;
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> programs;
    std::set<BucketKey> keys;
    for (auto program : module.getOps<func::FuncOp>()) {
      if (program.isExternal() || !program.getBody().hasOneBlock())
        continue;
      bool any = false;
      program.walk([&](sbp::CollectiveOp op) {
        if (std::optional<BucketKey> key = keyOf(op)) {
          keys.insert(*key);
          any = true;
        }
      });
      if (any)
        programs.push_back(program);
    }
    for (const BucketKey &key : keys) {
      // Tag sets must agree on every rank that holds one of their tags.
      std::vector<std::vector<SmallVector<sbp::CollectiveOp>>> all;
      std::map<int64_t, std::set<std::vector<int64_t>>> bucketsOfTag;
      std::map<int64_t, int64_t> holders, bucketed;
      for (func::FuncOp program : programs) {
        program.walk([&](sbp::CollectiveOp op) { ++holders[op.getTag()]; });
        std::vector<SmallVector<sbp::CollectiveOp>> found =
            formBuckets(program, key, bucketBytes, bucketMembers);
        for (const auto &bucket : found) {
          std::vector<int64_t> tags;
          for (sbp::CollectiveOp op : bucket)
            tags.push_back(op.getTag());
          for (int64_t tag : tags) {
            bucketsOfTag[tag].insert(tags);
            ++bucketed[tag];
          }
        }
        all.push_back(std::move(found));
      }
      for (const auto &found : all) {
        for (const auto &bucket : found) {
          bool agreed = llvm::all_of(bucket, [&](sbp::CollectiveOp op) {
            return bucketsOfTag[op.getTag()].size() == 1 &&
                   bucketed[op.getTag()] == holders[op.getTag()];
          });
          if (agreed)
            packBucket(bucket);
        }
      }
    }
  }
};

} // namespace
