//===- TestCudaKernels.cpp - A stand-in for a CUDA plan's kernels.so ------===//
//
// Its undefined oneflow_cuda_* symbols resolve from the executable that
// loads it, as a compiled plan's do from oneflow-run.

#include "oneflow/Runtime/CUDA/KernelABI.h"

/// c[m, n] = a[m, k] b[k, n] through a scratch copy of nothing: exercises
/// alloc, a product and free.
extern "C" __attribute__((visibility("default"))) void
test_cuda_kernel(int64_t *args) {
  void *scratch = oneflow_cuda_alloc(64);
  oneflow_cuda_gemm_f32(args[0], args[1], args[2], args[3], args[4], args[5], 0,
                        0);
  oneflow_cuda_free(scratch);
}
