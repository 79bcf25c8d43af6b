//===- Layout.h - Channels-last <-> channels-first copies -------*- C++ -*-===//
//
// oneDNN's fastest convolutions work on channels-last (NHWC) tensors while
// the plan keeps NCHW; converting between the two is a transpose of each
// image's [pixels][channels] matrix.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_KERNELS_LAYOUT_H
#define ONEFLOW_KERNELS_LAYOUT_H

#include <cstdint>

namespace oneflow::kernels {

/// For each of `images` matrices of `rows` x `cols` f32 (row-major,
/// consecutive in `src`), writes its transpose to `dst`: NHWC -> NCHW with
/// rows = h * w and cols = c, NCHW -> NHWC with rows = c and cols = h * w.
/// Shares the blocks out over OpenMP threads.
void transposeImages(const float *src, float *dst, int64_t images, int64_t rows,
                     int64_t cols);

} // namespace oneflow::kernels

#endif // ONEFLOW_KERNELS_LAYOUT_H
