//===- StreamedProduct.h - Products that read their weights once -*- C++
//-*-===//
//
// A matrix of weights times a few vectors (up to kStreamedVectors): a
// fully connected layer at batch 1-8, a 1x1 conv over a 2x2 map. GEMM
// libraries pack the whole weight matrix per call, which doubles the memory
// traffic of a product this narrow; here each weight row is read once
// against every vector, the vectors staying in cache.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_KERNELS_STREAMEDPRODUCT_H
#define ONEFLOW_LIB_KERNELS_STREAMEDPRODUCT_H

#include <cstdint>

namespace oneflow::kernels {

/// The most vectors one streamed product takes.
constexpr int64_t kStreamedVectors = 8;

/// out[o * rowStride + p * vectorStride] = (accumulate ? that element : 0)
/// + (bias ? bias[o] : 0) + w[o, :] . v[p, :] for o < rows, p < vectors
/// (1..kStreamedVectors); the rows of w and of v hold k contiguous floats.
/// The rows are shared out over the OpenMP threads (64 or more each).
void streamedProduct(const float *w, const float *v, const float *bias,
                     float *out, int64_t rows, int64_t k, int64_t vectors,
                     int64_t rowStride, int64_t vectorStride, bool accumulate);

/// The weights w [rows, k] transposed once per address into [k, *rowStride]
/// (rowStride: rows rounded up to 64, zero past rows), for weights that never
/// change (an inference plan's); kept to the end of the process.
const float *transposedConstantWeights(const float *w, int64_t rows, int64_t k,
                                       int64_t *rowStride);

/// One NCHW image's 1x1 conv over at most kStreamedVectors pixels with the
/// weights transposed (wT from transposedConstantWeights): y[o, p] =
/// (bias ? bias[o] : 0) + sum_c wT[c, o] x[c, p]. Each input element is
/// broadcast against 64 weights at a time, the tile's outputs staying in
/// registers: the streamed product's per-output dot products spent more on
/// their final sums than on the products when k is small (MNASNet's
/// 96 -> 576 conv over 2x2 pixels: 18 us, 25 GFLOP/s). Needs AVX-512
/// (hasAvx512() in KernelABI.h).
void transposedWeightsProduct(const float *wT, int64_t rowStride,
                              const float *x, const float *bias, float *y,
                              int64_t rows, int64_t k, int64_t pixels);

} // namespace oneflow::kernels

#endif // ONEFLOW_LIB_KERNELS_STREAMEDPRODUCT_H
