//===- GemmTest.cpp - The kernel library's products against direct loops -===//
//
// oneflow_gemm_f32 and its accumulating variant: c[m, n] (+)= a[m, k]
// b[n, k]^T, the fully connected layer's form. Up to 8 rows of a take the
// streamed path (each weight row read once), more take oneDNN's sgemm:
// both must agree with a double-precision loop.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

extern "C" void oneflow_gemm_f32(int64_t a, int64_t b, int64_t c, int64_t m,
                                 int64_t n, int64_t k, int64_t ta, int64_t tb);
extern "C" void oneflow_gemm_acc_f32(int64_t a, int64_t b, int64_t c, int64_t m,
                                     int64_t n, int64_t k, int64_t ta,
                                     int64_t tb);

namespace {
int64_t address(const void *p) { return reinterpret_cast<intptr_t>(p); }

class FullyConnected : public ::testing::TestWithParam<int64_t> {};

TEST_P(FullyConnected, MatchesDirectLoop) {
  const int64_t m = GetParam(), n = 300, k = 77; // k: not a multiple of 8
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  std::vector<float> a(m * k), b(n * k), start(m * n);
  for (std::vector<float> *values : {&a, &b, &start})
    for (float &v : *values)
      v = normal(rng);
  for (bool accumulate : {false, true}) {
    std::vector<float> c = accumulate ? start : std::vector<float>(m * n, NAN);
    (accumulate ? oneflow_gemm_acc_f32 : oneflow_gemm_f32)(
        address(a.data()), address(b.data()), address(c.data()), m, n, k,
        /*ta=*/0, /*tb=*/1);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = accumulate ? start[i * n + j] : 0.0;
        for (int64_t l = 0; l < k; ++l)
          sum += double(a[i * k + l]) * b[j * k + l];
        ASSERT_NEAR(c[i * n + j], sum, 1e-4 * (1 + std::abs(sum)))
            << "row " << i << ", column " << j
            << (accumulate ? " (accumulating)" : "");
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Rows, FullyConnected,
                         ::testing::Values(1, 2, 3, 5, 8, 9, 16));
} // namespace
