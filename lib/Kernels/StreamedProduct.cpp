//===- StreamedProduct.cpp - Products that read their weights once --------===//

#include "StreamedProduct.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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
#if defined(__x86_64__)
/// Outputs [o0, o0 + 16 * B) of P pixels: tile[p * 16 * B + j] = sum_c
/// wT[c, o0 + j] x[c, p].
template <int P, int B>
__attribute__((target("avx512f"))) void
transposedTile(const float *wT, int64_t rowStride, const float *x,
               int64_t pixels, int64_t k, float *tile) {
  __m512 acc[P][B];
  for (int p = 0; p < P; ++p)
    for (int b = 0; b < B; ++b)
      acc[p][b] = _mm512_setzero_ps();
  for (int64_t c = 0; c < k; ++c) {
    const float *row = wT + c * rowStride;
    __m512 weights[B];
    for (int b = 0; b < B; ++b)
      weights[b] = _mm512_loadu_ps(row + 16 * b);
    for (int p = 0; p < P; ++p) {
      __m512 input = _mm512_set1_ps(x[c * pixels + p]);
      for (int b = 0; b < B; ++b)
        acc[p][b] = _mm512_fmadd_ps(input, weights[b], acc[p][b]);
    }
  }
  for (int p = 0; p < P; ++p)
    for (int b = 0; b < B; ++b)
      _mm512_storeu_ps(tile + (p * B + b) * 16, acc[p][b]);
}

/// transposedTile for P pixels: four vectors a tile up to four pixels (at
/// most 16 accumulators), two beyond (at most 16 again).
void transposedTileOf(const float *wT, int64_t rowStride, const float *x,
                      int64_t pixels, int64_t k, float *tile) {
  switch (pixels) {
  case 1:
    return transposedTile<1, 4>(wT, rowStride, x, pixels, k, tile);
  case 2:
    return transposedTile<2, 4>(wT, rowStride, x, pixels, k, tile);
  case 3:
    return transposedTile<3, 4>(wT, rowStride, x, pixels, k, tile);
  case 4:
    return transposedTile<4, 4>(wT, rowStride, x, pixels, k, tile);
  case 5:
    return transposedTile<5, 2>(wT, rowStride, x, pixels, k, tile);
  case 6:
    return transposedTile<6, 2>(wT, rowStride, x, pixels, k, tile);
  case 7:
    return transposedTile<7, 2>(wT, rowStride, x, pixels, k, tile);
  default:
    return transposedTile<8, 2>(wT, rowStride, x, pixels, k, tile);
  }
}
#endif
} // namespace

const float *oneflow::kernels::transposedConstantWeights(const float *w,
                                                         int64_t rows,
                                                         int64_t k,
                                                         int64_t *rowStride) {
  struct Transposed {
    float *data = nullptr;
    ~Transposed() { std::free(data); }
  };
  static std::mutex mutex;
  static std::map<std::tuple<const float *, int64_t, int64_t>, Transposed>
      cache;
  *rowStride = (rows + 63) / 64 * 64;
  std::lock_guard<std::mutex> lock(mutex);
  Transposed &entry = cache[{w, rows, k}];
  if (!entry.data) {
    size_t bytes = (k * *rowStride * sizeof(float) + 63) / 64 * 64;
    entry.data = static_cast<float *>(std::aligned_alloc(64, bytes));
    std::memset(entry.data, 0, bytes);
    for (int64_t o = 0; o < rows; ++o)
      for (int64_t c = 0; c < k; ++c)
        entry.data[c * *rowStride + o] = w[o * k + c];
  }
  return entry.data;
}

void oneflow::kernels::transposedWeightsProduct(
    const float *wT, int64_t rowStride, const float *x, const float *bias,
    float *y, int64_t rows, int64_t k, int64_t pixels) {
#if defined(__x86_64__)
  int64_t tileRows = pixels <= 4 ? 64 : 32;
  int64_t tiles = (rows + tileRows - 1) / tileRows;
  int threads = int(std::max<int64_t>(
      1, std::min<int64_t>(omp_get_max_threads(), tiles / 4)));
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t t = 0; t < tiles; ++t) {
    float tile[kStreamedVectors * 64];
    int64_t o0 = t * tileRows, count = std::min(tileRows, rows - o0);
    transposedTileOf(wT + o0, rowStride, x, pixels, k, tile);
    for (int64_t o = 0; o < count; ++o)
      for (int64_t p = 0; p < pixels; ++p)
        y[(o0 + o) * pixels + p] =
            tile[p * tileRows + o] + (bias ? bias[o0 + o] : 0.f);
  }
#else
  (void)wT, (void)rowStride, (void)x, (void)bias, (void)y, (void)rows, (void)k,
      (void)pixels;
  std::abort();
#endif
}

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
