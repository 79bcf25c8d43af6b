//===- Tensor.h - Data types and host tensors -------------------*- C++ -*-===//
//
// Element types of the plan schema, their sizes and spellings ("f32[8,64]"),
// and the host tensor that graph inputs and outputs travel in.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_TENSOR_H
#define ONEFLOW_RUNTIME_TENSOR_H

#include "oneflow/Runtime/Status.h"
#include "oneflow/plan.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

/// Bytes per element; 0 for DT_INVALID and values outside the enum.
int64_t elementSize(plan::DataType dtype);

/// "f32", "f64", "f16", "bf16", "i32", "i64", "bool"; "invalid" otherwise.
const char *dataTypeName(plan::DataType dtype);

/// Product of `shape`; -1 when a dimension is negative or the product
/// overflows (plans come from files: never trust them).
int64_t numElements(const std::vector<int64_t> &shape);

/// Bytes of a dense tensor, or -1 as for numElements.
int64_t tensorBytes(plan::DataType dtype, const std::vector<int64_t> &shape);

std::vector<int64_t> shapeOf(const plan::TensorDesc &desc);

/// "f32[8,64]"; a scalar is "f32[]".
std::string describeTensor(plan::DataType dtype,
                           const std::vector<int64_t> &shape);
std::string describeTensor(const plan::TensorDesc &desc);

/// The inputs of `plan` as "'x' f32[8,64], 'y' i64[8]"; "none" without any.
std::string describePlanInputs(const plan::Plan &plan);

/// A dense, row-major tensor in host memory.
struct HostTensor {
  plan::DataType dtype = plan::DT_INVALID;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  HostTensor() = default;
  /// A zero-filled tensor.
  HostTensor(plan::DataType dtype, std::vector<int64_t> shape);

  int64_t numElements() const { return runtime::numElements(shape); }
  std::string describe() const { return describeTensor(dtype, shape); }
  template <typename T> T *as() { return reinterpret_cast<T *>(data.data()); }
  template <typename T> const T *as() const {
    return reinterpret_cast<const T *>(data.data());
  }
};

/// Checks that `tensor` (read from `source`) fits graph input `name`:
/// "input 'x': expected f32[8,64], got f32[8,32] from x.npy".
Status checkInputTensor(const std::string &name,
                        const plan::TensorDesc &expected,
                        const HostTensor &tensor, const std::string &source);

/// bf16 -> f32 (exact); other tensors are returned unchanged. Used where a
/// format has no bf16 (.npy).
HostTensor widenBF16(const HostTensor &tensor);

/// The first `count` entries of `tensor` along `axis` (count clamped to
/// the dimension): the valid part of an output of data-dependent length.
HostTensor leadingEntries(const HostTensor &tensor, int axis, int64_t count);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_TENSOR_H
