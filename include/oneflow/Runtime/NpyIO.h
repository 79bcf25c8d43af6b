//===- NpyIO.h - NumPy .npy files -------------------------------*- C++ -*-===//
//
// Reads .npy versions 1.0, 2.0 and 3.0 (C order, little-endian <f4 <f8 <f2
// <i4 <i8 and |b1) and writes version 1.0 (2.0 when the header needs it).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_NPYIO_H
#define ONEFLOW_RUNTIME_NPYIO_H

#include "oneflow/Runtime/Tensor.h"

#include <string>

namespace oneflow {
namespace runtime {

/// Parses the bytes of a .npy file; `source` names it in errors.
Expected<HostTensor> parseNpy(const std::string &bytes,
                              const std::string &source);
Expected<HostTensor> readNpyFile(const std::string &path);

/// The .npy encoding of `tensor`; bf16 has no NumPy dtype (widen it first).
Expected<std::string> encodeNpy(const HostTensor &tensor);
/// Writes `path` atomically (see writeFileAtomic).
Status writeNpyFile(const std::string &path, const HostTensor &tensor);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_NPYIO_H
