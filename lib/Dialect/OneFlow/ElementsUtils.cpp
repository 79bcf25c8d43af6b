//===- ElementsUtils.cpp - Reading and building constant tensors ----------===//

#include "oneflow/Dialect/OneFlow/ElementsUtils.h"

#include "llvm/ADT/APFloat.h"

using namespace mlir;

SmallVector<int64_t> mlir::oneflow::getIntValues(DenseElementsAttr attr) {
  SmallVector<int64_t> values;
  Type elementType = attr.getElementType();
  if (isa<FloatType>(elementType)) {
    for (APFloat v : attr.getValues<APFloat>())
      values.push_back(static_cast<int64_t>(v.convertToDouble()));
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
  for (double v : values)
    ints.push_back(static_cast<int64_t>(v));
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
