//===- Gemm.cpp - Matrix products through BLAS ----------------------------===//

#include "KernelABI.h"
#include "StreamedProduct.h"

#include <cblas.h>
#include <cmath>
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
/// (small per-head products 20-35%). A fully connected layer over at most
/// kStreamedRows rows (its weights [n, k], transposed) streams its weights
/// instead, bound by reading them; with more rows sgemm's register blocking
/// wins (MNASNet's 1280 -> 1000 classifier at batch 8: 292 us on sgemm,
/// 504 streamed).
constexpr int64_t kStreamedRows = 4;

void gemm(const float *a, const float *b, float *c, int64_t m, int64_t n,
          int64_t k, bool ta, bool tb, float beta = 0.0f, int64_t ldc = 0) {
  if (!ta && tb && m <= kStreamedRows && n * k >= 64 * 64 &&
      (beta == 0.0f || beta == 1.0f)) {
    streamedProduct(b, a, /*bias=*/nullptr, c, n, k, m, /*rowStride=*/1,
                    /*vectorStride=*/ldc ? ldc : n,
                    /*accumulate=*/beta == 1.0f);
    return;
  }
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

/// The CUDA backend's products with a cuBLASLt epilogue
/// (include/oneflow/Runtime/CUDA/KernelABI.h), for its plans whose GPU
/// kernels run on the CPU (--gpu-kernels-on-cpu): c = act(op(a) op(b) +
/// bias), bias one per column, act none / relu / gelu in tanh form (what
/// cuBLASLt computes); bgrad_a / bgrad_b compute c = op(a) op(b) and write
/// into `bias` the sums over k of op(a)'s rows / op(b)'s columns.
namespace {
enum class Activation { None, Relu, Gelu };

void gemmBias(int64_t a, int64_t b, int64_t bias, int64_t c, int64_t m,
              int64_t n, int64_t k, int64_t ta, int64_t tb, Activation act) {
  float *out = ptr<float>(c);
  const float *add = ptr<const float>(bias);
  gemm(ptr<float>(a), ptr<float>(b), out, m, n, k, ta, tb);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float x = out[i * n + j] + add[j];
      if (act == Activation::Relu)
        x = x > 0 ? x : 0;
      else if (act == Activation::Gelu)
        x = 0.5f * x *
            (1 + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
      out[i * n + j] = x;
    }
}

void gemmBiasGradient(int64_t a, int64_t b, int64_t bias, int64_t c, int64_t m,
                      int64_t n, int64_t k, int64_t ta, int64_t tb, bool ofA) {
  const float *x = ptr<const float>(ofA ? a : b);
  float *sums = ptr<float>(bias);
  gemm(ptr<float>(a), ptr<float>(b), ptr<float>(c), m, n, k, ta, tb);
  // op(a) is [m, k]: a is [k, m] when transposed; op(b) is [k, n].
  int64_t length = ofA ? m : n;
  bool transposed = ofA ? ta : tb;
  for (int64_t i = 0; i < length; ++i)
    sums[i] = 0;
  for (int64_t l = 0; l < k; ++l)
    for (int64_t i = 0; i < length; ++i)
      sums[i] += transposed == ofA ? x[l * length + i] : x[i * k + l];
}
} // namespace

#define ONEFLOW_GEMM_EPILOGUE(NAME, CALL)                                      \
  ONEFLOW_KERNEL void oneflow_gemm_##NAME(int64_t a, int64_t b, int64_t bias,  \
                                          int64_t c, int64_t m, int64_t n,     \
                                          int64_t k, int64_t ta, int64_t tb) { \
    CALL;                                                                      \
  }
ONEFLOW_GEMM_EPILOGUE(bias_f32, gemmBias(a, b, bias, c, m, n, k, ta, tb,
                                         Activation::None))
ONEFLOW_GEMM_EPILOGUE(bias_relu_f32, gemmBias(a, b, bias, c, m, n, k, ta, tb,
                                              Activation::Relu))
ONEFLOW_GEMM_EPILOGUE(bias_gelu_f32, gemmBias(a, b, bias, c, m, n, k, ta, tb,
                                              Activation::Gelu))
ONEFLOW_GEMM_EPILOGUE(bgrad_a_f32,
                      gemmBiasGradient(a, b, bias, c, m, n, k, ta, tb, true))
ONEFLOW_GEMM_EPILOGUE(bgrad_b_f32,
                      gemmBiasGradient(a, b, bias, c, m, n, k, ta, tb, false))
#undef ONEFLOW_GEMM_EPILOGUE

/// The products that keep what an activation's gradient needs and those
/// that read it back (the ABI's bias_{relu,gelu}_aux, d{relu,gelu} and
/// their _bgrad forms): aux has a row of ld per row of c, the ReLU mask's
/// element (i, j) at bit (i * ld + j) % 8 of byte (i * ld + j) / 8 with ld
/// n rounded up to 128 bits, the GELU pre-activation with ld n rounded up
/// to 8 floats, as the stand-in cuBLASLt lays them out.
namespace {
int64_t reluMaskLd(int64_t n) { return (n + 127) / 128 * 128; }
int64_t geluInputLd(int64_t n) { return (n + 7) / 8 * 8; }

float tanhGelu(float x) {
  return 0.5f * x *
         (1 + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
float tanhGeluDerivative(float x) {
  float t = std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x));
  return 0.5f * (1 + t) + 0.5f * x * (1 - t * t) * 0.7978845608028654f *
                              (1 + 3 * 0.044715f * x * x);
}

void gemmBiasAux(int64_t a, int64_t b, int64_t bias, int64_t c, int64_t aux,
                 int64_t m, int64_t n, int64_t k, int64_t ta, int64_t tb,
                 Activation act) {
  float *out = ptr<float>(c);
  const float *add = ptr<const float>(bias);
  gemm(ptr<float>(a), ptr<float>(b), out, m, n, k, ta, tb);
  auto *mask = ptr<unsigned char>(aux);
  float *inputs = ptr<float>(aux);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float x = out[i * n + j] + add[j];
      if (act == Activation::Relu) {
        int64_t bit = i * reluMaskLd(n) + j;
        unsigned char flag = 1u << (bit % 8);
        mask[bit / 8] = x > 0 ? mask[bit / 8] | flag : mask[bit / 8] & ~flag;
        x = x > 0 ? x : 0;
      } else {
        inputs[i * geluInputLd(n) + j] = x;
        x = tanhGelu(x);
      }
      out[i * n + j] = x;
    }
}

void gemmActivationGradient(int64_t a, int64_t b, int64_t aux, int64_t c,
                            int64_t bias, int64_t m, int64_t n, int64_t k,
                            int64_t ta, int64_t tb, Activation act) {
  float *out = ptr<float>(c);
  gemm(ptr<float>(a), ptr<float>(b), out, m, n, k, ta, tb);
  const auto *mask = ptr<const unsigned char>(aux);
  const float *inputs = ptr<const float>(aux);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      if (act == Activation::Relu) {
        int64_t bit = i * reluMaskLd(n) + j;
        if (!((mask[bit / 8] >> (bit % 8)) & 1))
          out[i * n + j] = 0;
      } else {
        out[i * n + j] *= tanhGeluDerivative(inputs[i * geluInputLd(n) + j]);
      }
    }
  if (!bias)
    return;
  float *sums = ptr<float>(bias);
  for (int64_t j = 0; j < n; ++j)
    sums[j] = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      sums[j] += out[i * n + j];
}
} // namespace

#define ONEFLOW_GEMM_AUX_ENTRIES(ACT, ACTIVATION)                              \
  ONEFLOW_KERNEL void oneflow_gemm_bias_##ACT##_aux_f32(                       \
      int64_t a, int64_t b, int64_t bias, int64_t c, int64_t aux, int64_t m,   \
      int64_t n, int64_t k, int64_t ta, int64_t tb) {                          \
    gemmBiasAux(a, b, bias, c, aux, m, n, k, ta, tb, ACTIVATION);              \
  }                                                                            \
  ONEFLOW_KERNEL void oneflow_gemm_d##ACT##_f32(                               \
      int64_t a, int64_t b, int64_t aux, int64_t c, int64_t m, int64_t n,      \
      int64_t k, int64_t ta, int64_t tb) {                                     \
    gemmActivationGradient(a, b, aux, c, 0, m, n, k, ta, tb, ACTIVATION);      \
  }                                                                            \
  ONEFLOW_KERNEL void oneflow_gemm_d##ACT##_bgrad_f32(                         \
      int64_t a, int64_t b, int64_t aux, int64_t c, int64_t bias, int64_t m,   \
      int64_t n, int64_t k, int64_t ta, int64_t tb) {                          \
    gemmActivationGradient(a, b, aux, c, bias, m, n, k, ta, tb, ACTIVATION);   \
  }
ONEFLOW_GEMM_AUX_ENTRIES(relu, Activation::Relu)
ONEFLOW_GEMM_AUX_ENTRIES(gelu, Activation::Gelu)
#undef ONEFLOW_GEMM_AUX_ENTRIES

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
