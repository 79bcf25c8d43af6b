//===- CallLoops.h - Library calls rewritten as loops -----------*- C++ -*-===//
//
// CPU kernel library calls that have no CUDA version become loop nests
// that oneflow-map-loops-to-gpu maps (oneflow-prepare-loops-for-gpu): the
// buffers they point at, the nests' shapes, and the rewrites kept apart
// from that pass.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_CODEGEN_CUDA_CALLLOOPS_H
#define ONEFLOW_LIB_CODEGEN_CUDA_CALLLOOPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::oneflow::call_loops {

/// The buffer a library call argument points at (`index_cast` of
/// `extract_aligned_pointer_as_index`) as a 1-D view of all its elements,
/// or null when it is not one with an identity layout.
Value flatBuffer(OpBuilder &b, Location loc, Value argument);

/// An index constant.
Value index(OpBuilder &b, Location loc, int64_t value);

/// `(o * n + j) * inner + i`: the element at `j` along the axis.
Value alongAxis(OpBuilder &b, Location loc, Value o, int64_t n, Value j,
                int64_t inner, Value i);

/// A parallel nest over the positions around the axis (outer x inner),
/// one GPU thread each (oneflow-map-loops-to-gpu reads the attribute).
void aroundAxis(OpBuilder &b, Location loc, int64_t outer, int64_t inner,
                function_ref<void(OpBuilder &, Location, Value, Value)> body);

/// The constant int64 operands of `call` from `first` on, or failure.
FailureOr<SmallVector<int64_t>> constantScalars(func::CallOp call,
                                                unsigned first);

/// `oneflow_non_max_suppression_f32(...)` as one GPU thread's loops.
LogicalResult nonMaxSuppressionToLoops(func::CallOp call);

/// `oneflow_non_zero_f64(...)` as one GPU thread's scan.
LogicalResult nonZeroToLoops(func::CallOp call);

/// `oneflow_unique_T(...)` as loops: one thread per entry where the
/// entries are independent, one thread for the counts.
LogicalResult uniqueToLoops(func::CallOp call);

} // namespace mlir::oneflow::call_loops

#endif // ONEFLOW_LIB_CODEGEN_CUDA_CALLLOOPS_H
