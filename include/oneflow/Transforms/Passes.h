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
/// Kernel call: per result, the argument (a variable's value) whose buffer
/// the result is written to, or -1 (oneflow-update-variables-in-place).
/// Kernel: the same, shared by all its calls (oneflow-share-kernels).
constexpr llvm::StringLiteral kUpdatesInPlaceAttrName =
    "oneflow.updates_in_place";

// Training attributes.
/// Module: the name of the graph output that holds the loss.
constexpr llvm::StringLiteral kLossOutputAttrName = "oneflow.loss_output";
/// Module: the global batch size of a training graph.
constexpr llvm::StringLiteral kBatchSizeAttrName = "oneflow.batch_size";
/// @main result: the variable (symbol) or argument (index) it is the
/// gradient of.
constexpr llvm::StringLiteral kGradientOfAttrName = "oneflow.gradient_of";
/// Variable: updated by the optimizer.
constexpr llvm::StringLiteral kTrainableAttrName = "oneflow.trainable";
/// Variable: optimizer state of the named parameter (same layout).
constexpr llvm::StringLiteral kStateOfAttrName = "oneflow.state_of";
/// Variable: the logical variable it is a piece of (name, shape and the
/// offsets of the piece); absent when it is the whole of itself.
constexpr llvm::StringLiteral kLogicalNameAttrName = "oneflow.logical_name";
constexpr llvm::StringLiteral kLogicalShapeAttrName = "oneflow.logical_shape";
constexpr llvm::StringLiteral kLogicalOffsetsAttrName =
    "oneflow.logical_offsets";
/// Variable of a program shared by several ranks (sbp-localize
/// share-programs): the mesh axes that split each dimension, outermost
/// first (an array of i64 arrays), and, when its data is not a splat, the
/// whole tensor it is a piece of (each rank loads its piece).
constexpr llvm::StringLiteral kMeshSplitsAttrName = "oneflow.mesh_splits";
constexpr llvm::StringLiteral kWholeValueAttrName = "oneflow.whole_value";
/// Program shared by several ranks: their global ranks, in device order
/// (the first is the program's own rank).
constexpr llvm::StringLiteral kRoleMembersAttrName = "sbp.role_members";
/// Module of shared programs: the mesh shape the members are laid out on.
constexpr llvm::StringLiteral kRoleMeshShapeAttrName = "sbp.role_mesh_shape";
/// The pipeline stage of an op (user annotation or sbp-pipeline-stages).
constexpr llvm::StringLiteral kStageAttrName = "oneflow.stage";
/// Graph argument/result names (as in the ONNX model).
constexpr llvm::StringLiteral kIONameAttrName = "onnx.name";
/// batch_norm: the ONNX names of its running mean and variance, recorded by
/// the importer when the model reads one under another initializer's name
/// (an exporter merged equal initializers); training gives such statistics
/// their own variables under these names.
constexpr llvm::StringLiteral kStatisticNamesAttrName = "onnx.statistics";

/// The graph function @main of `module`, or null after an error saying
/// there is no graph `purpose` (e.g. "to train").
inline func::FuncOp lookupGraph(ModuleOp module, llvm::StringRef purpose) {
  auto graph = module.lookupSymbol<func::FuncOp>("main");
  if (!graph)
    module.emitError() << "no @main graph " << purpose;
  return graph;
}

/// How an op takes part in kernel fusion (oneflow-fuse).
enum class FusionKind {
  Opaque,      // a kernel of its own (or not a kernel at all)
  Elementwise, // elementwise, with numpy broadcasting
  Movement,    // reshape, transpose, slices, concatenation
  Reduction,   // reductions and normalizations, forward and backward
  Library,     // a BLAS or convolution call: fuses epilogues only
};
FusionKind getFusionKind(Operation *op);

/// The op a fused kernel is named and located after: its library call,
/// else its (last) reduction, else its last op.
Operation *getFusionRoot(Block &body);

#define GEN_PASS_DECL
#include "oneflow/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "oneflow/Transforms/Passes.h.inc"

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TRANSFORMS_PASSES_H
