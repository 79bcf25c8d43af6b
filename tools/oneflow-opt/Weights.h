//===- Weights.h - Variable data from a checkpoint directory ----*- C++ -*-===//
//
// `oneflow-opt model.mlir --weights=DIR`: the variables of an MLIR model
// take their data from a checkpoint directory in oneflow-run's format
// (DIR/manifest.json and one .npy per variable, docs/runtime.md), so that a
// frontend can write the graph as text and its weights as binary files.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_OPT_WEIGHTS_H
#define ONEFLOW_TOOLS_OPT_WEIGHTS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::oneflow {

/// Gives every `oneflow.variable` named in DIR/manifest.json the data of its
/// .npy file (a dense resource; the variable's initializer, if any, is
/// dropped). Every problem (a missing or malformed file, a dtype or shape
/// that differs from the variable's type, a manifest entry no variable
/// reads) is reported, each as one error; fails if there was any.
LogicalResult attachWeights(ModuleOp module, llvm::StringRef dir);

} // namespace mlir::oneflow

#endif // ONEFLOW_TOOLS_OPT_WEIGHTS_H
