//===- Gemm.cpp - Matrix products through BLAS ----------------------------===//

#include "KernelABI.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

using namespace oneflow::kernels;

namespace {
/// Row-major c[m, n] = op(a) op(b) + beta c, c's rows `ldc` apart (0: n),
/// through OpenBLAS.
void blasGemm(const float *a, const float *b, float *c, int64_t m, int64_t n,
              int64_t k, bool ta, bool tb, float beta, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, ta ? m : k, b,
              tb ? k : n, beta, c, ldc ? ldc : n);
}
void blasGemm(const double *a, const double *b, double *c, int64_t m, int64_t n,
              int64_t k, bool ta, bool tb, double beta, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, ta ? m : k, b,
              tb ? k : n, beta, c, ldc ? ldc : n);
}

/// The products the generated kernels call. f32 ones run on oneDNN's sgemm:
/// on the GPT step's shapes it is 7% faster than OpenBLAS at one thread
/// (small per-head products 20-35%).
void gemm(const float *a, const float *b, float *c, int64_t m, int64_t n,
          int64_t k, bool ta, bool tb, float beta = 0.0f, int64_t ldc = 0) {
  dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, ta ? m : k, b,
             tb ? k : n, beta, c, ldc ? ldc : n);
}
void gemm(const double *a, const double *b, double *c, int64_t m, int64_t n,
          int64_t k, bool ta, bool tb, double beta = 0.0, int64_t ldc = 0) {
  blasGemm(a, b, c, m, n, k, ta, tb, beta, ldc);
}

template <typename T>
void batchGemm(int64_t a, int64_t b, int64_t c, int64_t batch, int64_t m,
               int64_t n, int64_t k, int64_t ta, int64_t tb, int64_t strideA,
               int64_t strideB, T beta) {
  // A shared right operand and row-major left operands: the batches stack
  // into one tall product, which BLAS runs far better than many small ones.
  if (strideB == 0 && !ta && strideA == m * k) {
    gemm(ptr<T>(a), ptr<T>(b), ptr<T>(c), batch * m, n, k, false, tb, beta);
    return;
  }
  for (int64_t i = 0; i < batch; ++i)
    gemm(ptr<T>(a) + i * strideA, ptr<T>(b) + i * strideB,
         ptr<T>(c) + i * m * n, m, n, k, ta, tb, beta);
}
} // namespace

/// oneflow_gemm_<T>: c[m, n] = op(a) op(b); op transposes when the flag is
/// set. oneflow_batch_gemm_<T>: `batch` products; an operand with stride 0
/// is shared by all of them. The _acc variants add the product to what c
/// holds (BLAS beta = 1): the compiler starts c at a broadcast bias, which
/// spares BLAS zeroing c and the kernel a pass adding the bias.
#define ONEFLOW_GEMM_ENTRIES(NAME, T, BETA)                                    \
  ONEFLOW_KERNEL void oneflow_gemm##NAME(int64_t a, int64_t b, int64_t c,      \
                                         int64_t m, int64_t n, int64_t k,      \
                                         int64_t ta, int64_t tb) {             \
    gemm(ptr<T>(a), ptr<T>(b), ptr<T>(c), m, n, k, ta, tb, BETA);              \
  }                                                                            \
  ONEFLOW_KERNEL void oneflow_batch_gemm##NAME(                                \
      int64_t a, int64_t b, int64_t c, int64_t batch, int64_t m, int64_t n,    \
      int64_t k, int64_t ta, int64_t tb, int64_t strideA, int64_t strideB) {   \
    batchGemm<T>(a, b, c, batch, m, n, k, ta, tb, strideA, strideB, BETA);     \
  }

ONEFLOW_GEMM_ENTRIES(_f32, float, 0.0f)
ONEFLOW_GEMM_ENTRIES(_f64, double, 0.0)
ONEFLOW_GEMM_ENTRIES(_acc_f32, float, 1.0f)
ONEFLOW_GEMM_ENTRIES(_acc_f64, double, 1.0)

namespace oneflow::kernels {
// Shared with Conv.cpp. Convolutions stay on OpenBLAS: their blocks are
// sized for its small-matrix path, which packs nothing.
void gemmF32(const float *a, const float *b, float *c, int64_t m, int64_t n,
             int64_t k, bool ta, bool tb, float beta, int64_t ldc) {
  blasGemm(a, b, c, m, n, k, ta, tb, beta, ldc);
}
void gemmF64(const double *a, const double *b, double *c, int64_t m, int64_t n,
             int64_t k, bool ta, bool tb, double beta, int64_t ldc) {
  blasGemm(a, b, c, m, n, k, ta, tb, beta, ldc);
}
} // namespace oneflow::kernels
