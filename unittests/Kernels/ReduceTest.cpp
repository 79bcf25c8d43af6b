//===- ReduceTest.cpp - Middle-axis reductions against a direct loop ------===//

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

extern "C" {
void oneflow_reduce_middle_sum_f32(int64_t x, int64_t y, int64_t outer,
                                   int64_t middle, int64_t inner);
void oneflow_reduce_middle_mean_f32(int64_t x, int64_t y, int64_t outer,
                                    int64_t middle, int64_t inner);
void oneflow_reduce_middle_max_f32(int64_t x, int64_t y, int64_t outer,
                                   int64_t middle, int64_t inner);
}

namespace {

int64_t address(const void *p) { return reinterpret_cast<intptr_t>(p); }

struct Sizes {
  int64_t outer, middle, inner;
};

class ReduceMiddleTest : public ::testing::TestWithParam<Sizes> {};

TEST_P(ReduceMiddleTest, MatchesDirectLoop) {
  auto [outer, middle, inner] = GetParam();
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  std::vector<float> x(outer * middle * inner);
  for (float &v : x)
    v = normal(rng);
  // One NaN in the first output row's middle: the max there is NaN.
  x[(middle / 2) * inner] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> sum(outer * inner, 7.f), mean(outer * inner, 7.f),
      max(outer * inner, 7.f);
  oneflow_reduce_middle_sum_f32(address(x.data()), address(sum.data()), outer,
                                middle, inner);
  oneflow_reduce_middle_mean_f32(address(x.data()), address(mean.data()), outer,
                                 middle, inner);
  oneflow_reduce_middle_max_f32(address(x.data()), address(max.data()), outer,
                                middle, inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double s = 0;
      float m = -std::numeric_limits<float>::infinity();
      bool nan = false;
      for (int64_t k = 0; k < middle; ++k) {
        float v = x[(o * middle + k) * inner + i];
        nan |= std::isnan(v);
        s += v;
        m = std::max(m, v);
      }
      int64_t at = o * inner + i;
      if (nan) {
        EXPECT_TRUE(std::isnan(sum[at]) && std::isnan(max[at])) << at;
        continue;
      }
      EXPECT_NEAR(sum[at], s, 1e-4 * middle) << at;
      EXPECT_NEAR(mean[at], s / middle, 1e-5) << at;
      EXPECT_EQ(max[at], m) << at;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, ReduceMiddleTest,
    ::testing::Values(Sizes{2, 16, 8},   // an NHWC 4x4 image's global pool
                      Sizes{3, 49, 37},  // inner not a multiple of a vector
                      Sizes{1, 5, 1000}, // a column sum
                      Sizes{8, 1, 96},   // nothing to combine
                      Sizes{1, 1024, 32}));

} // namespace
