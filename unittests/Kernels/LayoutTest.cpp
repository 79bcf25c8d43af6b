//===- LayoutTest.cpp - Image transposes against a direct loop ------------===//

#include "Layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

using oneflow::kernels::transposeImages;

extern "C" void oneflow_transpose_images_f32(int64_t x, int64_t y,
                                             int64_t images, int64_t rows,
                                             int64_t cols);

namespace {

struct Case {
  int64_t images, rows, cols;
};

class TransposeImagesTest : public ::testing::TestWithParam<Case> {};

/// Transposes each image of `src` with `transpose` and checks every element.
template <typename Fn> void checkTranspose(const Case &shape, Fn transpose) {
  auto [images, rows, cols] = shape;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> src(images * rows * cols);
  for (float &v : src)
    v = uniform(rng);
  // Exactly sized: a tile stored past the end shows under ASan.
  std::vector<float> dst(src.size(), 12345.0f);
  transpose(src.data(), dst.data());
  for (int64_t i = 0; i < images; ++i)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        ASSERT_EQ(dst[(i * cols + c) * rows + r],
                  src[(i * rows + r) * cols + c])
            << "image " << i << " row " << r << " col " << c;
}

TEST_P(TransposeImagesTest, MatchesDirectLoop) {
  auto [images, rows, cols] = GetParam();
  checkTranspose(GetParam(), [&](const float *src, float *dst) {
    transposeImages(src, dst, images, rows, cols);
  });
}

// The compiler's call: few rows or columns (an RGB input) interleaved in
// one pass, the rest in tiles.
TEST_P(TransposeImagesTest, LibraryCallMatchesDirectLoop) {
  auto [images, rows, cols] = GetParam();
  checkTranspose(GetParam(), [&](const float *src, float *dst) {
    oneflow_transpose_images_f32(reinterpret_cast<intptr_t>(src),
                                 reinterpret_cast<intptr_t>(dst), images, rows,
                                 cols);
  });
}

// Whole tiles, row and column tails, bands of 64 rows with a short last
// one, one row or column, and SqueezeNet's first output (841 x 96).
INSTANTIATE_TEST_SUITE_P(
    Shapes, TransposeImagesTest,
    ::testing::Values(Case{1, 16, 16}, Case{2, 64, 32}, Case{3, 17, 33},
                      Case{2, 130, 5}, Case{1, 1, 40}, Case{2, 40, 1},
                      Case{2, 841, 96}, Case{1, 3, 4096}, Case{4, 49, 192},
                      Case{8, 3, 4096}, Case{2, 2, 7}, Case{3, 4, 9},
                      Case{2, 4096, 3}, Case{2, 9, 2}, Case{1, 5, 4}));

} // namespace
