//===- SbpUtils.h - Shared helpers of the SBP passes ------------*- C++ -*-===//

#ifndef ONEFLOW_LIB_TRANSFORMS_SBPUTILS_H
#define ONEFLOW_LIB_TRANSFORMS_SBPUTILS_H

#include "oneflow/Dialect/SBP/SBPDialect.h"
#include "oneflow/Dialect/SBP/SbpRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace oneflow {

using NdSbp = SmallVector<sbp::Sbp, 3>;

/// An nd-signature: one SBP per mesh axis for every operand and result.
struct NdSignature {
  SmallVector<NdSbp, 2> operands, results;
};

/// Calls `visit` with every nd-signature of `rule` on a mesh of `meshShape`
/// (one of the rule's 1-D signatures per axis, axis 0 varying fastest) for
/// an op of `numOperands` operands and `numResults` results, the product
/// of the axes that split a factor (`degree`, the op's work divides by
/// it), and whether every split factor's pieces hold whole units (heads,
/// groups). Splits of tensor dimensions are not checked (splitsDivide).
void forEachNdSignature(
    const sbp::SbpFactorRule &rule, ArrayRef<int64_t> meshShape,
    unsigned numOperands, unsigned numResults,
    function_ref<void(const NdSignature &sig, double degree, bool wholeUnits)>
        visit);

/// The mesh @main is placed on, or null with an error.
sbp::MeshOp getGraphMesh(func::FuncOp graph);

/// @main of `module` and the mesh it is placed on: a null graph when there
/// is no @main (nothing to distribute); failure, diagnosed, when @main is
/// not placed.
LogicalResult getPlacedGraph(ModuleOp module, func::FuncOp &graph,
                             sbp::MeshOp &mesh);

/// All-broadcast on a mesh of `rank` axes.
NdSbp broadcastNd(size_t rank);

/// The pinned nd-SBP of a graph argument (all-B when none).
NdSbp argumentSbp(func::FuncOp graph, unsigned index, size_t meshRank);

/// The nd-SBP `value` of `graph` is produced with: an argument's pin, a
/// boxing's target, an op's signature (all-B when none).
NdSbp producedSbp(func::FuncOp graph, Value value, size_t meshRank);

/// Whether the splits of `nd` divide the dimensions of `type` (two mesh axes
/// splitting one dimension divide it by their product).
bool splitsDivide(ArrayRef<sbp::Sbp> nd, Type type,
                  ArrayRef<int64_t> meshShape);

/// Logical bytes of a tensor.
double tensorBytes(Type type);

/// `[S<0>, B]` text of an nd-SBP.
std::string ndString(ArrayRef<sbp::Sbp> nd);
/// `[2, 2]` text of a mesh shape.
std::string meshString(ArrayRef<int64_t> shape);

/// Creates `sbp.mesh @mesh` of `shape` on `device` in `module` and places
/// `graph` on it; returns the placement.
FlatSymbolRefAttr placeGraph(ModuleOp module, func::FuncOp graph,
                             ArrayRef<int64_t> shape, StringRef device);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_TRANSFORMS_SBPUTILS_H
