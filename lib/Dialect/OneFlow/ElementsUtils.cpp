//===- ElementsUtils.cpp - Reading and building constant tensors ----------===//

#include "oneflow/Dialect/OneFlow/ElementsUtils.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <limits>

using namespace mlir;

int64_t mlir::oneflow::saturatingToInt64(double value) {
  if (std::isnan(value))
    return 0;
  if (value >= 0x1p63)
    return std::numeric_limits<int64_t>::max();
  if (value < -0x1p63)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

SmallVector<int64_t> mlir::oneflow::getIntValues(DenseElementsAttr attr) {
  SmallVector<int64_t> values;
  Type elementType = attr.getElementType();
  if (isa<FloatType>(elementType)) {
    for (APFloat v : attr.getValues<APFloat>())
      values.push_back(saturatingToInt64(v.convertToDouble()));
  } else if (elementType.isInteger(1)) {
    for (bool v : attr.getValues<bool>())
      values.push_back(v);
  } else {
    for (APInt v : attr.getValues<APInt>())
      values.push_back(v.getSExtValue());
  }
  return values;
}

SmallVector<double> mlir::oneflow::getFloatValues(DenseElementsAttr attr) {
  SmallVector<double> values;
  if (isa<FloatType>(attr.getElementType())) {
    for (APFloat v : attr.getValues<APFloat>())
      values.push_back(v.convertToDouble());
    return values;
  }
  for (int64_t v : getIntValues(attr))
    values.push_back(static_cast<double>(v));
  return values;
}

DenseElementsAttr mlir::oneflow::makeDense(RankedTensorType type,
                                         ArrayRef<double> values) {
  Type elementType = type.getElementType();
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    SmallVector<APFloat> floats;
    for (double v : values) {
      APFloat f(v);
      bool lost;
      f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      floats.push_back(f);
    }
    return DenseElementsAttr::get(type, floats);
  }
  SmallVector<int64_t> ints;
  // A float splat of an integer tensor (bias, scale of a malformed model)
  // may not fit.
  for (double v : values)
    ints.push_back(saturatingToInt64(v));
  return makeDenseInts(type, ints);
}

DenseElementsAttr mlir::oneflow::makeDenseInts(RankedTensorType type,
                                             ArrayRef<int64_t> values) {
  Type elementType = type.getElementType();
  if (isa<FloatType>(elementType)) {
    SmallVector<double> doubles(values.begin(), values.end());
    return makeDense(type, doubles);
  }
  if (elementType.isInteger(1)) {
    SmallVector<bool> bools;
    for (int64_t v : values)
      bools.push_back(v != 0);
    return DenseElementsAttr::get(type, bools);
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> ints;
  for (int64_t v : values)
    ints.push_back(APInt(width, v, /*isSigned=*/true, /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, ints);
}

static unsigned elementBytes(Type element) {
  return element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
}

LogicalResult mlir::oneflow::appendElementBytes(ElementsAttr attr,
                                                std::string &out) {
  auto type = cast<RankedTensorType>(attr.getType());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return failure();
    ArrayRef<char> data = blob->getData();
    out.append(data.data(), data.size());
    return success();
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return failure();
  Type element = type.getElementType();
  unsigned bytes = elementBytes(element);
  auto appendBits = [&](const APInt &bits) {
    uint64_t word = bits.getZExtValue();
    out.append(reinterpret_cast<const char *>(&word), bytes);
  };
  if (isa<FloatType>(element)) {
    for (APFloat value : dense.getValues<APFloat>())
      appendBits(value.bitcastToAPInt());
  } else if (element.isInteger(1)) {
    for (bool value : dense.getValues<bool>())
      out.push_back(value ? 1 : 0);
  } else {
    for (APInt value : dense.getValues<APInt>())
      appendBits(value);
  }
  return success();
}

ElementsAttr mlir::oneflow::elementsFromBytes(RankedTensorType type,
                                              llvm::StringRef bytes,
                                              llvm::StringRef resourceName,
                                              int64_t inlineLimit) {
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, values);
  }
  if (type.getNumElements() > inlineLimit)
    return DenseResourceElementsAttr::get(
        type, resourceName,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(bytes.data(), bytes.size()), alignof(double)));
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(bytes.data(), bytes.size()));
}

FailureOr<ElementsAttr>
mlir::oneflow::sliceElements(ElementsAttr attr, ArrayRef<int64_t> offsets,
                             RankedTensorType blockType,
                             llvm::StringRef resourceName) {
  auto type = cast<RankedTensorType>(attr.getType());
  // Every block of a splat is the splat: never expand it (zero optimizer
  // state of a large parameter would take its full size here).
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat())
    return ElementsAttr(dense.resizeSplat(blockType));
  std::string all;
  if (failed(appendElementBytes(attr, all)))
    return failure();
  unsigned bytes = elementBytes(type.getElementType());
  ArrayRef<int64_t> shape = type.getShape(), block = blockType.getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  std::string out;
  out.reserve(blockType.getNumElements() * bytes);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0, e = blockType.getNumElements(); i < e; ++i) {
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d)
      at += (offsets[d] + index[d]) * strides[d];
    out.append(all, at * bytes, bytes);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < block[d])
        break;
      index[d] = 0;
    }
  }
  return elementsFromBytes(blockType, out, resourceName);
}
