//===- ImportContext.h - Shared state of the ONNX importer ------*- C++ -*-===//
//
// The value table of a graph being imported and the per-node context through
// which each op importer reads its inputs and attributes and defines its
// outputs.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_IMPORT_ONNX_IMPORTCONTEXT_H
#define ONEFLOW_LIB_IMPORT_ONNX_IMPORTCONTEXT_H

#include "oneflow/Dialect/OneFlow/ElementsUtils.h"

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include <optional>

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

namespace mlir {
namespace oneflow {
namespace onnx_import {

/// What the importer knows of one ONNX value.
struct ValueInfo {
  /// The SSA value, once materialized.
  Value value;
  /// The value at import time, when known (initializers, Constant nodes,
  /// folded shape arithmetic).
  ElementsAttr constant;
  /// The initializer this value comes from, if any.
  const onnx::TensorProto *initializer = nullptr;
  /// Produced by a node that could not be imported: consumers are skipped
  /// without further errors.
  bool poisoned = false;
  /// A length that depends on the data (NonMaxSuppression's selection):
  /// `value` has room for the most entries along `axis`, and the 0-d i64
  /// `extent` says how many lead it; set when `extent` is non-null.
  Value extent;
  int64_t extentAxis = 0;
  /// The node the length comes from, for diagnostics.
  std::string extentOrigin;
};

/// The MLIR element type of an ONNX data type, or null if unsupported.
Type convertElementType(MLIRContext *context, int32_t onnxType);
/// The ONNX name of a data type (`FLOAT`, `UINT8`, ...).
std::string onnxTypeName(int32_t onnxType);

/// The value of an ONNX tensor as an attribute of `type`. Large floating-point
/// data becomes a dense resource blob named `resourceName`; small data a
/// DenseElementsAttr. Returns null and sets `error` on malformed data.
ElementsAttr convertTensorProto(const onnx::TensorProto &tensor,
                                RankedTensorType type,
                                llvm::StringRef resourceName,
                                bool preferResource, std::string &error);

/// A DenseElementsAttr view of `attr` (resources included), or null if the
/// data is not accessible as dense elements.
DenseElementsAttr getDenseElements(ElementsAttr attr);

class GraphImporter;

/// Everything an op importer sees of the node it imports.
class NodeContext {
public:
  NodeContext(GraphImporter &graph, const onnx::NodeProto &node, Location loc,
              int64_t opset);

  const onnx::NodeProto &getNode() const { return node; }
  GraphImporter &getGraph() { return graph; }
  Location getLoc() const { return loc; }
  int64_t getOpset() const { return opset; }
  OpBuilder &getBuilder();
  MLIRContext *getContext() { return getBuilder().getContext(); }

  /// Errors name the node: `<OpType> node '<name>': ...`.
  InFlightDiagnostic emitError();

  // Inputs. Optional inputs may be absent (missing or named "").
  unsigned getNumInputs() const { return node.input_size(); }
  bool hasInput(unsigned index) const;
  FailureOr<Value> getInput(unsigned index);
  FailureOr<RankedTensorType> getInputType(unsigned index);
  /// The input's value at import time, or null when it is computed at run
  /// time (or absent).
  DenseElementsAttr getConstantInput(unsigned index);
  /// An input that must be known at import time (a shape, axes, pads...).
  FailureOr<SmallVector<int64_t>> getConstantInts(unsigned index,
                                                  llvm::StringRef what);
  /// Names the graph input behind input `index`, for errors that need its
  /// value at import time; empty when it is not a graph input.
  std::string graphInputHint(unsigned index);
  /// A scalar input known at import time, as a double.
  FailureOr<double> getConstantScalar(unsigned index, llvm::StringRef what);

  // Attributes.
  const onnx::AttributeProto *getAttr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return getAttr(name); }
  int64_t getInt(llvm::StringRef name, int64_t defaultValue) const;
  double getFloat(llvm::StringRef name, double defaultValue) const;
  SmallVector<int64_t> getInts(llvm::StringRef name) const;
  std::string getString(llvm::StringRef name,
                        llvm::StringRef defaultValue) const;

  // Outputs. Optional outputs may be absent.
  unsigned getNumOutputs() const { return node.output_size(); }
  bool hasOutput(unsigned index) const;
  void setOutput(unsigned index, Value value);
  /// An output of data-dependent length along `axis`: `value` is padded,
  /// the 0-d i64 `extent` holds how many entries along `axis` are valid.
  void setOutputWithExtent(unsigned index, Value value, Value extent,
                           int64_t axis);
  void setConstantOutput(unsigned index, ElementsAttr value);

  // Building.
  /// As many placeholder types as `OpTy` has fixed results (at least one
  /// for a variadic result list that needs one).
  template <typename OpTy>
  SmallVector<Type, 2> placeholderResults() {
    unsigned count = 0;
    if constexpr (OpTy::template hasTrait<OpTrait::OneResult>())
      count = 1;
    else if constexpr (OpTy::template hasTrait<OpTrait::NResults<2>::Impl>())
      count = 2;
    else if constexpr (OpTy::template hasTrait<OpTrait::NResults<3>::Impl>())
      count = 3;
    else if constexpr (OpTy::template hasTrait<OpTrait::NResults<5>::Impl>())
      count = 5;
    else if constexpr (OpTy::template hasTrait<
                           OpTrait::AtLeastNResults<1>::Impl>())
      count = 1;
    return SmallVector<Type, 2>(count, NoneType::get(getContext()));
  }

  /// Creates an op whose result types are inferred; a shape error is
  /// reported at the node instead of aborting.
  template <typename OpTy, typename... Args>
  FailureOr<Operation *> createOp(Args &&...args) {
    OperationState state(loc, OpTy::getOperationName());
    // The generated builder asserts its number of result types: it gets
    // placeholders, which the inferred types replace.
    OpTy::build(getBuilder(), state, placeholderResults<OpTy>(),
                std::forward<Args>(args)...);
    state.types.clear();
    SmallVector<Type> types;
    // The op's own message, re-reported with the node it comes from.
    std::string message;
    LogicalResult inferred = failure();
    {
      ScopedDiagnosticHandler capture(getContext(), [&](Diagnostic &diag) {
        message = diag.str();
        return success();
      });
      inferred = OpTy::inferReturnTypes(
          getContext(), loc, state.operands,
          state.attributes.getDictionary(getContext()),
          state.getRawProperties(), state.regions, types);
    }
    if (failed(inferred))
      return emitError() << message;
    state.addTypes(types);
    return foldIfConstant(getBuilder().create(state));
  }
  template <typename OpTy, typename... Args>
  FailureOr<Value> create(Args &&...args) {
    FailureOr<Operation *> op = createOp<OpTy>(std::forward<Args>(args)...);
    if (failed(op))
      return failure();
    return (*op)->getResult(0);
  }
  /// Creates an op whose result type is given or follows from its operand.
  template <typename OpTy, typename... Args>
  Value createTyped(Args &&...args) {
    return foldIfConstant(
               OpTy::create(getBuilder(), loc, std::forward<Args>(args)...))
        ->getResult(0);
  }

  /// Shape arithmetic on values known at import time folds away: an op whose
  /// operands are all constants is replaced by the constant it folds to.
  Operation *foldIfConstant(Operation *op);

  Value constant(ElementsAttr value);
  /// A constant of `shape` filled with `value`.
  Value splat(Type elementType, double value, ArrayRef<int64_t> shape = {});
  /// Reshape to `shape` (a no-op when it already has it).
  Value reshape(Value value, ArrayRef<int64_t> shape);
  /// Cast to `elementType` (a no-op when it already has it).
  Value cast(Value value, Type elementType);

private:
  GraphImporter &graph;
  const onnx::NodeProto &node;
  Location loc;
  int64_t opset;
};

/// Imports one node; returns failure after emitting an error (or silently
/// when an input is poisoned).
using NodeImporterFn = LogicalResult (*)(NodeContext &);
using NodeImporterRegistry = llvm::StringMap<NodeImporterFn>;

void registerElementwiseImporters(NodeImporterRegistry &registry);
void registerLinalgImporters(NodeImporterRegistry &registry);
void registerNormalizationImporters(NodeImporterRegistry &registry);
void registerReductionImporters(NodeImporterRegistry &registry);
void registerTensorImporters(NodeImporterRegistry &registry);
void registerLossImporters(NodeImporterRegistry &registry);
void registerRecurrentImporters(NodeImporterRegistry &registry);
void registerResizeImporters(NodeImporterRegistry &registry);
void registerEinsumImporter(NodeImporterRegistry &registry);
void registerScatterGatherImporters(NodeImporterRegistry &registry);
void registerControlFlowImporters(NodeImporterRegistry &registry);
void registerGridSampleImporter(NodeImporterRegistry &registry);
void registerDataDependentImporters(NodeImporterRegistry &registry);

/// The axes a Reduce* node reduces, normalized, sorted and unique (from its
/// `axes` attribute or constant input). Empty with `identity` set when the
/// node is the identity (noop_with_empty_axes).
FailureOr<SmallVector<int64_t>> getReduceAxes(NodeContext &ctx, int64_t rank,
                                              bool &identity);

/// Gives the node's outputs the data-dependent lengths of its inputs (see
/// Extents.cpp), or reports why the node cannot read such an input.
LogicalResult propagateExtents(NodeContext &ctx);

/// The most elements an imported tensor may have (2^48): element counts and
/// byte sizes of every shape below it fit in int64 without overflow.
constexpr int64_t kMaxTensorElements = int64_t(1) << 48;

/// The most elements of a constant an importer computes element by element
/// (masks, index bases): larger ones are refused rather than built.
constexpr int64_t kMaxComputedConstantElements = int64_t(1) << 22;

/// The element count of `shape`, or nullopt when it exceeds
/// kMaxTensorElements (dimensions must be non-negative).
std::optional<int64_t> boundedElementCount(ArrayRef<int64_t> shape);

/// The normalized form of a possibly negative axis, or failure with an error.
FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank);

} // namespace onnx_import
} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_IMPORT_ONNX_IMPORTCONTEXT_H
