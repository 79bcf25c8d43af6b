//===- KernelABI.cpp - The oneflow_cuda_* functions -----------------------===//
//
// What a CUDA plan's kernels.so calls, on the calling thread's TaskContext.
// A failure is recorded there (the first one wins) and makes the task's
// later calls no-ops: the runtime reports it once the kernel entry returns.
// Nothing here blocks on the device.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/CUDA/KernelABI.h"

#include "oneflow/Runtime/CUDA/TaskContext.h"

#include "Driver.h"

#include <atomic>
#include <cstdio>
#include <vector>

using namespace oneflow::runtime;
using namespace oneflow::runtime::cuda;

namespace {

/// The context to work on, or null when there is none or the task already
/// failed.
TaskContext *active() {
  TaskContext *context = currentTaskContext();
  if (!context) {
    // Nowhere to record it: a bug of the caller, said once.
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      std::fprintf(stderr, "oneflow_cuda_*: called outside a CUDA task\n");
    return nullptr;
  }
  return context->failed() ? nullptr : context;
}

Status launch(TaskContext &context, int64_t kernel, const int64_t grid[3],
              const int64_t block[3], int64_t sharedBytes, int64_t *args,
              int64_t numArgs) {
  const std::vector<GpuFunction> &functions = context.functions();
  if (kernel < 0 || kernel >= static_cast<int64_t>(functions.size()))
    return makeError("GPU kernel #", kernel, " launched, the plan has ",
                     functions.size());
  const GpuFunction &function = functions[kernel];
  if (numArgs < 0 || (numArgs > 0 && !args))
    return makeError("GPU kernel ", function.name, ": bad arguments (", numArgs,
                     " at ", static_cast<void *>(args), ")");
  if (function.paramCount >= 0 && function.paramCount != numArgs)
    return makeError("GPU kernel ", function.name, " takes ",
                     function.paramCount, " parameters, the launch passes ",
                     numArgs);
  for (int i = 0; i < 3; ++i)
    if (grid[i] <= 0 || grid[i] > UINT32_MAX || block[i] <= 0 ||
        block[i] > UINT32_MAX)
      return makeError("GPU kernel ", function.name, ": bad launch grid ",
                       grid[0], "x", grid[1], "x", grid[2], " block ", block[0],
                       "x", block[1], "x", block[2]);
  if (sharedBytes < 0 || sharedBytes > UINT32_MAX)
    return makeError("GPU kernel ", function.name, ": bad shared memory size ",
                     sharedBytes);
  // cuLaunchKernel takes a pointer to each parameter's value.
  std::vector<void *> params(numArgs);
  for (int64_t i = 0; i < numArgs; ++i)
    params[i] = &args[i];
  const Driver &api = context.device().driver();
  Status launched =
      api.check(api.launchKernel(function.handle, grid[0], grid[1], grid[2],
                                 block[0], block[1], block[2], sharedBytes,
                                 context.stream(), params.data(), nullptr),
                "cuLaunchKernel");
  if (!launched.ok())
    return makeError("GPU kernel ", function.name, ": ", launched.message());
  return Status::success();
}

void matmul(const MatmulShape &shape, int64_t a, int64_t b, int64_t c,
            int64_t bias = 0, int64_t aux = 0) {
  TaskContext *context = active();
  if (!context)
    return;
  Expected<BlasLt *> blas = context->blasLt();
  if (!blas.ok())
    return context->recordError(blas.error());
  MatmulObserver *observer = context->matmulObserver();
  if (observer)
    observer->beforeMatmul(shape);
  context->recordError((*blas)->matmul(shape, a, b, c, bias, aux));
  if (observer)
    observer->afterMatmul(shape);
}

/// A plain product's shape; batched and epilogue products add to it.
MatmulShape productShape(DType dtype, int64_t m, int64_t n, int64_t k,
                         int64_t ta, int64_t tb) {
  MatmulShape shape;
  shape.dtype = dtype;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  shape.transposeA = ta;
  shape.transposeB = tb;
  return shape;
}

void gemm(DType dtype, bool accumulate, int64_t a, int64_t b, int64_t c,
          int64_t m, int64_t n, int64_t k, int64_t ta, int64_t tb) {
  MatmulShape shape = productShape(dtype, m, n, k, ta, tb);
  shape.accumulate = accumulate;
  matmul(shape, a, b, c);
}

void batchGemm(DType dtype, bool accumulate, int64_t a, int64_t b, int64_t c,
               int64_t batch, int64_t m, int64_t n, int64_t k, int64_t ta,
               int64_t tb, int64_t strideA, int64_t strideB) {
  MatmulShape shape = productShape(dtype, m, n, k, ta, tb);
  shape.batch = batch;
  shape.strideA = strideA;
  shape.strideB = strideB;
  shape.accumulate = accumulate;
  matmul(shape, a, b, c);
}

void gemmEpilogue(Epilogue epilogue, int64_t a, int64_t b, int64_t bias,
                  int64_t c, int64_t m, int64_t n, int64_t k, int64_t ta,
                  int64_t tb) {
  MatmulShape shape = productShape(DType::F32, m, n, k, ta, tb);
  shape.epilogue = epilogue;
  matmul(shape, a, b, c, bias);
}

void gemmAux(Epilogue epilogue, int64_t a, int64_t b, int64_t bias, int64_t c,
             int64_t aux, int64_t m, int64_t n, int64_t k, int64_t ta,
             int64_t tb) {
  MatmulShape shape = productShape(DType::F32, m, n, k, ta, tb);
  shape.epilogue = epilogue;
  matmul(shape, a, b, c, bias, aux);
}

void convolution(DType dtype, bool transpose, int64_t x, int64_t w,
                 int64_t bias, int64_t y, int64_t n, int64_t c, int64_t h,
                 int64_t wd, int64_t k, int64_t r, int64_t s, int64_t oh,
                 int64_t ow, int64_t strideH, int64_t strideW, int64_t padH,
                 int64_t padW, int64_t dilationH, int64_t dilationW,
                 int64_t groups) {
  TaskContext *context = active();
  if (!context)
    return;
  Expected<Dnn *> dnn = context->dnn();
  if (!dnn.ok())
    return context->recordError(dnn.error());
  ConvShape shape{dtype,   transpose, n,    c,         h,         wd,
                  k,       r,         s,    oh,        ow,        strideH,
                  strideW, padH,      padW, dilationH, dilationW, groups};
  context->recordError((*dnn)->convolution(shape, x, w, bias, y));
}

} // namespace

ONEFLOW_CUDA_ABI void oneflow_cuda_launch(int64_t kernel, int64_t gridX,
                                          int64_t gridY, int64_t gridZ,
                                          int64_t blockX, int64_t blockY,
                                          int64_t blockZ, int64_t sharedBytes,
                                          int64_t *args, int64_t numArgs) {
  TaskContext *context = active();
  if (!context)
    return;
  int64_t grid[3] = {gridX, gridY, gridZ}, block[3] = {blockX, blockY, blockZ};
  context->recordError(
      launch(*context, kernel, grid, block, sharedBytes, args, numArgs));
}

ONEFLOW_CUDA_ABI void *oneflow_cuda_alloc(int64_t bytes) {
  TaskContext *context = active();
  if (!context)
    return nullptr;
  if (bytes < 0) {
    context->recordError(makeError("scratch allocation of ", bytes, " bytes"));
    return nullptr;
  }
  Expected<DevicePtr> pointer =
      context->device().allocateAsync(bytes, context->stream());
  if (!pointer.ok()) {
    context->recordError(pointer.error());
    return nullptr;
  }
  return reinterpret_cast<void *>(*pointer);
}

ONEFLOW_CUDA_ABI void oneflow_cuda_free(void *pointer) {
  TaskContext *context = active();
  if (!context || !pointer)
    return;
  context->recordError(context->device().freeAsync(
      reinterpret_cast<DevicePtr>(pointer), context->stream()));
}

#define ONEFLOW_CUDA_GEMM_ENTRIES(SUFFIX, DTYPE, ACCUMULATE)                   \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX(                            \
      int64_t a, int64_t b, int64_t c, int64_t m, int64_t n, int64_t k,        \
      int64_t transposeA, int64_t transposeB) {                                \
    gemm(DTYPE, ACCUMULATE, a, b, c, m, n, k, transposeA, transposeB);         \
  }                                                                            \
  ONEFLOW_CUDA_ABI void oneflow_cuda_batch_gemm_##SUFFIX(                      \
      int64_t a, int64_t b, int64_t c, int64_t batch, int64_t m, int64_t n,    \
      int64_t k, int64_t transposeA, int64_t transposeB, int64_t strideA,      \
      int64_t strideB) {                                                       \
    batchGemm(DTYPE, ACCUMULATE, a, b, c, batch, m, n, k, transposeA,          \
              transposeB, strideA, strideB);                                   \
  }
ONEFLOW_CUDA_GEMM_ENTRIES(f32, DType::F32, false)
ONEFLOW_CUDA_GEMM_ENTRIES(f64, DType::F64, false)
ONEFLOW_CUDA_GEMM_ENTRIES(acc_f32, DType::F32, true)
ONEFLOW_CUDA_GEMM_ENTRIES(acc_f64, DType::F64, true)
ONEFLOW_CUDA_GEMM_ENTRIES(bf16, DType::BF16, false)
ONEFLOW_CUDA_GEMM_ENTRIES(f16, DType::F16, false)
ONEFLOW_CUDA_GEMM_ENTRIES(acc_bf16, DType::BF16, true)
ONEFLOW_CUDA_GEMM_ENTRIES(acc_f16, DType::F16, true)
#undef ONEFLOW_CUDA_GEMM_ENTRIES

#define ONEFLOW_CUDA_EPILOGUE_ENTRY(SUFFIX, EPILOGUE)                          \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX(                            \
      int64_t a, int64_t b, int64_t bias, int64_t c, int64_t m, int64_t n,     \
      int64_t k, int64_t transposeA, int64_t transposeB) {                     \
    gemmEpilogue(EPILOGUE, a, b, bias, c, m, n, k, transposeA, transposeB);    \
  }
ONEFLOW_CUDA_EPILOGUE_ENTRY(bias_f32, Epilogue::Bias)
ONEFLOW_CUDA_EPILOGUE_ENTRY(bias_relu_f32, Epilogue::BiasRelu)
ONEFLOW_CUDA_EPILOGUE_ENTRY(bias_gelu_f32, Epilogue::BiasGelu)
ONEFLOW_CUDA_EPILOGUE_ENTRY(bgrad_a_f32, Epilogue::BiasGradA)
ONEFLOW_CUDA_EPILOGUE_ENTRY(bgrad_b_f32, Epilogue::BiasGradB)
#undef ONEFLOW_CUDA_EPILOGUE_ENTRY

#define ONEFLOW_CUDA_AUX_FORWARD_ENTRY(SUFFIX, EPILOGUE)                       \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX(                            \
      int64_t a, int64_t b, int64_t bias, int64_t c, int64_t aux, int64_t m,   \
      int64_t n, int64_t k, int64_t transposeA, int64_t transposeB) {          \
    gemmAux(EPILOGUE, a, b, bias, c, aux, m, n, k, transposeA, transposeB);    \
  }
ONEFLOW_CUDA_AUX_FORWARD_ENTRY(bias_relu_aux_f32, Epilogue::BiasReluAux)
ONEFLOW_CUDA_AUX_FORWARD_ENTRY(bias_gelu_aux_f32, Epilogue::BiasGeluAux)
#undef ONEFLOW_CUDA_AUX_FORWARD_ENTRY

#define ONEFLOW_CUDA_AUX_GRADIENT_ENTRIES(SUFFIX, EPILOGUE, WITH_BIAS)         \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX##_f32(                      \
      int64_t a, int64_t b, int64_t aux, int64_t c, int64_t m, int64_t n,      \
      int64_t k, int64_t transposeA, int64_t transposeB) {                     \
    gemmAux(EPILOGUE, a, b, 0, c, aux, m, n, k, transposeA, transposeB);       \
  }                                                                            \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX##_bgrad_f32(                \
      int64_t a, int64_t b, int64_t aux, int64_t c, int64_t bias, int64_t m,   \
      int64_t n, int64_t k, int64_t transposeA, int64_t transposeB) {          \
    gemmAux(WITH_BIAS, a, b, bias, c, aux, m, n, k, transposeA, transposeB);   \
  }
ONEFLOW_CUDA_AUX_GRADIENT_ENTRIES(drelu, Epilogue::DRelu,
                                  Epilogue::DReluBiasGrad)
ONEFLOW_CUDA_AUX_GRADIENT_ENTRIES(dgelu, Epilogue::DGelu,
                                  Epilogue::DGeluBiasGrad)
#undef ONEFLOW_CUDA_AUX_GRADIENT_ENTRIES

#define ONEFLOW_CUDA_CONV_ENTRY(NAME, DTYPE, TRANSPOSE)                        \
  ONEFLOW_CUDA_ABI void oneflow_cuda_##NAME(                                   \
      int64_t x, int64_t w, int64_t bias, int64_t y, int64_t n, int64_t c,     \
      int64_t h, int64_t wd, int64_t k, int64_t r, int64_t s, int64_t oh,      \
      int64_t ow, int64_t strideH, int64_t strideW, int64_t padH,              \
      int64_t padW, int64_t dilationH, int64_t dilationW, int64_t groups) {    \
    convolution(DTYPE, TRANSPOSE, x, w, bias, y, n, c, h, wd, k, r, s, oh, ow, \
                strideH, strideW, padH, padW, dilationH, dilationW, groups);   \
  }
ONEFLOW_CUDA_CONV_ENTRY(conv2d_f32, DType::F32, false)
ONEFLOW_CUDA_CONV_ENTRY(conv2d_f64, DType::F64, false)
ONEFLOW_CUDA_CONV_ENTRY(conv_transpose2d_f32, DType::F32, true)
ONEFLOW_CUDA_CONV_ENTRY(conv_transpose2d_f64, DType::F64, true)
#undef ONEFLOW_CUDA_CONV_ENTRY
