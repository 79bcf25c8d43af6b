//===- DataDependent.cpp - Kernels whose output length is data ------------===//
//
// NonMaxSuppression, Unique, NonZero. Plans have static shapes: these kernels
// write into results sized for the most they can produce and say how much
// of them is valid in an int64 count.
// The rest is zero-filled, so that ops reading the padding (a Gather by
// selected indices) stay in bounds.
//
//===----------------------------------------------------------------------===//

#include "KernelABI.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace oneflow::kernels;

namespace {

struct Box {
  float yMin, xMin, yMax, xMax;
};

/// Corners `[y1, x1, y2, x2]` in either order, or `[x_center, y_center,
/// width, height]`.
Box boxAt(const float *b, bool centerPointBox) {
  if (centerPointBox) {
    float halfW = b[2] / 2, halfH = b[3] / 2;
    return {b[1] - halfH, b[0] - halfW, b[1] + halfH, b[0] + halfW};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]),
          std::max(b[1], b[3])};
}

/// Whether `a` and `b` overlap by more than `threshold` (intersection over
/// union); empty boxes overlap nothing, as in ONNX Runtime.
bool overlaps(const Box &a, const Box &b, float threshold) {
  float yMin = std::max(a.yMin, b.yMin), xMin = std::max(a.xMin, b.xMin);
  float yMax = std::min(a.yMax, b.yMax), xMax = std::min(a.xMax, b.xMax);
  if (xMax <= xMin || yMax <= yMin)
    return false;
  float intersection = (yMax - yMin) * (xMax - xMin);
  float areaA = (a.yMax - a.yMin) * (a.xMax - a.xMin);
  float areaB = (b.yMax - b.yMin) * (b.xMax - b.xMin);
  float unionArea = areaA + areaB - intersection;
  if (areaA <= 0 || areaB <= 0 || unionArea <= 0)
    return false;
  return intersection / unionArea > threshold;
}

void nonMaxSuppression(const float *boxes, const float *scores,
                       const int64_t *maxOutput, const float *iouThreshold,
                       const float *scoreThreshold, int64_t *selected,
                       int64_t *numSelected, int64_t batches, int64_t classes,
                       int64_t n, int64_t rowsPerClass, bool centerPointBox) {
  // The compile-time bound (a constant max_output_boxes_per_class) holds.
  int64_t limit =
      std::clamp<int64_t>(maxOutput ? *maxOutput : 0, 0, rowsPerClass);
  float iou = iouThreshold ? *iouThreshold : 0.0f;
  std::vector<int64_t> order;
  std::vector<Box> kept;
  int64_t rows = 0;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const float *s = scores + (b * classes + c) * n;
      order.clear();
      for (int64_t i = 0; i < n; ++i)
        if (!std::isnan(s[i]) && (!scoreThreshold || s[i] > *scoreThreshold))
          order.push_back(i);
      // Falling score; ties keep the lower index first.
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return s[x] > s[y]; });
      kept.clear();
      for (int64_t i : order) {
        if ((int64_t)kept.size() >= limit)
          break;
        Box box = boxAt(boxes + (b * n + i) * 4, centerPointBox);
        if (std::any_of(kept.begin(), kept.end(), [&](const Box &other) {
              return overlaps(box, other, iou);
            }))
          continue;
        kept.push_back(box);
        int64_t *row = selected + 3 * rows++;
        row[0] = b, row[1] = c, row[2] = i;
      }
    }
  int64_t capacity = batches * classes * rowsPerClass;
  std::memset(selected + 3 * rows, 0, sizeof(int64_t) * 3 * (capacity - rows));
  *numSelected = rows;
}

/// Orders values with NaNs last and equal to each other (numpy's unique
/// merges NaNs).
template <typename T> int compareValues(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    bool aNan = std::isnan(a), bNan = std::isnan(b);
    if (aNan || bNan)
      return aNan == bNan ? 0 : (aNan ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

/// The distinct entries of x viewed as [outer, n, inner]: the n slices
/// x[:, j, :], compared element by element in row-major order.
template <typename T>
void unique(const T *x, T *y, int64_t *indices, int64_t *inverse,
            int64_t *counts, int64_t *numUnique, int64_t outer, int64_t n,
            int64_t inner, bool sorted) {
  auto compareSlices = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        if (int c = compareValues(x[(o * n + a) * inner + i],
                                  x[(o * n + b) * inner + i]))
          return c;
    return 0;
  };
  std::vector<int64_t> order(n);
  for (int64_t j = 0; j < n; ++j)
    order[j] = j;
  // Stable: the first of equal slices is its first occurrence.
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return compareSlices(a, b) < 0;
  });
  // Groups of equal slices, in sorted order: first occurrence and size.
  std::vector<int64_t> first, size, groupOf(n);
  for (int64_t r = 0; r < n; ++r) {
    if (r == 0 || compareSlices(order[r - 1], order[r]) != 0) {
      first.push_back(order[r]);
      size.push_back(0);
    }
    ++size.back();
    groupOf[order[r]] = first.size() - 1;
  }
  int64_t k = first.size();
  // Unsorted: the groups in order of first occurrence.
  std::vector<int64_t> place(k);
  for (int64_t g = 0; g < k; ++g)
    place[g] = g;
  if (!sorted)
    std::sort(place.begin(), place.end(),
              [&](int64_t a, int64_t b) { return first[a] < first[b]; });
  std::vector<int64_t> rankOf(k);
  for (int64_t r = 0; r < k; ++r)
    rankOf[place[r]] = r;
  std::memset(y, 0, sizeof(T) * outer * n * inner);
  std::memset(indices, 0, sizeof(int64_t) * n);
  std::memset(counts, 0, sizeof(int64_t) * n);
  for (int64_t r = 0; r < k; ++r) {
    int64_t g = place[r];
    indices[r] = first[g];
    counts[r] = size[g];
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y + (o * n + r) * inner, x + (o * n + first[g]) * inner,
                  sizeof(T) * inner);
  }
  for (int64_t j = 0; j < n; ++j)
    inverse[j] = rankOf[groupOf[j]];
  *numUnique = k;
}

} // namespace

ONEFLOW_KERNEL void oneflow_non_max_suppression_f32(
    int64_t boxes, int64_t scores, int64_t maxOutput, int64_t iouThreshold,
    int64_t scoreThreshold, int64_t selected, int64_t numSelected,
    int64_t batches, int64_t classes, int64_t n, int64_t rowsPerClass,
    int64_t centerPointBox) {
  nonMaxSuppression(ptr<float>(boxes), ptr<float>(scores),
                    ptr<int64_t>(maxOutput), ptr<float>(iouThreshold),
                    ptr<float>(scoreThreshold), ptr<int64_t>(selected),
                    ptr<int64_t>(numSelected), batches, classes, n,
                    rowsPerClass, centerPointBox != 0);
}

#define DEFINE_UNIQUE(SUFFIX, T)                                               \
  ONEFLOW_KERNEL void oneflow_unique_##SUFFIX(                                 \
      int64_t x, int64_t y, int64_t indices, int64_t inverse, int64_t counts,  \
      int64_t numUnique, int64_t outer, int64_t n, int64_t inner,              \
      int64_t sorted) {                                                        \
    unique(ptr<T>(x), ptr<T>(y), ptr<int64_t>(indices), ptr<int64_t>(inverse), \
           ptr<int64_t>(counts), ptr<int64_t>(numUnique), outer, n, inner,     \
           sorted != 0);                                                       \
  }

DEFINE_UNIQUE(f32, float)
DEFINE_UNIQUE(f64, double)
DEFINE_UNIQUE(i32, int32_t)
DEFINE_UNIQUE(i64, int64_t)

ONEFLOW_KERNEL void oneflow_non_zero_f64(int64_t x, int64_t y, int64_t count,
                                         int64_t rank, int64_t d0, int64_t d1,
                                         int64_t d2, int64_t d3, int64_t d4,
                                         int64_t d5, int64_t d6, int64_t d7) {
  const int64_t dims[] = {d0, d1, d2, d3, d4, d5, d6, d7};
  int64_t elements = 1;
  for (int64_t d = 0; d < rank; ++d)
    elements *= dims[d];
  const double *in = ptr<double>(x);
  int64_t *out = ptr<int64_t>(y);
  std::memset(out, 0, sizeof(int64_t) * rank * elements);
  int64_t found = 0;
  for (int64_t e = 0; e < elements; ++e) {
    if (in[e] == 0)
      continue;
    // Row-major coordinates, last dimension fastest.
    for (int64_t d = rank - 1, rest = e; d >= 0; --d) {
      out[d * elements + found] = rest % dims[d];
      rest /= dims[d];
    }
    ++found;
  }
  *ptr<int64_t>(count) = found;
}
