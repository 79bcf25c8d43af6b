//===- Passes.h - oneflow transformation passes -----------------*- C++ -*-===//

#ifndef ONEFLOW_TRANSFORMS_PASSES_H
#define ONEFLOW_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace oneflow {

/// The unit attribute that marks outlined kernel functions.
constexpr llvm::StringLiteral kKernelAttrName = "oneflow.kernel";

#define GEN_PASS_DECL
#include "oneflow/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "oneflow/Transforms/Passes.h.inc"

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TRANSFORMS_PASSES_H
