//===- FuzzTensorProto.cpp - Fuzz target: the TensorProto reader ----------===//
//
// The .pb inputs of oneflow-run (ONNX test data): any bytes give a tensor
// whose size matches its shape, or an error.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/TensorProtoIO.h"

#include <cstdlib>

using namespace oneflow::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Expected<HostTensor> tensor = parseTensorProto(
      std::string(reinterpret_cast<const char *>(data), size), "fuzz");
  if (tensor.ok() &&
      int64_t(tensor->data.size()) != tensorBytes(tensor->dtype, tensor->shape))
    std::abort();
  return 0;
}
