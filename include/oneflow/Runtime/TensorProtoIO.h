//===- TensorProtoIO.h - ONNX TensorProto files -----------------*- C++ -*-===//
//
// Reads serialized onnx.TensorProto files (the .pb inputs of the ONNX test
// data): float, double, float16, bfloat16, int32, int64 and bool, from
// raw_data or from the typed fields (float16/bfloat16/bool live in
// int32_data, one element per entry).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_TENSORPROTOIO_H
#define ONEFLOW_RUNTIME_TENSORPROTOIO_H

#include "oneflow/Runtime/Tensor.h"

#include <string>

namespace oneflow {
namespace runtime {

/// The plan data type of an onnx.TensorProto data type, DT_INVALID for the
/// types the runtime does not support.
plan::DataType dataTypeFromOnnx(int onnxType);

/// Parses the bytes of a serialized TensorProto; `source` names it in
/// errors. The proto's own name is ignored (the caller names inputs).
Expected<HostTensor> parseTensorProto(const std::string &bytes,
                                      const std::string &source);
Expected<HostTensor> readTensorProtoFile(const std::string &path);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_TENSORPROTOIO_H
