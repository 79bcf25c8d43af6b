//===- KernelABITest.cpp - The oneflow_cuda_* functions -------------------===//
//
// Products and convolutions through the ABI on the stand-ins, compared with
// the CPU kernel library on random data: the numbers check the descriptors
// the device layer builds.
//
//===----------------------------------------------------------------------===//

#include "CudaTestSupport.h"

#include "oneflow/Runtime/CUDA/KernelABI.h"
#include "oneflow/Runtime/CUDA/TaskContext.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <unistd.h>

// The CPU kernel library (lib/Kernels), the reference.
#define CPU_GEMM(SUFFIX)                                                       \
  extern "C" void oneflow_gemm_##SUFFIX(int64_t, int64_t, int64_t, int64_t,    \
                                        int64_t, int64_t, int64_t, int64_t);   \
  extern "C" void oneflow_batch_gemm_##SUFFIX(                                 \
      int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,  \
      int64_t, int64_t, int64_t);
CPU_GEMM(f32)
CPU_GEMM(f64)
CPU_GEMM(acc_f32)
CPU_GEMM(acc_f64)
#define CPU_CONV(NAME)                                                         \
  extern "C" void oneflow_##NAME(int64_t, int64_t, int64_t, int64_t, int64_t,  \
                                 int64_t, int64_t, int64_t, int64_t, int64_t,  \
                                 int64_t, int64_t, int64_t, int64_t, int64_t,  \
                                 int64_t, int64_t, int64_t, int64_t, int64_t);
CPU_CONV(conv2d_f32)
CPU_CONV(conv2d_f64)
CPU_CONV(conv_transpose2d_f32)
CPU_CONV(conv_transpose2d_f64)
#define CPU_AUX(ACT)                                                           \
  extern "C" void oneflow_gemm_bias_##ACT##_aux_f32(                           \
      int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,  \
      int64_t, int64_t);                                                       \
  extern "C" void oneflow_gemm_d##ACT##_f32(int64_t, int64_t, int64_t,         \
                                            int64_t, int64_t, int64_t,         \
                                            int64_t, int64_t, int64_t);        \
  extern "C" void oneflow_gemm_d##ACT##_bgrad_f32(                             \
      int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,  \
      int64_t, int64_t);
CPU_AUX(relu)
CPU_AUX(gelu)

using namespace oneflow::runtime;
using namespace oneflow::runtime::cuda;

namespace {

template <typename T> int64_t address(const std::vector<T> &values) {
  return reinterpret_cast<int64_t>(values.data());
}

template <typename T> std::vector<T> random(size_t n, unsigned seed);
template <> std::vector<float> random<float>(size_t n, unsigned seed) {
  return randomF32(n, seed);
}
template <> std::vector<double> random<double>(size_t n, unsigned seed) {
  return randomF64(n, seed);
}

template <typename T> double tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-11;
}

template <typename T>
void expectNear(const std::vector<T> &actual, const std::vector<T> &expected,
                const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    ASSERT_NEAR(actual[i], expected[i],
                tolerance<T>() * (1 + std::fabs(expected[i])))
        << what << " at " << i;
}

class CudaKernelABITest : public CudaTest {
protected:
  void SetUp() override {
    CudaTest::SetUp();
    context = std::make_unique<TaskContext>(*device, stream, &functions);
    context->setTaskName("task_7");
    setTaskContext(context.get());
  }
  void TearDown() override {
    setTaskContext(nullptr);
    context.reset();
    CudaTest::TearDown();
  }
  void expectNoError() {
    Status error = context->takeError();
    EXPECT_TRUE(error.ok()) << error.message();
  }

  /// gemm / batch_gemm of every flavour against the CPU library.
  template <typename T>
  void checkBatchGemm(bool accumulate, int64_t batch, int64_t m, int64_t n,
                      int64_t k, bool ta, bool tb, bool shareA, bool shareB);

  std::vector<GpuFunction> functions;
  std::unique_ptr<TaskContext> context;
};

template <typename T>
void CudaKernelABITest::checkBatchGemm(bool accumulate, int64_t batch,
                                       int64_t m, int64_t n, int64_t k, bool ta,
                                       bool tb, bool shareA, bool shareB) {
  std::string what = "batch=" + std::to_string(batch) + " m" +
                     std::to_string(m) + " n" + std::to_string(n) + " k" +
                     std::to_string(k) + " ta" + std::to_string(ta) + " tb" +
                     std::to_string(tb) + " shareA" + std::to_string(shareA) +
                     " shareB" + std::to_string(shareB) + " acc" +
                     std::to_string(accumulate);
  int64_t strideA = shareA ? 0 : m * k, strideB = shareB ? 0 : k * n;
  std::vector<T> a = random<T>((shareA ? 1 : batch) * m * k, 1),
                 b = random<T>((shareB ? 1 : batch) * k * n, 2),
                 c = random<T>(batch * m * n, 3);
  std::vector<T> expected = c;
  DevicePtr da = upload(a), db = upload(b), dc = upload(c);
  bool f32 = std::is_same_v<T, float>;
  bool batched = batch != 1 || shareA || shareB;
  if (batched) {
    auto cpu =
        f32 ? (accumulate ? oneflow_batch_gemm_acc_f32 : oneflow_batch_gemm_f32)
            : (accumulate ? oneflow_batch_gemm_acc_f64
                          : oneflow_batch_gemm_f64);
    auto gpu = f32 ? (accumulate ? oneflow_cuda_batch_gemm_acc_f32
                                 : oneflow_cuda_batch_gemm_f32)
                   : (accumulate ? oneflow_cuda_batch_gemm_acc_f64
                                 : oneflow_cuda_batch_gemm_f64);
    cpu(address(a), address(b), address(expected), batch, m, n, k, ta, tb,
        strideA, strideB);
    gpu(da, db, dc, batch, m, n, k, ta, tb, strideA, strideB);
  } else {
    auto cpu = f32 ? (accumulate ? oneflow_gemm_acc_f32 : oneflow_gemm_f32)
                   : (accumulate ? oneflow_gemm_acc_f64 : oneflow_gemm_f64);
    auto gpu =
        f32 ? (accumulate ? oneflow_cuda_gemm_acc_f32 : oneflow_cuda_gemm_f32)
            : (accumulate ? oneflow_cuda_gemm_acc_f64 : oneflow_cuda_gemm_f64);
    cpu(address(a), address(b), address(expected), m, n, k, ta, tb);
    gpu(da, db, dc, m, n, k, ta, tb);
  }
  expectNoError();
  expectNear(download<T>(dc, c.size()), expected, what);
}

TEST_F(CudaKernelABITest, GemmMatchesCpu) {
  for (bool accumulate : {false, true})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        checkBatchGemm<float>(accumulate, 1, 5, 7, 3, ta, tb, false, false);
        checkBatchGemm<double>(accumulate, 1, 4, 9, 6, ta, tb, false, false);
        checkBatchGemm<float>(accumulate, 1, 1, 8, 16, ta, tb, false, false);
      }
  std::vector<std::string> calls = logLinesWith("cublasLtMatmul stream=");
  ASSERT_EQ(calls.size(), 24u);
  EXPECT_NE(calls[0].find("type=f32 compute=68 "), std::string::npos);
  EXPECT_NE(calls[1].find("type=f64 compute=70 "), std::string::npos);
  EXPECT_NE(calls[0].find(" beta=0 workspace=33554432"), std::string::npos)
      << calls[0];
  EXPECT_NE(calls[12].find(" beta=1 "), std::string::npos) << calls[12];
  // One handle per stream; descriptors and algorithms are built once per
  // shape (12 shapes).
  EXPECT_EQ(logLinesWith("cublasLtCreate").size(), 1u);
  EXPECT_EQ(logLinesWith("cublasLtMatmulAlgoGetHeuristic").size(), 24u);
  clearLog();
  checkBatchGemm<float>(false, 1, 5, 7, 3, false, false, false, false);
  EXPECT_EQ(logLinesWith("cublasLtMatmulAlgoGetHeuristic").size(), 0u);
}

TEST_F(CudaKernelABITest, BatchGemmMatchesCpu) {
  for (bool accumulate : {false, true})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (auto [shareA, shareB] :
             {std::pair(false, false), std::pair(true, false),
              std::pair(false, true)}) {
          checkBatchGemm<float>(accumulate, 3, 4, 5, 6, ta, tb, shareA, shareB);
          checkBatchGemm<double>(accumulate, 2, 3, 2, 5, ta, tb, shareA,
                                 shareB);
        }
  EXPECT_NE(logLinesWith("cublasLtMatmul stream=")[0].find(" batch=3 "),
            std::string::npos);
}

/// bf16 / f16 bits of `value`, rounded to nearest even.
uint16_t toLowBits(float value, bool bf16) {
  uint16_t bits;
  if (!bf16) {
    _Float16 half = _Float16(value);
    std::memcpy(&bits, &half, 2);
    return bits;
  }
  uint32_t wide;
  std::memcpy(&wide, &value, 4);
  wide += 0x7fff + ((wide >> 16) & 1);
  return uint16_t(wide >> 16);
}

float fromLowBits(uint16_t bits, bool bf16) {
  if (!bf16) {
    _Float16 half;
    std::memcpy(&half, &bits, 2);
    return float(half);
  }
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

// The 16-bit products (CUDA plans' bf16 / f16 matmuls): the f32 product of
// the same (exactly widened) operands, rounded once to the low type; with
// _acc, c's 16-bit values are added before that rounding. The stand-in
// takes them only with CUBLAS_COMPUTE_32F and an f32 scale type.
TEST_F(CudaKernelABITest, LowPrecisionGemmAccumulatesInF32) {
  for (bool bf16 : {true, false})
    for (bool accumulate : {false, true})
      for (bool ta : {false, true}) {
        int64_t batch = 2, m = 5, n = 6, k = 64;
        std::vector<float> a = random<float>(batch * m * k, 11),
                           b = random<float>(batch * k * n, 12),
                           c = random<float>(batch * m * n, 13);
        std::vector<uint16_t> la, lb, lc;
        for (std::vector<float> *values : {&a, &b, &c})
          for (float &value : *values)
            value = fromLowBits(toLowBits(value, bf16), bf16);
        for (float value : a)
          la.push_back(toLowBits(value, bf16));
        for (float value : b)
          lb.push_back(toLowBits(value, bf16));
        for (float value : c)
          lc.push_back(toLowBits(value, bf16));
        std::vector<float> expected = c;
        oneflow_batch_gemm_acc_f32(address(a), address(b), address(expected),
                                   batch, m, n, k, ta, false, m * k, k * n);
        if (!accumulate) {
          std::vector<float> zero(batch * m * n, 0);
          expected = zero;
          oneflow_batch_gemm_acc_f32(address(a), address(b), address(expected),
                                     batch, m, n, k, ta, false, m * k, k * n);
        }
        DevicePtr da = upload(la), db = upload(lb), dc = upload(lc);
        auto batched = bf16 ? (accumulate ? oneflow_cuda_batch_gemm_acc_bf16
                                          : oneflow_cuda_batch_gemm_bf16)
                            : (accumulate ? oneflow_cuda_batch_gemm_acc_f16
                                          : oneflow_cuda_batch_gemm_f16);
        batched(da, db, dc, batch, m, n, k, ta, false, m * k, k * n);
        expectNoError();
        std::vector<uint16_t> got = download<uint16_t>(dc, lc.size());
        std::string what = std::string(bf16 ? "bf16" : "f16") + " acc" +
                           std::to_string(accumulate) + " ta" +
                           std::to_string(ta);
        // Rounded once: within one unit in the last place of the low type
        // (the f32 reference sums in another order).
        double ulp = bf16 ? 0x1p-7 : 0x1p-10;
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_NEAR(fromLowBits(got[i], bf16), expected[i],
                      ulp * std::fabs(expected[i]) + 1e-6)
              << what << " at " << i;
        // The plain product: the first batch's matrix.
        DevicePtr dd = upload(lc);
        auto plain = bf16 ? (accumulate ? oneflow_cuda_gemm_acc_bf16
                                        : oneflow_cuda_gemm_bf16)
                          : (accumulate ? oneflow_cuda_gemm_acc_f16
                                        : oneflow_cuda_gemm_f16);
        plain(da, db, dd, m, n, k, ta, false);
        expectNoError();
        got = download<uint16_t>(dd, m * n);
        for (int64_t i = 0; i < m * n; ++i)
          ASSERT_NEAR(fromLowBits(got[i], bf16), expected[i],
                      ulp * std::fabs(expected[i]) + 1e-6)
              << what << " (one matrix) at " << i;
      }
  std::vector<std::string> calls = logLinesWith("cublasLtMatmul stream=");
  ASSERT_EQ(calls.size(), 16u);
  EXPECT_NE(calls[0].find("type=bf16 compute=68 "), std::string::npos)
      << calls[0];
  EXPECT_NE(calls.back().find("type=f16 compute=68 "), std::string::npos)
      << calls.back();
}

TEST_F(CudaKernelABITest, GemmEpiloguesMatchCpu) {
  int64_t m = 6, n = 5, k = 7;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int act = 0; act < 3; ++act) {
        std::vector<float> a = random<float>(m * k, 4),
                           b = random<float>(k * n, 5),
                           bias = random<float>(n, 6);
        std::vector<float> expected(m * n);
        oneflow_gemm_f32(address(a), address(b), address(expected), m, n, k, ta,
                         tb);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double x = expected[i * n + j] + bias[j];
            if (act == 1)
              x = x > 0 ? x : 0;
            if (act == 2)
              x = 0.5 * x *
                  (1 +
                   std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
            expected[i * n + j] = x;
          }
        DevicePtr da = upload(a), db = upload(b), dbias = upload(bias),
                  dc = allocate(m * n * sizeof(float));
        auto gpu = act == 0   ? oneflow_cuda_gemm_bias_f32
                   : act == 1 ? oneflow_cuda_gemm_bias_relu_f32
                              : oneflow_cuda_gemm_bias_gelu_f32;
        gpu(da, db, dbias, dc, m, n, k, ta, tb);
        expectNoError();
        expectNear(download<float>(dc, m * n), expected,
                   "act " + std::to_string(act));
      }
  EXPECT_EQ(logLinesWith("epilogue=BIAS ").size(), 4u);
  EXPECT_EQ(logLinesWith("epilogue=RELU_BIAS ").size(), 4u);
  EXPECT_EQ(logLinesWith("epilogue=GELU_BIAS ").size(), 4u);
}

TEST_F(CudaKernelABITest, GemmBiasGradientsMatchCpu) {
  // A linear layer's weight gradient with its bias gradient: dW = X^T dY
  // next to the column sums of dY as b (bgrad_b, b untransposed) or as a
  // (bgrad_a, a transposed), the other operand either way.
  int64_t m = 5, n = 6, k = 7;
  for (bool ofB : {true, false})
    for (bool otherTransposed : {false, true}) {
      bool ta = ofB ? otherTransposed : true;
      bool tb = ofB ? false : otherTransposed;
      std::string what = std::string(ofB ? "bgrad_b" : "bgrad_a") + " ta" +
                         std::to_string(ta) + " tb" + std::to_string(tb);
      std::vector<float> a = random<float>(m * k, 7),
                         b = random<float>(k * n, 8), expected(m * n);
      oneflow_gemm_f32(address(a), address(b), address(expected), m, n, k, ta,
                       tb);
      // b is [k, n] (untransposed); a is [k, m] (transposed).
      std::vector<float> sums(ofB ? n : m);
      for (int64_t l = 0; l < k; ++l)
        for (size_t j = 0; j < sums.size(); ++j)
          sums[j] += ofB ? b[l * n + j] : a[l * m + j];
      DevicePtr da = upload(a), db = upload(b),
                dsum = allocate(sums.size() * sizeof(float)),
                dc = allocate(m * n * sizeof(float));
      auto gpu =
          ofB ? oneflow_cuda_gemm_bgrad_b_f32 : oneflow_cuda_gemm_bgrad_a_f32;
      gpu(da, db, dsum, dc, m, n, k, ta, tb);
      expectNoError();
      expectNear(download<float>(dc, m * n), expected, what + " product");
      expectNear(download<float>(dsum, sums.size()), sums, what + " sums");
    }
  // Our b is cuBLASLt's A, our a its B.
  EXPECT_EQ(logLinesWith("epilogue=BGRADA ").size(), 2u);
  EXPECT_EQ(logLinesWith("epilogue=BGRADB ").size(), 2u);
}

TEST_F(CudaKernelABITest, GemmBiasGradientLayoutsAreChecked) {
  // cuBLASLt sums its A untransposed and its B transposed only: the other
  // layouts are errors naming the call, before cuBLASLt sees them.
  std::vector<float> a(12), b(12);
  DevicePtr da = upload(a), db = upload(b), dsum = allocate(16),
            dc = allocate(16 * 4);
  oneflow_cuda_gemm_bgrad_b_f32(da, db, dsum, dc, 4, 4, 3, 0, 1);
  Status error = context->takeError();
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.message().find("epilogue=bias_grad_b"), std::string::npos)
      << error.message();
  EXPECT_NE(error.message().find("of b b untransposed"), std::string::npos)
      << error.message();
  oneflow_cuda_gemm_bgrad_a_f32(da, db, dsum, dc, 4, 4, 3, 0, 0);
  EXPECT_FALSE(context->takeError().ok());
  EXPECT_TRUE(logLinesWith("epilogue=BGRAD").empty());
}

/// The tanh form of GELU's derivative, in double.
double geluDerivative(double x) {
  double t = std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.7978845608028654 *
                             (1 + 3 * 0.044715 * x * x);
}

TEST_F(CudaKernelABITest, GemmAuxEpiloguesMatchCpu) {
  // A layer's forward keeps what its activation's gradient needs (the ReLU
  // mask, the GELU pre-activation) and the product of the next layer's
  // backward reads it back, with and without the bias gradient; every
  // layout of both products, and widths that fill aux rows (n = 128) or
  // pad them (5, 130). The device and the CPU library agree with a double
  // reference and with each other, the masks bit for bit.
  int64_t m = 6, k = 7, k2 = 4;
  unsigned seed = 10;
  for (bool relu : {true, false})
    for (int64_t n : {5, 128, 130})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          std::string what = std::string(relu ? "relu" : "gelu") + " n" +
                             std::to_string(n) + " ta" + std::to_string(ta) +
                             " tb" + std::to_string(tb);
          int64_t ld = relu ? (n + 127) / 128 * 128 : (n + 7) / 8 * 8;
          size_t auxBytes = relu ? m * ld / 8 : m * ld * sizeof(float);
          std::vector<float> a = random<float>(m * k, ++seed),
                             b = random<float>(k * n, ++seed),
                             bias = random<float>(n, ++seed),
                             a2 = random<float>(m * k2, ++seed),
                             b2 = random<float>(k2 * n, ++seed);
          // The reference: pre-activation, activation, gradient, sums.
          std::vector<float> product(m * n), product2(m * n);
          oneflow_gemm_f32(address(a), address(b), address(product), m, n, k,
                           ta, tb);
          oneflow_gemm_f32(address(a2), address(b2), address(product2), m, n,
                           k2, ta, tb);
          std::vector<float> pre(m * n), y(m * n), dx(m * n), sums(n);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double x = double(product[i * n + j]) + bias[j];
              pre[i * n + j] = x;
              y[i * n + j] =
                  relu ? (x > 0 ? x : 0)
                       : 0.5 * x *
                             (1 + std::tanh(0.7978845608028654 *
                                            (x + 0.044715 * x * x * x)));
              double g = relu ? (x > 0 ? 1 : 0) : geluDerivative(x);
              dx[i * n + j] = product2[i * n + j] * g;
              sums[j] += dx[i * n + j];
            }
          // Forward and backward on the device.
          DevicePtr da = upload(a), db = upload(b), dbias = upload(bias),
                    da2 = upload(a2), db2 = upload(b2),
                    dc = allocate(m * n * sizeof(float)),
                    daux = upload(std::vector<unsigned char>(auxBytes)),
                    ddx = allocate(m * n * sizeof(float)),
                    ddx2 = allocate(m * n * sizeof(float)),
                    dsums = allocate(n * sizeof(float));
          (relu ? oneflow_cuda_gemm_bias_relu_aux_f32
                : oneflow_cuda_gemm_bias_gelu_aux_f32)(da, db, dbias, dc, daux,
                                                       m, n, k, ta, tb);
          (relu ? oneflow_cuda_gemm_drelu_bgrad_f32
                : oneflow_cuda_gemm_dgelu_bgrad_f32)(da2, db2, daux, ddx, dsums,
                                                     m, n, k2, ta, tb);
          (relu ? oneflow_cuda_gemm_drelu_f32 : oneflow_cuda_gemm_dgelu_f32)(
              da2, db2, daux, ddx2, m, n, k2, ta, tb);
          expectNoError();
          expectNear(download<float>(dc, m * n), y, what + " forward");
          expectNear(download<float>(ddx, m * n), dx, what + " gradient");
          expectNear(download<float>(ddx2, m * n), dx, what + " no bgrad");
          expectNear(download<float>(dsums, n), sums, what + " bgrad");
          std::vector<unsigned char> aux =
              download<unsigned char>(daux, auxBytes);
          // The same on the CPU kernel library (what --gpu-kernels-on-cpu
          // plans call), from its own aux.
          std::vector<unsigned char> cpuAux(auxBytes);
          std::vector<float> cpuY(m * n), cpuDx(m * n), cpuDx2(m * n),
              cpuSums(n);
          (relu ? oneflow_gemm_bias_relu_aux_f32
                : oneflow_gemm_bias_gelu_aux_f32)(
              address(a), address(b), address(bias), address(cpuY),
              address(cpuAux), m, n, k, ta, tb);
          (relu ? oneflow_gemm_drelu_bgrad_f32 : oneflow_gemm_dgelu_bgrad_f32)(
              address(a2), address(b2), address(cpuAux), address(cpuDx),
              address(cpuSums), m, n, k2, ta, tb);
          (relu ? oneflow_gemm_drelu_f32 : oneflow_gemm_dgelu_f32)(
              address(a2), address(b2), address(cpuAux), address(cpuDx2), m, n,
              k2, ta, tb);
          expectNear(cpuY, y, what + " cpu forward");
          expectNear(cpuDx, dx, what + " cpu gradient");
          expectNear(cpuDx2, dx, what + " cpu no bgrad");
          expectNear(cpuSums, sums, what + " cpu bgrad");
          // The aux itself: the mask bits (pre > 0) or the pre-activation,
          // row i at i * ld.
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              if (relu) {
                int64_t bit = i * ld + j;
                int expected = pre[i * n + j] > 0;
                ASSERT_EQ((aux[bit / 8] >> (bit % 8)) & 1, expected)
                    << what << " mask bit " << i << ", " << j;
                ASSERT_EQ((cpuAux[bit / 8] >> (bit % 8)) & 1, expected)
                    << what << " cpu mask bit " << i << ", " << j;
                continue;
              }
              float device, cpu;
              std::memcpy(&device, &aux[(i * ld + j) * sizeof(float)], 4);
              std::memcpy(&cpu, &cpuAux[(i * ld + j) * sizeof(float)], 4);
              ASSERT_NEAR(device, pre[i * n + j],
                          1e-4 * (1 + std::fabs(pre[i * n + j])))
                  << what << " pre-activation " << i << ", " << j;
              ASSERT_NEAR(cpu, pre[i * n + j],
                          1e-4 * (1 + std::fabs(pre[i * n + j])))
                  << what << " cpu pre-activation " << i << ", " << j;
            }
        }
  // 12 layouts and widths per activation; our b is cuBLASLt's A.
  EXPECT_EQ(logLinesWith("epilogue=RELU_AUX_BIAS ").size(), 12u);
  EXPECT_EQ(logLinesWith("epilogue=GELU_AUX_BIAS ").size(), 12u);
  EXPECT_EQ(logLinesWith("epilogue=DRELU_BGRAD ").size(), 12u);
  EXPECT_EQ(logLinesWith("epilogue=DGELU_BGRAD ").size(), 12u);
  EXPECT_EQ(logLinesWith("epilogue=DRELU ").size(), 12u);
  EXPECT_EQ(logLinesWith("epilogue=DGELU ").size(), 12u);
}

TEST_F(CudaKernelABITest, GemmAuxEpilogueRulesAreChecked) {
  // cuBLASLt runs no DRELU / DGELU product with k = 1; a missing aux is an
  // error too. Both name the call and never reach cuBLASLt.
  std::vector<float> a(4), b(4), aux(64);
  DevicePtr da = upload(a), db = upload(b), daux = upload(aux),
            dsum = allocate(16), dc = allocate(16 * 4);
  oneflow_cuda_gemm_drelu_bgrad_f32(da, db, daux, dc, dsum, 4, 4, 1, 0, 0);
  Status error = context->takeError();
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.message().find("epilogue=drelu_bias_grad"), std::string::npos)
      << error.message();
  EXPECT_NE(error.message().find("k = 1"), std::string::npos)
      << error.message();
  oneflow_cuda_gemm_dgelu_f32(da, db, 0, dc, 4, 4, 2, 0, 0);
  error = context->takeError();
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.message().find("no aux"), std::string::npos)
      << error.message();
  EXPECT_TRUE(logLinesWith("epilogue=DRELU").empty());
  EXPECT_TRUE(logLinesWith("epilogue=DGELU").empty());
}

TEST_F(CudaKernelABITest, Tf32IsOptIn) {
  ::setenv("ONEFLOW_CUDA_TF32", "1", 1);
  TaskContext tf32(*device, stream, nullptr);
  setTaskContext(&tf32);
  std::vector<float> a = random<float>(4, 1), b = random<float>(4, 2);
  DevicePtr da = upload(a), db = upload(b), dc = allocate(16);
  oneflow_cuda_gemm_f32(da, db, dc, 2, 2, 2, 0, 0);
  ::unsetenv("ONEFLOW_CUDA_TF32");
  EXPECT_TRUE(tf32.takeError().ok());
  setTaskContext(context.get());
  EXPECT_NE(logLinesWith("cublasLtMatmul stream=")[0].find("compute=77"),
            std::string::npos);
}

struct ConvCase {
  int64_t n, c, h, w, k, r, s, strideH, strideW, padH, padW, dilationH,
      dilationW, groups, outputPadding;
  bool bias;
};

const ConvCase kConvCases[] = {
    {2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, true},
    {1, 4, 9, 8, 6, 3, 2, 2, 1, 1, 0, 1, 1, 2, 0, false},
    {2, 6, 8, 9, 6, 3, 3, 1, 2, 2, 1, 2, 1, 3, 1, true},
    {1, 4, 5, 5, 8, 1, 1, 1, 1, 0, 0, 1, 1, 4, 0, true},
    {1, 2, 10, 7, 3, 5, 3, 3, 2, 2, 1, 1, 2, 1, 1, true},
};

class CudaConvTest : public CudaKernelABITest {
protected:
  template <typename T> void check(bool transpose) {
    bool f32 = std::is_same_v<T, float>;
    for (const ConvCase &cc : kConvCases) {
      // The CPU kernels' arguments: x [n, c, h, w] -> y [n, k, oh, ow]. A
      // transposed convolution's output padding (ONNX output_padding) is
      // below the stride.
      int64_t oh, ow;
      if (!transpose) {
        oh = (cc.h + 2 * cc.padH - cc.dilationH * (cc.r - 1) - 1) / cc.strideH +
             1;
        ow = (cc.w + 2 * cc.padW - cc.dilationW * (cc.s - 1) - 1) / cc.strideW +
             1;
      } else {
        oh = (cc.h - 1) * cc.strideH - 2 * cc.padH + cc.dilationH * (cc.r - 1) +
             1 + std::min(cc.outputPadding, cc.strideH - 1);
        ow = (cc.w - 1) * cc.strideW - 2 * cc.padW + cc.dilationW * (cc.s - 1) +
             1 + std::min(cc.outputPadding, cc.strideW - 1);
      }
      int64_t weights = transpose ? cc.c * (cc.k / cc.groups) * cc.r * cc.s
                                  : cc.k * (cc.c / cc.groups) * cc.r * cc.s;
      std::vector<T> x = random<T>(cc.n * cc.c * cc.h * cc.w, 7),
                     w = random<T>(weights, 8), bias = random<T>(cc.k, 9),
                     expected(cc.n * cc.k * oh * ow);
      auto cpu = transpose ? (f32 ? oneflow_conv_transpose2d_f32
                                  : oneflow_conv_transpose2d_f64)
                           : (f32 ? oneflow_conv2d_f32 : oneflow_conv2d_f64);
      auto gpu =
          transpose ? (f32 ? oneflow_cuda_conv_transpose2d_f32
                           : oneflow_cuda_conv_transpose2d_f64)
                    : (f32 ? oneflow_cuda_conv2d_f32 : oneflow_cuda_conv2d_f64);
      cpu(address(x), address(w), cc.bias ? address(bias) : 0,
          address(expected), cc.n, cc.c, cc.h, cc.w, cc.k, cc.r, cc.s, oh, ow,
          cc.strideH, cc.strideW, cc.padH, cc.padW, cc.dilationH, cc.dilationW,
          cc.groups);
      DevicePtr dx = upload(x), dw = upload(w),
                dbias = cc.bias ? upload(bias) : 0,
                dy = upload(random<T>(expected.size(), 10));
      gpu(dx, dw, dbias, dy, cc.n, cc.c, cc.h, cc.w, cc.k, cc.r, cc.s, oh, ow,
          cc.strideH, cc.strideW, cc.padH, cc.padW, cc.dilationH, cc.dilationW,
          cc.groups);
      expectNoError();
      expectNear(download<T>(dy, expected.size()), expected,
                 std::string(transpose ? "conv_transpose2d" : "conv2d") +
                     " case " + std::to_string(&cc - kConvCases));
    }
  }
};

TEST_F(CudaConvTest, Conv2dMatchesCpu) {
  check<float>(false);
  check<double>(false);
  std::vector<std::string> convs = logLinesWith("cudnnConvolutionForward");
  ASSERT_EQ(convs.size(), 10u);
  // Cross-correlation, FMA math (no TF32), the heuristic's first algorithm
  // with its workspace.
  EXPECT_NE(convs[0].find("mode=1 math=3 algo=1 workspace=4096"),
            std::string::npos)
      << convs[0];
  EXPECT_NE(convs[2].find("groups=3"), std::string::npos) << convs[2];
  EXPECT_EQ(logLinesWith("cudnnAddTensor").size(), 8u);
  EXPECT_EQ(logLinesWith("cudnnCreate").size(), 1u);
  EXPECT_EQ(logLinesWith("cuMemAllocAsync").size(), 1u); // workspace, once
}

TEST_F(CudaConvTest, ConvTranspose2dMatchesCpu) {
  check<float>(true);
  check<double>(true);
  EXPECT_EQ(logLinesWith("cudnnConvolutionBackwardData").size(), 10u);
}

TEST_F(CudaConvTest, AsymmetricPaddingIsAnError) {
  // h 6, kernel 3, top pad 1, but an output of 5 rows (bottom pad 0).
  std::vector<float> x(36), w(9);
  DevicePtr dx = upload(x), dw = upload(w), dy = allocate(30 * sizeof(float));
  oneflow_cuda_conv2d_f32(dx, dw, 0, dy, 1, 1, 6, 6, 1, 3, 3, 5, 6, 1, 1, 1, 1,
                          1, 1, 1);
  Status error = context->takeError();
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.message(),
            "kernel task_7: cuDNN conv2d f32 x=[1,1,6,6] kernel=3x3 "
            "y=[1,1,5,6] stride=1,1 pad=1,1 dilation=1,1 groups=1: padding "
            "differs between the two sides of an axis (cuDNN pads both sides "
            "equally)");
}

const char *kPtx = R"(
.visible .entry scale(
	.param .u64 scale_param_0,
	.param .u64 scale_param_1,
	.param .u64 scale_param_2
)
{
	ret;
}
)";

TEST_F(CudaKernelABITest, LaunchChecksArguments) {
  char path[] = "/tmp/oneflow-cuda-ptx-XXXXXX";
  int fd = ::mkstemp(path);
  ::close(fd);
  std::ofstream(path) << kPtx;
  Expected<std::unique_ptr<Module>> module = device->loadModule(path);
  std::remove(path);
  ASSERT_TRUE(module.ok()) << module.error().message();
  Expected<std::vector<GpuFunction>> loaded = (*module)->functions({"scale"});
  ASSERT_TRUE(loaded.ok());
  functions = loaded.take();

  int64_t args[3] = {4096, 7, -1};
  oneflow_cuda_launch(0, 2, 3, 1, 128, 1, 1, 256, args, 3);
  expectNoError();
  std::string id = std::to_string(streamId(stream));
  EXPECT_EQ(logLinesWith("cuLaunchKernel"),
            std::vector<std::string>{
                "cuLaunchKernel stream=" + id +
                " function=scale grid=2,3,1 block=128,1,1 shared=256 "
                "params=3 args=4096,7,-1"});

  // Too few arguments: an error, and the task's later calls do nothing.
  clearLog();
  oneflow_cuda_launch(0, 1, 1, 1, 32, 1, 1, 0, args, 2);
  oneflow_cuda_launch(0, 1, 1, 1, 32, 1, 1, 0, args, 3);
  EXPECT_EQ(oneflow_cuda_alloc(16), nullptr);
  oneflow_cuda_launch(5, 1, 1, 1, 32, 1, 1, 0, args, 3);
  Status error = context->takeError();
  EXPECT_EQ(error.message(), "kernel task_7: GPU kernel scale takes 3 "
                             "parameters, the launch passes 2");
  EXPECT_TRUE(logLinesWith("cuLaunchKernel").empty());
  EXPECT_TRUE(logLinesWith("cuMemAllocAsync").empty());

  // The error was taken: the next task runs.
  oneflow_cuda_launch(1, 1, 1, 1, 32, 1, 1, 0, args, 3);
  EXPECT_EQ(context->takeError().message(),
            "kernel task_7: GPU kernel #1 launched, the plan has 1");
  oneflow_cuda_launch(0, 0, 1, 1, 32, 1, 1, 0, args, 3);
  EXPECT_EQ(context->takeError().message(),
            "kernel task_7: GPU kernel scale: bad launch grid 0x1x1 block "
            "32x1x1");
  oneflow_cuda_launch(0, 1, 1, 1, 32, 1, 1, 0, nullptr, 3);
  EXPECT_EQ(context->takeError().message(),
            "kernel task_7: GPU kernel scale: bad arguments (3 at 0)");
}

TEST_F(CudaKernelABITest, ScratchIsStreamOrdered) {
  void *scratch = oneflow_cuda_alloc(1000);
  ASSERT_NE(scratch, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(scratch) % 256, 0u);
  void *empty = oneflow_cuda_alloc(0);
  EXPECT_NE(empty, nullptr);
  oneflow_cuda_free(scratch);
  oneflow_cuda_free(empty);
  expectNoError();
  std::string id = std::to_string(streamId(stream));
  EXPECT_EQ(logLinesWith("cuMemAllocAsync stream=" + id + " bytes=1000").size(),
            1u);
  EXPECT_EQ(logLinesWith("cuMemFreeAsync stream=" + id + " bytes=1000").size(),
            1u);
  // A bad free: the driver's error, named, prefixed with the task.
  oneflow_cuda_free(reinterpret_cast<void *>(0x1234));
  EXPECT_EQ(context->takeError().message(),
            "kernel task_7: cuMemFreeAsync: CUDA_ERROR_INVALID_VALUE (invalid "
            "argument)");
}

TEST_F(CudaKernelABITest, GroupsMustDivideChannels) {
  std::vector<float> x(3 * 16), w(4 * 9);
  DevicePtr dx = upload(x), dw = upload(w), dy = allocate(4 * 16 * 4);
  oneflow_cuda_conv2d_f32(dx, dw, 0, dy, 1, 3, 4, 4, 4, 3, 3, 4, 4, 1, 1, 1, 1,
                          1, 1, 2);
  Status error = context->takeError();
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.message().find("channels not divisible by the groups"),
            std::string::npos)
      << error.message();
}

TEST(CudaKernelABI, NoContextIsNotACrash) {
  setTaskContext(nullptr);
  EXPECT_EQ(oneflow_cuda_alloc(16), nullptr);
  oneflow_cuda_gemm_f32(0, 0, 0, 1, 1, 1, 0, 0);
  oneflow_cuda_launch(0, 1, 1, 1, 1, 1, 1, 0, nullptr, 0);
}

TEST(CudaKernelABI, SymbolsAreExported) {
  // What a CUDA plan's kernels.so needs from the executable.
  for (const char *symbol : {"oneflow_cuda_launch",
                             "oneflow_cuda_alloc",
                             "oneflow_cuda_free",
                             "oneflow_cuda_gemm_f32",
                             "oneflow_cuda_gemm_acc_f64",
                             "oneflow_cuda_batch_gemm_f32",
                             "oneflow_cuda_batch_gemm_acc_f64",
                             "oneflow_cuda_gemm_bf16",
                             "oneflow_cuda_batch_gemm_acc_f16",
                             "oneflow_cuda_gemm_bias_gelu_f32",
                             "oneflow_cuda_gemm_bgrad_a_f32",
                             "oneflow_cuda_gemm_bgrad_b_f32",
                             "oneflow_cuda_gemm_bias_relu_aux_f32",
                             "oneflow_cuda_gemm_bias_gelu_aux_f32",
                             "oneflow_cuda_gemm_drelu_f32",
                             "oneflow_cuda_gemm_drelu_bgrad_f32",
                             "oneflow_cuda_gemm_dgelu_f32",
                             "oneflow_cuda_gemm_dgelu_bgrad_f32",
                             "oneflow_cuda_conv2d_f64",
                             "oneflow_cuda_conv_transpose2d_f32"})
    EXPECT_NE(::dlsym(RTLD_DEFAULT, symbol), nullptr) << symbol;
}

TEST_F(CudaKernelABITest, LoadedKernelLibraryCallsTheAbi) {
  void *library = ::dlopen(ONEFLOW_CUDA_TEST_KERNELS, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << ::dlerror();
  auto kernel = reinterpret_cast<void (*)(int64_t *)>(
      ::dlsym(library, "test_cuda_kernel"));
  ASSERT_NE(kernel, nullptr);
  std::vector<float> a = random<float>(6, 1), b = random<float>(12, 2),
                     expected(8);
  oneflow_gemm_f32(address(a), address(b), address(expected), 2, 4, 3, 0, 0);
  DevicePtr da = upload(a), db = upload(b), dc = allocate(8 * sizeof(float));
  int64_t args[6] = {int64_t(da), int64_t(db), int64_t(dc), 2, 4, 3};
  kernel(args);
  expectNoError();
  expectNear(download<float>(dc, 8), expected, "kernels.so product");
  EXPECT_EQ(logLinesWith("cuMemAllocAsync").size(), 1u);
  ::dlclose(library);
}

} // namespace
