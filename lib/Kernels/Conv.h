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

/// One input and one output channel per group.
inline bool isDepthwise(const ConvShape &s) {
  return s.groups == s.c && s.o == s.c;
}

/// y = conv(x, w) + bias without oneDNN: direct loops for a depthwise conv,
/// im2col + GEMM for the rest. `constantWeights`: w holds the same values
/// at this address for the life of the process (an inference plan's), so
/// a transformed copy of it may be kept.
void conv2dWithoutDnnlF32(const float *x, const float *w, const float *bias,
                          float *y, const ConvShape &s,
                          bool constantWeights = false);

enum class ConvPath {
  Auto,   // oneDNN where preferOneDnn says so
  OneDnn, // oneDNN wherever it has a primitive
  Im2col, // never oneDNN
};

/// Whether oneDNN's primitive (with the reorders to and from its blocked
/// layouts) is expected to beat conv2dWithoutDnnlF32 on this f32 conv2d or
/// conv_transpose2d (its conv's shape). A rule by shape, not a timing, so
/// every process and rank takes the same path and computes the same bits;
/// bench/conv_paths.cpp measures both paths to check it.
bool preferOneDnn(const ConvShape &s);

/// Output pixels over the whole batch up to which a dense conv with taps
/// over several images is one product (see batchesImages).
constexpr int64_t kBatchedConvColumns = 64;

/// Whether the conv is one product over the whole batch (instead of
/// oneDNN, whatever preferOneDnn says): dense with taps, several images, at
/// most kBatchedConvColumns output pixels in all (ResNet-18's last stage
/// at batch 8: 2x2 maps). Each weight then meets few pixels, and reading
/// the weights once beats both a product per image (which reads them per
/// image) and oneDNN (whose weight reorder, per call where the weights
/// change, is two more passes over them; bench/conv_paths.cpp).
bool batchesImages(const ConvShape &s);

/// The same for a transposed conv (the gradient of a conv's input; `s` in
/// convTranspose2d's terms: at most kBatchedConvColumns input pixels in
/// all).
bool batchesTransposedImages(const ConvShape &s);

/// y = conv(x, w) + bias (bias may be null) on a oneDNN convolution
/// primitive, as `path` says; false when the caller is to compute it
/// without oneDNN. The environment's ONEFLOW_DNNL_CONV (0: Im2col, 1:
/// OneDnn) overrides Auto.
bool dnnlConv2dF32(const float *x, const float *w, const float *bias, float *y,
                   const ConvShape &s, ConvPath path);

/// dnnlConv2dF32 for weights whose values at `w` never change in this
/// process (an inference plan's): oneDNN's blocked copy of them is made on
/// the first call and kept.
bool dnnlConv2dConstantWeightsF32(const float *x, const float *w,
                                  const float *bias, float *y,
                                  const ConvShape &s, ConvPath path);

/// The activation a conv applies to its result as it writes it; the
/// values are the compiler's ConvActivation codes (0: none).
enum class ConvActivation : int64_t {
  None = 0,
  Relu = 1,
  Clip = 2,      // to [clipMin, clipMax]
  Silu = 3,      // x * sigmoid(x)
  HardSwish = 4, // x * clamp(x / 6 + 1/2, 0, 1)
};

/// What follows a conv in its own kernel: y = act(conv + bias + residual).
struct ConvEpilogue {
  /// y holds a residual on entry that the conv adds to (oneDNN's sum).
  bool residual = false;
  ConvActivation activation = ConvActivation::None;
  float clipMin = 0, clipMax = 0;
  bool empty() const { return !residual && activation == ConvActivation::None; }
};

/// The epilogue's activation over y[0, count), or first the residual's sum
/// where `residual` is not null: the epilogue of a conv computed without
/// it (the same results as oneDNN's post-ops up to rounding).
void applyConvEpilogue(float *y, const float *residual, int64_t count,
                       const ConvEpilogue &epilogue);

/// dnnlConv2dF32 with x [n, h, w, c] and y [n, oh, ow, o] (NHWC; the
/// weights OIHW as always) on oneDNN's channels-last primitives, with the
/// weights reordered once where `constantWeights` and `epilogue` applied
/// as post-ops (with a residual, y must hold it on entry). Every path but
/// oneDNN's would transpose the activations, so ONEFLOW_DNNL_CONV=0 alone
/// turns it off (false: the caller transposes them around another path).
bool dnnlConv2dChannelsLastF32(const float *x, const float *w,
                               const float *bias, float *y, const ConvShape &s,
                               bool constantWeights,
                               const ConvEpilogue &epilogue = {});

/// The same for conv_transpose2d (x [n, c, h, w], weights [c, o / groups,
/// kh, kw], y [n, o, oh, ow]) on oneDNN's backward-data convolution.
bool dnnlConvTranspose2dF32(const float *x, const float *w, const float *bias,
                            float *y, const ConvShape &s, ConvPath path);
/// dw [o, c / groups, kh, kw] = the gradient of conv2d(x, w) with respect to
/// its weights, given dy [n, o, oh, ow], on oneDNN's backward-weights
/// convolution (Auto: wherever oneDNN has a primitive); false when the
/// caller is to compute it without oneDNN.
bool dnnlConv2dGradFilterF32(const float *x, const float *dy, float *dw,
                             const ConvShape &s, ConvPath path);
/// conv_transpose2d without oneDNN: GEMM + col2im.
void convTranspose2dWithoutDnnlF32(const float *x, const float *w,
                                   const float *bias, float *y,
                                   const ConvShape &s);

} // namespace oneflow::kernels

#endif // ONEFLOW_LIB_KERNELS_CONV_H
