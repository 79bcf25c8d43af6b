//===- Collectives.cpp - What a COLLECTIVE task moves, byte by byte -------===//

#include "oneflow/Runtime/Collectives.h"

#include "oneflow/Runtime/Tensor.h"

#include <cmath>
#include <cstring>

namespace oneflow {
namespace runtime {

std::string collectiveKindName(int kind) {
  if (plan::Collective::Kind_IsValid(kind))
    return plan::Collective::Kind_Name(
        static_cast<plan::Collective::Kind>(kind));
  return "kind " + std::to_string(kind);
}

bool isReduction(plan::Collective::Kind kind) {
  return kind == plan::Collective::ALL_REDUCE ||
         kind == plan::Collective::REDUCE_SCATTER;
}

bool isPointToPoint(plan::Collective::Kind kind) {
  return kind == plan::Collective::SEND || kind == plan::Collective::RECV;
}

namespace {

int64_t product(const std::vector<int64_t> &shape, size_t begin, size_t end) {
  int64_t result = 1;
  for (size_t i = begin; i < end; ++i)
    result *= shape[i]; // Bounded: the regst's size was validated.
  return result;
}

std::string ranks(int groupSize) {
  return std::to_string(groupSize) + (groupSize == 1 ? " rank" : " ranks");
}

} // namespace

Expected<CollectiveLayout> layoutCollective(const plan::Collective &collective,
                                            const plan::TensorDesc *in,
                                            const plan::TensorDesc *out,
                                            int groupSize) {
  CollectiveLayout layout;
  layout.kind = collective.kind();
  layout.groupSize = groupSize;
  const std::string kind = collectiveKindName(collective.kind());
  const plan::TensorDesc *desc = in ? in : out;
  if (!desc)
    return makeError(kind, " has no regst");
  if (in && out && in->dtype() != out->dtype())
    return makeError(kind, " changes the dtype: ", describeTensor(*in), " in, ",
                     describeTensor(*out), " out");
  layout.dtype = desc->dtype();
  layout.elementSize = elementSize(layout.dtype);
  if (layout.elementSize == 0)
    return makeError(kind, " of an invalid dtype");
  if (isReduction(layout.kind) && layout.dtype == plan::BOOL)
    return makeError(kind, " of ", describeTensor(*desc),
                     ": sums of booleans are not supported (reduce i32)");
  if (groupSize < 1)
    return makeError(kind, " has an empty group");
  std::vector<int64_t> inShape = in ? shapeOf(*in) : std::vector<int64_t>();
  std::vector<int64_t> outShape = out ? shapeOf(*out) : std::vector<int64_t>();
  layout.inBytes = in ? tensorBytes(in->dtype(), inShape) : 0;
  layout.outBytes = out ? tensorBytes(out->dtype(), outShape) : 0;
  if (layout.inBytes < 0 || layout.outBytes < 0)
    return makeError(kind, " of an invalid shape");
  const int64_t es = layout.elementSize;

  auto checkAxis = [&](const char *what, int axis) -> Status {
    if (axis < 0 || axis >= int(inShape.size()))
      return makeError(kind, ": ", what, " ", axis, " is not an axis of ",
                       describeTensor(*in));
    return Status::success();
  };
  auto expectOut = [&](const std::vector<int64_t> &expected,
                       const std::string &how) -> Status {
    if (expected != outShape)
      return makeError(how, " makes ", describeTensor(layout.dtype, expected),
                       ", not ", describeTensor(*out));
    return Status::success();
  };
  auto divisible = [&](int axis) -> Status {
    if (inShape[axis] % groupSize != 0)
      return makeError(kind, " along axis ", axis, " of ", describeTensor(*in),
                       " over ", ranks(groupSize), ": dimension ", axis, " (",
                       inShape[axis], ") is not divisible by ", groupSize);
    return Status::success();
  };
  std::string how = kind + " along axis " + std::to_string(collective.axis()) +
                    " of " + (in ? describeTensor(*in) : std::string()) +
                    " over " + ranks(groupSize);

  switch (layout.kind) {
  case plan::Collective::ALL_REDUCE: {
    if (Status s = expectOut(inShape, kind + " of " + describeTensor(*in));
        !s.ok())
      return s;
    layout.blockElements = numElements(inShape);
    return layout;
  }
  case plan::Collective::SEND:
    layout.blockElements = numElements(inShape);
    return layout;
  case plan::Collective::RECV:
    layout.blockElements = numElements(outShape);
    return layout;
  case plan::Collective::ALL_GATHER: {
    int axis = collective.axis();
    if (Status s = checkAxis("axis", axis); !s.ok())
      return s;
    std::vector<int64_t> expected = inShape;
    if (__builtin_mul_overflow(expected[axis], int64_t(groupSize),
                               &expected[axis]))
      return makeError(how, " overflows");
    if (Status s = expectOut(expected, how); !s.ok())
      return s;
    layout.blockElements = numElements(inShape);
    layout.unpackOuter = product(inShape, 0, axis);
    layout.unpackBytes = product(inShape, axis, inShape.size()) * es;
    return layout;
  }
  case plan::Collective::REDUCE_SCATTER: {
    int axis = collective.axis();
    if (Status s = checkAxis("axis", axis); !s.ok())
      return s;
    if (Status s = divisible(axis); !s.ok())
      return s;
    std::vector<int64_t> expected = inShape;
    expected[axis] /= groupSize;
    if (Status s = expectOut(expected, how); !s.ok())
      return s;
    layout.blockElements = numElements(expected);
    layout.packOuter = product(inShape, 0, axis);
    layout.packBytes = product(expected, axis, expected.size()) * es;
    return layout;
  }
  case plan::Collective::ALL_TO_ALL: {
    int axis = collective.axis(), concat = collective.concat_axis();
    if (Status s = checkAxis("axis", axis); !s.ok())
      return s;
    if (Status s = checkAxis("concat_axis", concat); !s.ok())
      return s;
    if (Status s = divisible(axis); !s.ok())
      return s;
    std::vector<int64_t> piece = inShape;
    piece[axis] /= groupSize;
    std::vector<int64_t> expected = piece;
    expected[concat] *= groupSize; // <= the input's size: no overflow.
    if (Status s = expectOut(expected, how + " and concat_axis " +
                                           std::to_string(concat));
        !s.ok())
      return s;
    layout.blockElements = numElements(piece);
    layout.packOuter = product(inShape, 0, axis);
    layout.packBytes = product(piece, axis, piece.size()) * es;
    layout.unpackOuter = product(piece, 0, concat);
    layout.unpackBytes = product(piece, concat, piece.size()) * es;
    return layout;
  }
  default:
    break;
  }
  return makeError("unknown collective ", kind);
}

void transposeBlocks(const void *src, void *dst, int64_t rows, int64_t cols,
                     int64_t blockBytes) {
  const char *in = static_cast<const char *>(src);
  char *out = static_cast<char *>(dst);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(out + (c * rows + r) * blockBytes,
                  in + (r * cols + c) * blockBytes, size_t(blockBytes));
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t result;
  if (exponent == 0x1f) {
    result = sign | 0x7f800000 | (mantissa << 13); // inf, NaN
  } else if (exponent != 0) {
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    result = sign; // +-0
  } else {
    // Subnormal: mantissa * 2^-24, exact in f32.
    float value = std::ldexp(float(mantissa), -24);
    std::memcpy(&result, &value, sizeof(result));
    result |= sign;
  }
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude > 0x7f800000) // NaN: keep it quiet and a NaN
    return uint16_t(sign | 0x7e00 | ((magnitude >> 13) & 0x3ff));
  if (magnitude >= 0x477ff000) // rounds to >= 65520: infinity
    return uint16_t(sign | 0x7c00);
  if (magnitude < 0x38800000) {
    // Subnormal or zero in half: value / 2^-24, rounded to nearest even.
    float scaled = std::fabs(value) * 16777216.0f; // exact (power of two)
    float rounded = std::nearbyint(scaled);        // ties to even by default
    return uint16_t(sign | uint16_t(rounded));
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits.
  uint32_t half = ((magnitude - 0x38000000) >> 13);
  uint32_t dropped = magnitude & 0x1fff;
  if (dropped > 0x1000 || (dropped == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is right
  return uint16_t(sign | half);
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

uint16_t floatToBfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffff) > 0x7f800000)
    return uint16_t((bits >> 16) | 0x40); // quiet NaN
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}

} // namespace runtime
} // namespace oneflow
