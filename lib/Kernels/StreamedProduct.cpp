//===- StreamedProduct.cpp - Products that read their weights once --------===//

#include "StreamedProduct.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

using namespace oneflow::kernels;

namespace {
using Float8 = float __attribute__((vector_size(32)));

/// Where streamedProduct writes, and whether it adds to what is there.
struct Output {
  float *out;
  int64_t rowStride, vectorStride;
  bool accumulate;
};

/// `rows` outputs over P vectors, eight elements per step into U
/// accumulators per vector (P * U >= 8 independent chains hide the
/// multiply-add latency).
template <int P>
[[gnu::always_inline]] inline void streamRows(const float *w, const float *v,
                                              const float *bias, Output y,
                                              int64_t rows, int64_t k) {
  constexpr int U = P >= 8 ? 1 : 8 / P;
  for (int64_t o = 0; o < rows; ++o) {
    const float *row = w + o * k;
    Float8 acc[P][U] = {};
    int64_t c = 0;
    for (; c + 8 * U <= k; c += 8 * U) {
#pragma GCC unroll 8
      for (int u = 0; u < U; ++u) {
        Float8 weights;
        std::memcpy(&weights, row + c + 8 * u, sizeof(weights));
#pragma GCC unroll 8
        for (int p = 0; p < P; ++p) {
          Float8 inputs;
          std::memcpy(&inputs, v + p * k + c + 8 * u, sizeof(inputs));
          acc[p][u] += weights * inputs;
        }
      }
    }
    for (; c + 8 <= k; c += 8) {
      Float8 weights;
      std::memcpy(&weights, row + c, sizeof(weights));
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) {
        Float8 inputs;
        std::memcpy(&inputs, v + p * k + c, sizeof(inputs));
        acc[p][0] += weights * inputs;
      }
    }
    for (int p = 0; p < P; ++p) {
      Float8 total = acc[p][0];
      for (int u = 1; u < U; ++u)
        total += acc[p][u];
      float sum = 0;
      for (int j = 0; j < 8; ++j)
        sum += total[j];
      for (int64_t i = c; i < k; ++i)
        sum += row[i] * v[p * k + i];
      float &element = y.out[o * y.rowStride + p * y.vectorStride];
      element = (y.accumulate ? element : 0.f) + (bias ? bias[o] : 0.f) + sum;
    }
  }
}

/// streamRows for the vector count, compiled for AVX2 too.
[[gnu::target_clones("arch=x86-64-v3", "default")]] void
streamRowsOf(const float *w, const float *v, const float *bias, Output y,
             int64_t rows, int64_t k, int64_t vectors) {
  switch (vectors) {
  case 1:
    return streamRows<1>(w, v, bias, y, rows, k);
  case 2:
    return streamRows<2>(w, v, bias, y, rows, k);
  case 3:
    return streamRows<3>(w, v, bias, y, rows, k);
  case 4:
    return streamRows<4>(w, v, bias, y, rows, k);
  case 5:
    return streamRows<5>(w, v, bias, y, rows, k);
  case 6:
    return streamRows<6>(w, v, bias, y, rows, k);
  case 7:
    return streamRows<7>(w, v, bias, y, rows, k);
  default:
    return streamRows<8>(w, v, bias, y, rows, k);
  }
}
} // namespace

void oneflow::kernels::streamedProduct(const float *w, const float *v,
                                       const float *bias, float *out,
                                       int64_t rows, int64_t k, int64_t vectors,
                                       int64_t rowStride, int64_t vectorStride,
                                       bool accumulate) {
  int threads = int(std::max<int64_t>(
      1, std::min<int64_t>(omp_get_max_threads(), rows / 64)));
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int count = omp_get_num_threads(), index = omp_get_thread_num();
    int64_t begin = rows * index / count, end = rows * (index + 1) / count;
    Output y{out + begin * rowStride, rowStride, vectorStride, accumulate};
    streamRowsOf(w + begin * k, v, bias ? bias + begin : nullptr, y,
                 end - begin, k, vectors);
  }
}
