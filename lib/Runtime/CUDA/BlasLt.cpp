//===- BlasLt.cpp - Matrix products on a stream through cuBLASLt ----------===//
//
// cuBLASLt is column-major; our operands are row-major. A row-major [r, c]
// matrix is the column-major [c, r] one, so c = op(a) op(b) is computed as
// c^T = op(b)^T op(a)^T: cuBLASLt's A is our b, its B our a, and its D
// (n rows, m columns) is our row-major c. The epilogue's bias, one value
// per row of D, is then one per column of c, as the ABI wants; an aux
// matrix in D's layout (its leading dimension at least D's n rows) is
// row-major [m, ld] for us, a row of aux per row of c.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/CUDA/BlasLt.h"

#include "CublasLtApi.h"
#include "Driver.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace oneflow {
namespace runtime {
namespace cuda {

namespace {

struct CublasLt {
  ONEFLOW_CUBLASLT_FUNCTIONS(ONEFLOW_CUDA_DECLARE_MEMBER)

  /// Success, or "<call>: <status name> (<status string>)".
  Status check(cublasStatus_t status, const char *call) const {
    if (status == CUBLAS_STATUS_SUCCESS)
      return Status::success();
    const char *name = getStatusName(status);
    const char *text = getStatusString(status);
    std::ostringstream os;
    os << call << ": " << (name ? name : "cuBLAS error");
    if (!name)
      os << " " << static_cast<int>(status);
    if (text)
      os << " (" << text << ")";
    return Status::error(os.str());
  }
};

/// The process's cuBLASLt, loaded on first use.
Expected<const CublasLt *> cublasLt() {
  static std::once_flag once;
  static std::unique_ptr<CublasLt> library;
  static Status failure;
  std::call_once(once, [] {
    Expected<void *> opened =
        openLibrary("libcublasLt.so.13", "no cuBLASLt (libcublasLt.so.13)");
    if (!opened.ok()) {
      failure = opened.error();
      return;
    }
    void *handle = *opened;
    auto table = std::make_unique<CublasLt>();
    std::vector<std::string> missing;
    ONEFLOW_CUBLASLT_FUNCTIONS(ONEFLOW_CUDA_LOAD_REQUIRED)
    if (missing.empty())
      library = std::move(table);
    else
      failure = makeError("libcublasLt.so.13 lacks ", missing.front());
  });
  if (!library)
    return failure;
  return static_cast<const CublasLt *>(library.get());
}

#define ONEFLOW_LT_CHECK(LT, CALL, ...)                                        \
  do {                                                                         \
    Status oneflowLtStatus = (LT).check((LT).__VA_ARGS__, CALL);               \
    if (!oneflowLtStatus.ok())                                                 \
      return oneflowLtStatus;                                                  \
  } while (false)

bool isBiasGradient(Epilogue epilogue) {
  return epilogue == Epilogue::BiasGradA || epilogue == Epilogue::BiasGradB;
}

/// The activation gradients DRELU / DGELU, with or without the bias
/// gradient.
bool isActivationGradient(Epilogue epilogue) {
  return epilogue == Epilogue::DRelu || epilogue == Epilogue::DReluBiasGrad ||
         epilogue == Epilogue::DGelu || epilogue == Epilogue::DGeluBiasGrad;
}

/// Whether the epilogue reads or writes the bias pointer.
bool usesBias(Epilogue epilogue) {
  return epilogue != Epilogue::None && epilogue != Epilogue::DRelu &&
         epilogue != Epilogue::DGelu;
}

/// What cuBLASLt is told an aux pointer is before the real one is known:
/// it takes the pointer's alignment from its value when it picks an
/// algorithm (cublasLt.h, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER), and
/// wants one set for the aux epilogues. Plan registers are 64-byte
/// aligned, scratch buffers 256.
constexpr uintptr_t kAuxAlignment = 64;

cudaDataType dataType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return CUDA_R_32F;
  case DType::F64:
    return CUDA_R_64F;
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::F16:
    return CUDA_R_16F;
  }
  return CUDA_R_32F;
}

std::string describe(const MatmulShape &s) {
  std::ostringstream os;
  os << dtypeName(s.dtype) << " product m=" << s.m << " n=" << s.n
     << " k=" << s.k << " transposeA=" << s.transposeA
     << " transposeB=" << s.transposeB;
  if (s.batch != 1)
    os << " batch=" << s.batch << " strideA=" << s.strideA
       << " strideB=" << s.strideB;
  if (s.epilogue != Epilogue::None)
    os << " epilogue=" << epilogueName(s.epilogue);
  if (s.accumulate)
    os << " accumulate";
  return os.str();
}

/// The descriptors and algorithm of one product shape.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo = {};
};

template <typename T>
Status setAttribute(const CublasLt &lt, cublasLtMatmulDesc_t desc,
                    cublasLtMatmulDescAttributes_t attribute, T value) {
  return lt.check(
      lt.matmulDescSetAttribute(desc, attribute, &value, sizeof(value)),
      "cublasLtMatmulDescSetAttribute");
}

template <typename T>
Status setAttribute(const CublasLt &lt, cublasLtMatrixLayout_t layout,
                    cublasLtMatrixLayoutAttribute_t attribute, T value) {
  return lt.check(
      lt.matrixLayoutSetAttribute(layout, attribute, &value, sizeof(value)),
      "cublasLtMatrixLayoutSetAttribute");
}

#define ONEFLOW_RETURN_IF_ERROR(EXPR)                                          \
  do {                                                                         \
    Status oneflowStatus = (EXPR);                                             \
    if (!oneflowStatus.ok())                                                   \
      return oneflowStatus;                                                    \
  } while (false)

} // namespace

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  }
  return "?";
}

DType dtypeNamed(const std::string &name) {
  for (DType dtype : {DType::F64, DType::BF16, DType::F16})
    if (name == dtypeName(dtype))
      return dtype;
  return DType::F32;
}

size_t elementBytes(DType dtype) {
  return dtype == DType::F64 ? 8 : dtype == DType::F32 ? 4 : 2;
}

const char *epilogueName(Epilogue epilogue) {
  switch (epilogue) {
  case Epilogue::None:
    return "none";
  case Epilogue::Bias:
    return "bias";
  case Epilogue::BiasRelu:
    return "bias_relu";
  case Epilogue::BiasGelu:
    return "bias_gelu";
  case Epilogue::BiasGradA:
    return "bias_grad_a";
  case Epilogue::BiasGradB:
    return "bias_grad_b";
  case Epilogue::BiasReluAux:
    return "bias_relu_aux";
  case Epilogue::BiasGeluAux:
    return "bias_gelu_aux";
  case Epilogue::DRelu:
    return "drelu";
  case Epilogue::DReluBiasGrad:
    return "drelu_bias_grad";
  case Epilogue::DGelu:
    return "dgelu";
  case Epilogue::DGeluBiasGrad:
    return "dgelu_bias_grad";
  }
  return "?";
}

bool hasAux(Epilogue epilogue) {
  return epilogue == Epilogue::BiasReluAux ||
         epilogue == Epilogue::BiasGeluAux || isActivationGradient(epilogue);
}

int64_t auxLeadingDimension(Epilogue epilogue, int64_t n) {
  switch (epilogue) {
  case Epilogue::BiasReluAux:
  case Epilogue::DRelu:
  case Epilogue::DReluBiasGrad:
    return (n + 127) / 128 * 128; // bits
  case Epilogue::BiasGeluAux:
  case Epilogue::DGelu:
  case Epilogue::DGeluBiasGrad:
    return (n + 7) / 8 * 8; // elements
  default:
    return 0;
  }
}

bool MatmulShape::operator<(const MatmulShape &o) const {
  auto key = [](const MatmulShape &s) {
    return std::make_tuple(s.dtype, s.m, s.n, s.k, s.transposeA, s.transposeB,
                           s.batch, s.strideA, s.strideB, s.epilogue,
                           s.accumulate);
  };
  return key(*this) < key(o);
}

struct BlasLt::Impl {
  Impl(const Device &device, Stream stream, const CublasLt &lt)
      : device(device), stream(stream), lt(lt) {}
  ~Impl();

  Status build(const MatmulShape &shape, Plan &plan);
  Status layout(cublasLtMatrixLayout_t *layout, cudaDataType type,
                uint64_t rows, uint64_t cols, int64_t ld, int64_t batch,
                int64_t stride);

  const Device &device;
  Stream stream;
  const CublasLt &lt;
  cublasLtHandle_t handle = nullptr;
  DevicePtr workspace = 0;
  bool tf32 = false;
  std::map<MatmulShape, Plan> plans;
};

BlasLt::Impl::~Impl() {
  for (auto &[shape, plan] : plans) {
    if (plan.a)
      lt.matrixLayoutDestroy(plan.a);
    if (plan.b)
      lt.matrixLayoutDestroy(plan.b);
    if (plan.c)
      lt.matrixLayoutDestroy(plan.c);
    if (plan.desc)
      lt.matmulDescDestroy(plan.desc);
  }
  if (handle)
    lt.destroy(handle);
  // The stream may still use the workspace; freeing needs the context.
  if (workspace && device.makeCurrent().ok() && device.synchronize(stream).ok())
    (void)device.free(workspace);
}

Status BlasLt::Impl::layout(cublasLtMatrixLayout_t *result, cudaDataType type,
                            uint64_t rows, uint64_t cols, int64_t ld,
                            int64_t batch, int64_t stride) {
  ONEFLOW_LT_CHECK(lt, "cublasLtMatrixLayoutCreate",
                   matrixLayoutCreate(result, type, rows, cols, ld));
  if (batch == 1)
    return Status::success();
  ONEFLOW_RETURN_IF_ERROR(setAttribute(lt, *result,
                                       CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                       static_cast<int32_t>(batch)));
  return setAttribute(lt, *result, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                      static_cast<int64_t>(stride));
}

Status BlasLt::Impl::build(const MatmulShape &s, Plan &plan) {
  cudaDataType type = dataType(s.dtype);
  // bf16/f16: the tensor cores' products summed in f32 (alpha and beta
  // f32), as CUBLAS_COMPUTE_32F with 16-bit A/B/C/D is documented to do.
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType scale = CUDA_R_32F;
  if (s.dtype == DType::F32 && tf32)
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  if (s.dtype == DType::F64) {
    compute = CUBLAS_COMPUTE_64F;
    scale = CUDA_R_64F;
  }
  ONEFLOW_LT_CHECK(lt, "cublasLtMatmulDescCreate",
                   matmulDescCreate(&plan.desc, compute, scale));
  // Swapped operands (see the file comment).
  ONEFLOW_RETURN_IF_ERROR(setAttribute(
      lt, plan.desc, CUBLASLT_MATMUL_DESC_TRANSA,
      static_cast<int32_t>(s.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N)));
  ONEFLOW_RETURN_IF_ERROR(setAttribute(
      lt, plan.desc, CUBLASLT_MATMUL_DESC_TRANSB,
      static_cast<int32_t>(s.transposeA ? CUBLAS_OP_T : CUBLAS_OP_N)));
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  switch (s.epilogue) {
  case Epilogue::None:
    break;
  case Epilogue::Bias:
    epilogue = CUBLASLT_EPILOGUE_BIAS;
    break;
  case Epilogue::BiasRelu:
    epilogue = CUBLASLT_EPILOGUE_RELU_BIAS;
    break;
  case Epilogue::BiasGelu:
    epilogue = CUBLASLT_EPILOGUE_GELU_BIAS;
    break;
  // Swapped operands: our a is cuBLASLt's B, our b its A.
  case Epilogue::BiasGradA:
    epilogue = CUBLASLT_EPILOGUE_BGRADB;
    break;
  case Epilogue::BiasGradB:
    epilogue = CUBLASLT_EPILOGUE_BGRADA;
    break;
  case Epilogue::BiasReluAux:
    epilogue = CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
    break;
  case Epilogue::BiasGeluAux:
    epilogue = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
    break;
  case Epilogue::DRelu:
    epilogue = CUBLASLT_EPILOGUE_DRELU;
    break;
  case Epilogue::DReluBiasGrad:
    epilogue = CUBLASLT_EPILOGUE_DRELU_BGRAD;
    break;
  case Epilogue::DGelu:
    epilogue = CUBLASLT_EPILOGUE_DGELU;
    break;
  case Epilogue::DGeluBiasGrad:
    epilogue = CUBLASLT_EPILOGUE_DGELU_BGRAD;
    break;
  }
  if (s.epilogue != Epilogue::None)
    ONEFLOW_RETURN_IF_ERROR(
        setAttribute(lt, plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue));
  if (usesBias(s.epilogue)) {
    ONEFLOW_RETURN_IF_ERROR(setAttribute(lt, plan.desc,
                                         CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                                         static_cast<int32_t>(type)));
    // One bias for every batch.
    if (s.batch != 1)
      ONEFLOW_RETURN_IF_ERROR(setAttribute(
          lt, plan.desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, int64_t(0)));
  }
  if (hasAux(s.epilogue)) {
    ONEFLOW_RETURN_IF_ERROR(setAttribute(lt, plan.desc,
                                         CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD,
                                         auxLeadingDimension(s.epilogue, s.n)));
    ONEFLOW_RETURN_IF_ERROR(
        setAttribute(lt, plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                     reinterpret_cast<const void *>(kAuxAlignment)));
  }
  uint64_t m = s.m, n = s.n, k = s.k;
  // cuBLASLt's A = our b: column-major [n, k], or [k, n] when transposed.
  ONEFLOW_RETURN_IF_ERROR(
      layout(&plan.a, type, s.transposeB ? k : n, s.transposeB ? n : k,
             std::max<int64_t>(s.transposeB ? k : n, 1), s.batch, s.strideB));
  // cuBLASLt's B = our a: column-major [k, m], or [m, k] when transposed.
  ONEFLOW_RETURN_IF_ERROR(
      layout(&plan.b, type, s.transposeA ? m : k, s.transposeA ? k : m,
             std::max<int64_t>(s.transposeA ? m : k, 1), s.batch, s.strideA));
  ONEFLOW_RETURN_IF_ERROR(
      layout(&plan.c, type, n, m, std::max<int64_t>(n, 1), s.batch, s.m * s.n));

  cublasLtMatmulPreference_t preference = nullptr;
  ONEFLOW_LT_CHECK(lt, "cublasLtMatmulPreferenceCreate",
                   preferenceCreate(&preference));
  uint64_t workspaceBytes = kWorkspaceBytes;
  cublasStatus_t status = lt.preferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
      sizeof(workspaceBytes));
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = lt.algoGetHeuristic(handle, plan.desc, plan.a, plan.b, plan.c,
                                 plan.c, preference, 1, &result, &found);
  lt.preferenceDestroy(preference);
  ONEFLOW_RETURN_IF_ERROR(lt.check(status, "cublasLtMatmulAlgoGetHeuristic"));
  if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS)
    return Status::error("cublasLtMatmulAlgoGetHeuristic: no algorithm");
  plan.algo = result.algo;
  return Status::success();
}

BlasLt::BlasLt(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
BlasLt::~BlasLt() = default;

Expected<std::unique_ptr<BlasLt>> BlasLt::create(const Device &device,
                                                 Stream stream) {
  Expected<const CublasLt *> library = cublasLt();
  if (!library.ok())
    return library.error();
  const CublasLt &lt = **library;
  auto impl = std::make_unique<Impl>(device, stream, lt);
  const char *tf32 = std::getenv("ONEFLOW_CUDA_TF32");
  impl->tf32 = tf32 && std::strcmp(tf32, "1") == 0;
  ONEFLOW_LT_CHECK(lt, "cublasLtCreate", create(&impl->handle));
  Expected<DevicePtr> workspace = device.allocate(kWorkspaceBytes);
  if (!workspace.ok())
    return workspace.error();
  impl->workspace = *workspace;
  return std::unique_ptr<BlasLt>(new BlasLt(std::move(impl)));
}

Status BlasLt::matmul(const MatmulShape &shape, DevicePtr a, DevicePtr b,
                      DevicePtr c, DevicePtr bias, DevicePtr aux) {
  if (shape.m <= 0 || shape.n <= 0 || shape.batch <= 0)
    return Status::success();
  if (usesBias(shape.epilogue) && !bias)
    return makeError("cuBLASLt ", describe(shape), ": no bias");
  if (hasAux(shape.epilogue) && !aux)
    return makeError("cuBLASLt ", describe(shape), ": no aux");
  if (hasAux(shape.epilogue) &&
      (shape.batch != 1 || shape.accumulate || shape.dtype != DType::F32))
    return makeError("cuBLASLt ", describe(shape),
                     ": activation aux epilogues are for one f32 product "
                     "into c");
  // NVIDIA's nvmath-python refuses DRELU / DGELU products with k = 1,
  // which cuBLASLt does not run.
  if (isActivationGradient(shape.epilogue) && shape.k == 1)
    return makeError("cuBLASLt ", describe(shape),
                     ": no activation gradient epilogue with k = 1");
  // cuBLASLt sums its A untransposed (BGRADA) and its B transposed
  // (BGRADB), the layouts of a weight gradient X^T dY.
  if ((shape.epilogue == Epilogue::BiasGradA && !shape.transposeA) ||
      (shape.epilogue == Epilogue::BiasGradB && shape.transposeB))
    return makeError("cuBLASLt ", describe(shape),
                     ": the bias gradient of a needs a transposed, of b b "
                     "untransposed");
  if (isBiasGradient(shape.epilogue) &&
      (shape.batch != 1 || shape.accumulate || shape.dtype != DType::F32))
    return makeError("cuBLASLt ", describe(shape),
                     ": bias gradients are for one f32 product into c");
  // An empty sum: c is 0 (or stays), and so is a bias gradient (and an
  // activation's gradient of it); not every algorithm takes k = 0.
  size_t element = elementBytes(shape.dtype);
  bool zeroGradient =
      isBiasGradient(shape.epilogue) || isActivationGradient(shape.epilogue);
  if (shape.k <= 0 && zeroGradient && usesBias(shape.epilogue)) {
    int64_t length = shape.epilogue == Epilogue::BiasGradA ? shape.m : shape.n;
    if (Status zeroed = impl->device.zero(bias, length * element, impl->stream);
        !zeroed.ok())
      return zeroed;
  }
  if (shape.k <= 0 && (shape.epilogue == Epilogue::None || zeroGradient)) {
    if (shape.accumulate)
      return Status::success();
    return impl->device.zero(c, shape.batch * shape.m * shape.n * element,
                             impl->stream);
  }
  auto [entry, fresh] = impl->plans.try_emplace(shape);
  Plan &plan = entry->second;
  if (fresh) {
    if (Status built = impl->build(shape, plan); !built.ok()) {
      Plan failed = plan;
      impl->plans.erase(entry);
      if (failed.a)
        impl->lt.matrixLayoutDestroy(failed.a);
      if (failed.b)
        impl->lt.matrixLayoutDestroy(failed.b);
      if (failed.c)
        impl->lt.matrixLayoutDestroy(failed.c);
      if (failed.desc)
        impl->lt.matmulDescDestroy(failed.desc);
      return makeError("cuBLASLt ", describe(shape), ": ", built.message());
    }
  }
  const CublasLt &lt = impl->lt;
  if (usesBias(shape.epilogue)) {
    const void *pointer = reinterpret_cast<const void *>(bias);
    if (Status set = setAttribute(lt, plan.desc,
                                  CUBLASLT_MATMUL_DESC_BIAS_POINTER, pointer);
        !set.ok())
      return makeError("cuBLASLt ", describe(shape), ": ", set.message());
  }
  if (hasAux(shape.epilogue)) {
    const void *pointer = reinterpret_cast<const void *>(aux);
    if (Status set = setAttribute(
            lt, plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, pointer);
        !set.ok())
      return makeError("cuBLASLt ", describe(shape), ": ", set.message());
  }
  float alpha32 = 1, beta32 = shape.accumulate ? 1 : 0;
  double alpha64 = 1, beta64 = shape.accumulate ? 1 : 0;
  // The scale type: f64 for f64 products, f32 for the others.
  bool f64 = shape.dtype == DType::F64;
  const void *alpha = f64 ? static_cast<const void *>(&alpha64) : &alpha32;
  const void *beta = f64 ? static_cast<const void *>(&beta64) : &beta32;
  void *cPointer = reinterpret_cast<void *>(c);
  cublasStatus_t status = lt.matmul(
      impl->handle, plan.desc, alpha, reinterpret_cast<const void *>(b), plan.a,
      reinterpret_cast<const void *>(a), plan.b, beta, cPointer, plan.c,
      cPointer, plan.c, &plan.algo, reinterpret_cast<void *>(impl->workspace),
      kWorkspaceBytes, impl->stream);
  if (Status done = lt.check(status, "cublasLtMatmul"); !done.ok())
    return makeError("cuBLASLt ", describe(shape), ": ", done.message());
  return Status::success();
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
