//===- CalibrationKernels.cpp - What oneflow-run --calibrate times --------===//
//
// A module linked like every kernels.so (this library's products, oneDNN,
// OpenBLAS, LLVM's libomp), so that `oneflow-run --calibrate`
// (lib/Runtime/Calibrate.cpp) times the products plans call through the
// same entry points, libraries and OpenMP runtime, and loads it the way it
// loads a plan's kernels. Every entry takes the kernel ABI's `void **args`;
// a block of int64 parameters comes first where one is needed.
//
//===----------------------------------------------------------------------===//

#include "KernelABI.h"

#include <algorithm>
#include <cstdint>
#include <omp.h>

ONEFLOW_KERNEL void oneflow_gemm_f32(int64_t a, int64_t b, int64_t c, int64_t m,
                                     int64_t n, int64_t k, int64_t ta,
                                     int64_t tb);
ONEFLOW_KERNEL void oneflow_gemm_f64(int64_t a, int64_t b, int64_t c, int64_t m,
                                     int64_t n, int64_t k, int64_t ta,
                                     int64_t tb);

namespace {
int64_t address(void *pointer) { return int64_t(uintptr_t(pointer)); }

/// e^x as the generated kernels compute it (the compiler's ApproximateMath
/// pass: range reduction to r in [-ln2/2, ln2/2], a degree-6 polynomial,
/// the power of two put into the exponent bits): the same instruction mix,
/// branch-free so that it vectorizes. Valid for x in [-80, 80] (floor by
/// truncation of a shifted value: GCC does not vectorize floorf).
inline float approximateExp(float x) {
  const int32_t n = int32_t(x * 1.44269504f + 128.5f) - 128;
  const float k = float(n);
  float r = x - k * 0.693359375f;
  r = r - k * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = (p * r) * r + r + 1.0f;
  return p * __builtin_bit_cast(float, (n + 127) << 23);
}
} // namespace

/// args: {int64 m, n, k, transpose_a, transpose_b}, a, b, c: c = op(a)
/// op(b) through oneflow_gemm_f32 / _f64, as a matmul kernel calls them.
ONEFLOW_KERNEL void oneflow_calibrate_gemm_f32(void **args) {
  const int64_t *p = static_cast<const int64_t *>(args[0]);
  oneflow_gemm_f32(address(args[1]), address(args[2]), address(args[3]), p[0],
                   p[1], p[2], p[3], p[4]);
}
ONEFLOW_KERNEL void oneflow_calibrate_gemm_f64(void **args) {
  const int64_t *p = static_cast<const int64_t *>(args[0]);
  oneflow_gemm_f64(address(args[1]), address(args[2]), address(args[3]), p[0],
                   p[1], p[2], p[3], p[4]);
}

/// args: {int64 result}: the floating-point operations per element of
/// oneflow_calibrate_vector_f32, counted as docs/simulator.md counts them
/// (4 multiply-adds, an exp counted 8, a multiply).
ONEFLOW_KERNEL void oneflow_calibrate_vector_flops_per_element(void **args) {
  *static_cast<int64_t *>(args[0]) = 4 * 2 + 8 + 1;
}

/// The loops below, compiled for AVX-512, AVX2 + FMA and baseline x86-64,
/// the best one chosen at load time (as the generated kernels are compiled
/// for the host's features).
#define ONEFLOW_HOST_CLONES                                                    \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

namespace {
ONEFLOW_HOST_CLONES void vectorLoop(const float *__restrict x,
                                    float *__restrict y, int64_t begin,
                                    int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    float v = x[i];
    float t = v * 0.25f + 0.5f;
    t = t * v - 0.125f;
    t = t * v + 0.0625f;
    t = t * v + 0.75f;
    y[i] = 0.5f * approximateExp(t);
  }
}

ONEFLOW_HOST_CLONES void triadLoop(float *__restrict a,
                                   const float *__restrict b,
                                   const float *__restrict c, int64_t begin,
                                   int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    a[i] = b[i] + 3.0f * c[i];
}

/// This thread's share [begin, end) of n elements, 16-element aligned.
void share(int64_t n, int64_t &begin, int64_t &end) {
  int threads = omp_get_num_threads(), thread = omp_get_thread_num();
  int64_t chunk = (n / threads + 15) / 16 * 16;
  begin = std::min(n, chunk * thread);
  end = thread + 1 == threads ? n : std::min(n, begin + chunk);
}
} // namespace

/// args: {int64 n, repeats}, x, y: y = 0.5 exp(poly4(x)) for n elements,
/// `repeats` times over the same (cache-resident) arrays: an elementwise
/// kernel limited by arithmetic, not memory. Each OpenMP thread takes the
/// same part every repeat (no barrier between repeats).
ONEFLOW_KERNEL void oneflow_calibrate_vector_f32(void **args) {
  const int64_t *p = static_cast<const int64_t *>(args[0]);
  const int64_t n = p[0], repeats = p[1];
  const float *x = static_cast<const float *>(args[1]);
  float *y = static_cast<float *>(args[2]);
#pragma omp parallel
  {
    int64_t begin, end;
    share(n, begin, end);
    for (int64_t repeat = 0; repeat < repeats; ++repeat)
      vectorLoop(x, y, begin, end);
  }
}

/// args: {int64 n, repeats}, a, b, c: a = b + 3 c (STREAM's triad, 12
/// bytes per element), `repeats` times, shared among the OpenMP threads.
ONEFLOW_KERNEL void oneflow_calibrate_triad_f32(void **args) {
  const int64_t *p = static_cast<const int64_t *>(args[0]);
  const int64_t n = p[0], repeats = p[1];
  float *a = static_cast<float *>(args[1]);
  const float *b = static_cast<const float *>(args[2]);
  const float *c = static_cast<const float *>(args[3]);
  for (int64_t repeat = 0; repeat < repeats; ++repeat) {
#pragma omp parallel
    {
      int64_t begin, end;
      share(n, begin, end);
      triadLoop(a, b, c, begin, end);
    }
  }
}

/// Nothing: a plan of these measures what a firing costs.
ONEFLOW_KERNEL void oneflow_calibrate_noop(void **args) {}
