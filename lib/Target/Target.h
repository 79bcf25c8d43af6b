//===- Target.h - Internals of plan emission --------------------*- C++ -*-===//

#ifndef ONEFLOW_LIB_TARGET_TARGET_H
#define ONEFLOW_LIB_TARGET_TARGET_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "oneflow/plan.pb.h"

#include <string>

namespace mlir {
namespace oneflow {

struct BuiltPlan {
  ::oneflow::plan::Plan plan;
  /// The initial data of every persistent register, at their offsets.
  std::string weights;
};

/// Reads the task graph of `graph` (after kernel outlining): one KERNEL task
/// per call, one register per value, persistent registers for variables and
/// constants, INPUT/OUTPUT tasks for the arguments and results.
FailureOr<BuiltPlan> buildPlan(func::FuncOp graph);

/// Compiles the kernel functions of `module` into a shared library at
/// `libraryPath`, each exported as `void <name>(void **args)`.
LogicalResult compileKernels(ModuleOp module, llvm::StringRef libraryPath);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_TARGET_TARGET_H
