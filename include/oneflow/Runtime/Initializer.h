//===- Initializer.h - Variables drawn from a distribution ------*- C++ -*-===//
//
// A plan's Initializer gives a variable's initial value as a distribution
// (PyTorch's nn.init: zeros, ones, normal, uniform, truncated normal)
// instead of data. Values are counter-based: element i of the logical
// tensor depends only on (seed, stream, i), so a rank computes exactly the
// elements of its piece, and every distribution of the variable holds the
// same logical tensor. The generator, exactly (docs/runtime.md): elements
// 2j and 2j + 1 come from one draw
//
//   r[0..3] = Philox4x32-10(counter = (lo32(j), hi32(j), lo32(stream),
//                                      hi32(stream)),
//                           key = (lo32(seed), hi32(seed)))
//   x = r[1]:r[0], y = r[3]:r[2] (64-bit), u(v) = (v >> 11) * 2^-53 in [0, 1)
//   uniform:   a + (b - a) * u(x), a + (b - a) * u(y)
//   normal:    mean + std * R cos(t), mean + std * R sin(t) with
//              R = sqrt(-2 ln(u(x) + 2^-53)), t = 2 pi u(y)
//   truncated: mean + std * Phi^-1(Phi(alpha) + u (Phi(beta) - Phi(alpha)))
//              with u = u(x), then u(y); alpha, beta the bounds in std units
//              (an interval with alpha >= 0 is sampled mirrored, as -z on
//              [-beta, -alpha]); clamped to [a, b]
//
// computed in double and rounded to the element type (f16 and bf16 through
// f32); a uniform value that rounds up to b becomes the largest value below
// b.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_INITIALIZER_H
#define ONEFLOW_RUNTIME_INITIALIZER_H

#include "oneflow/plan.pb.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
/// 3", SC 2011): ten rounds on a 128-bit counter under a 64-bit key.
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);

/// Why `init` cannot fill a regst of `dtype` (bad parameters, or a random
/// distribution for an integer or boolean regst); empty when it can.
std::string initializerProblem(const plan::Initializer &init,
                               plan::DataType dtype);

/// Draws the values of one initializer (checked by initializerProblem).
class InitializerSampler {
public:
  explicit InitializerSampler(const plan::Initializer &init);

  /// Logical element `index`, before rounding to the element type.
  double operator()(uint64_t index) const;
  /// Logical elements 2 * pairIndex and 2 * pairIndex + 1 (one draw).
  std::array<double, 2> pair(uint64_t pairIndex) const;

private:
  plan::Initializer init;
  std::array<uint32_t, 2> key;
  // Truncated normal: the bounds in std units, mirrored so that the lower
  // one is negative, and the normal CDF at both.
  double alpha = 0, cdfAlpha = 0, cdfBeta = 0;
  bool mirrored = false;
};

/// Fills `dst` (dense, row-major, `shape`, elements of `dtype`) with the
/// piece at `offsets` of the logical tensor of `globalShape` that `init`
/// describes. Large pieces are filled by several threads.
void fillInitializer(const plan::Initializer &init, plan::DataType dtype,
                     void *dst, const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &globalShape,
                     const std::vector<int64_t> &offsets);

/// The inverse of the standard normal CDF, for 0 < p < 1 (to about 1e-15
/// relative in either tail).
double normalQuantile(double p);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_INITIALIZER_H
