//===- CudnnStandIn.cpp - libcudnn.so.9 without a GPU ---------------------===//
//
// Convolutions computed with reference loops from the descriptors (NCHW,
// pads, strides, dilations, groups, cross-correlation or convolution), so
// wrong descriptors give wrong numbers; shapes that do not fit fail with
// CUDNN_STATUS_BAD_PARAM as in cuDNN.
//
//===----------------------------------------------------------------------===//

#include "CudnnApi.h"
#include "StandIn.h"

#include <cstring>
#include <type_traits>
#include <vector>

#define STANDIN_API extern "C" __attribute__((visibility("default")))

struct cudnnContext {
  CUstream stream = nullptr;
};
struct cudnnTensorStruct {
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int n = 0, c = 0, h = 0, w = 0;
};
struct cudnnFilterStruct {
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int k = 0, c = 0, h = 0, w = 0;
};
struct cudnnConvolutionStruct {
  int padH = 0, padW = 0, u = 1, v = 1, dilationH = 1, dilationW = 1;
  cudnnConvolutionMode_t mode = CUDNN_CONVOLUTION;
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

namespace {

constexpr size_t kForwardWorkspace = 4096; // what algorithm 1 "needs"

/// Whether y is the convolution's output for input x and filter w.
bool fits(const cudnnTensorStruct &x, const cudnnFilterStruct &w,
          const cudnnConvolutionStruct &conv, const cudnnTensorStruct &y) {
  auto out = [](int in, int kernel, int stride, int pad, int dilation) {
    return (in + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
  };
  return x.type == w.type && x.type == y.type && x.type == conv.compute &&
         conv.groups >= 1 && x.c == w.c * conv.groups &&
         w.k % conv.groups == 0 && y.c == w.k && x.n == y.n &&
         y.h == out(x.h, w.h, conv.u, conv.padH, conv.dilationH) &&
         y.w == out(x.w, w.w, conv.v, conv.padW, conv.dilationW);
}

size_t index(const cudnnTensorStruct &t, int n, int c, int h, int w) {
  return ((size_t(n) * t.c + c) * t.h + h) * t.w + w;
}

/// Calls f(xIndex, wIndex, yIndex) for every multiply-add of the
/// convolution x -> y.
template <typename F>
void forEachTap(const cudnnTensorStruct &x, const cudnnFilterStruct &w,
                const cudnnConvolutionStruct &conv, const cudnnTensorStruct &y,
                F f) {
  int kg = w.k / conv.groups;
  for (int n = 0; n < y.n; ++n)
    for (int k = 0; k < y.c; ++k) {
      int g = k / kg;
      for (int oy = 0; oy < y.h; ++oy)
        for (int ox = 0; ox < y.w; ++ox)
          for (int c = 0; c < w.c; ++c)
            for (int r = 0; r < w.h; ++r)
              for (int s = 0; s < w.w; ++s) {
                int iy = oy * conv.u - conv.padH + r * conv.dilationH;
                int ix = ox * conv.v - conv.padW + s * conv.dilationW;
                if (iy < 0 || iy >= x.h || ix < 0 || ix >= x.w)
                  continue;
                // CUDNN_CONVOLUTION flips the filter.
                int fr = conv.mode == CUDNN_CONVOLUTION ? w.h - 1 - r : r;
                int fs = conv.mode == CUDNN_CONVOLUTION ? w.w - 1 - s : s;
                size_t wi = ((size_t(k) * w.c + c) * w.h + fr) * w.w + fs;
                f(index(x, n, g * w.c + c, iy, ix), wi, index(y, n, k, oy, ox));
              }
    }
}

template <typename T>
void forward(const void *alpha, const cudnnTensorStruct &x, const void *xp,
             const cudnnFilterStruct &w, const void *wp,
             const cudnnConvolutionStruct &conv, const void *beta,
             const cudnnTensorStruct &y, void *yp) {
  std::vector<double> sum(size_t(y.n) * y.c * y.h * y.w, 0.0);
  const T *xs = static_cast<const T *>(xp), *ws = static_cast<const T *>(wp);
  forEachTap(x, w, conv, y, [&](size_t xi, size_t wi, size_t yi) {
    sum[yi] += double(xs[xi]) * ws[wi];
  });
  T a = *static_cast<const T *>(alpha), b = *static_cast<const T *>(beta);
  T *ys = static_cast<T *>(yp);
  for (size_t i = 0; i < sum.size(); ++i)
    ys[i] = T(a * sum[i] + (b != T(0) ? b * ys[i] : T(0)));
}

template <typename T>
void backwardData(const void *alpha, const cudnnFilterStruct &w, const void *wp,
                  const cudnnTensorStruct &dy, const void *dyp,
                  const cudnnConvolutionStruct &conv, const void *beta,
                  const cudnnTensorStruct &dx, void *dxp) {
  std::vector<double> sum(size_t(dx.n) * dx.c * dx.h * dx.w, 0.0);
  const T *ws = static_cast<const T *>(wp), *dys = static_cast<const T *>(dyp);
  forEachTap(dx, w, conv, dy, [&](size_t xi, size_t wi, size_t yi) {
    sum[xi] += double(ws[wi]) * dys[yi];
  });
  T a = *static_cast<const T *>(alpha), b = *static_cast<const T *>(beta);
  T *dxs = static_cast<T *>(dxp);
  for (size_t i = 0; i < sum.size(); ++i)
    dxs[i] = T(a * sum[i] + (b != T(0) ? b * dxs[i] : T(0)));
}

template <typename T>
void add(const void *alpha, const cudnnTensorStruct &a, const void *ap,
         const void *beta, const cudnnTensorStruct &c, void *cp) {
  const T *as = static_cast<const T *>(ap);
  T *cs = static_cast<T *>(cp);
  T al = *static_cast<const T *>(alpha), be = *static_cast<const T *>(beta);
  for (int n = 0; n < c.n; ++n)
    for (int ch = 0; ch < c.c; ++ch)
      for (int h = 0; h < c.h; ++h)
        for (int w = 0; w < c.w; ++w) {
          size_t ai = index(a, a.n == 1 ? 0 : n, a.c == 1 ? 0 : ch,
                            a.h == 1 ? 0 : h, a.w == 1 ? 0 : w);
          T &out = cs[index(c, n, ch, h, w)];
          out = al * as[ai] + be * out;
        }
}

void logConv(const char *call, cudnnHandle_t handle, const cudnnTensorStruct &x,
             const cudnnFilterStruct &w, const cudnnConvolutionStruct &conv,
             const cudnnTensorStruct &y, int algo, size_t workspace) {
  standin::log("%s stream=%d type=%s x=%d,%d,%d,%d w=%d,%d,%d,%d "
               "y=%d,%d,%d,%d pad=%d,%d stride=%d,%d dilation=%d,%d "
               "groups=%d mode=%d math=%d algo=%d workspace=%zu",
               call, standin::streamId(handle->stream),
               x.type == CUDNN_DATA_FLOAT ? "f32" : "f64", x.n, x.c, x.h, x.w,
               w.k, w.c, w.h, w.w, y.n, y.c, y.h, y.w, conv.padH, conv.padW,
               conv.u, conv.v, conv.dilationH, conv.dilationW, conv.groups,
               conv.mode, conv.math, algo, workspace);
}

} // namespace

STANDIN_API cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  *handle = new cudnnContext;
  standin::log("cudnnCreate");
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  delete handle;
  standin::log("cudnnDestroy");
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnSetStream(cudnnHandle_t handle,
                                         CUstream stream) {
  handle->stream = stream;
  standin::log("cudnnSetStream stream=%d", standin::streamId(stream));
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API const char *cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
  case CUDNN_STATUS_SUCCESS:
    return "CUDNN_STATUS_SUCCESS";
  case CUDNN_STATUS_BAD_PARAM:
    return "CUDNN_STATUS_BAD_PARAM";
  case CUDNN_STATUS_NOT_SUPPORTED:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  default:
    return "CUDNN_STATUS_UNKNOWN";
  }
}

STANDIN_API cudnnStatus_t
cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *desc) {
  *desc = new cudnnTensorStruct;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnSetTensor4dDescriptor(
    cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format,
    cudnnDataType_t type, int n, int c, int h, int w) {
  if (format != CUDNN_TENSOR_NCHW)
    return CUDNN_STATUS_NOT_SUPPORTED;
  if (n <= 0 || c <= 0 || h <= 0 || w <= 0)
    return CUDNN_STATUS_BAD_PARAM;
  *desc = {type, n, c, h, w};
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t
cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t
cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *desc) {
  *desc = new cudnnFilterStruct;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnSetFilter4dDescriptor(
    cudnnFilterDescriptor_t desc, cudnnDataType_t type,
    cudnnTensorFormat_t format, int k, int c, int h, int w) {
  if (format != CUDNN_TENSOR_NCHW)
    return CUDNN_STATUS_NOT_SUPPORTED;
  if (k <= 0 || c <= 0 || h <= 0 || w <= 0)
    return CUDNN_STATUS_BAD_PARAM;
  *desc = {type, k, c, h, w};
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t
cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t
cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *desc) {
  *desc = new cudnnConvolutionStruct;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnSetConvolution2dDescriptor(
    cudnnConvolutionDescriptor_t desc, int padH, int padW, int u, int v,
    int dilationH, int dilationW, cudnnConvolutionMode_t mode,
    cudnnDataType_t compute) {
  if (padH < 0 || padW < 0 || u <= 0 || v <= 0 || dilationH <= 0 ||
      dilationW <= 0)
    return CUDNN_STATUS_BAD_PARAM;
  desc->padH = padH;
  desc->padW = padW;
  desc->u = u;
  desc->v = v;
  desc->dilationH = dilationH;
  desc->dilationW = dilationW;
  desc->mode = mode;
  desc->compute = compute;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t
cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t desc, int groups) {
  if (groups < 1)
    return CUDNN_STATUS_BAD_PARAM;
  desc->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnSetConvolutionMathType(
    cudnnConvolutionDescriptor_t desc, cudnnMathType_t math) {
  desc->math = math;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t
cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t desc) {
  delete desc;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, int requested,
    int *returned, cudnnConvolutionFwdAlgoPerf_t *perf) {
  if (!fits(*x, *w, *conv, *y))
    return CUDNN_STATUS_BAD_PARAM;
  // Algorithm 1 (with a workspace) ranks first, then 0.
  *returned = 0;
  for (int algo : {1, 0}) {
    if (*returned == requested)
      break;
    cudnnConvolutionFwdAlgoPerf_t &p = perf[(*returned)++];
    std::memset(&p, 0, sizeof(p));
    p.algo = algo;
    p.status = CUDNN_STATUS_SUCCESS;
    p.memory = algo == 1 ? kForwardWorkspace : 0;
    p.determinism = CUDNN_DETERMINISTIC;
    p.mathType = conv->math;
  }
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y,
    cudnnConvolutionFwdAlgo_t algo, size_t *bytes) {
  if (!fits(*x, *w, *conv, *y) || algo < 0 || algo > 1)
    return CUDNN_STATUS_BAD_PARAM;
  *bytes = algo == 1 ? kForwardWorkspace : 0;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnConvolutionForward(
    cudnnHandle_t handle, const void *alpha, cudnnTensorDescriptor_t x,
    const void *xp, cudnnFilterDescriptor_t w, const void *wp,
    cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
    void *workspace, size_t workspaceBytes, const void *beta,
    cudnnTensorDescriptor_t y, void *yp) {
  size_t needed = algo == 1 ? kForwardWorkspace : 0;
  if (!fits(*x, *w, *conv, *y) || algo < 0 || algo > 1 ||
      workspaceBytes < needed || (needed && !workspace))
    return CUDNN_STATUS_BAD_PARAM;
  if (x->type == CUDNN_DATA_FLOAT)
    forward<float>(alpha, *x, xp, *w, wp, *conv, beta, *y, yp);
  else
    forward<double>(alpha, *x, xp, *w, wp, *conv, beta, *y, yp);
  logConv("cudnnConvolutionForward", handle, *x, *w, *conv, *y, algo,
          workspaceBytes);
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dx,
    int requested, int *returned, cudnnConvolutionBwdDataAlgoPerf_t *perf) {
  if (!fits(*dx, *w, *conv, *dy) || requested < 1)
    return CUDNN_STATUS_BAD_PARAM;
  std::memset(perf, 0, sizeof(*perf));
  perf->algo = 1;
  perf->status = CUDNN_STATUS_SUCCESS;
  perf->determinism = CUDNN_DETERMINISTIC;
  perf->mathType = conv->math;
  *returned = 1;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dx,
    cudnnConvolutionBwdDataAlgo_t algo, size_t *bytes) {
  if (!fits(*dx, *w, *conv, *dy))
    return CUDNN_STATUS_BAD_PARAM;
  *bytes = 0;
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnConvolutionBackwardData(
    cudnnHandle_t handle, const void *alpha, cudnnFilterDescriptor_t w,
    const void *wp, cudnnTensorDescriptor_t dy, const void *dyp,
    cudnnConvolutionDescriptor_t conv, cudnnConvolutionBwdDataAlgo_t algo,
    void *workspace, size_t workspaceBytes, const void *beta,
    cudnnTensorDescriptor_t dx, void *dxp) {
  if (!fits(*dx, *w, *conv, *dy))
    return CUDNN_STATUS_BAD_PARAM;
  if (dx->type == CUDNN_DATA_FLOAT)
    backwardData<float>(alpha, *w, wp, *dy, dyp, *conv, beta, *dx, dxp);
  else
    backwardData<double>(alpha, *w, wp, *dy, dyp, *conv, beta, *dx, dxp);
  logConv("cudnnConvolutionBackwardData", handle, *dx, *w, *conv, *dy, algo,
          workspaceBytes);
  return CUDNN_STATUS_SUCCESS;
}

STANDIN_API cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle,
                                         const void *alpha,
                                         cudnnTensorDescriptor_t a,
                                         const void *ap, const void *beta,
                                         cudnnTensorDescriptor_t c, void *cp) {
  auto broadcasts = [](int from, int to) { return from == 1 || from == to; };
  if (a->type != c->type || !broadcasts(a->n, c->n) ||
      !broadcasts(a->c, c->c) || !broadcasts(a->h, c->h) ||
      !broadcasts(a->w, c->w))
    return CUDNN_STATUS_BAD_PARAM;
  if (c->type == CUDNN_DATA_FLOAT)
    add<float>(alpha, *a, ap, beta, *c, cp);
  else
    add<double>(alpha, *a, ap, beta, *c, cp);
  standin::log("cudnnAddTensor stream=%d a=%d,%d,%d,%d c=%d,%d,%d,%d",
               standin::streamId(handle->stream), a->n, a->c, a->h, a->w, c->n,
               c->c, c->h, c->w);
  return CUDNN_STATUS_SUCCESS;
}

#define STANDIN_CHECK(MEMBER, SYMBOL, RET, PARAMS)                             \
  static_assert(std::is_same_v<decltype(&SYMBOL), RET(*) PARAMS>, #SYMBOL);
ONEFLOW_CUDNN_FUNCTIONS(STANDIN_CHECK)
