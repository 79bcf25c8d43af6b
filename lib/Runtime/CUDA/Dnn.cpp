//===- Dnn.cpp - Convolutions on a stream through cuDNN -------------------===//
//
// conv2d is cudnnConvolutionForward (cross-correlation, as the CPU kernels
// and ONNX compute it); conv_transpose2d is the adjoint of the convolution
// from y to x, cudnnConvolutionBackwardData with x as dy and y as dx, whose
// weights [c, k/groups, r, s] are that convolution's filter. The bias is
// added after with cudnnAddTensor.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/CUDA/Dnn.h"

#include "CudnnApi.h"
#include "Driver.h"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace oneflow {
namespace runtime {
namespace cuda {

namespace {

struct Cudnn {
  ONEFLOW_CUDNN_FUNCTIONS(ONEFLOW_CUDA_DECLARE_MEMBER)

  Status check(cudnnStatus_t status, const char *call) const {
    if (status == CUDNN_STATUS_SUCCESS)
      return Status::success();
    const char *text = getErrorString(status);
    std::ostringstream os;
    os << call << ": ";
    if (text)
      os << text;
    else
      os << "cuDNN error " << static_cast<int>(status);
    return Status::error(os.str());
  }
};

Expected<const Cudnn *> cudnn() {
  static std::once_flag once;
  static std::unique_ptr<Cudnn> library;
  static Status failure;
  std::call_once(once, [] {
    Expected<void *> opened =
        openLibrary("libcudnn.so.9", "no cuDNN (libcudnn.so.9)");
    if (!opened.ok()) {
      failure = opened.error();
      return;
    }
    void *handle = *opened;
    auto table = std::make_unique<Cudnn>();
    std::vector<std::string> missing;
    ONEFLOW_CUDNN_FUNCTIONS(ONEFLOW_CUDA_LOAD_REQUIRED)
    if (missing.empty())
      library = std::move(table);
    else
      failure = makeError("libcudnn.so.9 lacks ", missing.front());
  });
  if (!library)
    return failure;
  return static_cast<const Cudnn *>(library.get());
}

#define ONEFLOW_DNN_CHECK(DNN, CALL, ...)                                      \
  do {                                                                         \
    Status oneflowDnnStatus = (DNN).check((DNN).__VA_ARGS__, CALL);            \
    if (!oneflowDnnStatus.ok())                                                \
      return oneflowDnnStatus;                                                 \
  } while (false)

std::string describe(const ConvShape &s) {
  std::ostringstream os;
  os << (s.transpose ? "conv_transpose2d " : "conv2d ")
     << (s.dtype == DType::F32 ? "f32" : "f64") << " x=[" << s.n << "," << s.c
     << "," << s.h << "," << s.w << "] kernel=" << s.r << "x" << s.s << " y=["
     << s.n << "," << s.k << "," << s.oh << "," << s.ow
     << "] stride=" << s.strideH << "," << s.strideW << " pad=" << s.padH << ","
     << s.padW << " dilation=" << s.dilationH << "," << s.dilationW
     << " groups=" << s.groups;
  return os.str();
}

/// The output size of a convolution of `in` pixels with cuDNN's symmetric
/// padding.
int64_t convolved(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                  int64_t dilation) {
  return (in + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
}

struct Plan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algo = 0;
  size_t workspaceBytes = 0;
};

} // namespace

bool ConvShape::operator<(const ConvShape &o) const {
  auto key = [](const ConvShape &s) {
    return std::make_tuple(s.dtype, s.transpose, s.n, s.c, s.h, s.w, s.k, s.r,
                           s.s, s.oh, s.ow, s.strideH, s.strideW, s.padH,
                           s.padW, s.dilationH, s.dilationW, s.groups);
  };
  return key(*this) < key(o);
}

struct Dnn::Impl {
  Impl(const Device &device, Stream stream, const Cudnn &dnn)
      : device(device), stream(stream), dnn(dnn) {}
  ~Impl();

  Status build(const ConvShape &shape, Plan &plan);
  Status tensor(cudnnTensorDescriptor_t *desc, cudnnDataType_t type, int64_t n,
                int64_t c, int64_t h, int64_t w);
  Status reserveWorkspace(size_t bytes);
  void destroy(Plan &plan);

  const Device &device;
  Stream stream;
  const Cudnn &dnn;
  cudnnHandle_t handle = nullptr;
  bool tf32 = false;
  DevicePtr workspace = 0;
  size_t workspaceBytes = 0;
  std::map<ConvShape, Plan> plans;
};

void Dnn::Impl::destroy(Plan &plan) {
  if (plan.x)
    dnn.destroyTensorDescriptor(plan.x);
  if (plan.y)
    dnn.destroyTensorDescriptor(plan.y);
  if (plan.bias)
    dnn.destroyTensorDescriptor(plan.bias);
  if (plan.w)
    dnn.destroyFilterDescriptor(plan.w);
  if (plan.conv)
    dnn.destroyConvolutionDescriptor(plan.conv);
}

Dnn::Impl::~Impl() {
  for (auto &[shape, plan] : plans)
    destroy(plan);
  if (handle)
    dnn.destroy(handle);
  // The stream may still use the workspace; freeing needs the context.
  if (workspace && device.makeCurrent().ok() && device.synchronize(stream).ok())
    (void)device.free(workspace);
}

Status Dnn::Impl::tensor(cudnnTensorDescriptor_t *desc, cudnnDataType_t type,
                         int64_t n, int64_t c, int64_t h, int64_t w) {
  ONEFLOW_DNN_CHECK(dnn, "cudnnCreateTensorDescriptor",
                    createTensorDescriptor(desc));
  ONEFLOW_DNN_CHECK(
      dnn, "cudnnSetTensor4dDescriptor",
      setTensor4dDescriptor(*desc, CUDNN_TENSOR_NCHW, type, n, c, h, w));
  return Status::success();
}

Status Dnn::Impl::build(const ConvShape &s, Plan &plan) {
  for (int64_t value : {s.n, s.c, s.h, s.w, s.k, s.r, s.s, s.oh, s.ow})
    if (value > INT_MAX)
      return Status::error("a dimension exceeds cuDNN's int");
  // cuDNN pads both sides equally: the output size must be what that gives.
  int64_t outH = s.transpose ? s.h : s.oh, outW = s.transpose ? s.w : s.ow;
  int64_t inH = s.transpose ? s.oh : s.h, inW = s.transpose ? s.ow : s.w;
  if (convolved(inH, s.r, s.strideH, s.padH, s.dilationH) != outH ||
      convolved(inW, s.s, s.strideW, s.padW, s.dilationW) != outW)
    return Status::error("padding differs between the two sides of an axis "
                         "(cuDNN pads both sides equally)");
  cudnnDataType_t type =
      s.dtype == DType::F32 ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
  Status status = tensor(&plan.x, type, s.n, s.c, s.h, s.w);
  if (status.ok())
    status = tensor(&plan.y, type, s.n, s.k, s.oh, s.ow);
  if (status.ok())
    status = tensor(&plan.bias, type, 1, s.k, 1, 1);
  if (!status.ok())
    return status;
  ONEFLOW_DNN_CHECK(dnn, "cudnnCreateFilterDescriptor",
                    createFilterDescriptor(&plan.w));
  // conv2d: [k, c/g, r, s]; conv_transpose2d: [c, k/g, r, s], the filter of
  // the convolution from y (k channels) to x (c channels).
  ONEFLOW_DNN_CHECK(dnn, "cudnnSetFilter4dDescriptor",
                    setFilter4dDescriptor(plan.w, type, CUDNN_TENSOR_NCHW,
                                          s.transpose ? s.c : s.k,
                                          (s.transpose ? s.k : s.c) / s.groups,
                                          s.r, s.s));
  ONEFLOW_DNN_CHECK(dnn, "cudnnCreateConvolutionDescriptor",
                    createConvolutionDescriptor(&plan.conv));
  ONEFLOW_DNN_CHECK(dnn, "cudnnSetConvolution2dDescriptor",
                    setConvolution2dDescriptor(plan.conv, s.padH, s.padW,
                                               s.strideH, s.strideW,
                                               s.dilationH, s.dilationW,
                                               CUDNN_CROSS_CORRELATION, type));
  ONEFLOW_DNN_CHECK(dnn, "cudnnSetConvolutionGroupCount",
                    setConvolutionGroupCount(plan.conv, s.groups));
  // FMA math keeps f32 exact (no TF32) unless the user allowed TF32.
  ONEFLOW_DNN_CHECK(dnn, "cudnnSetConvolutionMathType",
                    setConvolutionMathType(plan.conv, tf32 ? CUDNN_DEFAULT_MATH
                                                           : CUDNN_FMA_MATH));
  // The heuristics' ranking, best first; the first that works is kept.
  int found = 0;
  if (!s.transpose) {
    cudnnConvolutionFwdAlgoPerf_t perf[8] = {};
    ONEFLOW_DNN_CHECK(dnn, "cudnnGetConvolutionForwardAlgorithm_v7",
                      getForwardAlgorithm(handle, plan.x, plan.w, plan.conv,
                                          plan.y, 8, &found, perf));
    int chosen = 0;
    while (chosen < found && perf[chosen].status != CUDNN_STATUS_SUCCESS)
      ++chosen;
    if (chosen == found)
      return Status::error("cudnnGetConvolutionForwardAlgorithm_v7: no "
                           "algorithm");
    plan.algo = perf[chosen].algo;
    ONEFLOW_DNN_CHECK(dnn, "cudnnGetConvolutionForwardWorkspaceSize",
                      getForwardWorkspaceSize(handle, plan.x, plan.w, plan.conv,
                                              plan.y, plan.algo,
                                              &plan.workspaceBytes));
  } else {
    cudnnConvolutionBwdDataAlgoPerf_t perf[8] = {};
    ONEFLOW_DNN_CHECK(dnn, "cudnnGetConvolutionBackwardDataAlgorithm_v7",
                      getBackwardDataAlgorithm(handle, plan.w, plan.x,
                                               plan.conv, plan.y, 8, &found,
                                               perf));
    int chosen = 0;
    while (chosen < found && perf[chosen].status != CUDNN_STATUS_SUCCESS)
      ++chosen;
    if (chosen == found)
      return Status::error("cudnnGetConvolutionBackwardDataAlgorithm_v7: no "
                           "algorithm");
    plan.algo = perf[chosen].algo;
    ONEFLOW_DNN_CHECK(dnn, "cudnnGetConvolutionBackwardDataWorkspaceSize",
                      getBackwardDataWorkspaceSize(handle, plan.w, plan.x,
                                                   plan.conv, plan.y, plan.algo,
                                                   &plan.workspaceBytes));
  }
  return Status::success();
}

Status Dnn::Impl::reserveWorkspace(size_t bytes) {
  if (bytes <= workspaceBytes)
    return Status::success();
  // Stream-ordered: the old workspace is freed after the work using it.
  if (workspace) {
    if (Status freed = device.freeAsync(workspace, stream); !freed.ok())
      return freed;
    workspace = 0;
    workspaceBytes = 0;
  }
  Expected<DevicePtr> fresh = device.allocateAsync(bytes, stream);
  if (!fresh.ok())
    return fresh.error();
  workspace = *fresh;
  workspaceBytes = bytes;
  return Status::success();
}

Dnn::Dnn(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Dnn::~Dnn() = default;

Expected<std::unique_ptr<Dnn>> Dnn::create(const Device &device,
                                           Stream stream) {
  Expected<const Cudnn *> library = cudnn();
  if (!library.ok())
    return library.error();
  const Cudnn &dnn = **library;
  auto impl = std::make_unique<Impl>(device, stream, dnn);
  const char *tf32 = std::getenv("ONEFLOW_CUDA_TF32");
  impl->tf32 = tf32 && std::strcmp(tf32, "1") == 0;
  ONEFLOW_DNN_CHECK(dnn, "cudnnCreate", create(&impl->handle));
  ONEFLOW_DNN_CHECK(dnn, "cudnnSetStream", setStream(impl->handle, stream));
  return std::unique_ptr<Dnn>(new Dnn(std::move(impl)));
}

Status Dnn::convolution(const ConvShape &shape, DevicePtr x, DevicePtr weights,
                        DevicePtr bias, DevicePtr y) {
  if (shape.n <= 0 || shape.k <= 0 || shape.oh <= 0 || shape.ow <= 0)
    return Status::success();
  if (shape.groups <= 0 || shape.c % shape.groups || shape.k % shape.groups)
    return makeError("cuDNN ", describe(shape),
                     ": channels not divisible by the groups");
  auto [entry, fresh] = impl->plans.try_emplace(shape);
  Plan &plan = entry->second;
  if (fresh) {
    if (Status built = impl->build(shape, plan); !built.ok()) {
      impl->destroy(plan);
      impl->plans.erase(entry);
      return makeError("cuDNN ", describe(shape), ": ", built.message());
    }
  }
  const Cudnn &dnn = impl->dnn;
  Status status = impl->reserveWorkspace(plan.workspaceBytes);
  float one32 = 1, zero32 = 0;
  double one64 = 1, zero64 = 0;
  bool f32 = shape.dtype == DType::F32;
  const void *one = f32 ? static_cast<const void *>(&one32) : &one64;
  const void *zero = f32 ? static_cast<const void *>(&zero32) : &zero64;
  auto pointer = [](DevicePtr address) {
    return reinterpret_cast<void *>(address);
  };
  void *workspace = pointer(impl->workspace);
  if (status.ok() && !shape.transpose)
    status = dnn.check(dnn.convolutionForward(
                           impl->handle, one, plan.x, pointer(x), plan.w,
                           pointer(weights), plan.conv, plan.algo, workspace,
                           plan.workspaceBytes, zero, plan.y, pointer(y)),
                       "cudnnConvolutionForward");
  else if (status.ok())
    status = dnn.check(dnn.convolutionBackwardData(
                           impl->handle, one, plan.w, pointer(weights), plan.x,
                           pointer(x), plan.conv, plan.algo, workspace,
                           plan.workspaceBytes, zero, plan.y, pointer(y)),
                       "cudnnConvolutionBackwardData");
  if (status.ok() && bias)
    status = dnn.check(dnn.addTensor(impl->handle, one, plan.bias,
                                     pointer(bias), one, plan.y, pointer(y)),
                       "cudnnAddTensor");
  if (!status.ok())
    return makeError("cuDNN ", describe(shape), ": ", status.message());
  return Status::success();
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
