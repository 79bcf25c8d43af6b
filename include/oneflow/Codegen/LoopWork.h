//===- LoopWork.h - Static amount of work in loop nests ---------*- C++ -*-===//
//
// The loop passes that decide what runs in parallel, sequentially or fused
// measure a loop nest by the iterations of its innermost bodies.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_CODEGEN_LOOPWORK_H
#define ONEFLOW_CODEGEN_LOOPWORK_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <optional>

namespace mlir::oneflow {

/// Static trip count of a loop dimension, or nullopt.
std::optional<int64_t> tripCount(Value lower, Value upper, Value step);

/// Innermost-body iterations of the scf.for / scf.parallel nests in `block`
/// (loops one after another add up), at least 1, at most `cap`; unknown trip
/// counts count as `cap`.
int64_t workOfBlock(Block &block, int64_t cap);

/// Innermost-body iterations of `op`'s loop nest, its own loops included.
int64_t workOf(Operation *op, int64_t cap);

} // namespace mlir::oneflow

#endif // ONEFLOW_CODEGEN_LOOPWORK_H
