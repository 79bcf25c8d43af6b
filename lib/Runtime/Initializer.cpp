//===- Initializer.cpp - Variables drawn from a distribution --------------===//

#include "oneflow/Runtime/Initializer.h"

#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/Tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace oneflow {
namespace runtime {

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key) {
  constexpr uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
  constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(kMul0) * counter[0];
    uint64_t p1 = uint64_t(kMul1) * counter[2];
    counter = {uint32_t(p1 >> 32) ^ counter[1] ^ key[0], uint32_t(p1),
               uint32_t(p0 >> 32) ^ counter[3] ^ key[1], uint32_t(p0)};
    key[0] += kWeyl0;
    key[1] += kWeyl1;
  }
  return counter;
}

double normalQuantile(double p) {
  // Acklam's rational approximation (relative error 1.15e-9), then one
  // Halley step against erfc, which is accurate in both tails.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                             -2.759285104469687e+02, 1.383577518672690e+02,
                             -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                             -1.556989798598866e+02, 6.680131188771972e+01,
                             -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                             -2.400758277161838e+00, -2.549732539343734e+00,
                             4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                             2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  auto tail = [&](double q) {
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q +
            c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  };
  double x;
  if (p < kLow) {
    x = tail(std::sqrt(-2 * std::log(p)));
  } else if (p > 1 - kLow) {
    x = -tail(std::sqrt(-2 * std::log1p(-p)));
  } else {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
        q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

namespace {

double normalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

/// 53 random bits as a double in [0, 1).
double unit(uint64_t bits) { return double(bits >> 11) * 0x1.0p-53; }

bool isFloat(plan::DataType dtype) {
  return dtype == plan::F32 || dtype == plan::F64 || dtype == plan::F16 ||
         dtype == plan::BF16;
}

template <typename T> std::string text(T value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", double(value));
  return buffer;
}

/// The largest value of a 16- or 32-bit IEEE-style format below the one of
/// `bits` (finite, not the most negative).
template <typename Bits> Bits below(Bits bits) {
  constexpr Bits sign = Bits(Bits(1) << (sizeof(Bits) * 8 - 1));
  if (bits == 0 || bits == sign) // +-0: the smallest negative subnormal
    return Bits(sign | 1);
  return (bits & sign) ? Bits(bits + 1) : Bits(bits - 1);
}

/// Writes elements [begin, end) of the run starting at logical index
/// `first` into `out` (elements of `dtype`).
struct Writer {
  const InitializerSampler &sampler;
  const plan::Initializer &init;
  plan::DataType dtype;

  void run(char *out, uint64_t first, int64_t count) const {
    std::array<double, 2> values;
    for (int64_t k = 0; k < count; ++k) {
      uint64_t index = first + uint64_t(k);
      // One draw gives an even element and the odd one after it.
      if (k == 0 || (index & 1) == 0)
        values = sampler.pair(index >> 1);
      store(out, k, values[index & 1]);
    }
  }

  void store(char *out, int64_t k, double value) const {
    bool uniform = init.kind() == plan::Initializer::UNIFORM;
    switch (dtype) {
    case plan::F64: {
      if (uniform && value >= init.b())
        value = std::nextafter(init.b(), -INFINITY);
      std::memcpy(out + 8 * k, &value, 8);
      break;
    }
    case plan::F32: {
      float single = float(value);
      if (uniform && double(single) >= init.b()) {
        uint32_t bits;
        std::memcpy(&bits, &single, 4);
        bits = below(bits);
        std::memcpy(&single, &bits, 4);
      }
      std::memcpy(out + 4 * k, &single, 4);
      break;
    }
    case plan::F16:
    case plan::BF16: {
      bool half = dtype == plan::F16;
      uint16_t bits =
          half ? floatToHalf(float(value)) : floatToBfloat16(float(value));
      if (uniform &&
          double(half ? halfToFloat(bits) : bfloat16ToFloat(bits)) >= init.b())
        bits = below(bits);
      std::memcpy(out + 2 * k, &bits, 2);
      break;
    }
    default:
      break; // Random values need a float type (initializerProblem).
    }
  }
};

/// `value` (0 or 1) in every element of `dst`.
void fillConstant(plan::DataType dtype, void *dst, int64_t count, int value) {
  int64_t size = elementSize(dtype);
  if (value == 0 || count == 0) {
    std::memset(dst, 0, size_t(count * size));
    return;
  }
  char one[8] = {};
  switch (dtype) {
  case plan::F32: {
    float v = 1;
    std::memcpy(one, &v, 4);
    break;
  }
  case plan::F64: {
    double v = 1;
    std::memcpy(one, &v, 8);
    break;
  }
  case plan::F16: {
    uint16_t v = 0x3c00;
    std::memcpy(one, &v, 2);
    break;
  }
  case plan::BF16: {
    uint16_t v = 0x3f80;
    std::memcpy(one, &v, 2);
    break;
  }
  case plan::I32: {
    int32_t v = 1;
    std::memcpy(one, &v, 4);
    break;
  }
  case plan::I64: {
    int64_t v = 1;
    std::memcpy(one, &v, 8);
    break;
  }
  case plan::BOOL:
    one[0] = 1;
    break;
  default:
    return;
  }
  char *out = static_cast<char *>(dst);
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(out + i * size, one, size_t(size));
}

} // namespace

std::string initializerProblem(const plan::Initializer &init,
                               plan::DataType dtype) {
  auto finite = [](double value) { return std::isfinite(value); };
  switch (init.kind()) {
  case plan::Initializer::ZEROS:
  case plan::Initializer::ONES:
    return "";
  case plan::Initializer::MESH_COORDINATES:
    if (dtype != plan::I64)
      return std::string("mesh coordinates fill I64 values, not ") +
             dataTypeName(dtype);
    return "";
  case plan::Initializer::NORMAL:
    if (!finite(init.mean()) || !finite(init.std()) || init.std() < 0)
      return "normal initializer needs a finite mean and std >= 0, got "
             "mean " +
             text(init.mean()) + ", std " + text(init.std());
    break;
  case plan::Initializer::UNIFORM:
    if (!finite(init.a()) || !finite(init.b()) || !(init.a() < init.b()))
      return "uniform initializer needs finite bounds a < b, got [" +
             text(init.a()) + ", " + text(init.b()) + ")";
    break;
  case plan::Initializer::TRUNCATED_NORMAL: {
    if (!finite(init.mean()) || !finite(init.std()) || !(init.std() > 0) ||
        !finite(init.a()) || !finite(init.b()) || !(init.a() < init.b()))
      return "truncated normal initializer needs a finite mean, std > 0 and "
             "finite bounds a < b, got mean " +
             text(init.mean()) + ", std " + text(init.std()) + ", [" +
             text(init.a()) + ", " + text(init.b()) + "]";
    double alpha = (init.a() - init.mean()) / init.std(),
           beta = (init.b() - init.mean()) / init.std();
    if (alpha >= 0)
      std::tie(alpha, beta) = std::make_pair(-beta, -alpha);
    if (!(normalCdf(beta) - normalCdf(alpha) > 0))
      return "truncated normal initializer bounds [" + text(init.a()) + ", " +
             text(init.b()) + "] hold no probability mass of normal(" +
             text(init.mean()) + ", " + text(init.std()) + ")";
    break;
  }
  default:
    return "unknown initializer kind " + std::to_string(int(init.kind()));
  }
  if (!isFloat(dtype))
    return std::string("a random initializer cannot fill ") +
           dataTypeName(dtype) + " values (it needs f32, f64, f16 or bf16)";
  return "";
}

InitializerSampler::InitializerSampler(const plan::Initializer &init)
    : init(init), key{uint32_t(init.seed()), uint32_t(init.seed() >> 32)} {
  if (init.kind() != plan::Initializer::TRUNCATED_NORMAL || !(init.std() > 0))
    return;
  double lo = (init.a() - init.mean()) / init.std(),
         hi = (init.b() - init.mean()) / init.std();
  // The lower tail keeps the CDF's relative precision: an interval above
  // the mean is sampled mirrored.
  mirrored = lo >= 0;
  if (mirrored)
    std::tie(lo, hi) = std::make_pair(-hi, -lo);
  alpha = lo;
  cdfAlpha = normalCdf(lo);
  cdfBeta = normalCdf(hi);
}

std::array<double, 2> InitializerSampler::pair(uint64_t pairIndex) const {
  switch (init.kind()) {
  case plan::Initializer::ZEROS:
    return {0, 0};
  case plan::Initializer::ONES:
    return {1, 1};
  default:
    break;
  }
  uint64_t stream = init.stream();
  std::array<uint32_t, 4> r =
      philox4x32({uint32_t(pairIndex), uint32_t(pairIndex >> 32),
                  uint32_t(stream), uint32_t(stream >> 32)},
                 key);
  uint64_t x = (uint64_t(r[1]) << 32) | r[0];
  uint64_t y = (uint64_t(r[3]) << 32) | r[2];
  switch (init.kind()) {
  case plan::Initializer::UNIFORM: {
    double width = init.b() - init.a();
    return {init.a() + width * unit(x), init.a() + width * unit(y)};
  }
  case plan::Initializer::NORMAL: {
    // Box-Muller: both coordinates of one point.
    double radius = std::sqrt(-2 * std::log(unit(x) + 0x1.0p-53));
    double angle = 2 * M_PI * unit(y);
    return {init.mean() + init.std() * radius * std::cos(angle),
            init.mean() + init.std() * radius * std::sin(angle)};
  }
  case plan::Initializer::TRUNCATED_NORMAL: {
    auto draw = [&](uint64_t bits) {
      double p = cdfAlpha + unit(bits) * (cdfBeta - cdfAlpha);
      double z = p > 0 ? normalQuantile(p) : alpha;
      double value = init.mean() + init.std() * (mirrored ? -z : z);
      return std::min(std::max(value, init.a()), init.b());
    };
    return {draw(x), draw(y)};
  }
  default:
    return {0, 0};
  }
}

double InitializerSampler::operator()(uint64_t index) const {
  return pair(index >> 1)[index & 1];
}

void fillInitializer(const plan::Initializer &init, plan::DataType dtype,
                     void *dst, const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &globalShape,
                     const std::vector<int64_t> &offsets) {
  int64_t count = numElements(shape);
  if (count <= 0)
    return;
  if (init.kind() == plan::Initializer::MESH_COORDINATES) {
    auto *out = static_cast<int64_t *>(dst);
    for (int64_t i = 0; i < count; ++i)
      out[i] = i < init.values_size() ? init.values(int(i)) : 0;
    return;
  }
  if (init.kind() == plan::Initializer::ZEROS ||
      init.kind() == plan::Initializer::ONES) {
    fillConstant(dtype, dst, count,
                 init.kind() == plan::Initializer::ONES ? 1 : 0);
    return;
  }
  InitializerSampler sampler(init);
  Writer writer{sampler, init, dtype};
  const size_t rank = shape.size();
  bool whole = globalShape.size() != rank || offsets.size() != rank;
  // Runs along the innermost dimension are contiguous in both tensors.
  int64_t rowLength = rank ? shape.back() : 1;
  int64_t rows = count / rowLength;
  std::vector<int64_t> globalStride(rank, 1);
  for (size_t d = rank; d-- > 1;)
    globalStride[d - 1] = globalStride[d] * (whole ? shape[d] : globalShape[d]);
  int64_t size = elementSize(dtype);
  char *out = static_cast<char *>(dst);
  auto fillRows = [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      // The row's first element, as a logical index.
      uint64_t first = 0;
      int64_t rest = row;
      for (size_t d = rank; d-- > 0;) {
        int64_t local = d + 1 == rank ? 0 : rest % shape[d];
        if (d + 1 != rank)
          rest /= shape[d];
        first += uint64_t((whole ? 0 : offsets[d]) + local) *
                 uint64_t(globalStride[d]);
      }
      writer.run(out + row * rowLength * size, first, rowLength);
    }
  };
  // About a million elements per thread is worth a thread.
  int64_t threads = std::min<int64_t>(
      {int64_t(std::max(1u, std::thread::hardware_concurrency())),
       count / (1 << 20) + 1, rows});
  if (threads <= 1) {
    fillRows(0, rows);
    return;
  }
  std::vector<std::thread> workers;
  for (int64_t t = 0; t < threads; ++t)
    workers.emplace_back(fillRows, rows * t / threads,
                         rows * (t + 1) / threads);
  for (std::thread &worker : workers)
    worker.join();
}

} // namespace runtime
} // namespace oneflow
