//===- OneFlowShapes.h - shape rules shared by ops and their grads -*- C++
//-*-===//
//
// The shape rules of the forward ops that the gradient ops' verifiers check
// against (a gradient's operands and result are the forward op's operands
// and results). Errors go through `emitError`, so that inferReturnTypes
// reports them at an optional location and a verifier as an op error.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ONEFLOWSHAPES_H
#define ONEFLOW_DIALECT_ONEFLOW_ONEFLOWSHAPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir {
namespace oneflow {

using EmitErrorFn = llvm::function_ref<InFlightDiagnostic()>;

/// conv2d(x, weight): the NCHW output shape.
LogicalResult inferConv2DShape(EmitErrorFn emitError, RankedTensorType x,
                               RankedTensorType weight,
                               ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> pads,
                               ArrayRef<int64_t> dilations, int64_t groups,
                               SmallVectorImpl<int64_t> &shape);

/// max_pool2d / avg_pool2d (dilations {1, 1}) of x: the NCHW output shape.
LogicalResult inferPool2DShape(EmitErrorFn emitError, RankedTensorType x,
                               ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> pads,
                               ArrayRef<int64_t> dilations, bool ceilMode,
                               SmallVectorImpl<int64_t> &shape);

/// gather(data, indices, axis): the output shape.
LogicalResult inferGatherShape(EmitErrorFn emitError, RankedTensorType data,
                               RankedTensorType indices, int64_t axis,
                               SmallVectorImpl<int64_t> &shape);

/// gather_elements(data, indices, axis): the output shape (the indices').
LogicalResult inferGatherElementsShape(EmitErrorFn emitError,
                                       RankedTensorType data,
                                       RankedTensorType indices, int64_t axis,
                                       SmallVectorImpl<int64_t> &shape);

/// slice(x, starts, limits, steps): the output shape.
LogicalResult inferSliceShape(EmitErrorFn emitError, RankedTensorType x,
                              ArrayRef<int64_t> starts,
                              ArrayRef<int64_t> limits, ArrayRef<int64_t> steps,
                              SmallVectorImpl<int64_t> &shape);

/// Batch-norm parameters and statistics are [C] of an [N, C, ...] input.
LogicalResult verifyChannelParams(Operation *op, RankedTensorType x,
                                  RankedTensorType param);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWSHAPES_H
