//===- gemm_bench.cpp - cuBLASLt products alone, through the runtime ------===//
//
// oneflow-cuda-gemm-bench [--repeat N] [--warmup N] [--inner N]
//                         [--per-step S] FILE...
//
// Times GEMM shapes with the runtime's BlasLt (the wrapper CUDA plans use,
// so the same descriptors, heuristic algorithm and workspace) on GPU 0
// (ONEFLOW_CUDA_DEVICE overrides) and prints, per distinct shape, the
// median time of one product and its TFLOP/s, then the time of the whole
// list run back to back alone. Shapes come from lines of FILE ("-": stdin):
//   - the stand-in cuBLASLt's log (ONEFLOW_CUDA_STANDIN_LOG):
//       cublasLtMatmul stream=2 type=f32 ... m=192 n=16 k=64 transa=0
//       transb=0 batch=2 epilogue=DEFAULT beta=1 ...
//     (cuBLASLt's column-major view: m, n and the transposes are swapped
//     back to the row-major product; batched operands are taken apart,
//     strides unknown),
//   - oneflow-run's GPU times (ONEFLOW_CUDA_GPU_TIMES) "matmul" records,
//     whose "shape" is the row-major product with its strides:
//       dtype=f32 m=16 n=192 k=64 transposeA=0 transposeB=0 batch=2
//       strideA=1024 strideB=0 epilogue=none accumulate=1
//   - or such shape lines alone ('#' starts a comment).
// Every line is one product: a shape listed twice counts twice. With
// --per-step S the list holds S steps' products and totals are per step.
//
// Each sample enqueues --inner products back to back between two timing
// events (events around one tiny product would mostly time the events);
// the median over --repeat samples, after --warmup, counts.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/CUDA/BlasLt.h"
#include "oneflow/Runtime/CUDA/Device.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace oneflow::runtime;
using namespace oneflow::runtime::cuda;

namespace {

struct Options {
  int repeat = 20, warmup = 3, inner = 10;
  double perStep = 1;
  std::vector<std::string> files;
};

[[noreturn]] void usage(const char *message) {
  std::fprintf(stderr,
               "error: %s\nusage: oneflow-cuda-gemm-bench [--repeat N] "
               "[--warmup N] [--inner N] [--per-step S] FILE...\n",
               message);
  std::exit(2);
}

/// key=value tokens of a line (values end at a space, a comma or a quote).
std::map<std::string, std::string> fields(const std::string &line) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while ((i = line.find('=', i)) != std::string::npos) {
    size_t keyStart = i;
    while (keyStart > 0 &&
           (std::isalnum(line[keyStart - 1]) || line[keyStart - 1] == '_'))
      --keyStart;
    size_t valueEnd = i + 1;
    while (valueEnd < line.size() && !std::strchr(" \t,\"}", line[valueEnd]))
      ++valueEnd;
    if (keyStart < i)
      out[line.substr(keyStart, i - keyStart)] =
          line.substr(i + 1, valueEnd - i - 1);
    i = valueEnd;
  }
  return out;
}

int64_t number(const std::map<std::string, std::string> &f, const char *key,
               int64_t fallback) {
  auto it = f.find(key);
  return it == f.end() ? fallback : std::atoll(it->second.c_str());
}

Epilogue epilogueOf(const std::string &name, bool &ok) {
  ok = true;
  if (name == "none" || name == "DEFAULT" || name.empty())
    return Epilogue::None;
  if (name == "bias" || name == "BIAS")
    return Epilogue::Bias;
  if (name == "bias_relu" || name == "RELU_BIAS")
    return Epilogue::BiasRelu;
  if (name == "bias_gelu" || name == "GELU_BIAS")
    return Epilogue::BiasGelu;
  // cuBLASLt's operands are ours swapped (BlasLt.cpp).
  if (name == "bias_grad_a" || name == "BGRADB")
    return Epilogue::BiasGradA;
  if (name == "bias_grad_b" || name == "BGRADA")
    return Epilogue::BiasGradB;
  if (name == "bias_relu_aux" || name == "RELU_AUX_BIAS")
    return Epilogue::BiasReluAux;
  if (name == "bias_gelu_aux" || name == "GELU_AUX_BIAS")
    return Epilogue::BiasGeluAux;
  if (name == "drelu" || name == "DRELU")
    return Epilogue::DRelu;
  if (name == "drelu_bias_grad" || name == "DRELU_BGRAD")
    return Epilogue::DReluBiasGrad;
  if (name == "dgelu" || name == "DGELU")
    return Epilogue::DGelu;
  if (name == "dgelu_bias_grad" || name == "DGELU_BGRAD")
    return Epilogue::DGeluBiasGrad;
  ok = false;
  return Epilogue::None;
}

/// The product a line describes; false if it describes none.
bool parse(const std::string &line, MatmulShape &s, std::string &error) {
  size_t hash = line.find('#');
  std::string text = hash == std::string::npos ? line : line.substr(0, hash);
  std::map<std::string, std::string> f = fields(text);
  if (!f.count("m") || !f.count("n") || !f.count("k"))
    return false;
  bool ok = true;
  if (text.find("cublasLtMatmul ") != std::string::npos) {
    if (text.find("rejected") != std::string::npos)
      return false;
    // cuBLASLt computes c^T = op(b)^T op(a)^T (BlasLt.cpp).
    s.m = number(f, "n", 0);
    s.n = number(f, "m", 0);
    s.k = number(f, "k", 0);
    s.transposeA = number(f, "transb", 0);
    s.transposeB = number(f, "transa", 0);
    s.dtype = dtypeNamed(f["type"]);
    s.batch = number(f, "batch", 1);
    s.strideA = s.batch > 1 ? s.m * s.k : 0;
    s.strideB = s.batch > 1 ? s.k * s.n : 0;
    s.epilogue = epilogueOf(f["epilogue"], ok);
    s.accumulate = f.count("beta") && std::atof(f["beta"].c_str()) != 0;
  } else {
    s.m = number(f, "m", 0);
    s.n = number(f, "n", 0);
    s.k = number(f, "k", 0);
    s.transposeA = number(f, "transposeA", 0);
    s.transposeB = number(f, "transposeB", 0);
    s.dtype = dtypeNamed(f["dtype"]);
    s.batch = number(f, "batch", 1);
    s.strideA = number(f, "strideA", s.batch > 1 ? s.m * s.k : 0);
    s.strideB = number(f, "strideB", s.batch > 1 ? s.k * s.n : 0);
    s.epilogue = epilogueOf(f["epilogue"], ok);
    s.accumulate = number(f, "accumulate", 0);
  }
  if (!ok)
    error = "unknown epilogue in: " + line;
  else if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0)
    error = "bad shape in: " + line;
  return error.empty();
}

std::string describe(const MatmulShape &s) {
  std::ostringstream os;
  os << "dtype=" << dtypeName(s.dtype) << " m=" << s.m << " n=" << s.n
     << " k=" << s.k << " transposeA=" << s.transposeA
     << " transposeB=" << s.transposeB << " batch=" << s.batch
     << " strideA=" << s.strideA << " strideB=" << s.strideB
     << " epilogue=" << epilogueName(s.epilogue)
     << " accumulate=" << s.accumulate;
  return os.str();
}

double flops(const MatmulShape &s) {
  return 2.0 * double(s.m) * double(s.n) * double(s.k) * double(s.batch);
}

/// Elements an operand spans: the last batch's start plus one matrix.
int64_t span(int64_t batch, int64_t stride, int64_t matrix) {
  return (batch - 1) * stride + matrix;
}

[[noreturn]] void fail(const Status &status) {
  std::fprintf(stderr, "error: %s\n", status.message().c_str());
  std::exit(1);
}

template <typename T> T check(Expected<T> value) {
  if (!value.ok())
    fail(value.error());
  return value.take();
}

void check(const Status &status) {
  if (!status.ok())
    fail(status);
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc)
        usage(("missing value of " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--repeat")
      options.repeat = std::atoi(value());
    else if (arg == "--warmup")
      options.warmup = std::atoi(value());
    else if (arg == "--inner")
      options.inner = std::atoi(value());
    else if (arg == "--per-step")
      options.perStep = std::atof(value());
    else if (arg == "--help" || arg == "-h")
      usage("help");
    else if (arg.size() > 1 && arg[0] == '-')
      usage(("unknown option " + arg).c_str());
    else
      options.files.push_back(arg);
  }
  if (options.files.empty())
    usage("no shape file");
  if (options.repeat < 1 || options.inner < 1 || options.warmup < 0 ||
      options.perStep <= 0)
    usage("--repeat, --inner and --per-step must be positive");

  // Distinct shapes in first-seen order, with how often each appears.
  std::vector<std::pair<MatmulShape, int64_t>> shapes;
  std::map<MatmulShape, size_t> index;
  for (const std::string &path : options.files) {
    std::ifstream file;
    if (path != "-") {
      file.open(path);
      if (!file)
        usage(("cannot read " + path).c_str());
    }
    std::istream &in = path == "-" ? std::cin : file;
    std::string line;
    while (std::getline(in, line)) {
      // GPU-times records: only their products' "shape" (task names may
      // hold anything).
      if (line.rfind("{", 0) == 0) {
        const std::string key = "\"shape\": \"";
        size_t at = line.find(key);
        if (at == std::string::npos)
          continue;
        at += key.size();
        line = line.substr(at, line.find('"', at) - at);
      }
      MatmulShape shape;
      std::string error;
      if (!parse(line, shape, error)) {
        if (!error.empty())
          usage(error.c_str());
        continue;
      }
      auto [it, fresh] = index.try_emplace(shape, shapes.size());
      if (fresh)
        shapes.push_back({shape, 0});
      ++shapes[it->second].second;
    }
  }
  if (shapes.empty())
    usage("no GEMM shapes in the input");

  const char *ordinal = std::getenv("ONEFLOW_CUDA_DEVICE");
  std::unique_ptr<Device> device =
      check(Device::open(ordinal ? std::atoi(ordinal) : 0));
  Stream stream = check(device->createStream());
  std::unique_ptr<BlasLt> blas = check(BlasLt::create(*device, stream));
  Event start = check(device->createEvent(/*timing=*/true));
  Event end = check(device->createEvent(/*timing=*/true));
  std::printf("device: %s (sm_%d%d), TF32 %s\n", device->name().c_str(),
              device->computeMajor(), device->computeMinor(),
              std::getenv("ONEFLOW_CUDA_TF32") &&
                      std::strcmp(std::getenv("ONEFLOW_CUDA_TF32"), "1") == 0
                  ? "on"
                  : "off");

  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1, 1);
  double totalMs = 0, totalFlops = 0;
  int64_t products = 0;
  for (auto &[s, count] : shapes) {
    size_t element = elementBytes(s.dtype);
    // The aux epilogues' aux, rows of ld elements (bits for the ReLU mask:
    // more than it needs).
    int64_t elements[] = {
        span(s.batch, s.strideA, s.m * s.k),
        span(s.batch, s.strideB, s.k * s.n), s.batch * s.m * s.n,
        std::max(s.m, s.n),
        std::max<int64_t>(s.m * auxLeadingDimension(s.epilogue, s.n), 1)};
    DevicePtr buffers[5];
    for (int b = 0; b < 5; ++b) {
      size_t bytes = size_t(elements[b]) * element;
      buffers[b] = check(device->allocate(bytes));
      // Values in [-1, 1]: zeros would let the GPU draw less power.
      std::vector<double> f64(s.dtype == DType::F64 ? elements[b] : 0);
      std::vector<float> f32(s.dtype == DType::F32 ? elements[b] : 0);
      bool low = s.dtype == DType::BF16 || s.dtype == DType::F16;
      std::vector<uint16_t> bits(low ? elements[b] : 0);
      for (double &x : f64)
        x = uniform(random);
      for (float &x : f32)
        x = uniform(random);
      for (uint16_t &x : bits) {
        float value = uniform(random);
        if (s.dtype == DType::F16) {
          _Float16 half = _Float16(value);
          std::memcpy(&x, &half, 2);
        } else {
          uint32_t wide;
          std::memcpy(&wide, &value, 4);
          x = uint16_t(wide >> 16);
        }
      }
      const void *host = !f64.empty() ? static_cast<const void *>(f64.data())
                         : !bits.empty()
                             ? static_cast<const void *>(bits.data())
                             : f32.data();
      check(device->copyToDevice(buffers[b], host, bytes, stream));
    }
    DevicePtr bias = s.epilogue == Epilogue::None ? 0 : buffers[3];
    DevicePtr aux = hasAux(s.epilogue) ? buffers[4] : 0;
    std::vector<double> samples;
    for (int r = 0; r < options.warmup + options.repeat; ++r) {
      check(device->record(start, stream));
      for (int i = 0; i < options.inner; ++i)
        check(blas->matmul(s, buffers[0], buffers[1], buffers[2], bias, aux));
      check(device->record(end, stream));
      check(device->synchronize(end));
      float ms = check(device->elapsedMs(start, end));
      if (r >= options.warmup)
        samples.push_back(double(ms) / options.inner);
    }
    for (DevicePtr buffer : buffers)
      check(device->free(buffer));
    std::sort(samples.begin(), samples.end());
    double median = samples[samples.size() / 2];
    double tflops = flops(s) / (median * 1e-3) / 1e12;
    std::printf("gemm %s count=%lld median_us=%.3f tflops=%.3f\n",
                describe(s).c_str(), static_cast<long long>(count),
                median * 1e3, tflops);
    totalMs += median * double(count);
    totalFlops += flops(s) * double(count);
    products += count;
  }
  double perStepMs = totalMs / options.perStep;
  std::printf("total: %lld products (%zu shapes), %.4f ms back to back "
              "alone, %.3f TFLOP/s\n",
              static_cast<long long>(products), shapes.size(), totalMs,
              totalFlops / (totalMs * 1e-3) / 1e12);
  std::printf("per_step_ms=%.6f per_step_gflop=%.6f\n", perStepMs,
              totalFlops / options.perStep / 1e9);
  check(device->destroyEvent(start));
  check(device->destroyEvent(end));
  blas.reset();
  check(device->destroyStream(stream));
  return 0;
}
