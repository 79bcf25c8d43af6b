//===- ElementTypeName.h - Short names of element types ---------*- C++ -*-===//
//
// `f32`, `f64`, `i32`, `i64`: the names checkpoint manifests give dtypes and
// the suffixes of runtime helpers the lowering calls (one table for both).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ELEMENTTYPENAME_H
#define ONEFLOW_DIALECT_ONEFLOW_ELEMENTTYPENAME_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace oneflow {

/// The short name of `type`; empty when it is none of f32, f64, i32, i64.
inline llvm::StringRef elementTypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (type.isInteger(32))
    return "i32";
  if (type.isInteger(64))
    return "i64";
  return "";
}

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_DIALECT_ONEFLOW_ELEMENTTYPENAME_H
