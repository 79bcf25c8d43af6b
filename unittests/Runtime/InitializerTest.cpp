//===- InitializerTest.cpp - Variables drawn from a distribution ----------===//
//
// The counter-based generator behind plan initializers: Philox's published
// answers, each distribution's statistics on a million samples (PyTorch's
// nn.init semantics), determinism, and pieces that match the whole tensor.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/Initializer.h"
#include "oneflow/Runtime/Collectives.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace oneflow;
using namespace oneflow::runtime;

namespace {

constexpr int64_t kSamples = 1 << 20;

plan::Initializer makeInit(plan::Initializer::Kind kind, double mean = 0,
                           double std = 1, double a = 0, double b = 0,
                           uint64_t seed = 1234, uint64_t stream = 99) {
  plan::Initializer init;
  init.set_kind(kind);
  init.set_mean(mean);
  init.set_std(std);
  init.set_a(a);
  init.set_b(b);
  init.set_seed(seed);
  init.set_stream(stream);
  return init;
}

std::vector<float> fillF32(const plan::Initializer &init, int64_t count) {
  std::vector<float> values(size_t(count), NAN);
  fillInitializer(init, plan::F32, values.data(), {count}, {count}, {0});
  return values;
}

struct Moments {
  double mean = 0, std = 0, min = INFINITY, max = -INFINITY;
};

Moments momentsOf(const std::vector<float> &values) {
  Moments m;
  double sum = 0, squares = 0;
  for (float v : values) {
    sum += v;
    m.min = std::min(m.min, double(v));
    m.max = std::max(m.max, double(v));
  }
  m.mean = sum / double(values.size());
  for (float v : values)
    squares += (v - m.mean) * (v - m.mean);
  m.std = std::sqrt(squares / double(values.size() - 1));
  return m;
}

double fractionWithin(const std::vector<float> &values, double lo, double hi) {
  int64_t inside = 0;
  for (float v : values)
    inside += v >= lo && v < hi;
  return double(inside) / double(values.size());
}

double normalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double normalPdf(double x) {
  return std::exp(-x * x / 2) / std::sqrt(2 * M_PI);
}

// Five standard errors of a proportion p over kSamples.
double fiveSigma(double p) {
  return 5 * std::sqrt(p * (1 - p) / double(kSamples));
}

TEST(Philox, MatchesPublishedAnswers) {
  // Random123's known-answer tests for philox4x32_10.
  EXPECT_EQ(philox4x32({0, 0, 0, 0}, {0, 0}),
            (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c,
                                     0x9b00dbd8}));
  EXPECT_EQ(philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                       {0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6,
                                     0x6d5451fd}));
  EXPECT_EQ(philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                       {0xa4093822, 0x299f31d0}),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420,
                                     0x24126ea1}));
}

TEST(Initializer, NormalQuantileInvertsTheCdf) {
  for (double p : {1e-300, 1e-100, 1e-12, 1e-5, 0.01, 0.02425, 0.2, 0.5, 0.7,
                   0.97575, 0.999, 1 - 1e-9}) {
    double x = normalQuantile(p);
    EXPECT_NEAR(normalCdf(x) / p, 1.0, 1e-12) << "p = " << p;
  }
  EXPECT_EQ(normalQuantile(0.5), 0.0);
}

TEST(Initializer, NormalMatchesMeanStdAndShape) {
  const double mean = 0.5, std = 2.0;
  std::vector<float> values =
      fillF32(makeInit(plan::Initializer::NORMAL, mean, std), kSamples);
  Moments m = momentsOf(values);
  EXPECT_NEAR(m.mean, mean, 5 * std / std::sqrt(double(kSamples)));
  EXPECT_NEAR(m.std / std, 1.0, 5 / std::sqrt(2.0 * kSamples));
  // The shape, not only two moments: mass within 1, 2 and 3 std.
  for (double k : {1.0, 2.0, 3.0}) {
    double p = normalCdf(k) - normalCdf(-k);
    EXPECT_NEAR(fractionWithin(values, mean - k * std, mean + k * std), p,
                fiveSigma(p))
        << k << " std";
  }
  // Symmetric: half below the mean.
  EXPECT_NEAR(fractionWithin(values, -INFINITY, mean), 0.5, fiveSigma(0.5));
}

TEST(Initializer, NormalWithZeroStdIsTheMean) {
  for (float v : fillF32(makeInit(plan::Initializer::NORMAL, 3, 0), 1000))
    EXPECT_EQ(v, 3.0f);
}

TEST(Initializer, UniformCoversItsInterval) {
  const double a = -3, b = 5;
  std::vector<float> values =
      fillF32(makeInit(plan::Initializer::UNIFORM, 0, 0, a, b), kSamples);
  Moments m = momentsOf(values);
  EXPECT_GE(m.min, a);
  EXPECT_LT(m.max, b);
  double std = (b - a) / std::sqrt(12.0);
  EXPECT_NEAR(m.mean, (a + b) / 2, 5 * std / std::sqrt(double(kSamples)));
  EXPECT_NEAR(m.std / std, 1.0, 5 / std::sqrt(2.0 * kSamples));
  for (int bin = 0; bin < 16; ++bin) {
    double lo = a + (b - a) * bin / 16, hi = a + (b - a) * (bin + 1) / 16;
    EXPECT_NEAR(fractionWithin(values, lo, hi), 1.0 / 16, fiveSigma(1.0 / 16))
        << "bin " << bin;
  }
}

TEST(Initializer, UniformNeverReachesItsUpperBound) {
  // Narrow intervals whose values mostly round to b in the element type.
  plan::Initializer init =
      makeInit(plan::Initializer::UNIFORM, 0, 0, 1.0, 1.0 + 1e-3);
  std::vector<uint16_t> bf16(4096), f16(4096);
  fillInitializer(init, plan::BF16, bf16.data(), {4096}, {4096}, {0});
  fillInitializer(init, plan::F16, f16.data(), {4096}, {4096}, {0});
  for (int i = 0; i < 4096; ++i) {
    EXPECT_LT(bfloat16ToFloat(bf16[i]), 1.0 + 1e-3);
    EXPECT_GE(bfloat16ToFloat(bf16[i]), 1.0);
    EXPECT_LT(halfToFloat(f16[i]), 1.0 + 1e-3);
  }
  init = makeInit(plan::Initializer::UNIFORM, 0, 0, -1e-8, 0.0);
  for (float v : fillF32(init, 4096))
    EXPECT_LT(v, 0.0f);
}

// PyTorch's trunc_normal_(mean, std, a, b): a normal restricted to [a, b].
void expectTruncatedNormal(double mean, double std, double a, double b) {
  std::vector<float> values = fillF32(
      makeInit(plan::Initializer::TRUNCATED_NORMAL, mean, std, a, b), kSamples);
  Moments m = momentsOf(values);
  EXPECT_GE(m.min, float(a));
  EXPECT_LE(m.max, float(b));
  double alpha = (a - mean) / std, beta = (b - mean) / std;
  double mass = normalCdf(beta) - normalCdf(alpha);
  double shift = (normalPdf(alpha) - normalPdf(beta)) / mass;
  double expectedMean = mean + std * shift;
  double expectedStd =
      std *
      std::sqrt(1 + (alpha * normalPdf(alpha) - beta * normalPdf(beta)) / mass -
                shift * shift);
  EXPECT_NEAR(m.mean, expectedMean,
              5 * expectedStd / std::sqrt(double(kSamples)));
  EXPECT_NEAR(m.std / expectedStd, 1.0, 10 / std::sqrt(2.0 * kSamples));
  // The mass of the lower half of the interval.
  double mid = (a + b) / 2;
  double p = (normalCdf((mid - mean) / std) - normalCdf(alpha)) / mass;
  EXPECT_NEAR(fractionWithin(values, a, mid), p, fiveSigma(p));
}

TEST(Initializer, TruncatedNormalMatchesTheTruncatedDistribution) {
  expectTruncatedNormal(0, 1, -2, 2); // PyTorch's defaults
  expectTruncatedNormal(0, 0.02, -0.04, 0.04);
  expectTruncatedNormal(1, 2, -1, 4);  // asymmetric
  expectTruncatedNormal(0, 1, 3, 5);   // upper tail (mirrored)
  expectTruncatedNormal(0, 1, -6, -4); // lower tail
}

TEST(Initializer, ZerosAndOnesInEveryType) {
  plan::Initializer ones = makeInit(plan::Initializer::ONES);
  plan::Initializer zeros = makeInit(plan::Initializer::ZEROS);
  float f32[3];
  fillInitializer(ones, plan::F32, f32, {3}, {3}, {0});
  EXPECT_EQ(f32[2], 1.0f);
  double f64[3];
  fillInitializer(ones, plan::F64, f64, {3}, {3}, {0});
  EXPECT_EQ(f64[1], 1.0);
  uint16_t bf16[2], f16[2];
  fillInitializer(ones, plan::BF16, bf16, {2}, {2}, {0});
  fillInitializer(ones, plan::F16, f16, {2}, {2}, {0});
  EXPECT_EQ(bfloat16ToFloat(bf16[1]), 1.0f);
  EXPECT_EQ(halfToFloat(f16[1]), 1.0f);
  int64_t i64[2];
  fillInitializer(ones, plan::I64, i64, {2}, {2}, {0});
  EXPECT_EQ(i64[1], 1);
  int32_t i32[2] = {7, 7};
  fillInitializer(zeros, plan::I32, i32, {2}, {2}, {0});
  EXPECT_EQ(i32[0], 0);
  uint8_t flags[2];
  fillInitializer(ones, plan::BOOL, flags, {2}, {2}, {0});
  EXPECT_EQ(flags[0], 1);
  float scalar = 5;
  fillInitializer(zeros, plan::F32, &scalar, {}, {}, {});
  EXPECT_EQ(scalar, 0.0f);
}

TEST(Initializer, SameSeedSameValuesOtherSeedOrStreamOthers) {
  plan::Initializer init = makeInit(plan::Initializer::NORMAL, 0, 1);
  std::vector<float> first = fillF32(init, 100000);
  EXPECT_EQ(first, fillF32(init, 100000));
  plan::Initializer otherSeed = init, otherStream = init;
  otherSeed.set_seed(init.seed() + 1);
  otherStream.set_stream(init.stream() + 1);
  std::vector<float> seeded = fillF32(otherSeed, 100000);
  std::vector<float> streamed = fillF32(otherStream, 100000);
  // Independent: no equal values, and no correlation.
  double dotSeed = 0, dotStream = 0;
  int equal = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    equal += first[i] == seeded[i] || first[i] == streamed[i];
    dotSeed += double(first[i]) * seeded[i];
    dotStream += double(first[i]) * streamed[i];
  }
  EXPECT_EQ(equal, 0);
  EXPECT_LT(std::abs(dotSeed / first.size()), 5 / std::sqrt(1e5));
  EXPECT_LT(std::abs(dotStream / first.size()), 5 / std::sqrt(1e5));
}

TEST(Initializer, EveryPieceHoldsItsPartOfTheWholeTensor) {
  const std::vector<int64_t> global = {6, 10, 7};
  for (plan::Initializer init :
       {makeInit(plan::Initializer::NORMAL, 0, 0.02),
        makeInit(plan::Initializer::UNIFORM, 0, 0, -1, 1),
        makeInit(plan::Initializer::TRUNCATED_NORMAL, 0, 1, -2, 2)}) {
    std::vector<float> whole(6 * 10 * 7);
    fillInitializer(init, plan::F32, whole.data(), global, global, {0, 0, 0});
    // Pieces as sbp-localize cuts them: along one axis, or two at once.
    for (std::vector<int64_t> piece : std::vector<std::vector<int64_t>>{
             {3, 10, 7}, {6, 5, 7}, {2, 5, 7}, {6, 10, 1}, {3, 2, 7}}) {
      for (int64_t i = 0; i < 6; i += piece[0])
        for (int64_t j = 0; j < 10; j += piece[1])
          for (int64_t k = 0; k < 7; k += piece[2]) {
            std::vector<float> local(size_t(piece[0] * piece[1] * piece[2]));
            fillInitializer(init, plan::F32, local.data(), piece, global,
                            {i, j, k});
            for (int64_t x = 0; x < piece[0]; ++x)
              for (int64_t y = 0; y < piece[1]; ++y)
                for (int64_t z = 0; z < piece[2]; ++z)
                  ASSERT_EQ(local[(x * piece[1] + y) * piece[2] + z],
                            whole[((i + x) * 10 + j + y) * 7 + k + z])
                      << "piece at " << i << "," << j << "," << k;
          }
    }
  }
}

TEST(Initializer, ThreadedFillMatchesTheSampler) {
  // Large enough for several threads; every element is the sampler's.
  plan::Initializer init = makeInit(plan::Initializer::NORMAL, 0, 1);
  const int64_t rows = 600, cols = 2001;
  std::vector<double> values(size_t(rows * cols));
  fillInitializer(init, plan::F64, values.data(), {rows, cols},
                  {rows * 2, cols}, {rows, 0});
  InitializerSampler sampler(init);
  for (int64_t i = 0; i < rows * cols; i += 997)
    ASSERT_EQ(values[i], sampler(uint64_t(rows * cols + i))) << i;
  // f32 is the f64 value rounded.
  std::vector<float> single(size_t(rows * cols));
  fillInitializer(init, plan::F32, single.data(), {rows, cols},
                  {rows * 2, cols}, {rows, 0});
  for (int64_t i = 0; i < rows * cols; i += 991)
    ASSERT_EQ(single[i], float(values[i])) << i;
}

TEST(Initializer, BadParametersAreReported) {
  EXPECT_EQ(
      initializerProblem(makeInit(plan::Initializer::NORMAL, 0, 1), plan::F32),
      "");
  EXPECT_NE(
      initializerProblem(makeInit(plan::Initializer::NORMAL, 0, -1), plan::F32)
          .find("std >= 0"),
      std::string::npos);
  EXPECT_NE(initializerProblem(makeInit(plan::Initializer::UNIFORM, 0, 0, 1, 1),
                               plan::F32)
                .find("a < b"),
            std::string::npos);
  EXPECT_NE(initializerProblem(
                makeInit(plan::Initializer::TRUNCATED_NORMAL, 0, 1, 50, 60),
                plan::F32)
                .find("no probability mass"),
            std::string::npos);
  EXPECT_NE(
      initializerProblem(makeInit(plan::Initializer::NORMAL, NAN, 1), plan::F32)
          .find("finite"),
      std::string::npos);
  EXPECT_NE(
      initializerProblem(makeInit(plan::Initializer::NORMAL, 0, 1), plan::I64)
          .find("cannot fill i64 values"),
      std::string::npos);
  EXPECT_EQ(initializerProblem(makeInit(plan::Initializer::ONES), plan::I64),
            "");
}

} // namespace
