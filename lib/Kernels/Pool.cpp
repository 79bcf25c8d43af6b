//===- Pool.cpp - NCHW max and average pooling ----------------------------===//
//
// 2-D max and average pooling over NCHW planes. Generated loops computed
// each window with a scalar NaN-propagating max (eleven instructions per tap
// on x86, not vectorized over the strided columns); here the common windows
// (3x3 and 2x2, strides 1 and 2) have their shape fixed at compile time, so
// the loop over a row's output columns vectorizes.
//
//===----------------------------------------------------------------------===//

#include "KernelABI.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <omp.h>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace oneflow::kernels;

namespace {

struct PoolShape {
  int64_t n, c, h, w, oh, ow, kh, kw, sh, sw, pt, pl, dh, dw;
};

/// Accumulators of a window. PyTorch's max: a NaN anywhere in the window
/// is the result. The NaN is tracked apart from the max, so both stay
/// branch-free (`v > m || v != v` became branches, which random data
/// mispredicts, and kept GCC from vectorizing).
template <typename T> struct MaxOp {
  struct Acc {
    T max;
    bool nan;
  };
  static T identity() { return -std::numeric_limits<T>::infinity(); }
  static Acc start() { return {identity(), false}; }
  static void add(Acc &acc, T v) {
    acc.max = v > acc.max ? v : acc.max;
    acc.nan |= v != v;
  }
  static T finish(const Acc &acc) {
    return acc.nan ? std::numeric_limits<T>::quiet_NaN() : acc.max;
  }
};
template <typename T> struct SumOp {
  using Acc = T;
  static T identity() { return T(0); }
  static Acc start() { return T(0); }
  static void add(Acc &acc, T v) { acc += v; }
  static T finish(Acc acc) { return acc; }
};

/// The window at output (r, o), taps outside the input skipped; rows then
/// columns, as the interior loop below adds them.
template <typename T, typename Op>
__attribute__((always_inline)) inline T
windowAt(const T *in, const PoolShape &s, int64_t r, int64_t o) {
  typename Op::Acc acc = Op::start();
  for (int64_t i = 0; i < s.kh; ++i) {
    int64_t ih = r * s.sh - s.pt + i * s.dh;
    if (ih < 0 || ih >= s.h)
      continue;
    for (int64_t j = 0; j < s.kw; ++j) {
      int64_t iw = o * s.sw - s.pl + j * s.dw;
      if (iw >= 0 && iw < s.w)
        Op::add(acc, in[ih * s.w + iw]);
    }
  }
  return Op::finish(acc);
}

/// The outputs [lo, hi) along one axis whose whole window lies inside.
std::pair<int64_t, int64_t> interior(int64_t size, int64_t out, int64_t kernel,
                                     int64_t stride, int64_t pad,
                                     int64_t dilation) {
  int64_t lo = (pad + stride - 1) / stride;
  int64_t last = size - 1 - dilation * (kernel - 1) + pad;
  int64_t hi = last < 0 ? 0 : last / stride + 1;
  return {std::min(lo, out), std::max(std::min(hi, out), std::min(lo, out))};
}

/// Outputs per chunk: 64 bytes, a whole number of vectors on every target.
template <typename T> constexpr int kChunk = 64 / sizeof(T);

/// kChunk<T> outputs of a row from `base` (the input at the window's top
/// left of the first output), each window accumulated in a register. The
/// fixed trip counts let GCC vectorize the loop over outputs without a
/// scalar remainder (its scalar selects are branches, which random data
/// mispredicts).
template <int K, int S, typename T, typename Op>
__attribute__((always_inline)) inline void
poolChunk(const T *__restrict base, int64_t w, T *__restrict out) {
  for (int o = 0; o < kChunk<T>; ++o) {
    typename Op::Acc acc = Op::start();
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < K; ++j)
        Op::add(acc, base[i * w + o * S + j]);
    out[o] = Op::finish(acc);
  }
}

/// One plane with a K x K window of stride S (dilation 1) whose windows all
/// lie inside it: outputs in chunks of kChunk<T>; a chunk may read past its
/// row (into the next rows of `in`, whose `readable` elements it never
/// passes) and keeps only the outputs inside.
template <int K, int S, typename T, typename Op>
__attribute__((always_inline)) inline void
interiorPlane(const T *in, T *out, const PoolShape &s, int64_t readable) {
  const int64_t w = s.w;
  for (int64_t r = 0; r < s.oh; ++r) {
    T *row = out + r * s.ow;
    int64_t top = r * S * w;
    int64_t o = 0;
    for (; o < s.ow; o += kChunk<T>) {
      int64_t last = top + (K - 1) * w + (o + kChunk<T> - 1) * S + K - 1;
      if (last >= readable)
        break;
      T chunk[kChunk<T>];
      poolChunk<K, S, T, Op>(in + top + o * S, w, chunk);
      std::copy(chunk, chunk + std::min<int64_t>(kChunk<T>, s.ow - o), row + o);
    }
    // The columns past a chunk that would have read beyond the input.
    for (; o < s.ow; ++o)
      row[o] = windowAt<T, Op>(in, s, r, o);
  }
}

/// One plane with a K x K window of stride S (dilation 1). Where windows
/// reach into the pads (or past the input, in ceil mode), the plane is
/// first copied into one padded with the accumulator's identity, so every
/// output takes the vectorized path (GoogLeNet's 3x3 pools of 4x4 planes
/// with pads of 1 have three outputs in four on the border).
template <int K, int S, typename T, typename Op>
__attribute__((always_inline)) inline void
fixedWindowPlane(const T *in, T *out, const PoolShape &s, int64_t readable) {
  auto [r0, r1] = interior(s.h, s.oh, K, S, s.pt, 1);
  auto [c0, c1] = interior(s.w, s.ow, K, S, s.pl, 1);
  if (r0 == 0 && r1 == s.oh && c0 == 0 && c1 == s.ow && s.pt == 0 && s.pl == 0)
    return interiorPlane<K, S, T, Op>(in, out, s, readable);
  PoolShape padded = s;
  padded.h = (s.oh - 1) * S + K;
  padded.w = (s.ow - 1) * S + K;
  padded.pt = padded.pl = 0;
  // Slack for the last chunk's reads past the last row.
  thread_local std::vector<T> buffer;
  buffer.assign(padded.h * padded.w + kChunk<T> * S + K, Op::identity());
  int64_t rowLo = std::max<int64_t>(0, -s.pt),
          rowHi = std::min(s.h, padded.h - s.pt);
  int64_t colLo = std::max<int64_t>(0, -s.pl),
          colHi = std::min(s.w, padded.w - s.pl);
  for (int64_t ih = rowLo; ih < rowHi; ++ih)
    std::copy(in + ih * s.w + colLo, in + ih * s.w + colHi,
              buffer.data() + (ih + s.pt) * padded.w + colLo + s.pl);
  interiorPlane<K, S, T, Op>(buffer.data(), out, padded, buffer.size());
}

/// One plane of any window.
template <typename T, typename Op>
__attribute__((always_inline)) inline void
poolPlane(const T *in, T *out, const PoolShape &s, int64_t readable) {
  if (s.kh == s.kw && s.sh == s.sw && s.dh == 1 && s.dw == 1) {
    if (s.kh == 3 && s.sh == 2)
      return fixedWindowPlane<3, 2, T, Op>(in, out, s, readable);
    if (s.kh == 3 && s.sh == 1)
      return fixedWindowPlane<3, 1, T, Op>(in, out, s, readable);
    if (s.kh == 2 && s.sh == 2)
      return fixedWindowPlane<2, 2, T, Op>(in, out, s, readable);
  }
  for (int64_t r = 0; r < s.oh; ++r)
    for (int64_t o = 0; o < s.ow; ++o)
      out[r * s.ow + o] = windowAt<T, Op>(in, s, r, o);
}

#define POOL_PLANE(NAME, OP, T)                                                \
  __attribute__((target_clones("avx512f", "avx2", "default"))) void NAME(      \
      const T *in, T *out, const PoolShape &s, int64_t readable) {             \
    poolPlane<T, OP<T>>(in, out, s, readable);                                 \
  }
POOL_PLANE(maxPlaneF32, MaxOp, float)
POOL_PLANE(maxPlaneF64, MaxOp, double)
POOL_PLANE(sumPlaneF32, SumOp, float)
POOL_PLANE(sumPlaneF64, SumOp, double)
#undef POOL_PLANE

void maxPlane(const float *in, float *out, const PoolShape &s,
              int64_t readable) {
  maxPlaneF32(in, out, s, readable);
}
void maxPlane(const double *in, double *out, const PoolShape &s,
              int64_t readable) {
  maxPlaneF64(in, out, s, readable);
}
void sumPlane(const float *in, float *out, const PoolShape &s,
              int64_t readable) {
  sumPlaneF32(in, out, s, readable);
}
void sumPlane(const double *in, double *out, const PoolShape &s,
              int64_t readable) {
  sumPlaneF64(in, out, s, readable);
}

#if defined(__x86_64__)
/// Pooling of f32 planes by rows with AVX-512, for the fixed windows (3x3
/// and 2x2, strides 1 and 2). Each output row first combines its K input
/// rows element by element, 16 columns at a time (masked loads put the
/// identity in the pads and past the row); each output then combines K
/// neighbours of those vectors, for stride 2 picked out with two-source
/// permutes, all in registers. The chunked path above computed every window
/// of a chunk from strided taps, which GCC gathered lane by lane: SqueezeNet's
/// 3x3/2 pool of 14x14 planes ran at about 1.5 G taps a second. Max
/// pooling's NaN is not kept by `vmaxps`, so a plane holding one is
/// recomputed by `maxPlane`.
namespace rowwise {

template <bool Max>
__attribute__((target("avx512f"), always_inline)) inline __m512
combine(__m512 a, __m512 b) {
  // The masked form: GCC 12 warns on the undefined source of _mm512_max_ps.
  return Max ? _mm512_mask_max_ps(a, __mmask16(0xFFFF), a, b)
             : _mm512_add_ps(a, b);
}

/// Lanes N..15 of `lo` followed by lanes 0..N-1 of `hi` (the masked form
/// for the same reason as above).
template <int N>
__attribute__((target("avx512f"), always_inline)) inline __m512
shifted(__m512 lo, __m512 hi) {
  __m512i l = _mm512_castps_si512(lo), h = _mm512_castps_si512(hi);
  return _mm512_castsi512_ps(
      _mm512_mask_alignr_epi32(l, __mmask16(0xFFFF), h, l, N));
}

/// The lanes of the 16 columns from `first` that lie inside [0, w).
inline __mmask16 columnMask(int64_t first, int64_t w) {
  int64_t lo = std::clamp<int64_t>(-first, 0, 16);
  int64_t hi = std::clamp<int64_t>(w - first, 0, 16);
  if (hi <= lo)
    return 0;
  return __mmask16(((1u << hi) - 1) & ~((1u << lo) - 1));
}

/// The planes [begin, end) of `x` into `y`.
template <int K, int S, bool Max>
__attribute__((target("avx512f"))) void planes(const float *x, float *y,
                                               const PoolShape &s,
                                               int64_t begin, int64_t end) {
  const __m512 identity =
      _mm512_set1_ps(Max ? -std::numeric_limits<float>::infinity() : 0.0f);
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12,
                                        10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13,
                                       11, 9, 7, 5, 3, 1);
  // Lane 15 of the third tap (column 32) comes from the next vector.
  const __m512i evenPlus2 = _mm512_set_epi32(0, 30, 28, 26, 24, 22, 20, 18, 16,
                                             14, 12, 10, 8, 6, 4, 2);
  for (int64_t p = begin; p < end; ++p) {
    const float *in = x + p * s.h * s.w;
    float *out = y + p * s.oh * s.ow;
    __mmask16 nan = 0;
    for (int64_t r = 0; r < s.oh; ++r) {
      // The window's input rows inside the plane.
      int64_t top = r * S - s.pt;
      int64_t i0 = std::max<int64_t>(0, -top);
      int64_t i1 = std::min<int64_t>(K, s.h - top);
      // The K rows combined over the 16 columns from 16 * j - pl.
      auto columns = [&](int64_t j) __attribute__((target("avx512f"))) {
        int64_t first = 16 * j - s.pl;
        __mmask16 mask = columnMask(first, s.w);
        __m512 v = identity;
        if (!mask)
          return v;
        for (int64_t i = i0; i < i1; ++i) {
          __m512 a = _mm512_mask_loadu_ps(identity, mask,
                                          in + (top + i) * s.w + first);
          if (Max)
            nan |= _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
          v = combine<Max>(v, a);
        }
        return v;
      };
      float *o = out + r * s.ow;
      __m512 next = columns(0);
      for (int64_t c = 0; c < s.ow; c += 16) {
        __m512 v;
        if (S == 1) {
          __m512 lo = next;
          next = columns(c / 16 + 1);
          v = combine<Max>(lo, shifted<1>(lo, next));
          if (K == 3)
            v = combine<Max>(v, shifted<2>(lo, next));
        } else {
          __m512 lo = next, hi = columns(c / 8 + 1);
          next = columns(c / 8 + 2);
          v = combine<Max>(_mm512_permutex2var_ps(lo, even, hi),
                           _mm512_permutex2var_ps(lo, odd, hi));
          if (K == 3)
            v = combine<Max>(v, _mm512_mask_permutexvar_ps(
                                    _mm512_permutex2var_ps(lo, evenPlus2, hi),
                                    __mmask16(0x8000), _mm512_setzero_si512(),
                                    next));
        }
        _mm512_mask_storeu_ps(o + c, columnMask(c, s.ow), v);
      }
    }
    if (Max && nan)
      maxPlane(in, out, s, (s.n * s.c - p) * s.h * s.w);
  }
}

/// The window (K, S) of `s` when the row path handles it, else (0, 0).
std::pair<int, int> window(const PoolShape &s) {
  static const bool enabled = [] {
    const char *value = std::getenv("ONEFLOW_POOL_ROWS");
    return hasAvx512() &&
           !(value && std::strcmp(value, "0") == 0);
  }();
  if (!enabled || s.kh != s.kw || s.sh != s.sw || s.dh != 1 || s.dw != 1 ||
      s.pt >= s.kh || s.pl >= s.kw)
    return {0, 0};
  if ((s.kh == 3 && (s.sh == 1 || s.sh == 2)) || (s.kh == 2 && s.sh == 2))
    return {int(s.kh), int(s.sh)};
  return {0, 0};
}

/// Pools every plane by rows over OpenMP threads, each a contiguous range.
template <bool Max>
void pool(const float *x, float *y, const PoolShape &s,
          std::pair<int, int> kernel) {
  // Not a structured binding: clang's OpenMP cannot capture one.
  int k = kernel.first, stride = kernel.second;
  int64_t count = s.n * s.c;
  int threads = std::min<int64_t>(omp_get_max_threads(), count);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int64_t t = omp_get_thread_num(), team = omp_get_num_threads();
    int64_t begin = count * t / team, end = count * (t + 1) / team;
    if (k == 3 && stride == 2)
      planes<3, 2, Max>(x, y, s, begin, end);
    else if (k == 3)
      planes<3, 1, Max>(x, y, s, begin, end);
    else
      planes<2, 2, Max>(x, y, s, begin, end);
  }
}

} // namespace rowwise
#endif

/// Runs `plane(p)` for every (image, channel) plane over OpenMP threads.
template <typename Fn> void forEachPlane(const PoolShape &s, Fn plane) {
  int64_t planes = s.n * s.c;
  int threads = std::min<int64_t>(omp_get_max_threads(), planes);
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t p = 0; p < planes; ++p)
    plane(p);
}

template <typename T> void maxPool(const T *x, T *y, const PoolShape &s) {
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>) {
    std::pair<int, int> kernel = rowwise::window(s);
    if (kernel.first)
      return rowwise::pool<true>(x, y, s, kernel);
  }
#endif
  forEachPlane(s, [&](int64_t p) {
    maxPlane(x + p * s.h * s.w, y + p * s.oh * s.ow, s,
             (s.n * s.c - p) * s.h * s.w);
  });
}

/// How many taps of output position `o` along one axis count towards the
/// average: those inside the input, or inside the padded input with
/// `includePad` (never those past the padding, as in ceil mode).
int64_t tapsCounted(int64_t o, int64_t stride, int64_t kernel, int64_t padLo,
                    int64_t padHi, int64_t size, bool includePad) {
  int64_t start = o * stride - padLo;
  int64_t lo = includePad ? -padLo : 0, hi = includePad ? size + padHi : size;
  return std::min(start + kernel, hi) - std::max(start, lo);
}

template <typename T>
void avgPool(const T *x, T *y, const PoolShape &s, int64_t pb, int64_t pr,
             bool includePad) {
  // The divisor of (r, c) is rows(r) * cols(c).
  std::unique_ptr<T[]> colScale(new T[s.ow]);
  for (int64_t c = 0; c < s.ow; ++c)
    colScale[c] = tapsCounted(c, s.sw, s.kw, s.pl, pr, s.w, includePad);
  bool summed = false;
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>) {
    std::pair<int, int> kernel = rowwise::window(s);
    if (kernel.first) {
      rowwise::pool<false>(x, y, s, kernel);
      summed = true;
    }
  }
#endif
  forEachPlane(s, [&](int64_t p) {
    T *out = y + p * s.oh * s.ow;
    if (!summed)
      sumPlane(x + p * s.h * s.w, out, s, (s.n * s.c - p) * s.h * s.w);
    for (int64_t r = 0; r < s.oh; ++r) {
      T rows = tapsCounted(r, s.sh, s.kh, s.pt, pb, s.h, includePad);
      for (int64_t c = 0; c < s.ow; ++c)
        out[r * s.ow + c] /= std::max<T>(rows * colScale[c], T(1));
    }
  });
}

/// The first (row-major) maximum of the window at output (r, o) among its
/// taps inside the input, as an index into the plane, or -1 when it has
/// none; a NaN that comes first keeps the window (`v > best` is false).
/// The taps are compared with selects, not branches: random data made the
/// branches mispredict on every other tap.
template <typename T>
__attribute__((always_inline)) inline int64_t
argmaxAt(const T *in, const PoolShape &s, int64_t r, int64_t o) {
  int64_t i0 = 0, i1 = s.kh, j0 = 0, j1 = s.kw;
  // The taps inside the input: rows [i0, i1), columns [j0, j1).
  auto clip = [](int64_t start, int64_t step, int64_t size, int64_t &lo,
                 int64_t &hi) {
    while (lo < hi && start + lo * step < 0)
      ++lo;
    while (hi > lo && start + (hi - 1) * step >= size)
      --hi;
  };
  int64_t top = r * s.sh - s.pt, left = o * s.sw - s.pl;
  clip(top, s.dh, s.h, i0, i1);
  clip(left, s.dw, s.w, j0, j1);
  if (i0 == i1 || j0 == j1)
    return -1;
  int64_t winner = (top + i0 * s.dh) * s.w + left + j0 * s.dw;
  T best = in[winner];
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = i == i0 ? j0 + 1 : j0; j < j1; ++j) {
      int64_t at = (top + i * s.dh) * s.w + left + j * s.dw;
      T v = in[at];
      bool take = v > best;
      best = take ? v : best;
      winner = take ? at : winner;
    }
  return winner;
}

/// The gradient of max pooling: each window's dy goes to its argmaxAt. The
/// generated loops found each input's windows and recomputed their argmax
/// (4.3 ms for ResNet-18's stem pool at batch 8 and 64x64); here each
/// window is visited once.
template <typename T>
void maxPoolGrad(const T *x, const T *dy, T *dx, const PoolShape &s) {
  forEachPlane(s, [&](int64_t p) {
    const T *in = x + p * s.h * s.w;
    const T *g = dy + p * s.oh * s.ow;
    T *out = dx + p * s.h * s.w;
    std::fill(out, out + s.h * s.w, T(0));
    for (int64_t r = 0; r < s.oh; ++r)
      for (int64_t o = 0; o < s.ow; ++o) {
        int64_t winner = argmaxAt(in, s, r, o);
        if (winner >= 0)
          out[winner] += g[r * s.ow + o];
      }
  });
}

/// Max (`Max`) or average pooling of NHWC x into NHWC y: each output pixel
/// combines its window's taps as whole runs of c channels, contiguous, so
/// the loops vectorize over channels with no reordering. Rows of output
/// pixels are shared out over OpenMP threads. NaNs propagate as in maxPlane.
template <bool Max>
void poolChannelsLast(const float *x, float *y, const PoolShape &s, int64_t pb,
                      int64_t pr, bool includePad) {
  int64_t rows = s.n * s.oh, c = s.c;
  int threads = int(std::min<int64_t>(omp_get_max_threads(), rows));
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t item = 0; item < rows; ++item) {
    int64_t b = item / s.oh, r = item % s.oh;
    const float *image = x + b * s.h * s.w * c;
    for (int64_t o = 0; o < s.ow; ++o) {
      float *out = y + (item * s.ow + o) * c;
      std::fill(out, out + c,
                Max ? -std::numeric_limits<float>::infinity() : 0.f);
      for (int64_t i = 0; i < s.kh; ++i) {
        int64_t ih = r * s.sh - s.pt + i * s.dh;
        if (ih < 0 || ih >= s.h)
          continue;
        for (int64_t j = 0; j < s.kw; ++j) {
          int64_t iw = o * s.sw - s.pl + j * s.dw;
          if (iw < 0 || iw >= s.w)
            continue;
          const float *in = image + (ih * s.w + iw) * c;
          if constexpr (Max) {
            // Bitwise |: both compares vectorize into one blend.
#pragma omp simd
            for (int64_t ch = 0; ch < c; ++ch)
              out[ch] =
                  ((in[ch] > out[ch]) | (in[ch] != in[ch])) ? in[ch] : out[ch];
          } else {
#pragma omp simd
            for (int64_t ch = 0; ch < c; ++ch)
              out[ch] += in[ch];
          }
        }
      }
      if constexpr (!Max) {
        float taps =
            float(tapsCounted(r, s.sh, s.kh, s.pt, pb, s.h, includePad) *
                  tapsCounted(o, s.sw, s.kw, s.pl, pr, s.w, includePad));
        float scale = 1.f / std::max(taps, 1.f);
#pragma omp simd
        for (int64_t ch = 0; ch < c; ++ch)
          out[ch] *= scale;
      }
    }
  }
}

} // namespace

// x, y, then n, c, h, w, oh, ow, kh, kw, sh, sw, pad top, left, bottom,
// right, and dilations (max) or count_include_pad (average).
#define DEFINE_POOLS(SUFFIX, T)                                                \
  ONEFLOW_KERNEL void oneflow_max_pool2d_##SUFFIX(                             \
      int64_t x, int64_t y, int64_t n, int64_t c, int64_t h, int64_t w,        \
      int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,  \
      int64_t pt, int64_t pl, int64_t pb, int64_t pr, int64_t dh,              \
      int64_t dw) {                                                            \
    (void)pb, (void)pr;                                                        \
    maxPool(ptr<const T>(x), ptr<T>(y),                                        \
            {n, c, h, w, oh, ow, kh, kw, sh, sw, pt, pl, dh, dw});             \
  }                                                                            \
  ONEFLOW_KERNEL void oneflow_avg_pool2d_##SUFFIX(                             \
      int64_t x, int64_t y, int64_t n, int64_t c, int64_t h, int64_t w,        \
      int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,  \
      int64_t pt, int64_t pl, int64_t pb, int64_t pr,                          \
      int64_t countIncludePad) {                                               \
    avgPool(ptr<const T>(x), ptr<T>(y),                                        \
            {n, c, h, w, oh, ow, kh, kw, sh, sw, pt, pl, 1, 1}, pb, pr,        \
            countIncludePad != 0);                                             \
  }

// x, dy, dx, then n, c, h, w, oh, ow, kh, kw, sh, sw, pad top, left,
// bottom, right, dilations.
#define DEFINE_POOL_GRADS(SUFFIX, T)                                           \
  ONEFLOW_KERNEL void oneflow_max_pool2d_grad_##SUFFIX(                        \
      int64_t x, int64_t dy, int64_t dx, int64_t n, int64_t c, int64_t h,      \
      int64_t w, int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh,   \
      int64_t sw, int64_t pt, int64_t pl, int64_t pb, int64_t pr, int64_t dh,  \
      int64_t dw) {                                                            \
    (void)pb, (void)pr;                                                        \
    maxPoolGrad(ptr<const T>(x), ptr<const T>(dy), ptr<T>(dx),                 \
                {n, c, h, w, oh, ow, kh, kw, sh, sw, pt, pl, dh, dw});         \
  }

DEFINE_POOL_GRADS(f32, float)
DEFINE_POOL_GRADS(f64, double)

DEFINE_POOLS(f32, float)
DEFINE_POOLS(f64, double)

// The same with x and y NHWC (the compiler's `channels_last`); the scalars
// still name the dimensions as NCHW.
ONEFLOW_KERNEL void oneflow_max_pool2d_nhwc_f32(
    int64_t x, int64_t y, int64_t n, int64_t c, int64_t h, int64_t w,
    int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
    int64_t pt, int64_t pl, int64_t pb, int64_t pr, int64_t dh, int64_t dw) {
  poolChannelsLast<true>(ptr<const float>(x), ptr<float>(y),
                         {n, c, h, w, oh, ow, kh, kw, sh, sw, pt, pl, dh, dw},
                         pb, pr, false);
}
ONEFLOW_KERNEL void oneflow_avg_pool2d_nhwc_f32(
    int64_t x, int64_t y, int64_t n, int64_t c, int64_t h, int64_t w,
    int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
    int64_t pt, int64_t pl, int64_t pb, int64_t pr, int64_t countIncludePad) {
  poolChannelsLast<false>(ptr<const float>(x), ptr<float>(y),
                          {n, c, h, w, oh, ow, kh, kw, sh, sw, pt, pl, 1, 1},
                          pb, pr, countIncludePad != 0);
}
