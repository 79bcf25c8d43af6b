//===- Recompute.h - What oneflow-recompute recomputes ----------*- C++ -*-===//
//
// The rules of oneflow-recompute (lib/Transforms/Recompute.cpp), shared with
// the --auto-parallel search, which prices the memory and time of each
// recomputation mode on the forward graph.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TRANSFORMS_RECOMPUTE_H
#define ONEFLOW_TRANSFORMS_RECOMPUTE_H

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir {
namespace oneflow {

/// Cheap to run again relative to the bytes of its result (what selective
/// recomputation recomputes): elementwise, softmax and layout ops, and
/// products of two activations.
bool isCheapToRecompute(Operation *op);

/// The layer of a location name (what full recomputation keeps the inputs
/// of): its module path up to the first index (`/blocks.3/attn/MatMul`,
/// `blocks.3.mlp.fc` -> `blocks.3`), else its first component; empty for
/// an unnamed op.
std::string layerOfName(llvm::StringRef name);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TRANSFORMS_RECOMPUTE_H
