//===- Passes.h - Kernel code generation passes -----------------*- C++ -*-===//

#ifndef ONEFLOW_CODEGEN_PASSES_H
#define ONEFLOW_CODEGEN_PASSES_H

#include "oneflow/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace oneflow {

#define GEN_PASS_DECL
#include "oneflow/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "oneflow/Codegen/Passes.h.inc"

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_CODEGEN_PASSES_H
