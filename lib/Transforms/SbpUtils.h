//===- SbpUtils.h - Shared helpers of the SBP passes ------------*- C++ -*-===//

#ifndef ONEFLOW_LIB_TRANSFORMS_SBPUTILS_H
#define ONEFLOW_LIB_TRANSFORMS_SBPUTILS_H

#include "oneflow/Dialect/SBP/SBPDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace oneflow {

using NdSbp = SmallVector<sbp::Sbp, 3>;

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
