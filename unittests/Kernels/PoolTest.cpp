//===- PoolTest.cpp - Kernel library pooling against a direct loop --------===//

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

extern "C" {
void oneflow_max_pool2d_f32(int64_t x, int64_t y, int64_t n, int64_t c,
                            int64_t h, int64_t w, int64_t oh, int64_t ow,
                            int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                            int64_t pt, int64_t pl, int64_t pb, int64_t pr,
                            int64_t dh, int64_t dw);
void oneflow_max_pool2d_f64(int64_t x, int64_t y, int64_t n, int64_t c,
                            int64_t h, int64_t w, int64_t oh, int64_t ow,
                            int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                            int64_t pt, int64_t pl, int64_t pb, int64_t pr,
                            int64_t dh, int64_t dw);
void oneflow_avg_pool2d_f32(int64_t x, int64_t y, int64_t n, int64_t c,
                            int64_t h, int64_t w, int64_t oh, int64_t ow,
                            int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                            int64_t pt, int64_t pl, int64_t pb, int64_t pr,
                            int64_t countIncludePad);
void oneflow_avg_pool2d_f64(int64_t x, int64_t y, int64_t n, int64_t c,
                            int64_t h, int64_t w, int64_t oh, int64_t ow,
                            int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                            int64_t pt, int64_t pl, int64_t pb, int64_t pr,
                            int64_t countIncludePad);
void oneflow_max_pool2d_nhwc_f32(int64_t x, int64_t y, int64_t n, int64_t c,
                                 int64_t h, int64_t w, int64_t oh, int64_t ow,
                                 int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                 int64_t pt, int64_t pl, int64_t pb, int64_t pr,
                                 int64_t dh, int64_t dw);
void oneflow_avg_pool2d_nhwc_f32(int64_t x, int64_t y, int64_t n, int64_t c,
                                 int64_t h, int64_t w, int64_t oh, int64_t ow,
                                 int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                 int64_t pt, int64_t pl, int64_t pb, int64_t pr,
                                 int64_t countIncludePad);
void oneflow_max_pool2d_grad_f32(int64_t x, int64_t dy, int64_t dx, int64_t n,
                                 int64_t c, int64_t h, int64_t w, int64_t oh,
                                 int64_t ow, int64_t kh, int64_t kw, int64_t sh,
                                 int64_t sw, int64_t pt, int64_t pl, int64_t pb,
                                 int64_t pr, int64_t dh, int64_t dw);
void oneflow_max_pool2d_grad_f64(int64_t x, int64_t dy, int64_t dx, int64_t n,
                                 int64_t c, int64_t h, int64_t w, int64_t oh,
                                 int64_t ow, int64_t kh, int64_t kw, int64_t sh,
                                 int64_t sw, int64_t pt, int64_t pl, int64_t pb,
                                 int64_t pr, int64_t dh, int64_t dw);
}

namespace {

struct Pool {
  const char *name;
  int64_t n, c, h, w, k, stride, pad, dilation;
  bool ceil;
  int64_t oh() const { return out(h); }
  int64_t ow() const { return out(w); }
  int64_t out(int64_t size) const {
    int64_t span = size + 2 * pad - dilation * (k - 1) - 1;
    int64_t o = (ceil ? (span + stride - 1) / stride : span / stride) + 1;
    // PyTorch's rule: the last window starts inside the input or left pad.
    if (ceil && (o - 1) * stride >= size + pad)
      --o;
    return o;
  }
};

std::ostream &operator<<(std::ostream &os, const Pool &p) {
  return os << p.name;
}

template <typename T> int64_t address(T *p) {
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p));
}

/// PyTorch's max_pool2d: taps outside the input skipped, a NaN wins.
template <typename T>
std::vector<T> maxReference(const std::vector<T> &x, const Pool &p) {
  std::vector<T> y(p.n * p.c * p.oh() * p.ow());
  for (int64_t plane = 0; plane < p.n * p.c; ++plane)
    for (int64_t r = 0; r < p.oh(); ++r)
      for (int64_t o = 0; o < p.ow(); ++o) {
        T m = -std::numeric_limits<T>::infinity();
        for (int64_t i = 0; i < p.k; ++i)
          for (int64_t j = 0; j < p.k; ++j) {
            int64_t ih = r * p.stride - p.pad + i * p.dilation;
            int64_t iw = o * p.stride - p.pad + j * p.dilation;
            if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w)
              continue;
            T v = x[(plane * p.h + ih) * p.w + iw];
            if (v > m || std::isnan(v))
              m = v;
            if (std::isnan(m))
              break;
          }
        y[(plane * p.oh() + r) * p.ow() + o] = m;
      }
  return y;
}

/// PyTorch's avg_pool2d: the divisor counts the taps inside the input, or
/// (count_include_pad) inside the padded input, never past the pads.
template <typename T>
std::vector<double> avgReference(const std::vector<T> &x, const Pool &p,
                                 bool includePad) {
  std::vector<double> y(p.n * p.c * p.oh() * p.ow());
  for (int64_t plane = 0; plane < p.n * p.c; ++plane)
    for (int64_t r = 0; r < p.oh(); ++r)
      for (int64_t o = 0; o < p.ow(); ++o) {
        double sum = 0;
        int64_t counted = 0;
        for (int64_t i = 0; i < p.k; ++i)
          for (int64_t j = 0; j < p.k; ++j) {
            int64_t ih = r * p.stride - p.pad + i;
            int64_t iw = o * p.stride - p.pad + j;
            bool inside = ih >= 0 && ih < p.h && iw >= 0 && iw < p.w;
            bool inPads = ih >= -p.pad && ih < p.h + p.pad && iw >= -p.pad &&
                          iw < p.w + p.pad;
            if (inside)
              sum += x[(plane * p.h + ih) * p.w + iw];
            if (inside || (includePad && inPads))
              ++counted;
          }
        y[(plane * p.oh() + r) * p.ow() + o] =
            sum / std::max<int64_t>(counted, 1);
      }
  return y;
}

template <typename T> std::vector<T> randomInput(const Pool &p, bool nans) {
  std::mt19937 rng(7);
  std::normal_distribution<T> normal;
  std::vector<T> x(p.n * p.c * p.h * p.w);
  for (T &v : x)
    v = normal(rng);
  if (nans)
    for (size_t i = 5; i < x.size(); i += 97)
      x[i] = std::numeric_limits<T>::quiet_NaN();
  return x;
}

class PoolTest : public ::testing::TestWithParam<Pool> {};

template <typename T, typename Fn>
void checkMax(const Pool &p, bool nans, Fn maxPool) {
  std::vector<T> x = randomInput<T>(p, nans);
  // The output exactly sized: a kernel writing past it shows under ASan.
  std::vector<T> y(p.n * p.c * p.oh() * p.ow(), T(12345));
  maxPool(address(x.data()), address(y.data()), p.n, p.c, p.h, p.w, p.oh(),
          p.ow(), p.k, p.k, p.stride, p.stride, p.pad, p.pad, p.pad, p.pad,
          p.dilation, p.dilation);
  std::vector<T> expected = maxReference(x, p);
  int64_t nanCount = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (std::isnan(expected[i])) {
      ++nanCount;
      ASSERT_TRUE(std::isnan(y[i])) << "output " << i;
      continue;
    }
    ASSERT_EQ(y[i], expected[i]) << "output " << i;
  }
  if (nans) {
    EXPECT_GT(nanCount, 0);
  }
}

TEST_P(PoolTest, MaxF32) {
  for (bool nans : {false, true})
    checkMax<float>(GetParam(), nans, oneflow_max_pool2d_f32);
}

TEST_P(PoolTest, MaxF64) {
  checkMax<double>(GetParam(), true, oneflow_max_pool2d_f64);
}

/// max_pool2d_grad as the generated loops define it: each window's dy goes
/// to its first (row-major) tap inside the input holding the window's
/// maximum under `>` (a NaN that comes first keeps the window), summed in
/// window order.
template <typename T>
std::vector<T> maxGradReference(const std::vector<T> &x,
                                const std::vector<T> &dy, const Pool &p) {
  std::vector<T> dx(x.size(), T(0));
  for (int64_t plane = 0; plane < p.n * p.c; ++plane)
    for (int64_t r = 0; r < p.oh(); ++r)
      for (int64_t o = 0; o < p.ow(); ++o) {
        int64_t winner = -1;
        for (int64_t i = 0; i < p.k; ++i)
          for (int64_t j = 0; j < p.k; ++j) {
            int64_t ih = r * p.stride - p.pad + i * p.dilation;
            int64_t iw = o * p.stride - p.pad + j * p.dilation;
            if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w)
              continue;
            int64_t at = (plane * p.h + ih) * p.w + iw;
            if (winner < 0 || x[at] > x[winner])
              winner = at;
          }
        if (winner >= 0)
          dx[winner] += dy[(plane * p.oh() + r) * p.ow() + o];
      }
  return dx;
}

template <typename T, typename Fn>
void checkMaxGrad(const Pool &p, Fn maxPoolGrad) {
  // Coarse values, so that windows tie and the first maximum must win.
  std::vector<T> x = randomInput<T>(p, true);
  for (T &v : x)
    v = std::floor(v * 2) / 2;
  std::vector<T> dy = randomInput<T>(
      Pool{p.name, p.n, p.c, p.oh(), p.ow(), 1, 1, 0, 1, false}, false);
  std::vector<T> dx(x.size(), T(12345));
  maxPoolGrad(address(x.data()), address(dy.data()), address(dx.data()), p.n,
              p.c, p.h, p.w, p.oh(), p.ow(), p.k, p.k, p.stride, p.stride,
              p.pad, p.pad, p.pad, p.pad, p.dilation, p.dilation);
  std::vector<T> expected = maxGradReference(x, dy, p);
  for (size_t i = 0; i < dx.size(); ++i)
    ASSERT_EQ(dx[i], expected[i]) << "input " << i;
}

TEST_P(PoolTest, MaxGradF32) {
  checkMaxGrad<float>(GetParam(), oneflow_max_pool2d_grad_f32);
}

TEST_P(PoolTest, MaxGradF64) {
  checkMaxGrad<double>(GetParam(), oneflow_max_pool2d_grad_f64);
}

template <typename T, typename Fn>
void checkAvg(const Pool &p, Fn avgPool, double tolerance) {
  if (p.dilation != 1)
    return;
  std::vector<T> x = randomInput<T>(p, false);
  for (bool includePad : {false, true}) {
    std::vector<T> y(p.n * p.c * p.oh() * p.ow(), T(12345));
    avgPool(address(x.data()), address(y.data()), p.n, p.c, p.h, p.w, p.oh(),
            p.ow(), p.k, p.k, p.stride, p.stride, p.pad, p.pad, p.pad, p.pad,
            includePad);
    std::vector<double> expected = avgReference(x, p, includePad);
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(y[i], expected[i], tolerance)
          << "output " << i << (includePad ? " counting pads" : "");
  }
}

TEST_P(PoolTest, AvgF32) {
  checkAvg<float>(GetParam(), oneflow_avg_pool2d_f32, 1e-5);
}

TEST_P(PoolTest, AvgF64) {
  checkAvg<double>(GetParam(), oneflow_avg_pool2d_f64, 1e-12);
}

/// [n, a, b] -> [n, b, a] of f32.
std::vector<float> swapped(const float *v, int64_t n, int64_t a, int64_t b) {
  std::vector<float> out(n * a * b);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < a; ++j)
      for (int64_t k = 0; k < b; ++k)
        out[(i * b + k) * a + j] = v[(i * a + j) * b + k];
  return out;
}

/// The NHWC pool `pool` called on NCHW buffers: x transposed in, y back.
template <typename Pool2d> auto throughChannelsLast(Pool2d pool) {
  return [pool](int64_t x, int64_t y, int64_t n, int64_t c, int64_t h,
                int64_t w, int64_t oh, int64_t ow, auto... rest) {
    std::vector<float> in =
        swapped(reinterpret_cast<const float *>(x), n, c, h * w);
    std::vector<float> out(n * c * oh * ow, 12345.f);
    pool(address(in.data()), address(out.data()), n, c, h, w, oh, ow, rest...);
    std::vector<float> back = swapped(out.data(), n, oh * ow, c);
    std::copy(back.begin(), back.end(), reinterpret_cast<float *>(y));
  };
}

TEST_P(PoolTest, MaxChannelsLastF32) {
  for (bool nans : {false, true})
    checkMax<float>(GetParam(), nans,
                    throughChannelsLast(oneflow_max_pool2d_nhwc_f32));
}

TEST_P(PoolTest, AvgChannelsLastF32) {
  checkAvg<float>(GetParam(), throughChannelsLast(oneflow_avg_pool2d_nhwc_f32),
                  1e-5);
}

// The fixed-window paths (3x3 and 2x2, strides 1 and 2: by rows with
// AVX-512, else in chunks; ONEFLOW_POOL_ROWS=0 forces the chunks) with rows
// shorter and longer than a chunk, borders from pads and ceil mode, and the
// general path (other windows, dilation).
INSTANTIATE_TEST_SUITE_P(
    Shapes, PoolTest,
    ::testing::Values(
        // name, n, c, h, w, k, stride, pad, dilation, ceil
        Pool{"SqueezeNet3x3s2", 1, 7, 29, 29, 3, 2, 0, 1, false},
        Pool{"ResNet3x3s2Pad1", 2, 5, 32, 32, 3, 2, 1, 1, false},
        Pool{"CeilMode3x3s2", 1, 6, 14, 14, 3, 2, 0, 1, true},
        Pool{"ShortRows3x3s2", 3, 4, 15, 9, 3, 2, 0, 1, false},
        Pool{"Inception3x3s1Pad1", 1, 5, 11, 40, 3, 1, 1, 1, false},
        Pool{"DenseNet2x2s2", 2, 3, 16, 16, 2, 2, 0, 1, false},
        Pool{"Odd2x2s2Ceil", 1, 3, 7, 37, 2, 2, 0, 1, true},
        Pool{"General5x5s3Pad2", 1, 3, 17, 17, 5, 3, 2, 1, true},
        Pool{"Dilated3x3", 1, 2, 12, 12, 3, 1, 2, 2, false},
        Pool{"Single", 1, 1, 3, 3, 3, 2, 1, 1, false},
        Pool{"GoogLeNetTiny3x3s1Pad1", 2, 9, 4, 4, 3, 1, 1, 1, true},
        Pool{"Tiny2x2s2Ceil", 1, 5, 5, 5, 2, 2, 0, 1, true},
        // Rows of several 16-output chunks (the AVX-512 row path's
        // carried vectors), with left pads and a ceil-mode tail.
        Pool{"Wide3x3s2Pad1", 1, 2, 9, 70, 3, 2, 1, 1, false},
        Pool{"Wide3x3s2Ceil", 1, 2, 7, 67, 3, 2, 0, 1, true},
        Pool{"Wide3x3s1Pad1", 1, 2, 5, 49, 3, 1, 1, 1, false},
        Pool{"Wide2x2s2", 1, 2, 6, 66, 2, 2, 0, 1, false}),
    [](const ::testing::TestParamInfo<Pool> &info) {
      return std::string(info.param.name);
    });

} // namespace
