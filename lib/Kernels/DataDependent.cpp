//===- DataDependent.cpp - Kernels whose output length is data ------------===//
//
// Plans have static shapes: these kernels write into a result sized for the
// most they can produce and say how much of it is valid in an int64 count.
// The rest is zero-filled, so that ops reading the padding (a Gather by
// selected indices) stay in bounds.
//
//===----------------------------------------------------------------------===//

#include "KernelABI.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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
