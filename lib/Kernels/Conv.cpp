//===- Conv.cpp - Convolutions as im2col + GEMM ---------------------------===//
//
// conv2d: per image and group, unfold the input windows into a
// [C/g * kh * kw, OH * OW] matrix and multiply by the [O/g, C/g * kh * kw]
// weights. conv_transpose2d is its adjoint: multiply, then fold (col2im)
// with accumulation. f32 convolutions run on oneDNN's primitives where it
// has one that wins (DnnlConv.cpp); f64 ones and the rest run here.
//
//===----------------------------------------------------------------------===//

#include "Conv.h"
#include "KernelABI.h"
#include "Layout.h"
#include "StreamedProduct.h"

#include <cblas.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

using namespace oneflow::kernels;

namespace oneflow::kernels {
void gemmF32(const float *a, const float *b, float *c, int64_t m, int64_t n,
             int64_t k, bool ta, bool tb, float beta, int64_t ldc);
void gemmF64(const double *a, const double *b, double *c, int64_t m, int64_t n,
             int64_t k, bool ta, bool tb, double beta, int64_t ldc);
} // namespace oneflow::kernels

namespace {

void gemm(const float *a, const float *b, float *c, int64_t m, int64_t n,
          int64_t k, bool ta, bool tb, float beta, int64_t ldc = 0) {
  gemmF32(a, b, c, m, n, k, ta, tb, beta, ldc);
}
void gemm(const double *a, const double *b, double *c, int64_t m, int64_t n,
          int64_t k, bool ta, bool tb, double beta, int64_t ldc = 0) {
  gemmF64(a, b, c, m, n, k, ta, tb, beta, ldc);
}

/// The input pixel a window element reads, or -1 in the padding.
inline int64_t source(int64_t out, int64_t k, int64_t stride, int64_t pad,
                      int64_t dilation, int64_t size) {
  int64_t in = out * stride - pad + k * dilation;
  return in >= 0 && in < size ? in : -1;
}

/// Whether im2colSame applies: a stride-1, undilated convolution whose
/// output has the input's size.
bool isSameConv(const ConvShape &s) {
  return s.sh == 1 && s.sw == 1 && s.dh == 1 && s.dw == 1 && s.oh == s.h &&
         s.ow == s.w && s.pt < s.kh && s.pl < s.kw && s.kw - s.pl <= s.w;
}

/// im2col of a "same" convolution for output pixels [p0, p1): each row
/// (tap) is a run of the image plane shifted by the tap's offset (one copy),
/// with what falls in the padding zeroed. Row r starts at cols + r * (p1 -
/// p0).
template <typename T>
void im2colSame(const T *image, T *cols, const ConvShape &s, int64_t channels,
                int64_t p0, int64_t p1) {
  int64_t plane = s.h * s.w, ld = p1 - p0;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < s.kh; ++i)
      for (int64_t j = 0; j < s.kw; ++j) {
        T *row = cols + ((c * s.kh + i) * s.kw + j) * ld;
        const T *in = image + c * plane;
        int64_t dx = j - s.pl, shift = (i - s.pt) * s.w + dx;
        int64_t begin = std::clamp<int64_t>(-shift, p0, p1),
                end = std::clamp<int64_t>(plane - shift, begin, p1);
        std::fill(row, row + (begin - p0), T(0));
        std::copy(in + begin + shift, in + end + shift, row + (begin - p0));
        std::fill(row + (end - p0), row + ld, T(0));
        // Columns whose tap reads left or right of the image.
        int64_t zeroFrom = dx < 0 ? 0 : s.w - dx, zeroTo = dx < 0 ? -dx : s.w;
        if (dx != 0)
          for (int64_t y = p0 / s.w; y * s.w < p1; ++y)
            for (int64_t x = zeroFrom; x < zeroTo; ++x)
              if (int64_t p = y * s.w + x; p >= p0 && p < p1)
                row[p - p0] = T(0);
      }
}

/// Unfolds `image` into rows of `cols` (row r of the window elements starts
/// at cols + r * ld).
template <typename T>
void im2col(const T *image, T *cols, const ConvShape &s, int64_t channels,
            int64_t ld) {
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < s.kh; ++i)
      for (int64_t j = 0; j < s.kw; ++j) {
        T *row = cols + ((c * s.kh + i) * s.kw + j) * ld;
        // The output columns whose input column is inside the image.
        int64_t first = 0, last = s.ow;
        while (first < s.ow && source(first, j, s.sw, s.pl, s.dw, s.w) < 0)
          ++first;
        while (last > first && source(last - 1, j, s.sw, s.pl, s.dw, s.w) < 0)
          --last;
        for (int64_t y = 0; y < s.oh; ++y) {
          T *out = row + y * s.ow;
          int64_t iy = source(y, i, s.sh, s.pt, s.dh, s.h);
          if (iy < 0) {
            std::fill(out, out + s.ow, T(0));
            continue;
          }
          const T *in = image + (c * s.h + iy) * s.w;
          std::fill(out, out + first, T(0));
          int64_t ix = first * s.sw - s.pl + j * s.dw;
          if (s.sw == 1)
            std::copy(in + ix, in + ix + (last - first), out + first);
          else
            for (int64_t x = first; x < last; ++x, ix += s.sw)
              out[x] = in[ix];
          std::fill(out + last, out + s.ow, T(0));
        }
      }
}

/// The adjoint of im2col: accumulates columns back into the image (row r
/// of the window elements at cols + r * ld; ld 0: oh * ow).
template <typename T>
void col2im(const T *cols, T *image, const ConvShape &s, int64_t channels,
            int64_t ld = 0) {
  if (ld == 0)
    ld = s.oh * s.ow;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < s.kh; ++i)
      for (int64_t j = 0; j < s.kw; ++j) {
        const T *row = cols + ((c * s.kh + i) * s.kw + j) * ld;
        for (int64_t y = 0; y < s.oh; ++y) {
          int64_t iy = source(y, i, s.sh, s.pt, s.dh, s.h);
          if (iy < 0)
            continue;
          for (int64_t x = 0; x < s.ow; ++x) {
            int64_t ix = source(x, j, s.sw, s.pl, s.dw, s.w);
            if (ix >= 0)
              image[(c * s.h + iy) * s.w + ix] += row[y * s.ow + x];
          }
        }
      }
}

template <typename T>
void addBias(T *y, const T *bias, int64_t n, int64_t o, int64_t pixels) {
  if (!bias)
    return;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t c = 0; c < o; ++c)
      std::for_each(y + (b * o + c) * pixels, y + (b * o + c + 1) * pixels,
                    [&](T &v) { v += bias[c]; });
}

/// Starts each output channel's row at its bias, for a product that then
/// accumulates (beta = 1): no separate pass over the output for the bias,
/// and none for BLAS's zeroing of it.
template <typename T>
void fillWithBias(T *y, const T *bias, int64_t channels, int64_t pixels) {
  for (int64_t c = 0; c < channels; ++c)
    std::fill(y + c * pixels, y + (c + 1) * pixels, bias[c]);
}

/// One image plane of a depthwise conv (one input and one output channel
/// per group), directly, on a zero-padded copy of the plane (`padded`,
/// `acc`: scratch of depthwiseScratch's sizes): no bounds checks in the
/// tap loops. A stride-1 conv accumulates each tap over the whole plane in
/// one loop, computing the padded columns too and dropping them; others
/// loop per output row. im2col would copy the plane kh * kw times for a
/// GEMM with a single output row.
struct DepthwiseGeometry {
  int64_t ph, pw, padded, acc;
};
inline DepthwiseGeometry depthwiseGeometry(const ConvShape &s) {
  DepthwiseGeometry g;
  g.ph = std::max(s.h + s.pt, (s.oh - 1) * s.sh + s.dh * (s.kh - 1) + 1);
  g.pw = std::max(s.w + s.pl, (s.ow - 1) * s.sw + s.dw * (s.kw - 1) + 1);
  // The stride-1 loop reads up to (kw - 1) * dw past the last row.
  g.padded = g.ph * g.pw + s.dw * (s.kw - 1);
  g.acc = s.oh * g.pw;
  return g;
}

/// acc[q] = b + sum over the K x K taps of a stride-1 conv on the padded
/// plane, q over the output rows at the padded width.
template <typename T, int K>
__attribute__((always_inline)) inline void
depthwiseTaps(const T *padded, const T *k, T b, T *acc,
              const DepthwiseGeometry &g, const ConvShape &s) {
  T weights[K * K];
  int64_t offsets[K * K];
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < K; ++j) {
      weights[i * K + j] = k[i * K + j];
      offsets[i * K + j] = i * s.dh * g.pw + j * s.dw;
    }
  for (int64_t q = 0; q < g.acc; ++q) {
    T sum = b;
    for (int t = 0; t < K * K; ++t)
      sum += weights[t] * padded[q + offsets[t]];
    acc[q] = sum;
  }
}

template <typename T>
__attribute__((always_inline)) inline void
depthwisePlane(const T *in, const T *k, T b, T *out, const ConvShape &s,
               T *padded, T *acc) {
  DepthwiseGeometry g = depthwiseGeometry(s);
  std::fill(padded, padded + g.padded, T(0));
  for (int64_t y = 0; y < s.h; ++y)
    std::copy(in + y * s.w, in + (y + 1) * s.w,
              padded + (y + s.pt) * g.pw + s.pl);
  if (s.sh == 1 && s.sw == 1 && s.kh == 3 && s.kw == 3) {
    // The common kernel: all taps of a vector of outputs in registers (2x
    // faster; 5 x 5 taps run 5x slower so).
    depthwiseTaps<T, 3>(padded, k, b, acc, g, s);
    for (int64_t oy = 0; oy < s.oh; ++oy)
      std::copy(acc + oy * g.pw, acc + oy * g.pw + s.ow, out + oy * s.ow);
    return;
  }
  if (s.sh == 1 && s.sw == 1) {
    int64_t length = g.acc;
    std::fill(acc, acc + length, b);
    for (int64_t i = 0; i < s.kh; ++i)
      for (int64_t j = 0; j < s.kw; ++j) {
        const T *src = padded + i * s.dh * g.pw + j * s.dw;
        T weight = k[i * s.kw + j];
        for (int64_t q = 0; q < length; ++q)
          acc[q] += weight * src[q];
      }
    for (int64_t oy = 0; oy < s.oh; ++oy)
      std::copy(acc + oy * g.pw, acc + oy * g.pw + s.ow, out + oy * s.ow);
    return;
  }
  for (int64_t oy = 0; oy < s.oh; ++oy) {
    T *row = out + oy * s.ow;
    std::fill(row, row + s.ow, b);
    for (int64_t i = 0; i < s.kh; ++i)
      for (int64_t j = 0; j < s.kw; ++j) {
        const T *src = padded + (oy * s.sh + i * s.dh) * g.pw + j * s.dw;
        T weight = k[i * s.kw + j];
        if (s.sw == 2)
          for (int64_t ox = 0; ox < s.ow; ++ox)
            row[ox] += weight * src[2 * ox];
        else
          for (int64_t ox = 0; ox < s.ow; ++ox)
            row[ox] += weight * src[ox * s.sw];
      }
  }
}

// The kernel library is built for any x86-64: these get AVX-512 and AVX2
// clones, picked at load time.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
depthwisePlaneF32(const float *in, const float *k, float b, float *out,
                  const ConvShape &s, float *padded, float *acc) {
  depthwisePlane(in, k, b, out, s, padded, acc);
}
__attribute__((target_clones("avx512f", "avx2", "default"))) void
depthwisePlaneF64(const double *in, const double *k, double b, double *out,
                  const ConvShape &s, double *padded, double *acc) {
  depthwisePlane(in, k, b, out, s, padded, acc);
}
void depthwisePlaneOf(const float *in, const float *k, float b, float *out,
                      const ConvShape &s, float *padded, float *acc) {
  depthwisePlaneF32(in, k, b, out, s, padded, acc);
}
void depthwisePlaneOf(const double *in, const double *k, double b, double *out,
                      const ConvShape &s, double *padded, double *acc) {
  depthwisePlaneF64(in, k, b, out, s, padded, acc);
}

template <typename T>
void depthwise(const T *x, const T *w, const T *bias, T *y,
               const ConvShape &s) {
  int64_t planes = s.n * s.c;
  int threads = std::min<int64_t>(omp_get_max_threads(), planes);
  DepthwiseGeometry g = depthwiseGeometry(s);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    std::unique_ptr<T[]> padded(new T[g.padded]), acc(new T[g.acc]);
#pragma omp for schedule(static)
    for (int64_t p = 0; p < planes; ++p) {
      int64_t c = p % s.c;
      depthwisePlaneOf(x + p * s.h * s.w, w + c * s.kh * s.kw,
                       bias ? bias[c] : T(0), y + p * s.oh * s.ow, s,
                       padded.get(), acc.get());
    }
  }
}

/// Whether the conv is a 1x1 one whose input planes are already the GEMM's
/// right operand (no unfolding).
bool isPointwise(const ConvShape &s) {
  return s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.pt == 0 &&
         s.pl == 0 && s.oh == s.h && s.ow == s.w;
}

/// A pointwise conv over at most kStreamedVectors pixels in all (a late
/// stage's 2x2 map at batch 1): per image, the weights streamed against the
/// pixels' channel vectors (MobileNetV2's last 1x1 conv, 320 -> 1280 over
/// 2x2 pixels: 86 us on sgemm, 73 streamed).
void pointwiseFewPixels(const float *x, const float *w, const float *bias,
                        float *y, const ConvShape &s, bool constantWeights) {
  int64_t pixels = s.h * s.w;
  if (constantWeights && hasAvx512()) {
    int64_t rowStride;
    const float *wT = transposedConstantWeights(w, s.o, s.c, &rowStride);
    for (int64_t b = 0; b < s.n; ++b)
      transposedWeightsProduct(wT, rowStride, x + b * s.c * pixels, bias,
                               y + b * s.o * pixels, s.o, s.c, pixels);
    return;
  }
  std::vector<float> xt(pixels * s.c);
  for (int64_t b = 0; b < s.n; ++b) {
    const float *in = x + b * s.c * pixels;
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t p = 0; p < pixels; ++p)
        xt[p * s.c + c] = in[c * pixels + p];
    streamedProduct(w, xt.data(), bias, y + b * s.o * pixels, s.o, s.c, pixels,
                    /*rowStride=*/pixels, /*vectorStride=*/1,
                    /*accumulate=*/false);
  }
}

/// The n images of x [n, c, pixels] side by side: out [c, n * pixels].
void gatherImages(const float *x, int64_t n, int64_t c, int64_t pixels,
                  float *out) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      std::memcpy(out + ch * n * pixels + b * pixels, x + (b * c + ch) * pixels,
                  pixels * sizeof(float));
}

/// The inverse of gatherImages: in [c, n * pixels] to y [n, c, pixels].
void scatterImages(const float *in, int64_t n, int64_t c, int64_t pixels,
                   float *y) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      std::memcpy(y + (b * c + ch) * pixels, in + ch * n * pixels + b * pixels,
                  pixels * sizeof(float));
}

/// Pixels per image up to which a pointwise conv over several images is one
/// product over the whole batch.
constexpr int64_t kBatchedPixels = 64;

/// An ungrouped pointwise conv over several small images as one product:
/// the images' pixels side by side, [c, n * pixels], so that sgemm packs
/// the weights once instead of per image for a product a few pixels wide
/// (MNASNet's last 1x1 conv at batch 8 over 2x2 maps: 346 us per-image).
void pointwiseBatched(const float *x, const float *w, const float *bias,
                      float *y, const ConvShape &s) {
  int64_t pixels = s.h * s.w, columns = s.n * pixels;
  std::vector<float> in(s.c * columns), out(s.o * columns);
  gatherImages(x, s.n, s.c, pixels, in.data());
  if (bias)
    fillWithBias(out.data(), bias, s.o, columns);
  dnnl_sgemm('N', 'N', s.o, columns, s.c, 1.0f, w, s.c, in.data(), columns,
             bias ? 1.0f : 0.0f, out.data(), columns);
  scatterImages(out.data(), s.n, s.o, pixels, y);
}

/// A pointwise f32 conv: per image and group, y[og, hw] = w[og, cg] x[cg,
/// hw] on oneDNN's sgemm, 1.5-2x faster than OpenBLAS on these shapes
/// (MobileNet's and EfficientNet's expansions and projections, one thread).
void pointwise(const float *x, const float *w, const float *bias, float *y,
               const ConvShape &s, bool constantWeights) {
  int64_t cg = s.c / s.groups, og = s.o / s.groups, pixels = s.h * s.w;
  if (s.groups == 1 && s.n * pixels <= kStreamedVectors) {
    pointwiseFewPixels(x, w, bias, y, s, constantWeights);
    return;
  }
  if (s.groups == 1 && s.n > 1 && pixels <= kBatchedPixels) {
    pointwiseBatched(x, w, bias, y, s);
    return;
  }
  int64_t work = s.n * s.groups;
  int threads = std::min<int64_t>(omp_get_max_threads(), work);
  // Several images: one per thread (oneDNN's sgemm inside the parallel
  // region runs on its caller's thread); one image: sgemm's own threads.
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t i = 0; i < work; ++i) {
    int64_t b = i / s.groups, g = i % s.groups;
    float *out = y + (b * s.o + g * og) * pixels;
    if (bias)
      fillWithBias(out, bias + g * og, og, pixels);
    dnnl_sgemm('N', 'N', og, pixels, cg, 1.0f, w + g * og * cg, cg,
               x + (b * s.c + g * cg) * pixels, pixels, bias ? 1.0f : 0.0f, out,
               pixels);
  }
}

/// A dense conv with taps over several small images (batchesImages): the
/// images' unfolded columns side by side, [patch, n * pixels], and one
/// sgemm, so that the weights are read once.
void convBatched(const float *x, const float *w, const float *bias, float *y,
                 const ConvShape &s) {
  int64_t patch = s.c * s.kh * s.kw, pixels = s.oh * s.ow,
          columns = s.n * pixels;
  std::vector<float> cols(patch * columns), out(s.o * columns);
  for (int64_t b = 0; b < s.n; ++b)
    im2col(x + b * s.c * s.h * s.w, cols.data() + b * pixels, s, s.c, columns);
  if (bias)
    fillWithBias(out.data(), bias, s.o, columns);
  dnnl_sgemm('N', 'N', s.o, columns, patch, 1.0f, w, patch, cols.data(),
             columns, bias ? 1.0f : 0.0f, out.data(), columns);
  scatterImages(out.data(), s.n, s.o, pixels, y);
}

template <typename T>
void conv2d(const T *x, const T *w, const T *bias, T *y, const ConvShape &s,
            bool constantWeights = false) {
  if constexpr (std::is_same_v<T, float>) {
    if (isPointwise(s)) {
      pointwise(x, w, bias, y, s, constantWeights);
      return;
    }
    if (batchesImages(s)) {
      convBatched(x, w, bias, y, s);
      return;
    }
  }
  if (isDepthwise(s)) {
    depthwise(x, w, bias, y, s);
    return;
  }
  int64_t cg = s.c / s.groups, og = s.o / s.groups;
  int64_t patch = cg * s.kh * s.kw, pixels = s.oh * s.ow;
  // One product per image: its unfolded columns stay in cache, and BLAS
  // runs [o, pixels] products of a small image faster than one wide product
  // over the whole batch (measured on the ResNet's shapes). With several
  // threads the images are shared out and each product runs on one thread:
  // a small image's product does not split well across BLAS threads.
  int threads = std::min<int64_t>(omp_get_max_threads(), s.n);
  int blasThreads = openblas_get_num_threads();
  if (threads > 1)
    openblas_set_num_threads(1);
  // A "same" convolution unfolds and multiplies blocks of output pixels:
  // the block's columns stay in cache, and products of at most 10^6
  // multiply-adds take OpenBLAS's small-matrix path, which packs nothing.
  bool same = isSameConv(s);
  int64_t block = pixels;
  if (same)
    block = std::clamp<int64_t>(1000000 / std::max<int64_t>(og * patch, 1) /
                                    16 * 16,
                                std::min<int64_t>(64, pixels), pixels);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    // im2col writes every element: no zero-initialization.
    std::unique_ptr<T[]> cols(new T[patch * block]);
#pragma omp for schedule(static)
    for (int64_t b = 0; b < s.n; ++b)
      for (int64_t g = 0; g < s.groups; ++g) {
        const T *image = x + (b * s.c + g * cg) * s.h * s.w;
        T *out = y + (b * s.o + g * og) * pixels;
        if (bias)
          fillWithBias(out, bias + g * og, og, pixels);
        for (int64_t p0 = 0; p0 < pixels; p0 += block) {
          int64_t p1 = std::min(p0 + block, pixels);
          if (same)
            im2colSame(image, cols.get(), s, cg, p0, p1);
          else
            im2col(image, cols.get(), s, cg, pixels);
          // out[og, p0:p1] (+)= w[og, patch] * cols[patch, p0:p1]
          gemm(w + g * og * patch, cols.get(), out + p0, og, p1 - p0, patch,
               false, false, bias ? T(1) : T(0), pixels);
        }
      }
  }
  if (threads > 1)
    openblas_set_num_threads(blasThreads);
}

/// The conv whose adjoint the transposed conv `s` is: it maps y (as its
/// input) to x (as its output).
ConvShape adjointOf(const ConvShape &s) {
  ConvShape adj = s;
  adj.h = s.oh;
  adj.w = s.ow;
  adj.oh = s.h;
  adj.ow = s.w;
  return adj;
}

/// A transposed conv over several small images (batchesTransposedImages):
/// x's images side by side, [c, n * pixels], one sgemm into their columns
/// [patch, n * pixels], folded back per image: the weights are read once.
void convTransposeBatched(const float *x, const float *w, const float *bias,
                          float *y, const ConvShape &s) {
  int64_t patch = s.o * s.kh * s.kw, pixels = s.h * s.w, columns = s.n * pixels;
  std::vector<float> in(s.c * columns), cols(patch * columns);
  gatherImages(x, s.n, s.c, pixels, in.data());
  // cols[patch, columns] = w^T[patch, c] * in[c, columns]
  dnnl_sgemm('T', 'N', patch, columns, s.c, 1.0f, w, patch, in.data(), columns,
             0.0f, cols.data(), columns);
  ConvShape adj = adjointOf(s);
  std::fill(y, y + s.n * s.o * s.oh * s.ow, 0.0f);
  for (int64_t b = 0; b < s.n; ++b)
    col2im(cols.data() + b * pixels, y + b * s.o * s.oh * s.ow, adj, s.o,
           columns);
  addBias(y, bias, s.n, s.o, s.oh * s.ow);
}

/// x: [N, C, H, W] (the conv's output side), w: [C, O/g, kh, kw],
/// y: [N, O, OH, OW] (the conv's input side).
template <typename T>
void convTranspose2d(const T *x, const T *w, const T *bias, T *y,
                     const ConvShape &s) {
  if constexpr (std::is_same_v<T, float>)
    if (batchesTransposedImages(s)) {
      convTransposeBatched(x, w, bias, y, s);
      return;
    }
  int64_t cg = s.c / s.groups, og = s.o / s.groups;
  int64_t patch = og * s.kh * s.kw, pixels = s.h * s.w;
  ConvShape adj = adjointOf(s);
  std::vector<T> cols(patch * pixels);
  std::fill(y, y + s.n * s.o * s.oh * s.ow, T(0));
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t g = 0; g < s.groups; ++g) {
      // cols[patch, pixels] = w_g^T[patch, cg] * x_g[cg, pixels]
      gemm(w + g * cg * patch, x + (b * s.c + g * cg) * pixels, cols.data(),
           patch, pixels, cg, true, false, T(0));
      col2im(cols.data(), y + (b * s.o + g * og) * s.oh * s.ow, adj, og);
    }
  addBias(y, bias, s.n, s.o, s.oh * s.ow);
}

} // namespace

bool oneflow::kernels::batchesImages(const ConvShape &s) {
  return s.groups == 1 && s.n > 1 && (s.kh > 1 || s.kw > 1) &&
         s.n * s.oh * s.ow <= kBatchedConvColumns;
}

bool oneflow::kernels::batchesTransposedImages(const ConvShape &s) {
  return s.groups == 1 && s.n > 1 && (s.kh > 1 || s.kw > 1) &&
         s.n * s.h * s.w <= kBatchedConvColumns;
}

void oneflow::kernels::conv2dWithoutDnnlF32(const float *x, const float *w,
                                            const float *bias, float *y,
                                            const ConvShape &s,
                                            bool constantWeights) {
  conv2d(x, w, bias, y, s, constantWeights);
}

void oneflow::kernels::convTranspose2dWithoutDnnlF32(const float *x,
                                                     const float *w,
                                                     const float *bias,
                                                     float *y,
                                                     const ConvShape &s) {
  convTranspose2d(x, w, bias, y, s);
}

#define CONV_ARGS                                                              \
  int64_t x, int64_t w, int64_t bias, int64_t y, int64_t n, int64_t c,         \
      int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t oh,    \
      int64_t ow, int64_t sh, int64_t sw, int64_t pt, int64_t pl, int64_t dh,  \
      int64_t dw, int64_t groups
#define CONV_SHAPE                                                             \
  ConvShape { n, c, h, wd, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, groups }

namespace {
/// An f32 NCHW conv: oneDNN where the rule (or ONEFLOW_DNNL_CONV) puts it,
/// else the paths without it; `constantWeights`: oneDNN's blocked copy of
/// the weights is made once.
void conv2dF32(const float *x, const float *w, const float *bias, float *y,
               const ConvShape &s, bool constantWeights) {
  bool onDnnl =
      constantWeights
          ? dnnlConv2dConstantWeightsF32(x, w, bias, y, s, ConvPath::Auto)
          : dnnlConv2dF32(x, w, bias, y, s, ConvPath::Auto);
  if (!onDnnl)
    conv2dWithoutDnnlF32(x, w, bias, y, s, constantWeights);
}

/// A conv with NHWC x and y: oneDNN's channels-last primitive, else the NCHW
/// paths between transposes (ONEFLOW_DNNL_CONV=0, or no primitive).
void conv2dChannelsLast(const float *x, const float *w, const float *bias,
                        float *y, const ConvShape &s, bool constantWeights) {
  // Over 1x1 maps (squeeze-and-excitation blocks, late stages) NHWC and
  // NCHW are the same bytes, and the NCHW paths have the few-pixel
  // products that beat oneDNN's per-call overhead (SE convs 9 -> 6 us).
  if (s.h * s.w == 1 && s.oh * s.ow == 1)
    return conv2dF32(x, w, bias, y, s, constantWeights);
  if (dnnlConv2dChannelsLastF32(x, w, bias, y, s, constantWeights))
    return;
  std::vector<float> xNchw(s.n * s.c * s.h * s.w),
      yNchw(s.n * s.o * s.oh * s.ow);
  transposeImages(x, xNchw.data(), s.n, s.h * s.w, s.c);
  conv2dF32(xNchw.data(), w, bias, yNchw.data(), s, constantWeights);
  transposeImages(yNchw.data(), y, s.n, s.o, s.oh * s.ow);
}

/// A channels-last conv with its epilogue (y does not overlap the inputs):
/// oneDNN's post-ops, else the conv then applyConvEpilogue.
void conv2dChannelsLastEpilogue(const float *x, const float *w,
                                const float *bias, const float *residual,
                                float *y, const ConvShape &s,
                                ConvEpilogue epilogue) {
  int64_t count = s.n * s.o * s.oh * s.ow;
  bool oneMap = s.h * s.w == 1 && s.oh * s.ow == 1;
  if (!oneMap) {
    // oneDNN's sum post-op adds what y holds.
    epilogue.residual = residual != nullptr;
    if (residual)
      std::memcpy(y, residual, count * sizeof(float));
    if (dnnlConv2dChannelsLastF32(x, w, bias, y, s, /*constantWeights=*/true,
                                  epilogue))
      return;
  }
  conv2dChannelsLast(x, w, bias, y, s, /*constantWeights=*/true);
  applyConvEpilogue(y, residual, count, epilogue);
}
} // namespace

void oneflow::kernels::applyConvEpilogue(float *y, const float *residual,
                                         int64_t count,
                                         const ConvEpilogue &epilogue) {
  if (residual) {
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
      y[i] += residual[i];
  }
  float lo = epilogue.clipMin, hi = epilogue.clipMax;
  switch (epilogue.activation) {
  case ConvActivation::None:
    return;
  case ConvActivation::Relu:
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
      y[i] = y[i] > 0.f || y[i] != y[i] ? y[i] : 0.f;
    return;
  case ConvActivation::Clip:
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
      y[i] = y[i] < lo ? lo : (y[i] > hi ? hi : y[i]);
    return;
  case ConvActivation::Silu:
    for (int64_t i = 0; i < count; ++i)
      y[i] = y[i] / (1.f + std::exp(-y[i]));
    return;
  case ConvActivation::HardSwish:
#pragma omp simd
    for (int64_t i = 0; i < count; ++i) {
      float gate = y[i] / 6.f + 0.5f;
      y[i] *= gate < 0.f ? 0.f : (gate > 1.f ? 1.f : gate);
    }
    return;
  }
}

ONEFLOW_KERNEL void oneflow_conv2d_f32(CONV_ARGS) {
  conv2dF32(ptr<float>(x), ptr<float>(w), ptr<float>(bias), ptr<float>(y),
            CONV_SHAPE, /*constantWeights=*/false);
}
/// oneflow_conv2d_f32 for weights that never change (the compiler's
/// `constant_weight`): oneDNN's blocked layout of them is made once.
ONEFLOW_KERNEL void oneflow_conv2d_constant_weight_f32(CONV_ARGS) {
  conv2dF32(ptr<float>(x), ptr<float>(w), ptr<float>(bias), ptr<float>(y),
            CONV_SHAPE, /*constantWeights=*/true);
}
/// oneflow_conv2d_f32 with x and y NHWC (the compiler's `channels_last`).
ONEFLOW_KERNEL void oneflow_conv2d_nhwc_f32(CONV_ARGS) {
  conv2dChannelsLast(ptr<float>(x), ptr<float>(w), ptr<float>(bias),
                     ptr<float>(y), CONV_SHAPE, /*constantWeights=*/false);
}
/// The same with weights that never change.
ONEFLOW_KERNEL void oneflow_conv2d_nhwc_constant_weight_f32(CONV_ARGS) {
  conv2dChannelsLast(ptr<float>(x), ptr<float>(w), ptr<float>(bias),
                     ptr<float>(y), CONV_SHAPE, /*constantWeights=*/true);
}
/// oneflow_conv2d_nhwc_constant_weight_f32 followed by the compiler's
/// conv2d_epilogue: y = act(conv + bias + residual); residual may be null;
/// activation a ConvActivation code, the clip bounds the bits of doubles.
ONEFLOW_KERNEL void oneflow_conv2d_nhwc_epilogue_f32(
    int64_t x, int64_t w, int64_t bias, int64_t residual, int64_t y, int64_t n,
    int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw,
    int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t pt, int64_t pl,
    int64_t dh, int64_t dw, int64_t groups, int64_t activation,
    int64_t clipMinBits, int64_t clipMaxBits) {
  ConvEpilogue epilogue;
  epilogue.activation = static_cast<ConvActivation>(activation);
  double clipMin, clipMax;
  std::memcpy(&clipMin, &clipMinBits, sizeof(clipMin));
  std::memcpy(&clipMax, &clipMaxBits, sizeof(clipMax));
  epilogue.clipMin = float(clipMin);
  epilogue.clipMax = float(clipMax);
  conv2dChannelsLastEpilogue(ptr<float>(x), ptr<float>(w), ptr<float>(bias),
                             ptr<float>(residual), ptr<float>(y), CONV_SHAPE,
                             epilogue);
}
ONEFLOW_KERNEL void oneflow_conv2d_f64(CONV_ARGS) {
  conv2d(ptr<double>(x), ptr<double>(w), ptr<double>(bias), ptr<double>(y),
         CONV_SHAPE);
}
ONEFLOW_KERNEL void oneflow_conv_transpose2d_f32(CONV_ARGS) {
  if (!dnnlConvTranspose2dF32(ptr<float>(x), ptr<float>(w), ptr<float>(bias),
                              ptr<float>(y), CONV_SHAPE, ConvPath::Auto))
    convTranspose2dWithoutDnnlF32(ptr<float>(x), ptr<float>(w),
                                  ptr<float>(bias), ptr<float>(y), CONV_SHAPE);
}
namespace {
/// dw of a conv by its definition: for shapes oneDNN has no
/// backward-weights primitive for (and under ONEFLOW_DNNL_CONV=0).
void conv2dGradFilterDirect(const float *x, const float *dy, float *dw,
                            const ConvShape &s) {
  int64_t cg = s.c / s.groups, og = s.o / s.groups;
  for (int64_t oc = 0; oc < s.o; ++oc) {
    int64_t g = oc / og;
    for (int64_t ic = 0; ic < cg; ++ic)
      for (int64_t i = 0; i < s.kh; ++i)
        for (int64_t j = 0; j < s.kw; ++j) {
          double sum = 0;
          for (int64_t b = 0; b < s.n; ++b) {
            const float *plane = x + (b * s.c + g * cg + ic) * s.h * s.w;
            const float *grad = dy + (b * s.o + oc) * s.oh * s.ow;
            for (int64_t r = 0; r < s.oh; ++r) {
              int64_t ih = r * s.sh - s.pt + i * s.dh;
              if (ih < 0 || ih >= s.h)
                continue;
              for (int64_t q = 0; q < s.ow; ++q) {
                int64_t iw = q * s.sw - s.pl + j * s.dw;
                if (iw >= 0 && iw < s.w)
                  sum += double(plane[ih * s.w + iw]) * grad[r * s.ow + q];
              }
            }
          }
          dw[((oc * cg + ic) * s.kh + i) * s.kw + j] = float(sum);
        }
  }
}
} // namespace

// x, dy, dw, then the conv's shape (CONV_ARGS after its pointers).
ONEFLOW_KERNEL void
oneflow_conv2d_grad_filter_f32(int64_t x, int64_t dy, int64_t dwt, int64_t n,
                               int64_t c, int64_t h, int64_t wd, int64_t o,
                               int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                               int64_t sh, int64_t sw, int64_t pt, int64_t pl,
                               int64_t dh, int64_t dw, int64_t groups) {
  if (!dnnlConv2dGradFilterF32(ptr<float>(x), ptr<float>(dy), ptr<float>(dwt),
                               CONV_SHAPE, ConvPath::Auto))
    conv2dGradFilterDirect(ptr<float>(x), ptr<float>(dy), ptr<float>(dwt),
                           CONV_SHAPE);
}

ONEFLOW_KERNEL void oneflow_conv_transpose2d_f64(CONV_ARGS) {
  convTranspose2d(ptr<double>(x), ptr<double>(w), ptr<double>(bias),
                  ptr<double>(y), CONV_SHAPE);
}
