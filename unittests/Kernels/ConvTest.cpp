//===- ConvTest.cpp - Kernel library convolutions against a direct loop ---===//

#include "Conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <list>
#include <ostream>
#include <random>
#include <vector>

using oneflow::kernels::ConvShape;

extern "C" void oneflow_conv2d_f32(int64_t x, int64_t w, int64_t bias,
                                   int64_t y, int64_t n, int64_t c, int64_t h,
                                   int64_t wd, int64_t o, int64_t kh,
                                   int64_t kw, int64_t oh, int64_t ow,
                                   int64_t sh, int64_t sw, int64_t pt,
                                   int64_t pl, int64_t dh, int64_t dw,
                                   int64_t groups);

extern "C" void oneflow_conv2d_constant_weight_f32(
    int64_t x, int64_t w, int64_t bias, int64_t y, int64_t n, int64_t c,
    int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t oh,
    int64_t ow, int64_t sh, int64_t sw, int64_t pt, int64_t pl, int64_t dh,
    int64_t dw, int64_t groups);

extern "C" void oneflow_conv2d_nhwc_f32(int64_t x, int64_t w, int64_t bias,
                                        int64_t y, int64_t n, int64_t c,
                                        int64_t h, int64_t wd, int64_t o,
                                        int64_t kh, int64_t kw, int64_t oh,
                                        int64_t ow, int64_t sh, int64_t sw,
                                        int64_t pt, int64_t pl, int64_t dh,
                                        int64_t dw, int64_t groups);

extern "C" void oneflow_conv2d_nhwc_constant_weight_f32(
    int64_t x, int64_t w, int64_t bias, int64_t y, int64_t n, int64_t c,
    int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t oh,
    int64_t ow, int64_t sh, int64_t sw, int64_t pt, int64_t pl, int64_t dh,
    int64_t dw, int64_t groups);

extern "C" void oneflow_conv2d_nhwc_epilogue_f32(
    int64_t x, int64_t w, int64_t bias, int64_t residual, int64_t y, int64_t n,
    int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw,
    int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t pt, int64_t pl,
    int64_t dh, int64_t dw, int64_t groups, int64_t activation,
    int64_t clipMinBits, int64_t clipMaxBits);

extern "C" void oneflow_conv_transpose2d_f32(int64_t x, int64_t w, int64_t bias,
                                             int64_t y, int64_t n, int64_t c,
                                             int64_t h, int64_t wd, int64_t o,
                                             int64_t kh, int64_t kw, int64_t oh,
                                             int64_t ow, int64_t sh, int64_t sw,
                                             int64_t pt, int64_t pl, int64_t dh,
                                             int64_t dw, int64_t groups);

extern "C" void
oneflow_conv2d_grad_filter_f32(int64_t x, int64_t dy, int64_t dwt, int64_t n,
                               int64_t c, int64_t h, int64_t wd, int64_t o,
                               int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                               int64_t sh, int64_t sw, int64_t pt, int64_t pl,
                               int64_t dh, int64_t dw, int64_t groups);

namespace {

/// A shape from its input size and bottom/right pads (pb, pr).
ConvShape shape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                int64_t k, int64_t stride, int64_t pt, int64_t pb,
                int64_t dilation, int64_t groups) {
  int64_t oh = (h + pt + pb - dilation * (k - 1) - 1) / stride + 1;
  int64_t ow = (w + pt + pb - dilation * (k - 1) - 1) / stride + 1;
  return {n,  c,      h,      w,  o,  k,        k,        oh,
          ow, stride, stride, pt, pt, dilation, dilation, groups};
}

std::vector<double> reference(const std::vector<float> &x,
                              const std::vector<float> &w, const float *bias,
                              const ConvShape &s) {
  int64_t cg = s.c / s.groups, og = s.o / s.groups;
  std::vector<double> y(s.n * s.o * s.oh * s.ow);
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t oc = 0; oc < s.o; ++oc)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          double sum = bias ? bias[oc] : 0.0;
          int64_t g = oc / og;
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                int64_t iy = oy * s.sh - s.pt + i * s.dh;
                int64_t ix = ox * s.sw - s.pl + j * s.dw;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                  continue;
                sum +=
                    double(x[((b * s.c + g * cg + ic) * s.h + iy) * s.w + ix]) *
                    w[((oc * cg + ic) * s.kh + i) * s.kw + j];
              }
          y[((b * s.o + oc) * s.oh + oy) * s.ow + ox] = sum;
        }
  return y;
}

void expectClose(const std::vector<float> &y, const std::vector<double> &ref) {
  ASSERT_EQ(y.size(), ref.size());
  double scale = 0;
  for (double v : ref)
    scale = std::max(scale, std::abs(v));
  ASSERT_GT(scale, 0.1);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], ref[i], 1e-4 * scale) << "at element " << i;
}

int64_t address(const void *p) { return reinterpret_cast<intptr_t>(p); }

struct Case {
  const char *name;
  ConvShape s;
};

// Test names and failure messages show the case's name.
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

class Conv2dTest : public ::testing::TestWithParam<Case> {};

TEST_P(Conv2dTest, MatchesDirectLoop) {
  const ConvShape &s = GetParam().s;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> x(s.n * s.c * s.h * s.w),
      w(s.o * s.c / s.groups * s.kh * s.kw), bias(s.o);
  for (float &v : x)
    v = normal(rng);
  for (float &v : w)
    v = normal(rng);
  for (float &v : bias)
    v = normal(rng);
  for (bool withBias : {false, true}) {
    const float *b = withBias ? bias.data() : nullptr;
    // The oneDNN path, the one without it (direct depthwise, im2col), then
    // the kernel ABI's entry (the path preferOneDnn picks).
    std::vector<float> y(s.n * s.o * s.oh * s.ow, NAN);
    ASSERT_TRUE(
        oneflow::kernels::dnnlConv2dF32(x.data(), w.data(), b, y.data(), s,
                                        oneflow::kernels::ConvPath::OneDnn));
    expectClose(y, reference(x, w, b, s));
    std::fill(y.begin(), y.end(), NAN);
    oneflow::kernels::conv2dWithoutDnnlF32(x.data(), w.data(), b, y.data(), s);
    expectClose(y, reference(x, w, b, s));
    std::fill(y.begin(), y.end(), NAN);
    oneflow_conv2d_f32(address(x.data()), address(w.data()), address(b),
                       address(y.data()), s.n, s.c, s.h, s.w, s.o, s.kh, s.kw,
                       s.oh, s.ow, s.sh, s.sw, s.pt, s.pl, s.dh, s.dw,
                       s.groups);
    expectClose(y, reference(x, w, b, s));
  }
  // Weights updated in place (a training step) between two calls of one
  // shape: the second call must use the new values.
  for (float &v : w)
    v = normal(rng);
  std::vector<float> y(s.n * s.o * s.oh * s.ow);
  oneflow_conv2d_f32(address(x.data()), address(w.data()), address(bias.data()),
                     address(y.data()), s.n, s.c, s.h, s.w, s.o, s.kh, s.kw,
                     s.oh, s.ow, s.sh, s.sw, s.pt, s.pl, s.dh, s.dw, s.groups);
  expectClose(y, reference(x, w, bias.data(), s));
}

// Weights that never change (an inference plan's): the blocked copy made
// on the first call serves the later ones, and two weight tensors of one
// shape (two layers) keep a copy each. The contract is that an address
// keeps its values for the life of the process, so the weights here live
// until exit: another test's buffer at a freed address would otherwise find
// this one's copy.
TEST_P(Conv2dTest, ConstantWeightsMatchDirectLoop) {
  const ConvShape &s = GetParam().s;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::vector<float> x(s.n * s.c * s.h * s.w), bias(s.o);
  for (float &v : x)
    v = normal(rng);
  for (float &v : bias)
    v = normal(rng);
  const int64_t weights = s.o * s.c / s.groups * s.kh * s.kw;
  static std::list<std::vector<std::vector<float>>> kept;
  std::vector<std::vector<float>> *layers = &kept.emplace_back();
  layers->resize(2);
  for (std::vector<float> &w : *layers) {
    w.resize(weights);
    for (float &v : w)
      v = normal(rng);
  }
  for (int call = 0; call < 2; ++call)
    for (const std::vector<float> &w : *layers) {
      std::vector<float> y(s.n * s.o * s.oh * s.ow, NAN);
      ASSERT_TRUE(oneflow::kernels::dnnlConv2dConstantWeightsF32(
          x.data(), w.data(), bias.data(), y.data(), s,
          oneflow::kernels::ConvPath::OneDnn));
      expectClose(y, reference(x, w, bias.data(), s));
      std::fill(y.begin(), y.end(), NAN);
      oneflow_conv2d_constant_weight_f32(
          address(x.data()), address(w.data()), address(bias.data()),
          address(y.data()), s.n, s.c, s.h, s.w, s.o, s.kh, s.kw, s.oh, s.ow,
          s.sh, s.sw, s.pt, s.pl, s.dh, s.dw, s.groups);
      expectClose(y, reference(x, w, bias.data(), s));
    }
}

/// [n, c, pixels] -> [n, pixels, c].
template <typename T>
std::vector<T> channelsLast(const std::vector<T> &v, int64_t n, int64_t c,
                            int64_t pixels) {
  std::vector<T> out(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < pixels; ++p)
        out[(b * pixels + p) * c + ch] = v[(b * c + ch) * pixels + p];
  return out;
}

// NHWC activations (the compiler's `channels_last`): oneDNN's channels-last
// primitive, through both entries (the constant-weight one twice: its
// reordered weights are made on the first call).
TEST_P(Conv2dTest, ChannelsLastMatchesDirectLoop) {
  const ConvShape &s = GetParam().s;
  std::mt19937 rng(13);
  std::normal_distribution<float> normal;
  std::vector<float> x(s.n * s.c * s.h * s.w), bias(s.o);
  static std::list<std::vector<float>> kept;
  std::vector<float> &w = kept.emplace_back(s.o * s.c / s.groups * s.kh * s.kw);
  for (float &v : x)
    v = normal(rng);
  for (float &v : w)
    v = normal(rng);
  for (float &v : bias)
    v = normal(rng);
  std::vector<float> xNhwc = channelsLast(x, s.n, s.c, s.h * s.w);
  for (bool withBias : {false, true}) {
    const float *b = withBias ? bias.data() : nullptr;
    std::vector<double> ref =
        channelsLast(reference(x, w, b, s), s.n, s.o, s.oh * s.ow);
    for (int entry = 0; entry < 3; ++entry) {
      std::vector<float> y(s.n * s.o * s.oh * s.ow, NAN);
      auto call = entry == 0 ? oneflow_conv2d_nhwc_f32
                             : oneflow_conv2d_nhwc_constant_weight_f32;
      call(address(xNhwc.data()), address(w.data()), address(b),
           address(y.data()), s.n, s.c, s.h, s.w, s.o, s.kh, s.kw, s.oh, s.ow,
           s.sh, s.sw, s.pt, s.pl, s.dh, s.dw, s.groups);
      expectClose(y, ref);
    }
  }
}

int64_t bitsOf(double value) {
  int64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// The epilogue of a channels-last conv (the compiler's conv2d_epilogue):
// act(conv + bias + residual) for every activation, with and without a
// residual, on oneDNN's post-ops (or, under ONEFLOW_DNNL_CONV=0 and over
// 1x1 maps, the conv then the epilogue's own loops).
TEST_P(Conv2dTest, ChannelsLastEpilogueMatchesReference) {
  const ConvShape &s = GetParam().s;
  std::mt19937 rng(17);
  std::normal_distribution<float> normal;
  int64_t count = s.n * s.o * s.oh * s.ow;
  std::vector<float> x(s.n * s.c * s.h * s.w), bias(s.o), residual(count);
  static std::list<std::vector<float>> kept;
  std::vector<float> &w = kept.emplace_back(s.o * s.c / s.groups * s.kh * s.kw);
  for (std::vector<float> *v : {&x, &w, &bias, &residual})
    for (float &e : *v)
      e = normal(rng);
  std::vector<float> xNhwc = channelsLast(x, s.n, s.c, s.h * s.w);
  std::vector<double> conv =
      channelsLast(reference(x, w, bias.data(), s), s.n, s.o, s.oh * s.ow);
  // Clip to [-0.5, 0.7]: both bounds bite on normal data.
  const double lo = -0.5, hi = 0.7;
  auto activate = [&](int64_t code, double v) {
    switch (code) {
    case 1:
      return std::max(v, 0.0);
    case 2:
      return std::min(std::max(v, lo), hi);
    case 3:
      return v / (1 + std::exp(-v));
    case 4:
      return v * std::min(std::max(v / 6 + 0.5, 0.0), 1.0);
    }
    return v;
  };
  for (bool withResidual : {false, true})
    for (int64_t code = 0; code <= 4; ++code) {
      SCOPED_TRACE(::testing::Message()
                   << "activation " << code << ", residual " << withResidual);
      std::vector<double> ref(count);
      for (int64_t i = 0; i < count; ++i)
        ref[i] = activate(code, conv[i] + (withResidual ? residual[i] : 0.0));
      std::vector<float> y(count, NAN);
      oneflow_conv2d_nhwc_epilogue_f32(
          address(xNhwc.data()), address(w.data()), address(bias.data()),
          withResidual ? address(residual.data()) : 0, address(y.data()), s.n,
          s.c, s.h, s.w, s.o, s.kh, s.kw, s.oh, s.ow, s.sh, s.sw, s.pt, s.pl,
          s.dh, s.dw, s.groups, code, bitsOf(code == 2 ? lo : 0.0),
          bitsOf(code == 2 ? hi : 0.0));
      expectClose(y, ref);
    }
}

// The path a shape takes is a rule of its shape alone (every rank and rerun
// computes the same bits), as measured by bench/conv_paths.cpp.
TEST(ConvPathRule, ByShape) {
  using oneflow::kernels::preferOneDnn;
  // Dense and grouped convs with taps: oneDNN.
  EXPECT_TRUE(preferOneDnn(shape(1, 64, 16, 16, 64, 3, 1, 1, 1, 1, 1)));
  EXPECT_TRUE(preferOneDnn(shape(8, 3, 64, 64, 64, 7, 2, 3, 3, 1, 1)));
  EXPECT_TRUE(preferOneDnn(shape(1, 128, 8, 8, 128, 3, 1, 1, 1, 1, 32)));
  // 1x1, strided or not: sgemm.
  EXPECT_FALSE(preferOneDnn(shape(1, 256, 8, 8, 64, 1, 1, 0, 0, 1, 1)));
  EXPECT_FALSE(preferOneDnn(shape(8, 64, 16, 16, 128, 1, 2, 0, 0, 1, 1)));
  // Depthwise 3x3 stride 1: the direct loops from 8x8 planes up.
  EXPECT_FALSE(preferOneDnn(shape(1, 32, 32, 32, 32, 3, 1, 1, 1, 1, 32)));
  EXPECT_FALSE(preferOneDnn(shape(1, 192, 8, 8, 192, 3, 1, 1, 1, 1, 192)));
  EXPECT_TRUE(preferOneDnn(shape(1, 240, 4, 4, 240, 3, 1, 1, 1, 1, 240)));
  // Depthwise strided or with larger taps: oneDNN.
  EXPECT_TRUE(preferOneDnn(shape(1, 96, 32, 32, 96, 3, 2, 1, 1, 1, 96)));
  EXPECT_TRUE(preferOneDnn(shape(1, 144, 16, 16, 144, 5, 1, 2, 2, 1, 144)));
}

ConvShape transposeShape(int64_t n, int64_t c, int64_t h, int64_t o, int64_t k,
                         int64_t stride, int64_t pad, int64_t outputPad,
                         int64_t dilation, int64_t groups);

// Dense convs with taps over several images and at most 64 output pixels in
// all are one product over the batch (instead of oneDNN).
TEST(ConvPathRule, BatchedSmallMaps) {
  using oneflow::kernels::batchesImages;
  using oneflow::kernels::batchesTransposedImages;
  // ResNet-18's last stage at batch 8 and 64x64: 2x2 maps.
  EXPECT_TRUE(batchesImages(shape(8, 512, 2, 2, 512, 3, 1, 1, 1, 1, 1)));
  EXPECT_TRUE(batchesImages(shape(8, 256, 4, 4, 512, 3, 2, 1, 1, 1, 1)));
  // The stage before (4x4 maps, 128 pixels), one image, groups, 1x1.
  EXPECT_FALSE(batchesImages(shape(8, 256, 4, 4, 256, 3, 1, 1, 1, 1, 1)));
  EXPECT_FALSE(batchesImages(shape(1, 512, 2, 2, 512, 3, 1, 1, 1, 1, 1)));
  EXPECT_FALSE(batchesImages(shape(8, 64, 2, 2, 64, 3, 1, 1, 1, 1, 32)));
  EXPECT_FALSE(batchesImages(shape(8, 64, 2, 2, 64, 1, 1, 0, 0, 1, 1)));
  EXPECT_TRUE(batchesTransposedImages(
      transposeShape(8, 512, 2, 512, 3, 1, 1, 0, 1, 1)));
  EXPECT_FALSE(batchesTransposedImages(
      transposeShape(8, 256, 4, 256, 3, 1, 1, 0, 1, 1)));
}

// n, c, h, w, o, k, stride, top/left pad, bottom/right pad, dilation, groups.
INSTANTIATE_TEST_SUITE_P(
    Shapes, Conv2dTest,
    ::testing::Values(
        Case{"Dense3x3", shape(1, 16, 12, 12, 24, 3, 1, 1, 1, 1, 1)},
        Case{"Batch3OddChannels", shape(3, 5, 9, 11, 7, 3, 1, 1, 1, 1, 1)},
        Case{"Stride2", shape(2, 8, 17, 17, 16, 3, 2, 1, 1, 1, 1)},
        Case{"Dilation2", shape(1, 8, 16, 16, 8, 3, 1, 2, 2, 2, 1)},
        Case{"AsymmetricPads", shape(2, 6, 15, 15, 10, 3, 2, 0, 1, 1, 1)},
        Case{"OneByOne", shape(3, 32, 8, 8, 20, 1, 1, 0, 0, 1, 1)},
        Case{"OneByOneGrouped", shape(2, 12, 6, 6, 8, 1, 1, 0, 0, 1, 2)},
        Case{"OneByOneStride2", shape(1, 24, 16, 16, 48, 1, 2, 0, 0, 1, 1)},
        // Up to 8 pixels in all: weights streamed row by row (channels not
        // a multiple of 8, enough rows to share out over threads).
        Case{"OneByOneFewPixels", shape(1, 37, 2, 2, 150, 1, 1, 0, 0, 1, 1)},
        // Several small images: one product over the batch.
        Case{"OneByOneBatchedPixels",
             shape(3, 37, 4, 4, 150, 1, 1, 0, 0, 1, 1)},
        Case{"OneByOneBatchedFewPixels",
             shape(4, 9, 1, 3, 20, 1, 1, 0, 0, 1, 1)},
        Case{"OneByOneOnePixel", shape(1, 70, 1, 1, 9, 1, 1, 0, 0, 1, 1)},
        Case{"OneByOneSevenPixels", shape(1, 19, 1, 7, 130, 1, 1, 0, 0, 1, 1)},
        // Constant weights over few pixels: a transposed copy of the
        // weights, tiles of 64 (up to 4 pixels) or 32 outputs, a part tile.
        Case{"OneByOneTwoImagesFewPixels",
             shape(2, 21, 2, 2, 70, 1, 1, 0, 0, 1, 1)},
        Case{"Grouped", shape(2, 12, 10, 10, 18, 3, 1, 1, 1, 1, 3)},
        Case{"Depthwise", shape(3, 16, 13, 13, 16, 3, 1, 1, 1, 1, 16)},
        Case{"DepthwiseStride2", shape(1, 24, 14, 14, 24, 5, 2, 2, 2, 1, 24)},
        Case{"DepthwiseMultiplier", shape(1, 8, 9, 9, 16, 3, 1, 1, 1, 1, 8)},
        Case{"Depthwise5x5Dilated", shape(1, 8, 12, 12, 8, 5, 1, 4, 4, 2, 8)},
        Case{"Stem7x7", shape(1, 3, 32, 32, 16, 7, 2, 3, 3, 1, 1)},
        Case{"FewPixels", shape(1, 64, 4, 4, 64, 3, 2, 1, 1, 1, 1)},
        // Taps over several small images (at most 64 output pixels in
        // all): one product over the batch, also from the library entry.
        Case{"BatchedSmallMaps", shape(8, 20, 2, 2, 24, 3, 1, 1, 1, 1, 1)},
        Case{"BatchedStride2", shape(4, 12, 7, 7, 10, 3, 2, 1, 1, 1, 1)}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.name);
    });

/// The gradient of conv2d with respect to its weights, accumulated directly.
std::vector<double> gradFilterReference(const std::vector<float> &x,
                                        const std::vector<float> &dy,
                                        const ConvShape &s) {
  int64_t cg = s.c / s.groups, og = s.o / s.groups;
  std::vector<double> dw(s.o * cg * s.kh * s.kw, 0.0);
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t oc = 0; oc < s.o; ++oc)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          double g = dy[((b * s.o + oc) * s.oh + oy) * s.ow + ox];
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                int64_t iy = oy * s.sh - s.pt + i * s.dh;
                int64_t ix = ox * s.sw - s.pl + j * s.dw;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                  continue;
                dw[((oc * cg + ic) * s.kh + i) * s.kw + j] +=
                    g *
                    x[((b * s.c + oc / og * cg + ic) * s.h + iy) * s.w + ix];
              }
        }
  return dw;
}

// The conv2d shapes' weight gradients: oneDNN's backward-weights primitive
// (every shape here has one) and the library entry.
TEST_P(Conv2dTest, GradFilterMatchesDirectLoop) {
  const ConvShape &s = GetParam().s;
  std::mt19937 rng(13);
  std::normal_distribution<float> normal;
  std::vector<float> x(s.n * s.c * s.h * s.w), dy(s.n * s.o * s.oh * s.ow);
  for (std::vector<float> *v : {&x, &dy})
    for (float &e : *v)
      e = normal(rng);
  std::vector<double> ref = gradFilterReference(x, dy, s);
  std::vector<float> dw(ref.size(), NAN);
  ASSERT_TRUE(oneflow::kernels::dnnlConv2dGradFilterF32(
      x.data(), dy.data(), dw.data(), s, oneflow::kernels::ConvPath::OneDnn));
  expectClose(dw, ref);
  std::fill(dw.begin(), dw.end(), NAN);
  oneflow_conv2d_grad_filter_f32(address(x.data()), address(dy.data()),
                                 address(dw.data()), s.n, s.c, s.h, s.w, s.o,
                                 s.kh, s.kw, s.oh, s.ow, s.sh, s.sw, s.pt, s.pl,
                                 s.dh, s.dw, s.groups);
  expectClose(dw, ref);
}

/// conv_transpose2d's shape: x [n, c, h, w] to [n, o, oh, ow], oh = (h - 1)
/// * stride - 2 * pad + dilation * (k - 1) + 1 + outputPad.
ConvShape transposeShape(int64_t n, int64_t c, int64_t h, int64_t o, int64_t k,
                         int64_t stride, int64_t pad, int64_t outputPad,
                         int64_t dilation, int64_t groups) {
  int64_t oh = (h - 1) * stride - 2 * pad + dilation * (k - 1) + 1 + outputPad;
  return {n,  c,      h,      h,   o,   k,        k,        oh,
          oh, stride, stride, pad, pad, dilation, dilation, groups};
}

/// The adjoint of the conv from y's shape to x's, accumulated directly.
std::vector<double> transposeReference(const std::vector<float> &x,
                                       const std::vector<float> &w,
                                       const float *bias, const ConvShape &s) {
  int64_t cg = s.c / s.groups, og = s.o / s.groups;
  std::vector<double> y(s.n * s.o * s.oh * s.ow);
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t oc = 0; oc < s.o; ++oc)
      for (int64_t p = 0; p < s.oh * s.ow; ++p)
        y[(b * s.o + oc) * s.oh * s.ow + p] = bias ? bias[oc] : 0.0;
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t ic = 0; ic < s.c; ++ic)
      for (int64_t iy = 0; iy < s.h; ++iy)
        for (int64_t ix = 0; ix < s.w; ++ix)
          for (int64_t k = 0; k < og; ++k)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                int64_t oy = iy * s.sh - s.pt + i * s.dh;
                int64_t ox = ix * s.sw - s.pl + j * s.dw;
                if (oy < 0 || oy >= s.oh || ox < 0 || ox >= s.ow)
                  continue;
                int64_t oc = ic / cg * og + k;
                y[((b * s.o + oc) * s.oh + oy) * s.ow + ox] +=
                    double(x[((b * s.c + ic) * s.h + iy) * s.w + ix]) *
                    w[((ic * og + k) * s.kh + i) * s.kw + j];
              }
  return y;
}

class ConvTranspose2dTest : public ::testing::TestWithParam<Case> {};

TEST_P(ConvTranspose2dTest, MatchesDirectLoop) {
  const ConvShape &s = GetParam().s;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::vector<float> x(s.n * s.c * s.h * s.w),
      w(s.c * s.o / s.groups * s.kh * s.kw), bias(s.o);
  for (std::vector<float> *v : {&x, &w, &bias})
    for (float &e : *v)
      e = normal(rng);
  for (bool withBias : {false, true}) {
    const float *b = withBias ? bias.data() : nullptr;
    std::vector<double> ref = transposeReference(x, w, b, s);
    std::vector<float> y(s.n * s.o * s.oh * s.ow, NAN);
    ASSERT_TRUE(oneflow::kernels::dnnlConvTranspose2dF32(
        x.data(), w.data(), b, y.data(), s,
        oneflow::kernels::ConvPath::OneDnn));
    expectClose(y, ref);
    std::fill(y.begin(), y.end(), NAN);
    oneflow::kernels::convTranspose2dWithoutDnnlF32(x.data(), w.data(), b,
                                                    y.data(), s);
    expectClose(y, ref);
    std::fill(y.begin(), y.end(), NAN);
    oneflow_conv_transpose2d_f32(address(x.data()), address(w.data()),
                                 address(b), address(y.data()), s.n, s.c, s.h,
                                 s.w, s.o, s.kh, s.kw, s.oh, s.ow, s.sh, s.sw,
                                 s.pt, s.pl, s.dh, s.dw, s.groups);
    expectClose(y, ref);
  }
}

// n, c, h, o, k, stride, pad, output pad, dilation, groups.
INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvTranspose2dTest,
    ::testing::Values(
        Case{"UpsampleStride2", transposeShape(2, 16, 8, 8, 2, 2, 0, 0, 1, 1)},
        Case{"Stride2Pad1OutputPad1",
             transposeShape(1, 8, 7, 12, 3, 2, 1, 1, 1, 1)},
        Case{"Stride1", transposeShape(3, 6, 9, 5, 3, 1, 1, 0, 1, 1)},
        Case{"Grouped", transposeShape(1, 12, 6, 9, 3, 2, 1, 0, 1, 3)},
        Case{"Dilation2", transposeShape(1, 4, 8, 6, 3, 1, 2, 0, 2, 1)},
        // At most 64 input pixels over several images: one product over
        // the batch.
        Case{"BatchedSmallMaps",
             transposeShape(8, 24, 2, 20, 3, 1, 1, 0, 1, 1)},
        Case{"BatchedStride2", transposeShape(4, 10, 4, 12, 3, 2, 1, 1, 1, 1)}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.name);
    });

} // namespace
