//===- ElementsUtils.h - Reading and building constant tensors --*- C++ -*-===//
//
// Small helpers over DenseElementsAttr shared by the folders and the ONNX
// importer: element values as int64/double and back, for any of the
// dialect's element types.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ELEMENTSUTILS_H
#define ONEFLOW_DIALECT_ONEFLOW_ELEMENTSUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace oneflow {

/// `value` truncated toward zero, saturated to the int64 range (NaN is 0):
/// a plain cast of an out-of-range double is undefined behavior.
int64_t saturatingToInt64(double value);

/// Integer contents of a constant (floats truncate and saturate, booleans
/// are 0/1).
SmallVector<int64_t> getIntValues(DenseElementsAttr attr);
/// Floating-point contents of a constant.
SmallVector<double> getFloatValues(DenseElementsAttr attr);

/// A constant of `type` from doubles (rounded to the element type) or int64s
/// (truncated to the integer width).
DenseElementsAttr makeDense(RankedTensorType type, ArrayRef<double> values);
DenseElementsAttr makeDenseInts(RankedTensorType type,
                                ArrayRef<int64_t> values);

/// Appends the little-endian bytes of a constant (dense or resource;
/// booleans one byte each).
LogicalResult appendElementBytes(ElementsAttr attr, std::string &out);

/// A constant of `type` from its bytes; data of more than `inlineLimit`
/// elements becomes a resource blob named `resourceName`.
ElementsAttr elementsFromBytes(RankedTensorType type, llvm::StringRef bytes,
                               llvm::StringRef resourceName,
                               int64_t inlineLimit = 64);

/// The block of `attr` (of a row-major tensor) starting at `offsets` with
/// the shape of `blockType`; a splat gives a splat.
FailureOr<ElementsAttr> sliceElements(ElementsAttr attr,
                                      ArrayRef<int64_t> offsets,
                                      RankedTensorType blockType,
                                      llvm::StringRef resourceName);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_DIALECT_ONEFLOW_ELEMENTSUTILS_H
