//===- GraphImporter.h - Imports one ONNX graph -----------------*- C++ -*-===//

#ifndef ONEFLOW_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
#define ONEFLOW_LIB_IMPORT_ONNX_GRAPHIMPORTER_H

#include "ImportContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace oneflow {
namespace onnx_import {

/// Imports the main graph of a model into `func.func @main`.
class GraphImporter {
public:
  GraphImporter(ModuleOp module, const onnx::ModelProto &model,
                llvm::StringRef sourceName, int64_t opset);

  /// Imports every node; reports all problems and fails if there were any.
  LogicalResult importGraph();

  OpBuilder &getBuilder() { return builder; }
  /// Imports the nodes of a subgraph (an If branch, a loop body) in place:
  /// its initializers and values join the value table, its nodes are
  /// emitted at the current insertion point.
  LogicalResult importSubgraph(const onnx::GraphProto &subgraph);
  ValueInfo *lookup(llvm::StringRef name);
  /// Materializes a value as SSA (initializers and constants lazily).
  FailureOr<Value> materialize(ValueInfo &info, llvm::StringRef name,
                               Location loc);
  /// Decodes an initializer's data into `info.constant` (once).
  LogicalResult decodeInitializer(ValueInfo &info, llvm::StringRef name);
  void define(llvm::StringRef name, ValueInfo info) {
    values[name] = std::move(info);
  }
  Location nodeLocation(const onnx::NodeProto &node, unsigned index);
  /// Compares every imported node output with the static types ONNX shape
  /// inference gives them in `inferred`; a mismatch is an importer bug.
  LogicalResult crossCheck(const onnx::GraphProto &inferred);

private:
  LogicalResult importInputs(func::FuncOp func, Block *entry);
  LogicalResult importNode(const onnx::NodeProto &node, unsigned index);
  void reportUnsupported();

  ModuleOp module;
  const onnx::ModelProto &model;
  std::string sourceName;
  int64_t opset;
  OpBuilder builder;
  llvm::StringMap<ValueInfo> values;
  struct ImportedValue {
    std::string name;
    Type type;
    Location loc;
    std::string node;
  };
  std::vector<ImportedValue> importedValues;
  NodeImporterRegistry registry;
  /// Unsupported op type -> names of its nodes, in order of appearance.
  llvm::MapVector<llvm::StringRef, SmallVector<std::string>> unsupported;
  Location firstUnsupportedLoc;
  /// The last constant or parameter placed at the top of @main.
  Operation *lastHoisted = nullptr;
  unsigned resourceCounter = 0;
  /// Numbers unnamed subgraph nodes after the main graph's.
  unsigned subgraphNodes = 0;
  bool hadError = false;
};

} // namespace onnx_import
} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
