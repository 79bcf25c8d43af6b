//===- ONNXImporter.h - ONNX models to the oneflow dialect ------*- C++ -*-===//
//
// Imports an ONNX model into a module holding `func.func @main` in the
// oneflow dialect. Problems (unreadable files, checker failures, unsupported
// ops or element types, dynamic shapes) are reported as diagnostics on the
// context, all at once where possible, and the import returns null.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_IMPORT_ONNX_ONNXIMPORTER_H
#define ONEFLOW_IMPORT_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir {
namespace oneflow {

struct ONNXImportOptions {
  /// Static shapes for graph inputs with dynamic dimensions, by input name.
  llvm::StringMap<std::vector<int64_t>> inputShapes;
  /// Graph inputs bound to constants, by input name: the path of a
  /// serialized ONNX TensorProto holding the value. The model is then
  /// specialized to it (shapes, axes or scales an op needs at import time).
  llvm::StringMap<std::string> constantInputs;
};

/// Parses `NAME:2x32` into `options`; returns an error message on failure.
std::string parseInputShapeOption(llvm::StringRef spec,
                                  ONNXImportOptions &options);

/// Parses `NAME=FILE.pb` into `options`; returns an error message on failure.
std::string parseConstantInputOption(llvm::StringRef spec,
                                     ONNXImportOptions &options);

/// Imports the model in the file at `path`; external data is read relative to
/// the file's directory.
OwningOpRef<ModuleOp> importONNXFile(llvm::StringRef path, MLIRContext *context,
                                     const ONNXImportOptions &options = {});

/// Imports a serialized model held in memory. `sourceName` names it in
/// diagnostics and `baseDir` is where external data files are looked up.
OwningOpRef<ModuleOp> importONNXBuffer(llvm::StringRef bytes,
                                       llvm::StringRef sourceName,
                                       llvm::StringRef baseDir,
                                       MLIRContext *context,
                                       const ONNXImportOptions &options = {});

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_IMPORT_ONNX_ONNXIMPORTER_H
