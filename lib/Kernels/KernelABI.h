//===- KernelABI.h - Calling convention of the kernel library ---*- C++ -*-===//
//
// Generated kernels call these functions with buffers passed as their
// addresses (int64) and shapes and flags as int64 scalars. Every buffer is
// contiguous, row-major.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_KERNELS_KERNELABI_H
#define ONEFLOW_LIB_KERNELS_KERNELABI_H

#include <cstdint>

#define ONEFLOW_KERNEL extern "C" __attribute__((visibility("default")))

namespace oneflow::kernels {
template <typename T> T *ptr(int64_t address) {
  return reinterpret_cast<T *>(static_cast<uintptr_t>(address));
}

/// Whether this CPU runs AVX-512F, which the hand-written vector paths need
/// (each keeps a portable fallback); asked once per process.
inline bool hasAvx512() {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}
} // namespace oneflow::kernels

#endif // ONEFLOW_LIB_KERNELS_KERNELABI_H
