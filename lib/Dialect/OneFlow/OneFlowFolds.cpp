//===- OneFlowFolds.cpp - Folds of oneflow ops ----------------------------===//
//
// Structural folds (identities, chains) and the evaluation of ops on small
// constants, which turns the shape arithmetic of imported models into
// constants. Large tensors are never evaluated here: that is the kernels'
// job.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/ElementsUtils.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow;

/// Constants of more elements than this are not evaluated at compile time.
static constexpr int64_t kMaxFoldElements = 1 << 16;

/// The dense value of a small constant operand, or null.
static DenseElementsAttr smallConstant(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() > kMaxFoldElements)
    return {};
  return dense;
}

static bool isSmall(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getNumElements() <= kMaxFoldElements;
}

/// Maps each element of `resultShape` (row-major) to the element of an
/// operand of `shape` that numpy broadcasting reads.
static SmallVector<int64_t> broadcastIndices(ArrayRef<int64_t> shape,
                                             ArrayRef<int64_t> resultShape) {
  int64_t count = 1;
  for (int64_t d : resultShape)
    count *= d;
  int64_t rank = resultShape.size(), offset = rank - shape.size();
  SmallVector<int64_t> strides(rank, 0);
  for (int64_t d = shape.size() - 1, stride = 1; d >= 0; --d) {
    strides[d + offset] = shape[d] == 1 ? 0 : stride;
    stride *= shape[d];
  }
  SmallVector<int64_t> indices(count);
  SmallVector<int64_t> position(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t index = 0;
    for (int64_t d = 0; d < rank; ++d)
      index += position[d] * strides[d];
    indices[i] = index;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++position[d] < resultShape[d])
        break;
      position[d] = 0;
    }
  }
  return indices;
}

static std::optional<double> applyFloat(BinaryFold kind, double a, double b) {
  switch (kind) {
  case BinaryFold::Add: return a + b;
  case BinaryFold::Sub: return a - b;
  case BinaryFold::Mul: return a * b;
  case BinaryFold::Div: return a / b;
  case BinaryFold::Pow: return std::pow(a, b);
  case BinaryFold::Max: return std::max(a, b);
  case BinaryFold::Min: return std::min(a, b);
  case BinaryFold::Equal: return a == b;
  case BinaryFold::NotEqual: return a != b;
  case BinaryFold::Less: return a < b;
  case BinaryFold::LessEqual: return a <= b;
  case BinaryFold::Greater: return a > b;
  case BinaryFold::GreaterEqual: return a >= b;
  default: return std::nullopt;
  }
}

static std::optional<int64_t> applyInt(BinaryFold kind, int64_t a,
                                       int64_t b) {
  int64_t result;
  switch (kind) {
  case BinaryFold::Add:
    return __builtin_add_overflow(a, b, &result) ? std::nullopt
                                                 : std::optional(result);
  case BinaryFold::Sub:
    return __builtin_sub_overflow(a, b, &result) ? std::nullopt
                                                 : std::optional(result);
  case BinaryFold::Mul:
    return __builtin_mul_overflow(a, b, &result) ? std::nullopt
                                                 : std::optional(result);
  case BinaryFold::Div:
    // Integer division truncates; leave division by zero to run time.
    if (b == 0 || (a == INT64_MIN && b == -1))
      return std::nullopt;
    return a / b;
  case BinaryFold::Pow: {
    if (b < 0)
      return std::nullopt;
    result = 1;
    for (int64_t i = 0; i < b; ++i)
      if (__builtin_mul_overflow(result, a, &result))
        return std::nullopt;
    return result;
  }
  case BinaryFold::Max: return std::max(a, b);
  case BinaryFold::Min: return std::min(a, b);
  case BinaryFold::And: return (a != 0) && (b != 0);
  case BinaryFold::Or: return (a != 0) || (b != 0);
  case BinaryFold::Xor: return (a != 0) != (b != 0);
  case BinaryFold::Equal: return a == b;
  case BinaryFold::NotEqual: return a != b;
  case BinaryFold::Less: return a < b;
  case BinaryFold::LessEqual: return a <= b;
  case BinaryFold::Greater: return a > b;
  case BinaryFold::GreaterEqual: return a >= b;
  }
  return std::nullopt;
}

OpFoldResult mlir::oneflow::foldBinary(Type resultType, Attribute lhsAttr,
                                       Attribute rhsAttr, BinaryFold kind) {
  DenseElementsAttr lhs = smallConstant(lhsAttr), rhs = smallConstant(rhsAttr);
  auto type = cast<RankedTensorType>(resultType);
  if (!lhs || !rhs || !isSmall(type))
    return {};
  SmallVector<int64_t> lhsIndex =
      broadcastIndices(lhs.getType().getShape(), type.getShape());
  SmallVector<int64_t> rhsIndex =
      broadcastIndices(rhs.getType().getShape(), type.getShape());
  bool isFloat = isa<FloatType>(lhs.getElementType());
  if (isFloat) {
    SmallVector<double> a = getFloatValues(lhs), b = getFloatValues(rhs);
    SmallVector<double> out;
    for (size_t i = 0; i < lhsIndex.size(); ++i) {
      std::optional<double> v = applyFloat(kind, a[lhsIndex[i]], b[rhsIndex[i]]);
      if (!v)
        return {};
      out.push_back(*v);
    }
    return makeDense(type, out);
  }
  SmallVector<int64_t> a = getIntValues(lhs), b = getIntValues(rhs), out;
  for (size_t i = 0; i < lhsIndex.size(); ++i) {
    std::optional<int64_t> v = applyInt(kind, a[lhsIndex[i]], b[rhsIndex[i]]);
    if (!v)
      return {};
    out.push_back(*v);
  }
  return makeDenseInts(type, out);
}

OpFoldResult mlir::oneflow::foldReduce(Type resultType, Attribute inputAttr,
                                       ArrayRef<int64_t> axes,
                                       ReduceFold kind) {
  DenseElementsAttr input = smallConstant(inputAttr);
  if (!input)
    return {};
  auto type = cast<RankedTensorType>(resultType);
  ArrayRef<int64_t> shape = input.getType().getShape();
  // The result index of each input element: its coordinates with the
  // reduced axes dropped (keepdims only adds unit dims, same order).
  int64_t rank = shape.size(), count = input.getNumElements();
  SmallVector<int64_t> position(rank, 0), target(count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t index = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(axes, d))
        index = index * shape[d] + position[d];
    target[i] = index;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++position[d] < shape[d])
        break;
      position[d] = 0;
    }
  }
  int64_t outCount = type.getNumElements();
  if (count == 0)
    return {};
  int64_t perOutput = count / std::max<int64_t>(outCount, 1);
  auto combine = [&](auto values, auto init) {
    using T = decltype(init);
    SmallVector<T> acc(outCount, init);
    SmallVector<bool> seen(outCount, false);
    for (int64_t i = 0; i < count; ++i) {
      T &a = acc[target[i]];
      T v = values[i];
      if (!seen[target[i]]) {
        a = v;
        seen[target[i]] = true;
        continue;
      }
      switch (kind) {
      case ReduceFold::Sum:
      case ReduceFold::Mean: a += v; break;
      case ReduceFold::Prod: a *= v; break;
      case ReduceFold::Max: a = std::max(a, v); break;
      case ReduceFold::Min: a = std::min(a, v); break;
      }
    }
    if (kind == ReduceFold::Mean)
      for (T &a : acc)
        a /= static_cast<T>(perOutput);
    return acc;
  };
  if (isa<FloatType>(input.getElementType()))
    return makeDense(type, combine(getFloatValues(input), 0.0));
  // Integer sums and products could overflow: evaluate only small values.
  SmallVector<int64_t> values = getIntValues(input);
  for (int64_t v : values)
    if (v > (1 << 20) || v < -(1 << 20))
      return {};
  if (kind == ReduceFold::Prod && count > 3)
    return {};
  return makeDenseInts(type, combine(values, int64_t(0)));
}

OpFoldResult mlir::oneflow::foldReshapeOfConstant(Attribute input,
                                                  Type resultType) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(input))
    return dense.reshape(cast<ShapedType>(resultType));
  return {};
}

//===----------------------------------------------------------------------===//
// Per-op folds
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getX().getDefiningOp<NegOp>())
    return inner.getX();
  if (DenseElementsAttr x = smallConstant(adaptor.getX())) {
    if (isa<FloatType>(x.getElementType()))
      return makeDense(getType(), llvm::map_to_vector(getFloatValues(x),
                                                     [](double v) { return -v; }));
    SmallVector<int64_t> values = getIntValues(x);
    for (int64_t &v : values) {
      if (v == INT64_MIN)
        return {};
      v = -v;
    }
    return makeDenseInts(getType(), values);
  }
  return {};
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  if (DenseElementsAttr x = smallConstant(adaptor.getX()))
    return makeDenseInts(getType(), llvm::map_to_vector(getIntValues(x),
                                                        [](int64_t v) -> int64_t {
                                                          return v == 0;
                                                        }));
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getY().getType())
    return getX();
  DenseElementsAttr x = smallConstant(adaptor.getX());
  if (!x)
    return {};
  Type to = getY().getType().getElementType();
  if (isa<FloatType>(to))
    return makeDense(getY().getType(), getFloatValues(x));
  if (to.isInteger(1))
    return makeDenseInts(getY().getType(),
                         llvm::map_to_vector(getFloatValues(x),
                                             [](double v) -> int64_t {
                                               return v != 0;
                                             }));
  if (isa<FloatType>(x.getElementType())) {
    // Float to integer truncates; out-of-range values are left to run time.
    SmallVector<int64_t> values;
    for (double v : getFloatValues(x)) {
      if (!(std::fabs(v) < 9.2e18))
        return {};
      values.push_back(static_cast<int64_t>(v));
    }
    return makeDenseInts(getY().getType(), values);
  }
  return makeDenseInts(getY().getType(), getIntValues(x));
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr cond = smallConstant(adaptor.getCondition());
  DenseElementsAttr onTrue = smallConstant(adaptor.getOnTrue());
  DenseElementsAttr onFalse = smallConstant(adaptor.getOnFalse());
  auto type = getResult().getType();
  if (!cond || !onTrue || !onFalse || !isSmall(type))
    return {};
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> c = broadcastIndices(cond.getType().getShape(), shape),
                       t = broadcastIndices(onTrue.getType().getShape(), shape),
                       f = broadcastIndices(onFalse.getType().getShape(), shape);
  SmallVector<int64_t> flags = getIntValues(cond);
  if (isa<FloatType>(type.getElementType())) {
    SmallVector<double> a = getFloatValues(onTrue), b = getFloatValues(onFalse),
                        out;
    for (size_t i = 0; i < c.size(); ++i)
      out.push_back(flags[c[i]] ? a[t[i]] : b[f[i]]);
    return makeDense(type, out);
  }
  SmallVector<int64_t> a = getIntValues(onTrue), b = getIntValues(onFalse), out;
  for (size_t i = 0; i < c.size(); ++i)
    out.push_back(flags[c[i]] ? a[t[i]] : b[f[i]]);
  return makeDenseInts(type, out);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getY().getType())
    return getX();
  if (OpFoldResult folded = foldReshapeOfConstant(adaptor.getX(), getType()))
    return folded;
  if (auto inner = getX().getDefiningOp<ReshapeOp>()) {
    getXMutable().assign(inner.getX());
    return getY();
  }
  return {};
}

/// Copies elements of a small constant into a new layout: element i of the
/// result is element `source[i]` of `input`.
static OpFoldResult gatherElements(DenseElementsAttr input,
                                   RankedTensorType type,
                                   ArrayRef<int64_t> source) {
  if (isa<FloatType>(input.getElementType())) {
    SmallVector<double> values = getFloatValues(input), out;
    for (int64_t i : source)
      out.push_back(values[i]);
    return makeDense(type, out);
  }
  SmallVector<int64_t> values = getIntValues(input), out;
  for (int64_t i : source)
    out.push_back(values[i]);
  return makeDenseInts(type, out);
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls `fn(position)` for every coordinate of `shape`, row-major.
static void forEachPosition(ArrayRef<int64_t> shape,
                            function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  SmallVector<int64_t> position(shape.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    fn(position);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++position[d] < shape[d])
        break;
      position[d] = 0;
    }
  }
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (llvm::equal(getPerm(), llvm::seq<int64_t>(0, getPerm().size())))
    return getX();
  DenseElementsAttr x = smallConstant(adaptor.getX());
  if (!x)
    return {};
  SmallVector<int64_t> strides = stridesOf(x.getType().getShape()), source;
  forEachPosition(getType().getShape(), [&](ArrayRef<int64_t> position) {
    int64_t index = 0;
    for (auto [d, p] : llvm::enumerate(position))
      index += p * strides[getPerm()[d]];
    source.push_back(index);
  });
  return gatherElements(x, getType(), source);
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute attr : adaptor.getInputs()) {
    DenseElementsAttr dense = smallConstant(attr);
    if (!dense)
      return {};
    inputs.push_back(dense);
  }
  RankedTensorType type = getResult().getType();
  if (!isSmall(type))
    return {};
  // Row-major: for each outer index, append each input's block along axis.
  int64_t axis = getAxis(), outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  bool isFloat = isa<FloatType>(type.getElementType());
  SmallVector<double> floats;
  SmallVector<int64_t> ints;
  for (int64_t o = 0; o < outer; ++o) {
    for (DenseElementsAttr input : inputs) {
      int64_t block = outer == 0 ? 0 : input.getNumElements() / outer;
      if (isFloat) {
        SmallVector<double> values = getFloatValues(input);
        floats.append(values.begin() + o * block,
                      values.begin() + (o + 1) * block);
      } else {
        SmallVector<int64_t> values = getIntValues(input);
        ints.append(values.begin() + o * block,
                    values.begin() + (o + 1) * block);
      }
    }
  }
  return isFloat ? OpFoldResult(makeDense(type, floats))
                 : OpFoldResult(makeDenseInts(type, ints));
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getY().getType() &&
      llvm::all_of(getSteps(), [](int64_t step) { return step == 1; }))
    return getX();
  DenseElementsAttr x = smallConstant(adaptor.getX());
  if (!x)
    return {};
  SmallVector<int64_t> strides = stridesOf(x.getType().getShape()), source;
  forEachPosition(getType().getShape(), [&](ArrayRef<int64_t> position) {
    int64_t index = 0;
    for (auto [d, p] : llvm::enumerate(position))
      index += (getStarts()[d] + p * getSteps()[d]) * strides[d];
    source.push_back(index);
  });
  return gatherElements(x, getType(), source);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr data = smallConstant(adaptor.getData());
  DenseElementsAttr indices = smallConstant(adaptor.getIndices());
  if (!data || !indices || !isSmall(getType()))
    return {};
  ArrayRef<int64_t> shape = data.getType().getShape();
  int64_t axis = getAxis(), dim = shape[axis];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
    inner *= shape[d];
  SmallVector<int64_t> picks = getIntValues(indices), source;
  for (int64_t &p : picks) {
    if (p < -dim || p >= dim)
      return {};
    if (p < 0)
      p += dim;
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t p : picks)
      for (int64_t i = 0; i < inner; ++i)
        source.push_back((o * dim + p) * inner + i);
  return gatherElements(data, getType(), source);
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getY().getType())
    return getX();
  DenseElementsAttr x = smallConstant(adaptor.getX());
  if (!x)
    return {};
  if (x.isSplat())
    return DenseElementsAttr::get(getType(), x.getSplatValue<Attribute>());
  if (!isSmall(getType()))
    return {};
  return gatherElements(
      x, getType(),
      broadcastIndices(x.getType().getShape(), getType().getShape()));
}
