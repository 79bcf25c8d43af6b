//===- Dnn.h - Convolutions on a stream through cuDNN -----------*- C++ -*-===//
//
// One Dnn per stream: a cuDNN handle (libcudnn.so.9, dlopen'd), and per
// convolution shape its descriptors and algorithm, chosen once. The
// arguments are those of the CPU kernel library's oneflow_conv2d_* and
// oneflow_conv_transpose2d_* (lib/Kernels/Conv.cpp), NCHW row-major.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CUDA_DNN_H
#define ONEFLOW_RUNTIME_CUDA_DNN_H

#include "oneflow/Runtime/CUDA/BlasLt.h"

namespace oneflow {
namespace runtime {
namespace cuda {

/// conv2d: x [n, c, h, w] * weights [k, c/groups, r, s] -> y [n, k, oh, ow].
/// conv_transpose2d (`transpose`, its adjoint, ONNX ConvTranspose):
/// x [n, c, h, w], weights [c, k/groups, r, s] -> y [n, k, oh, ow]. Padding
/// is padH / padW on both sides (cuDNN has no other); bias (k values) is
/// added after.
struct ConvShape {
  DType dtype = DType::F32;
  bool transpose = false;
  int64_t n = 0, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0, oh = 0, ow = 0;
  int64_t strideH = 1, strideW = 1, padH = 0, padW = 0;
  int64_t dilationH = 1, dilationW = 1, groups = 1;

  bool operator<(const ConvShape &other) const;
};

class Dnn {
public:
  static Expected<std::unique_ptr<Dnn>> create(const Device &device,
                                               Stream stream);
  ~Dnn();
  Dnn(const Dnn &) = delete;
  Dnn &operator=(const Dnn &) = delete;

  /// Enqueues the convolution on the stream; `bias` may be 0.
  Status convolution(const ConvShape &shape, DevicePtr x, DevicePtr weights,
                     DevicePtr bias, DevicePtr y);

  struct Impl;

private:
  explicit Dnn(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace cuda
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_CUDA_DNN_H
