//===- Tensor.cpp - Data types and host tensors ---------------------------===//

#include "oneflow/Runtime/Tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace oneflow {
namespace runtime {

int64_t elementSize(plan::DataType dtype) {
  switch (dtype) {
  case plan::F32:
  case plan::I32:
    return 4;
  case plan::F64:
  case plan::I64:
    return 8;
  case plan::F16:
  case plan::BF16:
    return 2;
  case plan::BOOL:
    return 1;
  default:
    return 0;
  }
}

const char *dataTypeName(plan::DataType dtype) {
  switch (dtype) {
  case plan::F32:
    return "f32";
  case plan::F64:
    return "f64";
  case plan::F16:
    return "f16";
  case plan::BF16:
    return "bf16";
  case plan::I32:
    return "i32";
  case plan::I64:
    return "i64";
  case plan::BOOL:
    return "bool";
  default:
    return "invalid";
  }
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return -1;
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim)
      return -1;
    count *= dim;
  }
  return count;
}

int64_t tensorBytes(plan::DataType dtype, const std::vector<int64_t> &shape) {
  int64_t count = numElements(shape);
  int64_t size = elementSize(dtype);
  if (count < 0 || size == 0)
    return -1;
  if (count > std::numeric_limits<int64_t>::max() / size)
    return -1;
  return count * size;
}

std::vector<int64_t> shapeOf(const plan::TensorDesc &desc) {
  return std::vector<int64_t>(desc.shape().begin(), desc.shape().end());
}

std::string describeTensor(plan::DataType dtype,
                           const std::vector<int64_t> &shape) {
  std::string text = dataTypeName(dtype);
  text += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ',';
    text += std::to_string(shape[i]);
  }
  text += ']';
  return text;
}

std::string describeTensor(const plan::TensorDesc &desc) {
  return describeTensor(desc.dtype(), shapeOf(desc));
}

std::string describePlanInputs(const plan::Plan &plan) {
  std::string list;
  for (const plan::IOSpec &spec : plan.inputs())
    list += (list.empty() ? "'" : ", '") + spec.name() + "' " +
            describeTensor(spec.desc());
  return list.empty() ? "none" : list;
}

HostTensor::HostTensor(plan::DataType dtype, std::vector<int64_t> shape)
    : dtype(dtype), shape(std::move(shape)) {
  int64_t bytes = tensorBytes(dtype, this->shape);
  data.assign(bytes > 0 ? bytes : 0, 0);
}

Status checkInputTensor(const std::string &name,
                        const plan::TensorDesc &expected,
                        const HostTensor &tensor, const std::string &source) {
  if (tensor.dtype == expected.dtype() && tensor.shape == shapeOf(expected))
    return Status::success();
  return makeError("input '", name, "': expected ", describeTensor(expected),
                   ", got ", tensor.describe(), " from ", source);
}

HostTensor widenBF16(const HostTensor &tensor) {
  if (tensor.dtype != plan::BF16)
    return tensor;
  HostTensor wide(plan::F32, tensor.shape);
  const uint16_t *in = tensor.as<uint16_t>();
  float *out = wide.as<float>();
  for (int64_t i = 0, e = tensor.numElements(); i < e; ++i) {
    // bf16 is the top half of an f32.
    uint32_t bits = uint32_t(in[i]) << 16;
    std::memcpy(&out[i], &bits, sizeof(bits));
  }
  return wide;
}

HostTensor leadingEntries(const HostTensor &tensor, int axis, int64_t count) {
  if (axis < 0 || axis >= (int)tensor.shape.size())
    return tensor;
  int64_t n = tensor.shape[axis];
  count = std::clamp<int64_t>(count, 0, n);
  std::vector<int64_t> shape = tensor.shape;
  shape[axis] = count;
  HostTensor cut(tensor.dtype, shape);
  int64_t outer = 1, inner = elementSize(tensor.dtype);
  for (int i = 0; i < axis; ++i)
    outer *= tensor.shape[i];
  for (size_t i = axis + 1; i < tensor.shape.size(); ++i)
    inner *= tensor.shape[i];
  for (int64_t o = 0; o < outer && count > 0; ++o)
    std::memcpy(cut.data.data() + o * count * inner,
                tensor.data.data() + o * n * inner, count * inner);
  return cut;
}

} // namespace runtime
} // namespace oneflow
