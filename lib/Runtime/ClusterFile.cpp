//===- ClusterFile.cpp - Cluster descriptions and their fits --------------===//

#include "oneflow/Runtime/ClusterFile.h"

#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace oneflow {
namespace runtime {

namespace {

bool positive(double value) { return std::isfinite(value) && value > 0; }

const char *const kPeakKeys[] = {"f32", "tf32", "bf16", "f16", "f64"};

/// The shortest "%g" text that reads back to `value`: 2.189e+11 rather
/// than jsonNumber's 218900000000, which hides the magnitude.
std::string number(double value) {
  char text[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof(text), "%.*g", precision, value);
    if (std::strtod(text, nullptr) == value)
      break;
  }
  return text;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

} // namespace

Status validateCluster(const ClusterDescription &cluster) {
  std::vector<std::string> problems;
  auto check = [&](bool ok, const std::string &what) {
    if (!ok)
      problems.push_back(what);
  };
  check(cluster.kind == "cpu" || cluster.kind == "gpu",
        "device.kind '" + cluster.kind + "': expected \"cpu\" or \"gpu\"");
  check(!cluster.peakFlops.empty(), "device.peak_flops is empty");
  for (size_t i = 0; i < cluster.peakFlops.size(); ++i) {
    const auto &[key, value] = cluster.peakFlops[i];
    check(std::count(std::begin(kPeakKeys), std::end(kPeakKeys), key) == 1,
          "device.peak_flops: unknown element type '" + key + "'");
    for (size_t j = 0; j < i; ++j)
      check(cluster.peakFlops[j].first != key,
            "device.peak_flops: '" + key + "' twice");
    check(positive(value), "device.peak_flops." + key + " must be positive");
  }
  check(!cluster.gemmEfficiency.empty(), "device.gemm_efficiency is empty");
  for (size_t i = 0; i < cluster.gemmEfficiency.size(); ++i) {
    const auto &[flops, fraction] = cluster.gemmEfficiency[i];
    check(positive(flops) &&
              (i == 0 || flops > cluster.gemmEfficiency[i - 1].first),
          "device.gemm_efficiency: point " + std::to_string(i) +
              ": flops must be positive and increasing");
    check(positive(fraction) && fraction <= 1,
          "device.gemm_efficiency: point " + std::to_string(i) +
              ": the fraction must be in (0, 1]");
  }
  check(cluster.concurrentRanks >= 0,
        "device.concurrent_ranks must not be negative");
  check(positive(cluster.vectorFlops), "device.vector_flops must be positive");
  check(positive(cluster.memoryBandwidth),
        "device.memory_bandwidth must be positive");
  check(cluster.memoryCapacity > 0, "device.memory_capacity must be positive");
  check(positive(cluster.kernelOverhead),
        "device.kernel_overhead must be positive");
  check(std::isfinite(cluster.streamHandoff) && cluster.streamHandoff >= 0,
        "device.stream_handoff must not be negative");
  check(std::isfinite(cluster.sharedCpuSwitch) && cluster.sharedCpuSwitch >= 0,
        "device.shared_cpu_switch must not be negative");
  check(!cluster.links.empty(), "links is empty");
  for (size_t i = 0; i < cluster.links.size(); ++i) {
    const LinkLevel &link = cluster.links[i];
    std::string where =
        "links[" + std::to_string(i) + "] ('" + link.name + "')";
    bool last = i + 1 == cluster.links.size();
    check(last ? link.devices == 0 : link.devices > 0,
          where + (last ? ": the outermost level must have devices 0"
                        : ": devices must be positive"));
    check(positive(link.latency), where + ": latency must be positive");
    check(positive(link.bandwidth), where + ": bandwidth must be positive");
  }
  return joinProblems(problems);
}

std::string clusterToJson(const ClusterDescription &cluster) {
  auto string = [](const std::string &text) {
    std::string out;
    appendJsonString(out, text);
    return out;
  };
  std::string out =
      "{\n  \"version\": 1,\n  \"name\": " + string(cluster.name) +
      ",\n  \"device\": {\n";
  out += "    \"kind\": " + string(cluster.kind) + ",\n";
  out += "    \"peak_flops\": {";
  for (size_t i = 0; i < cluster.peakFlops.size(); ++i)
    out += (i ? ", " : "") + string(cluster.peakFlops[i].first) + ": " +
           number(cluster.peakFlops[i].second);
  out += "},\n    \"gemm_efficiency\": [";
  for (size_t i = 0; i < cluster.gemmEfficiency.size(); ++i)
    out += std::string(i ? ", " : "") + "[" +
           number(cluster.gemmEfficiency[i].first) + ", " +
           number(cluster.gemmEfficiency[i].second) + "]";
  out += "],\n";
  if (cluster.concurrentRanks > 0)
    out +=
        "    \"concurrent_ranks\": " + std::to_string(cluster.concurrentRanks) +
        ",\n";
  out += "    \"vector_flops\": " + number(cluster.vectorFlops) + ",\n";
  out += "    \"memory_bandwidth\": " + number(cluster.memoryBandwidth) + ",\n";
  out += "    \"memory_capacity\": " + std::to_string(cluster.memoryCapacity) +
         ",\n";
  out += "    \"kernel_overhead\": " + number(cluster.kernelOverhead);
  if (cluster.streamHandoff > 0)
    out += ",\n    \"stream_handoff\": " + number(cluster.streamHandoff);
  if (cluster.sharedCpuSwitch > 0)
    out += ",\n    \"shared_cpu_switch\": " + number(cluster.sharedCpuSwitch);
  out += "\n  },\n  \"links\": [";
  for (size_t i = 0; i < cluster.links.size(); ++i) {
    const LinkLevel &link = cluster.links[i];
    out += std::string(i ? "," : "") + "\n    {\"name\": " + string(link.name) +
           ", \"devices\": " + std::to_string(link.devices) +
           ", \"latency\": " + number(link.latency) +
           ", \"bandwidth\": " + number(link.bandwidth) + "}";
  }
  out += "\n  ],\n  \"sources\": " + string(cluster.sources) + "\n}\n";
  return out;
}

Status writeClusterFile(const std::string &path,
                        const ClusterDescription &cluster) {
  if (Status valid = validateCluster(cluster); !valid.ok())
    return makeError("cluster description '", path, "' would be invalid:\n",
                     valid.message());
  return writeFileAtomic(path, clusterToJson(cluster));
}

double roundSignificant(double value, int digits) {
  if (!std::isfinite(value) || value == 0)
    return value;
  char text[40];
  std::snprintf(text, sizeof(text), "%.*e", digits - 1, value);
  return std::strtod(text, nullptr);
}

double gemmPeak(const std::vector<GemmTiming> &timings) {
  double peak = 0;
  for (const GemmTiming &timing : timings)
    peak = std::max(peak, timing.throughput);
  return peak;
}

std::vector<std::pair<double, double>>
gemmEfficiencyCurve(const std::vector<GemmTiming> &timings, double peak) {
  // Half decades of flops: [1e5, 3.16e5), [3.16e5, 1e6), ...
  std::map<int, std::vector<const GemmTiming *>> groups;
  for (const GemmTiming &timing : timings)
    if (positive(timing.flops) && positive(timing.throughput))
      groups[int(std::floor(2 * std::log10(timing.flops)))].push_back(&timing);
  struct Block {
    double flops, fraction, weight;
  };
  std::vector<Block> blocks;
  for (const auto &[group, members] : groups) {
    std::vector<double> flops, fractions;
    for (const GemmTiming *timing : members) {
      flops.push_back(timing->flops);
      fractions.push_back(timing->throughput / peak);
    }
    blocks.push_back(
        {median(flops), median(fractions), double(members.size())});
  }
  // Pool adjacent violators: merge a group into its predecessor while it is
  // less efficient, as a weighted mean; merged groups keep every point's
  // flops but share the fraction.
  std::vector<Block> pooled;
  std::vector<std::vector<double>> pooledFlops;
  for (const Block &block : blocks) {
    pooled.push_back(block);
    pooledFlops.push_back({block.flops});
    while (pooled.size() > 1 &&
           pooled[pooled.size() - 2].fraction > pooled.back().fraction) {
      Block last = pooled.back();
      std::vector<double> lastFlops = pooledFlops.back();
      pooled.pop_back();
      pooledFlops.pop_back();
      Block &into = pooled.back();
      into.fraction =
          (into.fraction * into.weight + last.fraction * last.weight) /
          (into.weight + last.weight);
      into.weight += last.weight;
      pooledFlops.back().insert(pooledFlops.back().end(), lastFlops.begin(),
                                lastFlops.end());
    }
  }
  std::vector<std::pair<double, double>> curve;
  for (size_t i = 0; i < pooled.size(); ++i)
    for (double flops : pooledFlops[i]) {
      double fraction = std::min(
          1.0, std::max(roundSignificant(pooled[i].fraction, 3), 1e-4));
      curve.emplace_back(roundSignificant(flops, 3), fraction);
    }
  // Rounding may merge neighbouring flops: keep the points increasing.
  curve.erase(std::unique(curve.begin(), curve.end(),
                          [](const auto &a, const auto &b) {
                            return a.first == b.first;
                          }),
              curve.end());
  return curve;
}

std::pair<double, double> ringCoefficients(plan::Collective::Kind kind, int n) {
  const double steps = n - 1, share = double(n - 1) / n;
  switch (kind) {
  case plan::Collective::ALL_REDUCE:
    return {2 * steps, 2 * share};
  case plan::Collective::REDUCE_SCATTER:
  case plan::Collective::ALL_GATHER:
  case plan::Collective::ALL_TO_ALL:
    return {steps, share};
  default: // SEND, RECV: one transfer.
    return {1, 1};
  }
}

namespace {

/// The ring formula's coefficients of alpha and 1 / beta for each timing.
struct Row {
  double latency, bandwidth, seconds;
};

/// Least squares on relative errors, (model - t) / t, which is linear in
/// (alpha, 1 / beta), with alpha >= 0: the start of the fit below.
std::pair<double, double> relativeFit(const std::vector<Row> &rows) {
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
  for (const Row &row : rows) {
    double a = row.latency / row.seconds, b = row.bandwidth / row.seconds;
    s11 += a * a;
    s12 += a * b;
    s22 += b * b;
    r1 += a;
    r2 += b;
  }
  double det = s11 * s22 - s12 * s12;
  if (det > 1e-12 * s11 * s22) {
    double alpha = (r1 * s22 - r2 * s12) / det;
    double inverseBeta = (s11 * r2 - s12 * r1) / det;
    if (alpha >= 0)
      return {alpha, inverseBeta};
  }
  // A negative latency (or a singular system): the bandwidth term explains
  // the timings alone.
  return {0, s22 > 0 ? r2 / s22 : 0};
}

/// The sum of squared log ratios model / measured, or infinity when the
/// model is not positive everywhere.
double logCost(const std::vector<Row> &rows, double alpha, double inverseBeta) {
  double cost = 0;
  for (const Row &row : rows) {
    double model = row.latency * alpha + row.bandwidth * inverseBeta;
    if (!(model > 0))
      return INFINITY;
    double r = std::log(model / row.seconds);
    cost += r * r;
  }
  return cost;
}

} // namespace

Expected<AlphaBeta> fitAlphaBeta(const std::vector<LinkTiming> &timings) {
  std::vector<Row> rows;
  for (const LinkTiming &timing : timings) {
    if (!positive(timing.seconds) || timing.bytes < 0)
      return makeError("link timing of ", timing.bytes,
                       " bytes: ", timing.seconds, " s is not a positive time");
    auto [c1, c2] = ringCoefficients(timing.kind, timing.ranks);
    rows.push_back({c1, c2 * timing.bytes, timing.seconds});
  }
  auto [alpha, inverseBeta] = relativeFit(rows);
  if (!(inverseBeta > 0))
    return makeError("the link timings do not determine a bandwidth (",
                     timings.size(),
                     " timings; times must grow with the bytes moved)");
  // Then least squares on log(model / measured): symmetric in the ratio
  // (the relative error of a model 3x too slow is 2, of one 3x too fast
  // only -0.67, which biases the relative fit towards fast predictions when
  // the kinds disagree). Gauss-Newton in units of the start, halving steps
  // until the cost falls, alpha kept >= 0.
  double alphaUnit = alpha > 0 ? alpha : 1e-3 * rows.front().seconds;
  double gUnit = inverseBeta;
  double u = alpha / alphaUnit, v = 1, cost = logCost(rows, alpha, gUnit);
  for (int iteration = 0; iteration < 100; ++iteration) {
    double j11 = 0, j12 = 0, j22 = 0, g1 = 0, g2 = 0;
    for (const Row &row : rows) {
      double model = row.latency * alphaUnit * u + row.bandwidth * gUnit * v;
      double r = std::log(model / row.seconds);
      double du = row.latency * alphaUnit / model;
      double dv = row.bandwidth * gUnit / model;
      j11 += du * du;
      j12 += du * dv;
      j22 += dv * dv;
      g1 += du * r;
      g2 += dv * r;
    }
    double det = j11 * j22 - j12 * j12;
    double stepU = 0, stepV = 0;
    if (det > 1e-12 * j11 * j22) {
      stepU = -(j22 * g1 - j12 * g2) / det;
      stepV = -(j11 * g2 - j12 * g1) / det;
    }
    if (u + stepU < 0 || det <= 1e-12 * j11 * j22) {
      // On the boundary alpha = 0: move v alone.
      stepU = -u;
      stepV = j22 > 0 ? -g2 / j22 : 0;
    }
    bool moved = false;
    for (double scale = 1; scale > 1e-6; scale /= 2) {
      double nu = std::max(0.0, u + scale * stepU), nv = v + scale * stepV;
      double next = logCost(rows, alphaUnit * nu, gUnit * nv);
      if (next < cost) {
        moved = std::abs(nu - u) + std::abs(nv - v) > 1e-12;
        u = nu;
        v = nv;
        cost = next;
        break;
      }
    }
    if (!moved)
      break;
  }
  alpha = alphaUnit * u;
  inverseBeta = gUnit * v;

  AlphaBeta fit;
  fit.alpha = alpha;
  fit.beta = 1 / inverseBeta;
  double squares = 0;
  for (const Row &row : rows) {
    double model = row.latency * alpha + row.bandwidth * inverseBeta;
    double relative = (model - row.seconds) / row.seconds;
    squares += relative * relative;
  }
  fit.rmsRelativeError = std::sqrt(squares / double(rows.size()));
  return fit;
}

} // namespace runtime
} // namespace oneflow
