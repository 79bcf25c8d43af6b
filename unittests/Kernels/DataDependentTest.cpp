//===- DataDependentTest.cpp - NonMaxSuppression's and Unique's kernels ---===//
//
// NonMaxSuppression: ONNX's own example, center-point boxes against their
// corners, and on random boxes the properties that define greedy NMS, checked
// with an IoU computed here: picks in falling score order, no two picks
// overlapping above the threshold, every box left out either overlapping an
// earlier pick or past the limit, and zeros after the valid rows. Unique:
// against a quadratic search for each slice's first equal one, sorted and not,
// with and without an axis.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

extern "C" {
void oneflow_non_max_suppression_f32(int64_t boxes, int64_t scores,
                                     int64_t maxOutput, int64_t iouThreshold,
                                     int64_t scoreThreshold, int64_t selected,
                                     int64_t numSelected, int64_t batches,
                                     int64_t classes, int64_t n,
                                     int64_t rowsPerClass,
                                     int64_t centerPointBox);
void oneflow_unique_f32(int64_t x, int64_t y, int64_t indices, int64_t inverse,
                        int64_t counts, int64_t numUnique, int64_t outer,
                        int64_t n, int64_t inner, int64_t sorted);
void oneflow_non_zero_f64(int64_t x, int64_t y, int64_t count, int64_t rank,
                          int64_t d0, int64_t d1, int64_t d2, int64_t d3,
                          int64_t d4, int64_t d5, int64_t d6, int64_t d7);
}

namespace {

int64_t address(const void *p) { return reinterpret_cast<intptr_t>(p); }

struct Result {
  std::vector<int64_t> rows;
  int64_t count = -1;
};

Result run(const std::vector<float> &boxes, const std::vector<float> &scores,
           int64_t maxOutput, float iou, const float *scoreThreshold,
           int64_t batches, int64_t classes, int64_t n, int64_t rowsPerClass,
           bool center = false) {
  Result result;
  result.rows.assign(3 * batches * classes * rowsPerClass, -7);
  oneflow_non_max_suppression_f32(
      address(boxes.data()), address(scores.data()), address(&maxOutput),
      address(&iou), scoreThreshold ? address(scoreThreshold) : 0,
      address(result.rows.data()), address(&result.count), batches, classes, n,
      rowsPerClass, center);
  return result;
}

TEST(NonMaxSuppression, OnnxExample) {
  std::vector<float> boxes = {0, 0,  1, 1,  0, 0.1,  1, 1.1,  0, -0.1, 1, 0.9,
                              0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100,  1, 101};
  std::vector<float> scores = {0.9, 0.75, 0.6, 0.95, 0.5, 0.3};
  float zero = 0, high = 0.4;
  Result r = run(boxes, scores, 3, 0.5, &zero, 1, 1, 6, 6);
  EXPECT_EQ(r.count, 3);
  std::vector<int64_t> expected = {0, 0, 3, 0, 0, 0, 0, 0, 5};
  expected.resize(18, 0);
  EXPECT_EQ(r.rows, expected);
  // A score threshold drops box 5; no threshold keeps it.
  r = run(boxes, scores, 3, 0.5, &high, 1, 1, 6, 6);
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(run(boxes, scores, 3, 0.5, nullptr, 1, 1, 6, 6).count, 3);
  // The limit, and no box at all for a limit of 0 or below.
  EXPECT_EQ(run(boxes, scores, 2, 0.5, &zero, 1, 1, 6, 6).count, 2);
  EXPECT_EQ(run(boxes, scores, 0, 0.5, &zero, 1, 1, 6, 6).count, 0);
  EXPECT_EQ(run(boxes, scores, -1, 0.5, &zero, 1, 1, 6, 6).count, 0);
  // A run-time limit above the compile-time bound stops at the bound.
  EXPECT_EQ(run(boxes, scores, 5, 0.5, &zero, 1, 1, 6, 2).count, 2);
}

/// Corners [y1, x1, y2, x2] (any order) as ymin, xmin, ymax, xmax.
std::vector<float> normalized(const float *b) {
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]),
          std::max(b[1], b[3])};
}

double iouOf(const float *a, const float *b) {
  std::vector<float> p = normalized(a), q = normalized(b);
  double h = std::min(p[2], q[2]) - std::max(p[0], q[0]);
  double w = std::min(p[3], q[3]) - std::max(p[1], q[1]);
  if (h <= 0 || w <= 0)
    return 0;
  double areaP = double(p[2] - p[0]) * (p[3] - p[1]);
  double areaQ = double(q[2] - q[0]) * (q[3] - q[1]);
  return h * w / (areaP + areaQ - h * w);
}

TEST(NonMaxSuppression, GreedyProperties) {
  const int64_t batches = 2, classes = 3, n = 40, limit = 12;
  const float iou = 0.3f, threshold = 0.2f;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(0, 1);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> boxes(batches * n * 4), scores(batches * classes * n);
    for (int64_t i = 0; i < batches * n; ++i) {
      float y = unit(rng) * 10, x = unit(rng) * 10;
      float h = 0.5f + unit(rng) * 3, w = 0.5f + unit(rng) * 3;
      bool flip = unit(rng) < 0.3f;
      float *b = &boxes[i * 4];
      b[0] = flip ? y + h : y, b[1] = x, b[2] = flip ? y : y + h, b[3] = x + w;
    }
    for (float &s : scores)
      s = std::round(unit(rng) * 20) / 20; // ties on purpose
    Result r =
        run(boxes, scores, limit, iou, &threshold, batches, classes, n, limit);
    ASSERT_GE(r.count, 0);
    ASSERT_LE(r.count, batches * classes * limit);
    for (size_t i = 3 * r.count; i < r.rows.size(); ++i)
      ASSERT_EQ(r.rows[i], 0) << "padding row entry " << i;
    int64_t row = 0;
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t c = 0; c < classes; ++c) {
        const float *s = &scores[(b * classes + c) * n];
        std::vector<int64_t> picks;
        while (row < r.count && r.rows[3 * row] == b &&
               r.rows[3 * row + 1] == c)
          picks.push_back(r.rows[3 * row++ + 2]);
        ASSERT_LE((int64_t)picks.size(), limit);
        auto box = [&](int64_t i) { return &boxes[(b * n + i) * 4]; };
        for (size_t k = 0; k < picks.size(); ++k) {
          ASSERT_GT(s[picks[k]], threshold);
          if (k > 0) {
            // Falling score, ties by index.
            ASSERT_TRUE(
                s[picks[k - 1]] > s[picks[k]] ||
                (s[picks[k - 1]] == s[picks[k]] && picks[k - 1] < picks[k]));
          }
          for (size_t j = 0; j < k; ++j)
            ASSERT_LE(iouOf(box(picks[j]), box(picks[k])), iou + 1e-6);
        }
        // A box left out that ranks before the last pick overlaps a pick
        // ranking before it; with room left, so does every box left out.
        auto ranksBefore = [&](int64_t i, int64_t j) {
          return s[i] > s[j] || (s[i] == s[j] && i < j);
        };
        for (int64_t i = 0; i < n; ++i) {
          if (!(s[i] > threshold) ||
              std::find(picks.begin(), picks.end(), i) != picks.end())
            continue;
          if ((int64_t)picks.size() == limit && ranksBefore(picks.back(), i))
            continue;
          bool suppressed = false;
          for (int64_t p : picks)
            suppressed |=
                ranksBefore(p, i) && iouOf(box(p), box(i)) > iou - 1e-6;
          ASSERT_TRUE(suppressed) << "box " << i << " of batch " << b
                                  << " class " << c << " was left out";
        }
      }
    ASSERT_EQ(row, r.count) << "rows out of batch and class order";
  }
}

TEST(NonMaxSuppression, CenterPointBoxesMatchTheirCorners) {
  const int64_t n = 30;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> unit(0, 1);
  std::vector<float> centers(n * 4), corners(n * 4), scores(n);
  for (int64_t i = 0; i < n; ++i) {
    // Powers of two keep the half sizes exact.
    float xc = std::round(unit(rng) * 16) / 2,
          yc = std::round(unit(rng) * 16) / 2;
    float w = 1 + std::round(unit(rng) * 4), h = 1 + std::round(unit(rng) * 4);
    float *c = &centers[i * 4], *k = &corners[i * 4];
    c[0] = xc, c[1] = yc, c[2] = w, c[3] = h;
    k[0] = yc - h / 2, k[1] = xc - w / 2, k[2] = yc + h / 2, k[3] = xc + w / 2;
    scores[i] = unit(rng);
  }
  Result a = run(centers, scores, n, 0.25, nullptr, 1, 1, n, n, true);
  Result b = run(corners, scores, n, 0.25, nullptr, 1, 1, n, n, false);
  EXPECT_GT(a.count, 1);
  EXPECT_LT(a.count, n);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.rows, b.rows);
}

struct UniqueShape {
  int64_t outer, n, inner;
};

class UniqueTest : public ::testing::TestWithParam<UniqueShape> {};

TEST_P(UniqueTest, MatchesQuadraticSearch) {
  auto [outer, n, inner] = GetParam();
  std::mt19937 rng(7);
  // Few values, so that slices repeat; a NaN equals other NaNs.
  std::uniform_int_distribution<int> pick(0, 2);
  std::vector<float> x(outer * n * inner);
  for (float &v : x)
    v = pick(rng) == 2 && inner == 1 && outer == 1 ? NAN : float(pick(rng));
  auto at = [&](int64_t o, int64_t j, int64_t i) {
    return x[(o * n + j) * inner + i];
  };
  auto same = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        float p = at(o, a, i), q = at(o, b, i);
        if (!(p == q || (std::isnan(p) && std::isnan(q))))
          return false;
      }
    return true;
  };
  // First occurrences in order, each one's count and every slice's group.
  std::vector<int64_t> firsts, groupOf(n);
  for (int64_t j = 0; j < n; ++j) {
    int64_t g = 0;
    while (g < (int64_t)firsts.size() && !same(firsts[g], j))
      ++g;
    if (g == (int64_t)firsts.size())
      firsts.push_back(j);
    groupOf[j] = g;
  }
  int64_t k = firsts.size();
  for (bool sorted : {false, true}) {
    std::vector<float> y(x.size(), -1);
    std::vector<int64_t> indices(n, -1), inverse(n, -1), counts(n, -1);
    int64_t count = -1;
    oneflow_unique_f32(address(x.data()), address(y.data()),
                       address(indices.data()), address(inverse.data()),
                       address(counts.data()), address(&count), outer, n, inner,
                       sorted);
    ASSERT_EQ(count, k);
    std::vector<int64_t> order(firsts);
    if (sorted) {
      // Lexicographic, NaN last.
      auto less = [&](int64_t a, int64_t b) {
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            float p = at(o, a, i), q = at(o, b, i);
            if (std::isnan(p) || std::isnan(q)) {
              if (std::isnan(p) != std::isnan(q))
                return std::isnan(q);
              continue;
            }
            if (p != q)
              return p < q;
          }
        return false;
      };
      std::sort(order.begin(), order.end(), less);
    }
    for (int64_t r = 0; r < k; ++r) {
      EXPECT_EQ(indices[r], order[r]);
      int64_t g = groupOf[order[r]];
      EXPECT_EQ(counts[r], std::count(groupOf.begin(), groupOf.end(), g));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          float got = y[(o * n + r) * inner + i], want = at(o, order[r], i);
          EXPECT_TRUE(got == want || (std::isnan(got) && std::isnan(want)));
        }
    }
    for (int64_t j = 0; j < n; ++j)
      EXPECT_TRUE(same(order[inverse[j]], j)) << "inverse of entry " << j;
    // Zeros after the valid entries.
    for (int64_t r = k; r < n; ++r) {
      EXPECT_EQ(indices[r], 0);
      EXPECT_EQ(counts[r], 0);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i)
          EXPECT_EQ(y[(o * n + r) * inner + i], 0.0f);
    }
  }
}

TEST(NonZero, CoordinatesInRowMajorOrder) {
  // [2, 3, 2]: NaN is non-zero, -0 is zero.
  std::vector<double> x = {0, 1, -0.0, 0, 0, NAN, 2, 0, 0, 0, -3, 0};
  std::vector<int64_t> y(3 * 12, -1);
  int64_t count = -1;
  oneflow_non_zero_f64(address(x.data()), address(y.data()), address(&count), 3,
                       2, 3, 2, 1, 1, 1, 1, 1);
  ASSERT_EQ(count, 4);
  // Elements 1, 5, 6, 10: (0,0,1), (0,2,1), (1,0,0), (1,2,0).
  std::vector<int64_t> expected = {0, 0, 1, 1, 0, 2, 0, 2, 1, 1, 0, 0};
  for (int64_t d = 0; d < 3; ++d)
    for (int64_t k = 0; k < 12; ++k)
      EXPECT_EQ(y[d * 12 + k], k < 4 ? expected[d * 4 + k] : 0)
          << "coordinate " << d << " of column " << k;
  // Nothing non-zero; a scalar.
  std::vector<double> zeros(6, 0);
  oneflow_non_zero_f64(address(zeros.data()), address(y.data()),
                       address(&count), 2, 2, 3, 1, 1, 1, 1, 1, 1);
  EXPECT_EQ(count, 0);
  double scalar = 5;
  oneflow_non_zero_f64(address(&scalar), address(y.data()), address(&count), 0,
                       1, 1, 1, 1, 1, 1, 1, 1);
  EXPECT_EQ(count, 1);
}

INSTANTIATE_TEST_SUITE_P(Shapes, UniqueTest,
                         ::testing::Values(UniqueShape{1, 40, 1},
                                           UniqueShape{1, 12, 2},
                                           UniqueShape{2, 9, 1},
                                           UniqueShape{3, 10, 2},
                                           UniqueShape{1, 1, 1}));

} // namespace
