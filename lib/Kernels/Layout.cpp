//===- Layout.cpp - Channels-last <-> channels-first copies ---------------===//
//
// Image-by-image transposes in 16 x 16 tiles transposed in AVX-512
// registers (four rounds of shuffles), each tile read and written as 16
// vectors. oneDNN's own reorder from NHWC to NCHW moved 5-6 GB/s on this
// machine (SqueezeNet's first conv at batch 8: 0.41 ms for 2.6 MB; this
// transpose 0.07-0.08 ms). `oneflow-layout-bench` compares the two.
//
//===----------------------------------------------------------------------===//

#include "Layout.h"
#include "KernelABI.h"

#include <algorithm>
#include <cstring>
#include <omp.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace oneflow::kernels;

namespace {

/// The tile at (r0, c0) of one image, `nr` x `nc` of at most 16 each.
void transposeTileScalar(const float *src, float *dst, int64_t rows,
                         int64_t cols, int64_t r0, int64_t c0, int64_t nr,
                         int64_t nc) {
  for (int64_t c = 0; c < nc; ++c)
    for (int64_t r = 0; r < nr; ++r)
      dst[(c0 + c) * rows + r0 + r] = src[(r0 + r) * cols + c0 + c];
}

#if defined(__x86_64__)
// GCC 12 warns that the undefined source operand inside its shuffle
// intrinsics may be used uninitialized; it is not.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) void
transposeImageAvx512(const float *src, float *dst, int64_t rows, int64_t cols,
                     int64_t r0, int64_t r1) {
  for (int64_t rb = r0; rb < r1; rb += 16) {
    int64_t nr = std::min<int64_t>(16, r1 - rb);
    __mmask16 rowMask = __mmask16((1u << nr) - 1);
    for (int64_t cb = 0; cb < cols; cb += 16) {
      int64_t nc = std::min<int64_t>(16, cols - cb);
      __mmask16 colMask = __mmask16((1u << nc) - 1);
      __m512 t[16], u[16];
      for (int i = 0; i < 16; ++i)
        t[i] = i >= nr ? _mm512_setzero_ps()
               : nc == 16
                   ? _mm512_loadu_ps(src + (rb + i) * cols + cb)
                   : _mm512_maskz_loadu_ps(colMask, src + (rb + i) * cols + cb);
      // Pairs of rows interleaved, then pairs of pairs, then 128-bit lanes
      // twice: u[j] holds column j of the tile.
      for (int i = 0; i < 16; i += 2) {
        u[i] = _mm512_unpacklo_ps(t[i], t[i + 1]);
        u[i + 1] = _mm512_unpackhi_ps(t[i], t[i + 1]);
      }
      for (int i = 0; i < 16; i += 4) {
        t[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(u[i]),
                                                   _mm512_castps_pd(u[i + 2])));
        t[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(
            _mm512_castps_pd(u[i]), _mm512_castps_pd(u[i + 2])));
        t[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(
            _mm512_castps_pd(u[i + 1]), _mm512_castps_pd(u[i + 3])));
        t[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(
            _mm512_castps_pd(u[i + 1]), _mm512_castps_pd(u[i + 3])));
      }
      for (int i = 0; i < 4; ++i) {
        u[i] = _mm512_shuffle_f32x4(t[i], t[i + 4], 0x88);
        u[i + 4] = _mm512_shuffle_f32x4(t[i + 8], t[i + 12], 0x88);
        u[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 4], 0xdd);
        u[i + 12] = _mm512_shuffle_f32x4(t[i + 8], t[i + 12], 0xdd);
      }
      for (int i = 0; i < 4; ++i) {
        t[i] = _mm512_shuffle_f32x4(u[i], u[i + 4], 0x88);
        t[i + 4] = _mm512_shuffle_f32x4(u[i + 8], u[i + 12], 0x88);
        t[i + 8] = _mm512_shuffle_f32x4(u[i], u[i + 4], 0xdd);
        t[i + 12] = _mm512_shuffle_f32x4(u[i + 8], u[i + 12], 0xdd);
      }
      // Whole vectors where the tile is whole: masked stores are slower.
      if (nr == 16)
        for (int j = 0; j < nc; ++j)
          _mm512_storeu_ps(dst + (cb + j) * rows + rb, t[j]);
      else
        for (int j = 0; j < nc; ++j)
          _mm512_mask_storeu_ps(dst + (cb + j) * rows + rb, rowMask, t[j]);
    }
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

} // namespace

void oneflow::kernels::transposeImages(const float *src, float *dst,
                                       int64_t images, int64_t rows,
                                       int64_t cols) {
  // Work items: (image, band of 64 rows), so one image's band of tiles
  // reads a few pages of `src` and writes 16-element runs of every column.
  constexpr int64_t kBand = 64;
  int64_t bands = (rows + kBand - 1) / kBand;
  int64_t items = images * bands;
  bool avx512 = hasAvx512();
  int threads = std::min<int64_t>(omp_get_max_threads(), items);
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t item = 0; item < items; ++item) {
    int64_t image = item / bands, band = item % bands;
    const float *s = src + image * rows * cols;
    float *d = dst + image * rows * cols;
    int64_t r0 = band * kBand, r1 = std::min(rows, r0 + kBand);
#if defined(__x86_64__)
    if (avx512) {
      transposeImageAvx512(s, d, rows, cols, r0, r1);
      continue;
    }
#endif
    for (int64_t rb = r0; rb < r1; rb += 16)
      for (int64_t cb = 0; cb < cols; cb += 16)
        transposeTileScalar(s, d, rows, cols, rb, cb,
                            std::min<int64_t>(16, r1 - rb),
                            std::min<int64_t>(16, cols - cb));
  }
}

namespace {
/// Each image's `kRows` rows of `cols` interleaved: an image's few channel
/// planes to channels-last (an RGB input before the first conv), one
/// vectorizable pass where 16x16 tiles would be mostly empty.
template <int kRows>
void interleaveRows(const float *src, float *dst, int64_t images,
                    int64_t cols) {
  for (int64_t image = 0; image < images; ++image) {
    const float *s = src + image * kRows * cols;
    float *d = dst + image * kRows * cols;
#pragma omp simd
    for (int64_t i = 0; i < cols; ++i)
      for (int r = 0; r < kRows; ++r)
        d[i * kRows + r] = s[r * cols + i];
  }
}

/// The inverse: `rows` rows of `kCols` become kCols planes of `rows`.
template <int kCols>
void deinterleaveColumns(const float *src, float *dst, int64_t images,
                         int64_t rows) {
  for (int64_t image = 0; image < images; ++image) {
    const float *s = src + image * rows * kCols;
    float *d = dst + image * rows * kCols;
#pragma omp simd
    for (int64_t i = 0; i < rows; ++i)
      for (int c = 0; c < kCols; ++c)
        d[c * rows + i] = s[i * kCols + c];
  }
}
} // namespace

/// The compiler's transposes that move a block of trailing dimensions in
/// front of the block before it (NCHW <-> NHWC) on CPU plans, where the
/// input comes from outside the kernel: `images` matrices of `rows` x
/// `cols`, each transposed.
ONEFLOW_KERNEL void oneflow_transpose_images_f32(int64_t x, int64_t y,
                                                 int64_t images, int64_t rows,
                                                 int64_t cols) {
  const float *src = ptr<float>(x);
  float *dst = ptr<float>(y);
  switch (rows) {
  case 1:
    return (void)std::memcpy(dst, src, images * cols * sizeof(float));
  case 2:
    return interleaveRows<2>(src, dst, images, cols);
  case 3:
    return interleaveRows<3>(src, dst, images, cols);
  case 4:
    return interleaveRows<4>(src, dst, images, cols);
  }
  switch (cols) {
  case 1:
    return (void)std::memcpy(dst, src, images * rows * sizeof(float));
  case 2:
    return deinterleaveColumns<2>(src, dst, images, rows);
  case 3:
    return deinterleaveColumns<3>(src, dst, images, rows);
  case 4:
    return deinterleaveColumns<4>(src, dst, images, rows);
  }
  transposeImages(src, dst, images, rows, cols);
}
