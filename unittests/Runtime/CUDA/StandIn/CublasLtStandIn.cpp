//===- CublasLtStandIn.cpp - libcublasLt.so.13 without a GPU --------------===//
//
// cublasLtMatmul computes D = epilogue(alpha op(A) op(B) + beta C) with
// reference loops that read the layouts as cuBLASLt does (order, leading
// dimension, strided batches), so a wrong descriptor gives wrong numbers;
// BGRADA / BGRADB also write the bias vector, the sums of op(A)'s rows /
// op(B)'s columns over k. Bad arguments fail with
// CUBLAS_STATUS_INVALID_VALUE like the library, and the bias gradients
// with layouts cuBLASLt does not take (BGRADA of a transposed A, BGRADB of
// an untransposed B) with CUBLAS_STATUS_NOT_SUPPORTED. The aux epilogues
// write (RELU_AUX_BIAS, GELU_AUX_BIAS) and read (DRELU, DGELU and their
// _BGRAD forms, which write the sums of D's rows) an aux matrix in D's
// column-major layout, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD apart: the
// pre-activation for GELU, for ReLU a bit mask whose element (i, j) is
// bit i + j * ld (bit (i + j * ld) % 8 of that byte: cuBLASLt documents the
// mask's leading dimension in bits, a multiple of 128, not the order of
// the bits in a byte, which only its own epilogues read). The leading
// dimensions, D's order (column-major only) and k (not 1 for DRELU /
// DGELU, which NVIDIA's nvmath-python refuses) are checked. bf16 / f16
// products (A, B, C and D of one 16-bit type, CUBLAS_COMPUTE_32F, f32
// scale, no epilogue) sum exact products in double and round D once.
//
//===----------------------------------------------------------------------===//

#include "CublasLtApi.h"
#include "StandIn.h"

#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#define STANDIN_API extern "C" __attribute__((visibility("default")))

namespace {

struct Layout {
  cudaDataType type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t order = CUBLASLT_ORDER_COL;
  int32_t batchCount = 1;
  int64_t batchStride = 0;

  /// Element (row, col) of batch b, in elements from the base.
  int64_t at(int64_t b, int64_t row, int64_t col) const {
    return b * batchStride +
           (order == CUBLASLT_ORDER_COL ? row + col * ld : row * ld + col);
  }
  bool valid() const {
    return ld >= 1 && ld >= static_cast<int64_t>(
                                order == CUBLASLT_ORDER_COL ? rows : cols);
  }
};

struct Desc {
  cublasComputeType_t compute;
  cudaDataType_t scale;
  int32_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void *bias = nullptr;
  int32_t biasType = -1; // -1: D's type
  int64_t biasBatchStride = 0;
  const void *aux = nullptr;
  int64_t auxLd = 0;
};

struct Preference {
  uint64_t maxWorkspace = 0;
};

Layout *layout(cublasLtMatrixLayout_t handle) {
  return reinterpret_cast<Layout *>(handle);
}
Desc *desc(cublasLtMatmulDesc_t handle) {
  return reinterpret_cast<Desc *>(handle);
}

template <typename T> bool read(T &field, const void *buffer, size_t size) {
  if (size != sizeof(T))
    return false;
  std::memcpy(&field, buffer, sizeof(T));
  return true;
}

const char *epilogueName(uint32_t epilogue) {
  switch (epilogue) {
  case CUBLASLT_EPILOGUE_DEFAULT:
    return "DEFAULT";
  case CUBLASLT_EPILOGUE_RELU:
    return "RELU";
  case CUBLASLT_EPILOGUE_BIAS:
    return "BIAS";
  case CUBLASLT_EPILOGUE_RELU_BIAS:
    return "RELU_BIAS";
  case CUBLASLT_EPILOGUE_GELU:
    return "GELU";
  case CUBLASLT_EPILOGUE_GELU_BIAS:
    return "GELU_BIAS";
  case CUBLASLT_EPILOGUE_BGRADA:
    return "BGRADA";
  case CUBLASLT_EPILOGUE_BGRADB:
    return "BGRADB";
  case CUBLASLT_EPILOGUE_RELU_AUX_BIAS:
    return "RELU_AUX_BIAS";
  case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
    return "GELU_AUX_BIAS";
  case CUBLASLT_EPILOGUE_DRELU:
    return "DRELU";
  case CUBLASLT_EPILOGUE_DRELU_BGRAD:
    return "DRELU_BGRAD";
  case CUBLASLT_EPILOGUE_DGELU:
    return "DGELU";
  case CUBLASLT_EPILOGUE_DGELU_BGRAD:
    return "DGELU_BGRAD";
  }
  return nullptr;
}

bool isReluAux(uint32_t epilogue) {
  return epilogue == CUBLASLT_EPILOGUE_RELU_AUX_BIAS ||
         epilogue == CUBLASLT_EPILOGUE_DRELU ||
         epilogue == CUBLASLT_EPILOGUE_DRELU_BGRAD;
}
bool isGeluAux(uint32_t epilogue) {
  return epilogue == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
         epilogue == CUBLASLT_EPILOGUE_DGELU ||
         epilogue == CUBLASLT_EPILOGUE_DGELU_BGRAD;
}
/// DRELU / DGELU, with or without the bias gradient.
bool isActivationGradient(uint32_t epilogue) {
  return epilogue == CUBLASLT_EPILOGUE_DRELU ||
         epilogue == CUBLASLT_EPILOGUE_DRELU_BGRAD ||
         epilogue == CUBLASLT_EPILOGUE_DGELU ||
         epilogue == CUBLASLT_EPILOGUE_DGELU_BGRAD;
}

double gelu(double x) {
  // The tanh form, as CUBLASLT_EPILOGUE_GELU computes it.
  return 0.5 * x *
         (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/// Its derivative, what CUBLASLT_EPILOGUE_DGELU multiplies by.
double geluDerivative(double x) {
  double t = std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.7978845608028654 *
                             (1 + 3 * 0.044715 * x * x);
}

/// x rounded to TF32's 10 explicit mantissa bits.
double toTf32(double x) {
  int exponent = 0;
  double fraction = std::frexp(x, &exponent);
  return std::ldexp(std::round(std::ldexp(fraction, 11)), exponent - 11);
}

bool isLow(cudaDataType type) {
  return type == CUDA_R_16BF || type == CUDA_R_16F;
}

float fromLow(uint16_t bits, cudaDataType type) {
  if (type == CUDA_R_16F) {
    _Float16 half;
    std::memcpy(&half, &bits, 2);
    return float(half);
  }
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

/// Rounded to nearest, ties to even.
uint16_t toLow(float value, cudaDataType type) {
  uint16_t bits;
  if (type == CUDA_R_16F) {
    _Float16 half = _Float16(value);
    std::memcpy(&bits, &half, 2);
    return bits;
  }
  uint32_t wide;
  std::memcpy(&wide, &value, 4);
  if (std::isnan(value))
    return uint16_t((wide >> 16) | 0x40);
  wide += 0x7fff + ((wide >> 16) & 1);
  return uint16_t(wide >> 16);
}

/// The elements a layout spans.
int64_t spanOf(const Layout &l) {
  return (l.batchCount - 1) * l.batchStride +
         l.ld * int64_t(l.order == CUBLASLT_ORDER_COL ? l.cols : l.rows);
}

std::vector<float> widened(const void *data, const Layout &l) {
  std::vector<float> values(spanOf(l));
  const auto *bits = static_cast<const uint16_t *>(data);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = fromLow(bits[i], l.type);
  return values;
}

template <typename T>
void multiply(const Desc &d, T alpha, const T *a, const Layout &la, const T *b,
              const Layout &lb, T beta, const T *c, const Layout &lc, T *out,
              const Layout &ld, int64_t m, int64_t n, int64_t k) {
  const T *bias = static_cast<const T *>(d.bias);
  bool tf32 = d.compute == CUBLAS_COMPUTE_32F_FAST_TF32;
  for (int64_t batch = 0; batch < ld.batchCount; ++batch)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l) {
          double x = d.transa == CUBLAS_OP_T ? a[la.at(batch, l, i)]
                                             : a[la.at(batch, i, l)];
          double y = d.transb == CUBLAS_OP_T ? b[lb.at(batch, j, l)]
                                             : b[lb.at(batch, l, j)];
          if (tf32) {
            x = toTf32(x);
            y = toTf32(y);
          }
          sum += x * y;
        }
        double value = double(alpha) * sum;
        if (beta != T(0))
          value += double(beta) * c[lc.at(batch, i, j)];
        if (d.epilogue & CUBLASLT_EPILOGUE_BIAS)
          value += bias[batch * d.biasBatchStride + i];
        // The aux matrix (one batch), in D's column-major layout.
        int64_t auxAt = i + j * d.auxLd;
        auto *maskBytes =
            static_cast<unsigned char *>(const_cast<void *>(d.aux));
        auto *geluInputs = static_cast<T *>(const_cast<void *>(d.aux));
        if (d.epilogue == CUBLASLT_EPILOGUE_RELU_AUX_BIAS) {
          unsigned char bit = 1u << (auxAt % 8);
          if (value > 0)
            maskBytes[auxAt / 8] |= bit;
          else
            maskBytes[auxAt / 8] &= ~bit;
        }
        if (d.epilogue == CUBLASLT_EPILOGUE_GELU_AUX_BIAS)
          geluInputs[auxAt] = static_cast<T>(value);
        if (d.epilogue & CUBLASLT_EPILOGUE_RELU)
          value = value > 0 ? value : 0;
        if (d.epilogue & CUBLASLT_EPILOGUE_GELU)
          value = gelu(value);
        if (isActivationGradient(d.epilogue)) {
          if (isReluAux(d.epilogue))
            value = (maskBytes[auxAt / 8] >> (auxAt % 8)) & 1 ? value : 0;
          else
            value *= geluDerivative(geluInputs[auxAt]);
        }
        out[ld.at(batch, i, j)] = static_cast<T>(value);
      }
  // The bias gradients of DRELU_BGRAD / DGELU_BGRAD: D's rows summed, per
  // batch.
  if (d.epilogue == CUBLASLT_EPILOGUE_DRELU_BGRAD ||
      d.epilogue == CUBLASLT_EPILOGUE_DGELU_BGRAD) {
    T *sums = static_cast<T *>(const_cast<void *>(d.bias));
    for (int64_t batch = 0; batch < ld.batchCount; ++batch)
      for (int64_t i = 0; i < m; ++i) {
        double sum = 0;
        for (int64_t j = 0; j < n; ++j)
          sum += out[ld.at(batch, i, j)];
        sums[batch * d.biasBatchStride + i] = static_cast<T>(sum);
      }
  }
  // Bias gradients: op(A)'s rows (m values) or op(B)'s columns (n values)
  // summed over k, per batch.
  bool gradA = d.epilogue == CUBLASLT_EPILOGUE_BGRADA,
       gradB = d.epilogue == CUBLASLT_EPILOGUE_BGRADB;
  if (!gradA && !gradB)
    return;
  T *sums = static_cast<T *>(const_cast<void *>(d.bias));
  for (int64_t batch = 0; batch < ld.batchCount; ++batch)
    for (int64_t i = 0; i < (gradA ? m : n); ++i) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l)
        sum += gradA ? (d.transa == CUBLAS_OP_T ? a[la.at(batch, l, i)]
                                                : a[la.at(batch, i, l)])
                     : (d.transb == CUBLAS_OP_T ? b[lb.at(batch, i, l)]
                                                : b[lb.at(batch, l, i)]);
      sums[batch * d.biasBatchStride + i] = static_cast<T>(sum);
    }
}

} // namespace

STANDIN_API cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  *handle = reinterpret_cast<cublasLtHandle_t>(new int(0));
  standin::log("cublasLtCreate");
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  delete reinterpret_cast<int *>(handle);
  standin::log("cublasLtDestroy");
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API const char *cublasLtGetStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  default:
    return "CUBLAS_STATUS_UNKNOWN";
  }
}

STANDIN_API const char *cublasLtGetStatusString(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "success";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "an invalid value was used as an argument";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "the functionality requested is not supported";
  default:
    return "unknown error";
  }
}

STANDIN_API cublasStatus_t
cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *result,
                         cublasComputeType_t compute, cudaDataType_t scale) {
  if (compute != CUBLAS_COMPUTE_32F && compute != CUBLAS_COMPUTE_64F &&
      compute != CUBLAS_COMPUTE_32F_FAST_TF32)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  Desc *d = new Desc;
  d->compute = compute;
  d->scale = scale;
  *result = reinterpret_cast<cublasLtMatmulDesc_t>(d);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  delete desc(d);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t cublasLtMatmulDescSetAttribute(
    cublasLtMatmulDesc_t handle, cublasLtMatmulDescAttributes_t attribute,
    const void *buffer, size_t size) {
  Desc &d = *desc(handle);
  bool ok = false;
  switch (attribute) {
  case CUBLASLT_MATMUL_DESC_TRANSA:
    ok = read(d.transa, buffer, size);
    break;
  case CUBLASLT_MATMUL_DESC_TRANSB:
    ok = read(d.transb, buffer, size);
    break;
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    ok = read(d.epilogue, buffer, size) && epilogueName(d.epilogue);
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
    ok = read(d.bias, buffer, size);
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
    ok = read(d.biasType, buffer, size);
    break;
  case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE:
    ok = read(d.biasBatchStride, buffer, size);
    break;
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER:
    ok = read(d.aux, buffer, size);
    break;
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD:
    ok = read(d.auxLd, buffer, size);
    break;
  default:
    break;
  }
  return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

STANDIN_API cublasStatus_t
cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *result, cudaDataType type,
                           uint64_t rows, uint64_t cols, int64_t ld) {
  *result = reinterpret_cast<cublasLtMatrixLayout_t>(
      new Layout{type, rows, cols, ld});
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t
cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t handle) {
  delete layout(handle);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t cublasLtMatrixLayoutSetAttribute(
    cublasLtMatrixLayout_t handle, cublasLtMatrixLayoutAttribute_t attribute,
    const void *buffer, size_t size) {
  Layout &l = *layout(handle);
  bool ok = false;
  switch (attribute) {
  case CUBLASLT_MATRIX_LAYOUT_ORDER:
    ok = read(l.order, buffer, size) &&
         (l.order == CUBLASLT_ORDER_COL || l.order == CUBLASLT_ORDER_ROW);
    break;
  case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
    ok = read(l.batchCount, buffer, size) && l.batchCount >= 1;
    break;
  case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
    ok = read(l.batchStride, buffer, size);
    break;
  default:
    break;
  }
  return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

STANDIN_API cublasStatus_t
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *result) {
  *result = reinterpret_cast<cublasLtMatmulPreference_t>(new Preference);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t handle) {
  delete reinterpret_cast<Preference *>(handle);
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t handle,
    cublasLtMatmulPreferenceAttributes_t attribute, const void *buffer,
    size_t size) {
  Preference &p = *reinterpret_cast<Preference *>(handle);
  if (attribute == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES &&
      read(p.maxWorkspace, buffer, size))
    return CUBLAS_STATUS_SUCCESS;
  return CUBLAS_STATUS_INVALID_VALUE;
}

STANDIN_API cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t operation,
    cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
    cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
    cublasLtMatmulPreference_t preference, int requested,
    cublasLtMatmulHeuristicResult_t results[], int *returned) {
  if (requested < 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  std::memset(results, 0, sizeof(results[0]));
  results[0].algo.data[0] = 42; // what cublasLtMatmul expects back
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1;
  *returned = 1;
  standin::log("cublasLtMatmulAlgoGetHeuristic");
  return CUBLAS_STATUS_SUCCESS;
}

STANDIN_API cublasStatus_t
cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t operation,
               const void *alpha, const void *a, cublasLtMatrixLayout_t aLayout,
               const void *b, cublasLtMatrixLayout_t bLayout, const void *beta,
               const void *c, cublasLtMatrixLayout_t cLayout, void *d,
               cublasLtMatrixLayout_t dLayout, const cublasLtMatmulAlgo_t *algo,
               void *workspace, size_t workspaceBytes, cudaStream_t stream) {
  const Desc &op = *desc(operation);
  const Layout &la = *layout(aLayout), &lb = *layout(bLayout),
               &lc = *layout(cLayout), &ld = *layout(dLayout);
  // The checks cuBLASLt makes, as far as the runtime's calls go.
  bool transA = op.transa == CUBLAS_OP_T, transB = op.transb == CUBLAS_OP_T;
  int64_t m = ld.rows, n = ld.cols;
  int64_t k = transA ? la.rows : la.cols;
  cudaDataType type = ld.type;
  // 16-bit products: f32 compute and scale, no epilogue.
  bool typesMatch =
      la.type == type && lb.type == type && lc.type == type &&
      op.scale == (type == CUDA_R_64F ? CUDA_R_64F : CUDA_R_32F) &&
      (type == CUDA_R_64F ? op.compute == CUBLAS_COMPUTE_64F
       : isLow(type)      ? op.compute == CUBLAS_COMPUTE_32F &&
                           op.epilogue == CUBLASLT_EPILOGUE_DEFAULT
                     : op.compute != CUBLAS_COMPUTE_64F);
  bool shapesMatch =
      int64_t(transA ? la.cols : la.rows) == m &&
      int64_t(transB ? lb.rows : lb.cols) == n &&
      int64_t(transB ? lb.cols : lb.rows) == k && lc.rows == ld.rows &&
      lc.cols == ld.cols && lc.ld == ld.ld && lc.order == ld.order &&
      la.batchCount == ld.batchCount && lb.batchCount == ld.batchCount &&
      lc.batchCount == ld.batchCount;
  bool gradient = op.epilogue == CUBLASLT_EPILOGUE_BGRADA ||
                  op.epilogue == CUBLASLT_EPILOGUE_BGRADB ||
                  op.epilogue == CUBLASLT_EPILOGUE_DRELU_BGRAD ||
                  op.epilogue == CUBLASLT_EPILOGUE_DGELU_BGRAD;
  // The aux matrix: set, its leading dimension (bits for the ReLU mask)
  // at least D's rows and a multiple of 128 (ReLU) or 8 (GELU), one batch.
  bool relu = isReluAux(op.epilogue), geluAux = isGeluAux(op.epilogue);
  bool auxOk = !(relu || geluAux) ||
               (op.aux && op.auxLd >= m && op.auxLd % (relu ? 128 : 8) == 0 &&
                ld.batchCount == 1);
  bool biasOk = !(op.epilogue & CUBLASLT_EPILOGUE_BIAS || gradient) ||
                (op.bias && (op.biasType == -1 || op.biasType == type));
  if (!typesMatch || !shapesMatch || !biasOk || !auxOk || !la.valid() ||
      !lb.valid() || !lc.valid() || !ld.valid() ||
      (algo && algo->data[0] != 42)) {
    standin::log("cublasLtMatmul stream=%d rejected",
                 standin::streamId(stream));
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if ((op.epilogue == CUBLASLT_EPILOGUE_BGRADA && transA) ||
      (op.epilogue == CUBLASLT_EPILOGUE_BGRADB && !transB)) {
    standin::log("cublasLtMatmul stream=%d rejected (bias gradient layout)",
                 standin::streamId(stream));
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if ((relu || geluAux) && (ld.order != CUBLASLT_ORDER_COL ||
                            (isActivationGradient(op.epilogue) && k == 1))) {
    standin::log("cublasLtMatmul stream=%d rejected (aux epilogue layout)",
                 standin::streamId(stream));
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (isLow(type)) {
    // In f32 (exact for 16-bit values), D rounded once at the end.
    std::vector<float> wa = widened(a, la), wb = widened(b, lb),
                       wc = widened(c, lc), wd = widened(d, ld);
    multiply(op, *static_cast<const float *>(alpha), wa.data(), la, wb.data(),
             lb, *static_cast<const float *>(beta), wc.data(), lc, wd.data(),
             ld, m, n, k);
    auto *bits = static_cast<uint16_t *>(d);
    for (size_t i = 0; i < wd.size(); ++i)
      bits[i] = toLow(wd[i], type);
  } else if (type == CUDA_R_32F)
    multiply(op, *static_cast<const float *>(alpha),
             static_cast<const float *>(a), la, static_cast<const float *>(b),
             lb, *static_cast<const float *>(beta),
             static_cast<const float *>(c), lc, static_cast<float *>(d), ld, m,
             n, k);
  else
    multiply(op, *static_cast<const double *>(alpha),
             static_cast<const double *>(a), la, static_cast<const double *>(b),
             lb, *static_cast<const double *>(beta),
             static_cast<const double *>(c), lc, static_cast<double *>(d), ld,
             m, n, k);
  double betaValue = type != CUDA_R_64F ? *static_cast<const float *>(beta)
                                        : *static_cast<const double *>(beta);
  const char *typeName = type == CUDA_R_32F    ? "f32"
                         : type == CUDA_R_64F  ? "f64"
                         : type == CUDA_R_16BF ? "bf16"
                                               : "f16";
  standin::log("cublasLtMatmul stream=%d type=%s compute=%d m=%ld n=%ld k=%ld "
               "transa=%d transb=%d batch=%d epilogue=%s beta=%g "
               "workspace=%zu",
               standin::streamId(stream), typeName, op.compute, long(m),
               long(n), long(k), op.transa, op.transb, ld.batchCount,
               epilogueName(op.epilogue), betaValue, workspaceBytes);
  return CUBLAS_STATUS_SUCCESS;
}

#define STANDIN_CHECK(MEMBER, SYMBOL, RET, PARAMS)                             \
  static_assert(std::is_same_v<decltype(&SYMBOL), RET(*) PARAMS>, #SYMBOL);
ONEFLOW_CUBLASLT_FUNCTIONS(STANDIN_CHECK)
