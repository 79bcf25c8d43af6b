//===- Lowering.h - Shared helpers of the oneflow-to-linalg lowering -*- C++ -*-===//

#ifndef ONEFLOW_LIB_CONVERSION_ONEFLOWTOLINALG_LOWERING_H
#define ONEFLOW_LIB_CONVERSION_ONEFLOWTOLINALG_LOWERING_H

#include "oneflow/Conversion/Passes.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

#include <array>

namespace mlir {
namespace oneflow {
namespace lowering {

using ScalarBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange args)>;

/// The ranked tensor type of `value`.
inline RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// An `index` constant.
Value indexConstant(OpBuilder &b, Location loc, int64_t value);

/// The number of elements of `type` along `axes`.
int64_t countOver(RankedTensorType type, ArrayRef<int64_t> axes);

/// [outer, n, inner] around `axis` of `type`.
std::array<int64_t, 3> aroundAxis(RankedTensorType type, int64_t axis);

/// The axes batch normalization reduces over in an [N, C, ...] tensor of
/// `rank`: N and the spatial dims.
SmallVector<int64_t> batchNormAxes(int64_t rank);

/// The library suffix of a BLAS element type, or "" when BLAS has none.
StringRef blasSuffix(Type type);
/// The suffix of a product's GEMM: blasSuffix's, and with `lowPrecision`
/// (CUDA: cuBLASLt, f32 accumulation) "bf16" and "f16" too.
StringRef gemmSuffix(Type type, bool lowPrecision);

/// An index operand (any integer type) as an in-range `index`: negative
/// values count from the end, out-of-range values clamp (reading outside a
/// buffer is never an option).
Value normalizedIndex(OpBuilder &b, Location loc, Value index, int64_t size);

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

/// fn(lhs, rhs) elementwise, broadcasting like numpy.
Value buildBinary(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  function_ref<Value(OpBuilder &, Location, Value, Value)> fn);
/// fn(x) elementwise.
Value buildUnary(OpBuilder &b, Location loc, Value x,
                 function_ref<Value(OpBuilder &, Location, Value)> fn);

/// Float arithmetic on whole tensors, broadcasting like numpy.
Value addF(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value subF(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value mulF(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value divF(OpBuilder &b, Location loc, Value lhs, Value rhs);
/// x * factor.
Value scaleF(OpBuilder &b, Location loc, Value x, double factor);
/// rsqrt(variance + epsilon), elementwise.
Value invStdOf(OpBuilder &b, Location loc, Value variance, double epsilon);

/// Reduces `input` over `axes` with `combine(acc, element)` starting from
/// `init`. The result drops the reduced axes.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, TypedAttr init,
                     ScalarBuilder combine);

/// Reshapes a contiguous tensor (row-major), e.g. to restore kept dims.
Value reshapeTensor(OpBuilder &b, Location loc, Value input,
                    RankedTensorType resultType);

/// Pads the spatial dims (2 and 3) of an NCHW tensor by `low` and `high`
/// with `fill`.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, TypedAttr fill);

/// Pads the NCHW input of a pooling window with `fill`: the explicit pads,
/// plus what ceil mode needs at the end so that the last window of
/// `resultType` fits.
Value padForPooling(OpBuilder &b, Location loc, Value x,
                    RankedTensorType resultType, ArrayRef<int64_t> kernel,
                    ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                    ArrayRef<int64_t> pads, TypedAttr fill);

/// avg_pool2d's divisors as a constant [outH, outW] of `element`: 1 / the
/// number of elements of each window inside the [h, w] input (and inside
/// the explicit pads with count_include_pad), known at compile time.
Value avgPoolReciprocals(OpBuilder &b, Location loc, Type element, int64_t outH,
                         int64_t outW, int64_t h, int64_t w,
                         ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                         ArrayRef<int64_t> pads, bool includePad);

/// The identity/neutral start value of a reduction.
TypedAttr lowestValue(Type elementType);
TypedAttr highestValue(Type elementType);

/// Calls `void symbol(i64 ptr..., i64 scalar...)` from the OneFlow kernel
/// library on the buffers of `inputs`, writing fresh buffers of
/// `resultTypes`. Buffers are passed as their aligned addresses (0 for a
/// null input), scalars as i64. A result with a non-null entry in `inits`
/// starts as that value broadcast to its shape (numpy rules).
SmallVector<Value> buildLibraryCall(OpBuilder &b, Location loc,
                                    StringRef symbol, ValueRange inputs,
                                    TypeRange resultTypes,
                                    ArrayRef<int64_t> scalars,
                                    ValueRange inits = {});

/// The addend of the `add` that is the only user of `product`, when it is a
/// bias: one value per column, broadcast over every other dimension. The
/// product can start from it and accumulate (see the _acc GEMMs).
std::pair<Operation *, Value> biasAddOf(Value product);

void populateElementwisePatterns(RewritePatternSet &patterns);
/// `lowPrecisionGemms`: bf16/f16 matmul and batch_matmul call _bf16/_f16
/// GEMMs (see gemmSuffix).
void populateLinalgPatterns(RewritePatternSet &patterns,
                            bool lowPrecisionGemms);
/// `libraryCalls` (CPU): f32 reductions over middle axes call the kernel
/// library (see ReduceMiddleCall).
void populateReductionPatterns(RewritePatternSet &patterns, bool libraryCalls);
void populateDataMovementPatterns(RewritePatternSet &patterns,
                                  bool poolingCalls);
/// `poolingCalls`: max_pool2d_grad calls the kernel library's
/// oneflow_max_pool2d_grad_* (CPU), as the pooling patterns do.
void populateGradientPatterns(RewritePatternSet &patterns, bool poolingCalls);

} // namespace lowering
} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_CONVERSION_ONEFLOWTOLINALG_LOWERING_H
