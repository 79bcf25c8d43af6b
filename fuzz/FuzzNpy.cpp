//===- FuzzNpy.cpp - Fuzz target: the .npy reader -------------------------===//
//
// Checkpoint tensors and --input .npy files: any bytes give a tensor whose
// size matches its shape, or an error.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/NpyIO.h"

#include <cstdlib>

using namespace oneflow::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Expected<HostTensor> tensor =
      parseNpy(std::string(reinterpret_cast<const char *>(data), size), "fuzz");
  if (!tensor.ok())
    return 0;
  if (int64_t(tensor->data.size()) != tensorBytes(tensor->dtype, tensor->shape))
    std::abort();
  // What a checkpoint writes back must parse to the same tensor.
  if (tensor->dtype == oneflow::plan::BF16)
    return 0;
  Expected<std::string> again = encodeNpy(*tensor);
  if (!again.ok())
    std::abort();
  Expected<HostTensor> reread = parseNpy(*again, "fuzz (re-encoded)");
  if (!reread.ok() || reread->data != tensor->data ||
      reread->shape != tensor->shape || reread->dtype != tensor->dtype)
    std::abort();
  return 0;
}
