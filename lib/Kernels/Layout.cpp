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
#include <omp.h>
#include <type_traits>

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
/// Each image's `kFew` rows of `many` interleaved (`kInterleave`: an
/// image's few channel planes to channels-last, an RGB input before the
/// first conv) or the inverse (`many` rows of `kFew` to kFew planes): one
/// vectorizable pass where 16x16 tiles would be mostly empty.
template <int kFew, bool kInterleave>
[[gnu::always_inline]] inline void
transposeFewLoops(const float *src, float *dst, int64_t images, int64_t many) {
  for (int64_t image = 0; image < images; ++image) {
    const float *s = src + image * kFew * many;
    float *d = dst + image * kFew * many;
#pragma omp simd
    for (int64_t i = 0; i < many; ++i)
      for (int r = 0; r < kFew; ++r) {
        if constexpr (kInterleave)
          d[i * kFew + r] = s[r * many + i];
        else
          d[r * many + i] = s[i * kFew + r];
      }
  }
}

#if defined(__x86_64__)
/// The loops compiled for AVX-512 (3.5x the baseline's speed for an RGB
/// batch of 8 x 64 x 64).
template <int kFew, bool kInterleave>
__attribute__((target("avx512f"))) void
transposeFewAvx512(const float *src, float *dst, int64_t images, int64_t many) {
  transposeFewLoops<kFew, kInterleave>(src, dst, images, many);
}
#endif

template <int kFew, bool kInterleave>
void transposeFew(const float *src, float *dst, int64_t images, int64_t many) {
#if defined(__x86_64__)
  if (hasAvx512())
    return transposeFewAvx512<kFew, kInterleave>(src, dst, images, many);
#endif
  transposeFewLoops<kFew, kInterleave>(src, dst, images, many);
}

/// Calls `fn` with std::integral_constant<int, count> for a count of 1 to
/// 4 and returns true; false for other counts.
template <typename Fn> bool withSmallCount(int64_t count, Fn fn) {
  switch (count) {
  case 1:
    return fn(std::integral_constant<int, 1>()), true;
  case 2:
    return fn(std::integral_constant<int, 2>()), true;
  case 3:
    return fn(std::integral_constant<int, 3>()), true;
  case 4:
    return fn(std::integral_constant<int, 4>()), true;
  }
  return false;
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
  if (withSmallCount(rows, [&](auto r) {
        transposeFew<decltype(r)::value, true>(src, dst, images, cols);
      }))
    return;
  if (withSmallCount(cols, [&](auto c) {
        transposeFew<decltype(c)::value, false>(src, dst, images, rows);
      }))
    return;
  transposeImages(src, dst, images, rows, cols);
}
