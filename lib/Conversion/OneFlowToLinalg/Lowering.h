//===- Lowering.h - Shared helpers of the oneflow-to-linalg lowering -*- C++ -*-===//

#ifndef ONEFLOW_LIB_CONVERSION_ONEFLOWTOLINALG_LOWERING_H
#define ONEFLOW_LIB_CONVERSION_ONEFLOWTOLINALG_LOWERING_H

#include "oneflow/Conversion/Passes.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace oneflow {
namespace lowering {

using ScalarBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange args)>;

/// An uninitialized tensor of `type`.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);
/// A tensor of `type` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value);
/// A scalar constant of `type` (float or integer) holding `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// A parallel linalg.generic computing `resultType` from `operands` with
/// numpy broadcasting; `body` maps the operand elements to the result
/// element.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, ScalarBuilder body);

/// Reduces `input` over `axes` with `combine(acc, element)` starting from
/// `init`. The result drops the reduced axes.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, TypedAttr init,
                     ScalarBuilder combine);

/// Reshapes a contiguous tensor (row-major), e.g. to restore kept dims.
Value reshapeTensor(OpBuilder &b, Location loc, Value input,
                    RankedTensorType resultType);

/// The identity/neutral start value of a reduction.
TypedAttr lowestValue(Type elementType);
TypedAttr highestValue(Type elementType);

/// Calls `void symbol(i64 ptr..., i64 scalar...)` from the OneFlow kernel
/// library on the buffers of `inputs`, writing fresh buffers of
/// `resultTypes`. Buffers are passed as their aligned addresses (0 for a
/// null input), scalars as i64.
SmallVector<Value> buildLibraryCall(OpBuilder &b, Location loc,
                                    StringRef symbol, ValueRange inputs,
                                    TypeRange resultTypes,
                                    ArrayRef<int64_t> scalars);

void populateElementwisePatterns(RewritePatternSet &patterns);
void populateLinalgPatterns(RewritePatternSet &patterns);
void populateReductionPatterns(RewritePatternSet &patterns);
void populateDataMovementPatterns(RewritePatternSet &patterns);
void populateGradientPatterns(RewritePatternSet &patterns);

} // namespace lowering
} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_CONVERSION_ONEFLOWTOLINALG_LOWERING_H
