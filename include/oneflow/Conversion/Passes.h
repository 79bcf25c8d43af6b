//===- Passes.h - oneflow conversion passes ---------------------*- C++ -*-===//

#ifndef ONEFLOW_CONVERSION_PASSES_H
#define ONEFLOW_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace oneflow {

#define GEN_PASS_DECL
#include "oneflow/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "oneflow/Conversion/Passes.h.inc"

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_CONVERSION_PASSES_H
