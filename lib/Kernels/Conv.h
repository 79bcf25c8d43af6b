//===- Conv.h - Convolution shapes shared by the kernels --------*- C++ -*-===//
//
// The shape arguments of oneflow_conv2d_* (KernelABI.h): x [n, c, h, w],
// weights [o, c / groups, kh, kw], y [n, o, oh, ow], all NCHW row-major;
// strides sh, sw, top and left pads pt, pl (the bottom and right ones follow
// from oh, ow), dilations dh, dw.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_KERNELS_CONV_H
#define ONEFLOW_LIB_KERNELS_CONV_H

#include <cstdint>

namespace oneflow::kernels {

struct ConvShape {
  int64_t n, c, h, w, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, groups;
};

/// y = conv(x, w) + bias (bias may be null) on a oneDNN convolution
/// primitive, when oneDNN has one for the shape and it beats im2col + GEMM
/// there; false (y untouched) otherwise.
bool dnnlConv2dF32(const float *x, const float *w, const float *bias, float *y,
                   const ConvShape &s);

} // namespace oneflow::kernels

#endif // ONEFLOW_LIB_KERNELS_CONV_H
