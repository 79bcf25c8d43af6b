//===- LoopWork.cpp - Static amount of work in loop nests -----------------===//

#include "oneflow/Codegen/LoopWork.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

std::optional<int64_t> oneflow::tripCount(Value lower, Value upper,
                                          Value step) {
  std::optional<int64_t> l = getConstantIntValue(lower),
                         u = getConstantIntValue(upper),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
}

int64_t oneflow::workOfBlock(Block &block, int64_t cap) {
  int64_t work = 0;
  for (Operation &op : block)
    if (isa<scf::ParallelOp, scf::ForOp>(op))
      work = std::min(cap, work + workOf(&op, cap));
  return std::max<int64_t>(work, 1);
}

int64_t oneflow::workOf(Operation *op, int64_t cap) {
  int64_t own = 1;
  auto multiply = [&](std::optional<int64_t> count) {
    own = count ? std::min(cap, own * std::max<int64_t>(*count, 1)) : cap;
  };
  if (auto parallel = dyn_cast<scf::ParallelOp>(op))
    for (auto [l, u, s] :
         llvm::zip(parallel.getLowerBound(), parallel.getUpperBound(),
                   parallel.getStep()))
      multiply(tripCount(l, u, s));
  if (auto loop = dyn_cast<scf::ForOp>(op))
    multiply(
        tripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()));
  int64_t inner = 1;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      inner = std::max(inner, workOfBlock(block, cap));
  return std::min(cap, own * inner);
}
