//===- Scan.cpp - Running sums and top-k along an axis --------------------===//
//
// Both work on a tensor viewed as [outer, n, inner] around the axis.
//
//===----------------------------------------------------------------------===//

#include "KernelABI.h"

#include <algorithm>
#include <numeric>
#include <vector>

using namespace oneflow::kernels;

namespace {

template <typename T>
void cumsum(const T *x, T *y, int64_t outer, int64_t n, int64_t inner,
            bool exclusive, bool reverse) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      T sum = T(0);
      for (int64_t s = 0; s < n; ++s) {
        int64_t j = reverse ? n - 1 - s : s;
        int64_t at = (o * n + j) * inner + i;
        if (exclusive) {
          y[at] = sum;
          sum += x[at];
        } else {
          sum += x[at];
          y[at] = sum;
        }
      }
    }
}

/// The k largest (or smallest) along the axis; ties keep the lower index
/// first, as ONNX and PyTorch do.
template <typename T>
void topk(const T *x, T *values, int64_t *indices, int64_t outer, int64_t n,
          int64_t inner, int64_t k, bool smallest, bool sorted) {
  std::vector<int64_t> order(n);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return x[(o * n + j) * inner + i]; };
      std::iota(order.begin(), order.end(), 0);
      auto before = [&](int64_t a, int64_t b) {
        if (at(a) != at(b))
          return smallest ? at(a) < at(b) : at(a) > at(b);
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      if (!sorted)
        std::sort(order.begin(), order.begin() + k);
      for (int64_t r = 0; r < k; ++r) {
        values[(o * k + r) * inner + i] = at(order[r]);
        indices[(o * k + r) * inner + i] = order[r];
      }
    }
}

} // namespace

#define DEFINE_SCANS(SUFFIX, T)                                                \
  ONEFLOW_KERNEL void oneflow_cumsum_##SUFFIX(int64_t x, int64_t y,            \
                                              int64_t outer, int64_t n,        \
                                              int64_t inner,                   \
                                              int64_t exclusive,               \
                                              int64_t reverse) {               \
    cumsum(ptr<T>(x), ptr<T>(y), outer, n, inner, exclusive, reverse);         \
  }                                                                            \
  ONEFLOW_KERNEL void oneflow_topk_##SUFFIX(                                   \
      int64_t x, int64_t values, int64_t indices, int64_t outer, int64_t n,    \
      int64_t inner, int64_t k, int64_t smallest, int64_t sorted) {            \
    topk(ptr<T>(x), ptr<T>(values), ptr<int64_t>(indices), outer, n, inner,    \
         k, smallest, sorted);                                                 \
  }

DEFINE_SCANS(f32, float)
DEFINE_SCANS(f64, double)
DEFINE_SCANS(i32, int32_t)
DEFINE_SCANS(i64, int64_t)
