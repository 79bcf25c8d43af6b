//===- KernelABI.h - What CUDA plans' host code calls -----------*- C++ -*-===//
//
// A CUDA plan's kernels.so holds, per KERNEL task, host code that enqueues
// the task's work on the stream of the thread running the task: GPU kernel
// launches (from the plan's fatbin), library calls (cuBLASLt products,
// cuDNN convolutions) and scratch allocations. It calls only the functions
// below, which oneflow-run exports (resolved when kernels.so is loaded).
// Buffers are device addresses passed as int64; every buffer is contiguous
// and row-major. The functions never block the host on the device: errors
// are kept in the calling thread's task context and reported by the
// runtime once the kernel entry returns.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CUDA_KERNELABI_H
#define ONEFLOW_RUNTIME_CUDA_KERNELABI_H

#include <cstdint>

#define ONEFLOW_CUDA_ABI extern "C" __attribute__((visibility("default")))

/// Launches GPU kernel number `kernel` (Plan.gpu_kernels[kernel], a function
/// of the plan's fatbin) with `numArgs` parameters of 8 bytes each: a
/// buffer's address, an index, or a 4-byte value in the low bytes.
ONEFLOW_CUDA_ABI void oneflow_cuda_launch(int64_t kernel, int64_t gridX,
                                          int64_t gridY, int64_t gridZ,
                                          int64_t blockX, int64_t blockY,
                                          int64_t blockZ, int64_t sharedBytes,
                                          int64_t *args, int64_t numArgs);

/// Scratch device memory for the rest of the task, ordered on its stream
/// (what `malloc`/`free` in a CPU kernel are); 256-byte aligned.
ONEFLOW_CUDA_ABI void *oneflow_cuda_alloc(int64_t bytes);
ONEFLOW_CUDA_ABI void oneflow_cuda_free(void *pointer);

/// The CPU kernel library's products and convolutions (lib/Kernels), same
/// arguments, on the device: cuBLASLt and cuDNN. `_acc` products add onto
/// the output's contents (beta = 1). The bf16/f16 products (CUDA plans
/// only; the CPU library has none) take and write that type and
/// accumulate in f32.
#define ONEFLOW_CUDA_GEMM_ABI(SUFFIX)                                          \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX(                           \
      int64_t a, int64_t b, int64_t c, int64_t m, int64_t n, int64_t k,        \
      int64_t transposeA, int64_t transposeB);                                 \
  ONEFLOW_CUDA_ABI void oneflow_cuda_batch_gemm_##SUFFIX(                     \
      int64_t a, int64_t b, int64_t c, int64_t batch, int64_t m, int64_t n,    \
      int64_t k, int64_t transposeA, int64_t transposeB, int64_t strideA,      \
      int64_t strideB);
ONEFLOW_CUDA_GEMM_ABI(f32)
ONEFLOW_CUDA_GEMM_ABI(f64)
ONEFLOW_CUDA_GEMM_ABI(acc_f32)
ONEFLOW_CUDA_GEMM_ABI(acc_f64)
ONEFLOW_CUDA_GEMM_ABI(bf16)
ONEFLOW_CUDA_GEMM_ABI(f16)
ONEFLOW_CUDA_GEMM_ABI(acc_bf16)
ONEFLOW_CUDA_GEMM_ABI(acc_f16)
#undef ONEFLOW_CUDA_GEMM_ABI

/// Products with a cuBLASLt epilogue: c = act(op(a) op(b) + bias), bias one
/// value per column of c (n values), act none / relu / gelu (tanh form, as
/// CUBLASLT_EPILOGUE_GELU_BIAS computes it). batch products broadcast the
/// bias over the batch. bgrad_a / bgrad_b compute
/// c = op(a) op(b) and write `bias`: a linear layer's bias gradient, summed
/// over k with its weight gradient (CUBLASLT_EPILOGUE_BGRADB / BGRADA, our
/// a and b being cuBLASLt's B and A): bgrad_a the column sums of a, which
/// must be transposed (m values), bgrad_b the column sums of b, which must
/// not be (n values).
#define ONEFLOW_CUDA_EPILOGUE_ABI(SUFFIX)                                      \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX(                           \
      int64_t a, int64_t b, int64_t bias, int64_t c, int64_t m, int64_t n,     \
      int64_t k, int64_t transposeA, int64_t transposeB);
ONEFLOW_CUDA_EPILOGUE_ABI(bias_f32)
ONEFLOW_CUDA_EPILOGUE_ABI(bias_relu_f32)
ONEFLOW_CUDA_EPILOGUE_ABI(bias_gelu_f32)
ONEFLOW_CUDA_EPILOGUE_ABI(bgrad_a_f32)
ONEFLOW_CUDA_EPILOGUE_ABI(bgrad_b_f32)
#undef ONEFLOW_CUDA_EPILOGUE_ABI

/// Products that keep what an activation's gradient needs, and the
/// products that read it back (cuBLASLt's RELU_AUX_BIAS / GELU_AUX_BIAS and
/// DRELU(_BGRAD) / DGELU(_BGRAD) epilogues), all one f32 product into a
/// fresh c, [m, n]. `aux` has a row per row of c, ld apart:
/// - bias_relu_aux / bias_gelu_aux: c = act(op(a) op(b) + bias) (bias one
///   per column, gelu in tanh form) and `aux` what its gradient needs. For
///   ReLU the bit mask of op(a) op(b) + bias > 0: element (i, j) is bit
///   i * ld + j, that is bit (i * ld + j) % 8 of byte (i * ld + j) / 8, with
///   ld = n rounded up to a multiple of 128 bits; for GELU the
///   pre-activation op(a) op(b) + bias, ld = n rounded up to a multiple of
///   8 floats. Padding is left as it is.
/// - drelu / dgelu: c = op(a) op(b) * act'(pre), read from `aux` as the
///   forward product wrote it (its m and n those of c); k must not be 1.
///   The _bgrad forms also write into `bias` the column sums of that c (n
///   values): the bias gradient of the layer whose activation it is.
/// Arguments are inputs, then outputs, then sizes.
#define ONEFLOW_CUDA_AUX_FORWARD_ABI(SUFFIX)                                   \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX(                            \
      int64_t a, int64_t b, int64_t bias, int64_t c, int64_t aux, int64_t m,   \
      int64_t n, int64_t k, int64_t transposeA, int64_t transposeB);
ONEFLOW_CUDA_AUX_FORWARD_ABI(bias_relu_aux_f32)
ONEFLOW_CUDA_AUX_FORWARD_ABI(bias_gelu_aux_f32)
#undef ONEFLOW_CUDA_AUX_FORWARD_ABI
#define ONEFLOW_CUDA_AUX_GRADIENT_ABI(SUFFIX)                                  \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX##_f32(                      \
      int64_t a, int64_t b, int64_t aux, int64_t c, int64_t m, int64_t n,      \
      int64_t k, int64_t transposeA, int64_t transposeB);                      \
  ONEFLOW_CUDA_ABI void oneflow_cuda_gemm_##SUFFIX##_bgrad_f32(                \
      int64_t a, int64_t b, int64_t aux, int64_t c, int64_t bias, int64_t m,   \
      int64_t n, int64_t k, int64_t transposeA, int64_t transposeB);
ONEFLOW_CUDA_AUX_GRADIENT_ABI(drelu)
ONEFLOW_CUDA_AUX_GRADIENT_ABI(dgelu)
#undef ONEFLOW_CUDA_AUX_GRADIENT_ABI

#define ONEFLOW_CUDA_CONV_ABI(NAME)                                            \
  ONEFLOW_CUDA_ABI void oneflow_cuda_##NAME(                                  \
      int64_t x, int64_t w, int64_t bias, int64_t y, int64_t n, int64_t c,     \
      int64_t h, int64_t wd, int64_t k, int64_t r, int64_t s, int64_t oh,      \
      int64_t ow, int64_t strideH, int64_t strideW, int64_t padH,              \
      int64_t padW, int64_t dilationH, int64_t dilationW, int64_t groups);
ONEFLOW_CUDA_CONV_ABI(conv2d_f32)
ONEFLOW_CUDA_CONV_ABI(conv2d_f64)
ONEFLOW_CUDA_CONV_ABI(conv_transpose2d_f32)
ONEFLOW_CUDA_CONV_ABI(conv_transpose2d_f64)
#undef ONEFLOW_CUDA_CONV_ABI

#endif // ONEFLOW_RUNTIME_CUDA_KERNELABI_H
