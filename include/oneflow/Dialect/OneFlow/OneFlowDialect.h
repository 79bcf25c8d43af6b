//===- OneFlowDialect.h - The oneflow dialect -------------------*- C++ -*-===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ONEFLOWDIALECT_H
#define ONEFLOW_DIALECT_ONEFLOW_ONEFLOWDIALECT_H

#include "oneflow/Dialect/SBP/SBPDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "oneflow/Dialect/OneFlow/OneFlowOpsDialect.h.inc"

#include "oneflow/Dialect/OneFlow/OneFlowEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "oneflow/Dialect/OneFlow/OneFlowAttrs.h.inc"

namespace mlir {
namespace oneflow {

/// On a graph result that is the extent of an output of data-dependent
/// length (a 0-d i64: how many entries along `oneflow.extent_axis` of the
/// output named here are valid; the rest is padding). Its own name is the
/// output's plus kExtentSuffix.
constexpr llvm::StringLiteral kExtentOfAttrName = "oneflow.extent_of";
constexpr llvm::StringLiteral kExtentAxisAttrName = "oneflow.extent_axis";
constexpr llvm::StringLiteral kExtentSuffix = "#extent";
/// The kernel library's NonZero takes up to this many dimensions.
constexpr int64_t kMaxNonZeroRank = 8;

//===----------------------------------------------------------------------===//
// Shared shape inference and verification helpers (OneFlowOps.cpp).
//===----------------------------------------------------------------------===//

/// Numpy-style broadcast of all operand shapes; the result element type is
/// the operands' (the last operand's for `where`) or i1 for comparisons.
LogicalResult inferBroadcastType(std::optional<Location> location,
                                 ValueRange operands, bool isCompare,
                                 SmallVectorImpl<Type> &inferred);

/// The type of reducing `input` over `axes`; `resultElementType` defaults to
/// the input's.
LogicalResult inferReductionType(std::optional<Location> location,
                                 RankedTensorType input, ArrayRef<int64_t> axes,
                                 bool keepDims, Type resultElementType,
                                 SmallVectorImpl<Type> &inferred);

/// Checks 0 <= axis < rank.
LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank);

/// The aux tensor matmul_act_aux writes and matmul_act_grad reads for a
/// [m, n] result (OneFlowKernelOps.cpp): the ReLU bit mask as
/// [m, ld / 32] i32 words, ld = n rounded up to 128 bits; the GELU
/// pre-activation as [m, ld] f32, ld = n rounded up to 8.
RankedTensorType getEpilogueAuxType(MLIRContext *context,
                                    EpilogueActivation activation, int64_t m,
                                    int64_t n);

//===----------------------------------------------------------------------===//
// Shared SBP rules (OneFlowSbpRules.cpp).
//===----------------------------------------------------------------------===//

/// Elementwise with numpy broadcasting: a result dimension's factor is shared
/// by every operand dimension that is not broadcast into it. `linear`
/// lists the operands partial sums flow through (empty: all of them).
sbp::SbpFactorRule getElementwiseSbpRule(Operation *op, sbp::PartialRule partial,
                                         ArrayRef<unsigned> linear = {});

/// Like elementwise on a single operand, but the listed axes stay whole.
sbp::SbpFactorRule getWholeAxesSbpRule(Operation *op, ArrayRef<int64_t> axes);

/// Reduction over `axes`: reduced axes are reduction factors when the
/// reduction is linear (sum, mean), otherwise they stay whole.
sbp::SbpFactorRule getReductionSbpRule(int64_t rank, ArrayRef<int64_t> axes,
                                       bool keepDims, bool linear);

/// Reshape: a factor is shared only between the leading dimensions of
/// matching groups of dimensions, where a split means the same thing on
/// both sides.
sbp::SbpFactorRule getReshapeSbpRule(RankedTensorType input,
                                     RankedTensorType result);

//===----------------------------------------------------------------------===//
// Constant folding (OneFlowFolds.cpp).
//===----------------------------------------------------------------------===//

enum class BinaryFold {
  Add, Sub, Mul, Div, Pow, Max, Min, And, Or, Xor,
  Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual
};
enum class ReduceFold { Sum, Mean, Max, Min, Prod };

/// Evaluates a broadcasting binary op on constant operands (small tensors
/// only: this is for shape arithmetic, not data).
OpFoldResult foldBinary(Type resultType, Attribute lhs, Attribute rhs,
                        BinaryFold kind);
/// Evaluates a reduction of a constant.
OpFoldResult foldReduce(Type resultType, Attribute input,
                        ArrayRef<int64_t> axes, ReduceFold kind);
/// A constant reshaped to `resultType`.
OpFoldResult foldReshapeOfConstant(Attribute input, Type resultType);

} // namespace oneflow
} // namespace mlir

#include "oneflow/Dialect/OneFlow/OneFlowInterfaces.h.inc"

namespace mlir {
namespace oneflow {
/// Attaches the gradient rules (OneFlowGradients.cpp) to the ops.
void attachGradientInterfaces(MLIRContext *context);
} // namespace oneflow
} // namespace mlir

#define GET_OP_CLASSES
#include "oneflow/Dialect/OneFlow/OneFlowOps.h.inc"

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWDIALECT_H
