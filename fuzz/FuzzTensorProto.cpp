//===- FuzzTensorProto.cpp - Fuzz target: the TensorProto reader ----------===//
//
// The .pb inputs of oneflow-run (ONNX test data): any bytes give a tensor
// whose size matches its shape, or an error.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/TensorProtoIO.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdlib>

using namespace oneflow::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // protobuf logs every invalid UTF-8 string it parses: silence, not speed.
  static bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  Expected<HostTensor> tensor = parseTensorProto(
      std::string(reinterpret_cast<const char *>(data), size), "fuzz");
  if (tensor.ok() &&
      int64_t(tensor->data.size()) != tensorBytes(tensor->dtype, tensor->shape))
    std::abort();
  return 0;
}
