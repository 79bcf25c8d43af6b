//===- BlasLt.h - Matrix products on a stream through cuBLASLt --*- C++ -*-===//
//
// One BlasLt per stream: a cuBLASLt handle (libcublasLt.so.13, dlopen'd), a
// workspace, and per product shape the descriptors and the algorithm the
// heuristic chose, built once. Operands are row-major like the CPU kernel
// library's; f32 runs with CUBLAS_COMPUTE_32F (exact fp32, unless
// ONEFLOW_CUDA_TF32=1 allows TF32), f64 with CUBLAS_COMPUTE_64F, bf16 and
// f16 (A, B, C and D of that type, on the tensor cores) with
// CUBLAS_COMPUTE_32F and f32 alpha/beta: f32 accumulation, D rounded once.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CUDA_BLASLT_H
#define ONEFLOW_RUNTIME_CUDA_BLASLT_H

#include "oneflow/Runtime/CUDA/Device.h"

namespace oneflow {
namespace runtime {
namespace cuda {

enum class DType { F32, F64, BF16, F16 };

/// Bytes per element of `dtype`.
size_t elementBytes(DType dtype);
/// "f32", "f64", "bf16" or "f16".
const char *dtypeName(DType dtype);
/// The DType `dtypeName` names; F32 for anything else.
DType dtypeNamed(const std::string &name);

/// What cuBLASLt does besides the product. Bias*: the bias is one value per
/// column of the row-major result, added before the activation (gelu in
/// tanh form). BiasGrad*: the bias vector is written, with a linear layer's
/// bias gradient next to its weight gradient: BiasGradA the sums over k of
/// op(a)'s rows (m values; a must be transposed, so they are a's column
/// sums), BiasGradB the sums over k of op(b)'s columns (n values; b must
/// not be transposed). *Aux and D*: an activation's forward writes into
/// `aux` what its gradient needs, which the backward product reads back
/// (see auxLeadingDimension): BiasReluAux / BiasGeluAux compute
/// act(op(a) op(b) + bias) and write the ReLU bit mask (RELU_AUX_BIAS) or
/// the pre-activation (GELU_AUX_BIAS); DRelu / DGelu compute
/// op(a) op(b) * act'(pre) from it (DRELU / DGELU), and D*BiasGrad also
/// write the column sums of that result into the bias vector (n values:
/// DRELU_BGRAD / DGELU_BGRAD).
enum class Epilogue {
  None,
  Bias,
  BiasRelu,
  BiasGelu,
  BiasGradA,
  BiasGradB,
  BiasReluAux,
  BiasGeluAux,
  DRelu,
  DReluBiasGrad,
  DGelu,
  DGeluBiasGrad
};

/// "none", "bias", "bias_relu", "bias_gelu", "bias_grad_a", "bias_grad_b",
/// "bias_relu_aux", "bias_gelu_aux", "drelu", "drelu_bias_grad", "dgelu",
/// "dgelu_bias_grad".
const char *epilogueName(Epilogue epilogue);

/// Whether the epilogue writes or reads an aux matrix.
bool hasAux(Epilogue epilogue);

/// The aux matrix's leading dimension for a result of `n` columns, as the
/// ABI lays it out (row i of the result is row i of aux) and cuBLASLt
/// wants it (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: at least the rows of its
/// column-major D, our n): for ReLU in bits, a multiple of 128; for GELU in
/// elements, a multiple of 8. 0 for other epilogues.
int64_t auxLeadingDimension(Epilogue epilogue, int64_t n);

/// c[batch][m, n] = act(op(a) op(b) + bias) (+ c when `accumulate`); op
/// transposes when the flag is set. Batches are `strideA` / `strideB`
/// elements apart (0: one operand shared by every batch), c's m * n apart.
struct MatmulShape {
  DType dtype = DType::F32;
  int64_t m = 0, n = 0, k = 0;
  bool transposeA = false, transposeB = false;
  int64_t batch = 1, strideA = 0, strideB = 0;
  Epilogue epilogue = Epilogue::None;
  bool accumulate = false;

  bool operator<(const MatmulShape &other) const;
};

class BlasLt {
public:
  /// The library (loaded once per process), a handle and the workspace.
  static Expected<std::unique_ptr<BlasLt>> create(const Device &device,
                                                  Stream stream);
  ~BlasLt();
  BlasLt(const BlasLt &) = delete;
  BlasLt &operator=(const BlasLt &) = delete;

  /// Enqueues the product on the stream; `bias` only with an epilogue (read
  /// by Bias*, written by BiasGrad* and D*BiasGrad), `aux` only with an
  /// aux epilogue (written by *Aux, read by D*).
  Status matmul(const MatmulShape &shape, DevicePtr a, DevicePtr b, DevicePtr c,
                DevicePtr bias = 0, DevicePtr aux = 0);

  static constexpr size_t kWorkspaceBytes = 32 << 20;

  struct Impl;

private:
  explicit BlasLt(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace cuda
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_CUDA_BLASLT_H
