//===- Reduce.cpp - Reductions over middle dimensions ---------------------===//
//
// x viewed as [outer, middle, inner] reduced over `middle` into y [outer,
// inner]: a mean over an NHWC image's pixels (a global pool of a
// channels-last plan) is such a reduction. The generated loops reduce
// over strided elements one at a time there (a 32x32x32 image: 650 us);
// here each middle row of `inner` contiguous elements is combined into the
// output row as a whole, so the loop vectorizes over the inner elements.
//
//===----------------------------------------------------------------------===//

#include "KernelABI.h"

#include <algorithm>
#include <limits>
#include <omp.h>

using namespace oneflow::kernels;

namespace {

enum class Combine { Sum, Mean, Max };

template <Combine kind>
void reduceMiddle(const float *x, float *y, int64_t outer, int64_t middle,
                  int64_t inner) {
  int threads = int(std::min<int64_t>(omp_get_max_threads(), outer));
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t o = 0; o < outer; ++o) {
    const float *in = x + o * middle * inner;
    float *out = y + o * inner;
    std::fill(out, out + inner,
              kind == Combine::Max ? -std::numeric_limits<float>::infinity()
                                   : 0.f);
    for (int64_t m = 0; m < middle; ++m) {
      const float *row = in + m * inner;
      if constexpr (kind == Combine::Max) {
        // A NaN anywhere is the result; bitwise | keeps both compares in
        // one vector blend.
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i)
          out[i] = ((row[i] > out[i]) | (row[i] != row[i])) ? row[i] : out[i];
      } else {
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i)
          out[i] += row[i];
      }
    }
    if constexpr (kind == Combine::Mean) {
      float scale = 1.f / float(std::max<int64_t>(middle, 1));
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i)
        out[i] *= scale;
    }
  }
}

} // namespace

// x, y, then outer, middle, inner.
ONEFLOW_KERNEL void oneflow_reduce_middle_sum_f32(int64_t x, int64_t y,
                                                  int64_t outer, int64_t middle,
                                                  int64_t inner) {
  reduceMiddle<Combine::Sum>(ptr<const float>(x), ptr<float>(y), outer, middle,
                             inner);
}
ONEFLOW_KERNEL void oneflow_reduce_middle_mean_f32(int64_t x, int64_t y,
                                                   int64_t outer,
                                                   int64_t middle,
                                                   int64_t inner) {
  reduceMiddle<Combine::Mean>(ptr<const float>(x), ptr<float>(y), outer, middle,
                              inner);
}
ONEFLOW_KERNEL void oneflow_reduce_middle_max_f32(int64_t x, int64_t y,
                                                  int64_t outer, int64_t middle,
                                                  int64_t inner) {
  reduceMiddle<Combine::Max>(ptr<const float>(x), ptr<float>(y), outer, middle,
                             inner);
}
