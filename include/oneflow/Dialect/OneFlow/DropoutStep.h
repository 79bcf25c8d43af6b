//===- DropoutStep.h - The dropout step counter -----------------*- C++ -*-===//
//
// The step counter that every oneflow.dropout of a graph reads
// (docs/architecture.md, *Dropout*): one place builds its read and its
// once-per-step update, for the ONNX importer and the training passes.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_DROPOUTSTEP_H
#define ONEFLOW_DIALECT_ONEFLOW_DROPOUTSTEP_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace oneflow {

/// The name of the graph's dropout step counter, the `step` operand of its
/// dropouts.
constexpr llvm::StringLiteral kDropoutStepName = "dropout.step";

/// The read of the dropout step counter in `block` (a rank-0 int64
/// variable, zeros at start), created at `builder`'s insertion point when
/// the block has none.
Value getOrCreateDropoutStep(OpBuilder &builder, Block &block);

/// Advances, once per step, every step counter that the dropouts of `block`
/// read and that nothing assigns yet: `assign @name = read + 1` before the
/// terminator (it takes effect at the next step, after every read). The
/// ONNX importer calls it; the autodiff pass too, for graphs that only read
/// the counter (the Python frontend's).
void advanceDropoutSteps(Block &block);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_DIALECT_ONEFLOW_DROPOUTSTEP_H
