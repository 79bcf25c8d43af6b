//===- CalibrateCluster.cpp - From measurements to the cluster file -------===//
//
// `calibrate()` (see Calibrate.h): every rank measures its device at the
// same time, the ranks' figures meet on rank 0 (medians), the link is
// fitted, and the machine, the method and the load are described in the
// file's "name" and "sources".
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/Calibrate.h"

#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/FileUtil.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace oneflow {
namespace runtime {

namespace {

/// Without two ranks the link cannot be measured. These figures are what
/// the runtime's collectives reached between 2 ranks on the 2-core
/// development machine (clusters/cpu-local.json, rounded): OpenMPI's
/// shared-memory transport, blocked receivers yielding their core.
constexpr double kDefaultLatency = 1e-6;
constexpr double kDefaultBandwidth = 3.8e9;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string format(const char *pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, value);
  return text;
}

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm parts;
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M UTC", &parts);
  return text;
}

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || !*name)
    return "localhost";
  return name;
}

std::string firstLineValue(const std::string &path, const std::string &key) {
  Expected<std::string> text = readFile(path);
  if (!text.ok())
    return "";
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);)
    if (line.compare(0, key.size(), key) == 0) {
      size_t colon = line.find(':');
      if (colon == std::string::npos)
        return "";
      size_t start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  return "";
}

std::string cpuModel() {
  std::string model = firstLineValue("/proc/cpuinfo", "model name");
  return model.empty() ? "unknown CPU" : model;
}

/// The one-minute load average (how busy the machine was), or -1.
double loadAverage() {
  Expected<std::string> text = readFile("/proc/loadavg");
  return text.ok() ? std::atof(text->c_str()) : -1;
}

/// Physical memory, or the control group's limit when lower (a container).
int64_t physicalMemory() {
  int64_t bytes = int64_t(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  for (const char *limitFile :
       {"/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    Expected<std::string> text = readFile(limitFile);
    if (!text.ok())
      continue;
    char *end = nullptr;
    long long limit = std::strtoll(text->c_str(), &end, 10);
    if (end != text->c_str() && limit > 0 && limit < bytes)
      bytes = limit;
  }
  return bytes;
}

std::string serialize(const DeviceTimings &timings) {
  std::ostringstream out;
  out.precision(17);
  out << timings.peakF64 << ' ' << timings.vectorFlops << ' '
      << timings.bandwidth << ' ' << timings.cacheBandwidth << ' '
      << timings.firingSeconds << ' ' << timings.handoffSeconds << ' '
      << timings.sharedSwitchSeconds << ' ' << timings.cpuShare << ' '
      << timings.gemmF32.size();
  for (const GemmTiming &gemm : timings.gemmF32)
    out << ' ' << gemm.shape << ' ' << gemm.flops << ' ' << gemm.throughput;
  return out.str();
}

DeviceTimings deserialize(const std::string &text) {
  std::istringstream in(text);
  DeviceTimings timings;
  size_t shapes = 0;
  in >> timings.peakF64 >> timings.vectorFlops >> timings.bandwidth >>
      timings.cacheBandwidth >> timings.firingSeconds >>
      timings.handoffSeconds >> timings.sharedSwitchSeconds >>
      timings.cpuShare >> shapes;
  timings.gemmF32.resize(shapes);
  for (GemmTiming &gemm : timings.gemmF32)
    in >> gemm.shape >> gemm.flops >> gemm.throughput;
  return timings;
}

/// Every figure's median over the ranks (each shape's on its own).
DeviceTimings combine(const std::vector<DeviceTimings> &ranks) {
  DeviceTimings result = ranks.front();
  auto over = [&](auto field) {
    std::vector<double> values;
    for (const DeviceTimings &rank : ranks)
      values.push_back(field(rank));
    return median(values);
  };
  result.peakF64 = over([](const DeviceTimings &t) { return t.peakF64; });
  result.vectorFlops =
      over([](const DeviceTimings &t) { return t.vectorFlops; });
  result.bandwidth = over([](const DeviceTimings &t) { return t.bandwidth; });
  result.cacheBandwidth =
      over([](const DeviceTimings &t) { return t.cacheBandwidth; });
  result.firingSeconds =
      over([](const DeviceTimings &t) { return t.firingSeconds; });
  result.handoffSeconds =
      over([](const DeviceTimings &t) { return t.handoffSeconds; });
  result.sharedSwitchSeconds =
      over([](const DeviceTimings &t) { return t.sharedSwitchSeconds; });
  result.cpuShare = over([](const DeviceTimings &t) { return t.cpuShare; });
  for (size_t i = 0; i < result.gemmF32.size(); ++i)
    result.gemmF32[i].throughput =
        over([&](const DeviceTimings &t) { return t.gemmF32[i].throughput; });
  return result;
}

std::string describeSources(const CalibrationOptions &options,
                            const DeviceTimings &device, int ranks,
                            int localRanks, const std::string &when,
                            double loadBefore, double loadAfter,
                            const std::string &linkText) {
  double lowest = 1e300, highest = 0;
  for (const GemmTiming &gemm : device.gemmF32) {
    lowest = std::min(lowest, gemm.flops);
    highest = std::max(highest, gemm.flops);
  }
  const bool quick = options.quick;
  std::ostringstream out;
  out << "Measured by oneflow-run --calibrate"
      << (quick ? " --calibrate-quick" : "") << " on " << hostName() << ", "
      << when << ": "
      << (ranks == 1 ? std::string("1 process")
                     : std::to_string(ranks) + " MPI ranks (" +
                           std::to_string(localRanks) + " on this machine)")
      << " with " << options.threadsPerRank << " OpenMP/BLAS thread"
      << (options.threadsPerRank == 1 ? "" : "s")
      << (ranks == 1 ? ""
                     : " each, all measuring at once (each figure the "
                       "median over the ranks)")
      << ". Load: average " << format("%.2f", loadBefore) << " before, "
      << format("%.2f", loadAfter) << " after, on " << availableCpus()
      << " CPUs; the ranks had " << format("%.0f%%", device.cpuShare * 100)
      << " of their cores' time. Device figures are CPU times of the rank's "
         "threads (what the machine does, not the slices other processes "
         "took), each the median of "
      << (quick ? 3 : 7) << " batches. "
      << "peak_flops.f32, gemm_efficiency: oneflow_gemm_f32 (oneDNN sgemm, "
         "the generated matmul kernels' entry point, linked as kernels.so is) "
         "on "
      << device.gemmF32.size()
      << " shapes (square; transformer projections, MLP and gradient "
         "products with transposes; attention heads) from "
      << format("%.2g", lowest) << " to " << format("%.2g", highest)
      << " flops, warm operands; the peak is the best shape's, the curve "
         "the median fraction per half decade of flops made non-decreasing. "
      << "peak_flops.f64: oneflow_gemm_f64 (OpenBLAS dgemm), "
      << (quick ? "256" : "1024") << "^3. "
      << "vector_flops: 4 multiply-adds, an exp (the compiler's polynomial, "
         "counted 8) and a multiply per f32 element (17 flops) over "
         "L1-resident arrays, vectorized for the host. "
      << "memory_bandwidth: STREAM triad a = b + 3 c over 3 arrays of "
      << (quick ? 16 : 64)
      << " MiB per rank, 12 bytes per element (3 x 512 KiB, in the caches: "
      << format("%.3g", device.cacheBandwidth)
      << " bytes/s, not a figure of the format). "
      << "memory_capacity: physical memory (or the cgroup limit) / "
      << localRanks << " rank" << (localRanks == 1 ? "" : "s")
      << " on this machine. "
      << "kernel_overhead: a chain of 100 empty kernels on one stream run by "
         "the Executor, per firing. "
      << "stream_handoff: the same chain alternating between the compute "
         "and comm streams, wall time per firing less kernel_overhead. "
      << "shared_cpu_switch: that chain run by all ranks of this machine "
         "bound to one CPU, wall time per firing less kernel_overhead, over "
         "the ranks. "
      << linkText;
  return out.str();
}

/// Measured and fitted microseconds per size, a column per kind.
std::string linkTable(const std::vector<LinkTiming> &timings,
                      const AlphaBeta &fit) {
  const std::pair<plan::Collective::Kind, const char *> kinds[] = {
      {plan::Collective::ALL_REDUCE, "ALL_REDUCE"},
      {plan::Collective::REDUCE_SCATTER, "REDUCE_SCATTER"},
      {plan::Collective::ALL_GATHER, "ALL_GATHER"},
      {plan::Collective::ALL_TO_ALL, "ALL_TO_ALL"},
      {plan::Collective::SEND, "SEND/RECV"}};
  auto cell = [](const std::string &text) {
    return text + std::string(text.size() < 18 ? 18 - text.size() : 1, ' ');
  };
  std::string out = "  link timings (us, measured / fitted):\n      bytes  ";
  for (const auto &[kind, name] : kinds)
    out += cell(name);
  out += "\n";
  std::vector<double> sizes;
  for (const LinkTiming &timing : timings)
    if (std::find(sizes.begin(), sizes.end(), timing.bytes) == sizes.end())
      sizes.push_back(timing.bytes);
  for (double bytes : sizes) {
    out += format("  %9.0f  ", bytes);
    for (const auto &[kind, name] : kinds)
      for (const LinkTiming &timing : timings)
        if (timing.bytes == bytes && timing.kind == kind) {
          auto [c1, c2] = ringCoefficients(kind, timing.ranks);
          double model = c1 * fit.alpha + c2 * bytes / fit.beta;
          out += cell(format("%.1f", timing.seconds * 1e6) + " / " +
                      format("%.1f", model * 1e6));
        }
    out += "\n";
  }
  return out;
}

std::string summaryTable(const ClusterDescription &cluster,
                         const DeviceTimings &device, const AlphaBeta *fit,
                         size_t linkTimings) {
  std::ostringstream out;
  auto row = [&](const std::string &what, const std::string &value) {
    out << "  " << what
        << std::string(what.size() < 20 ? 20 - what.size() : 1, ' ') << value
        << "\n";
  };
  out << "calibrated " << cluster.name << "\n";
  for (const auto &[dtype, flops] : cluster.peakFlops)
    row(dtype + " GEMM peak",
        format("%.1f GFLOP/s", flops / 1e9) +
            (dtype == "f32"
                 ? " (best of " + std::to_string(device.gemmF32.size()) +
                       " shapes)"
                 : ""));
  std::string curve;
  for (const auto &[flops, fraction] : cluster.gemmEfficiency)
    curve += (curve.empty() ? "" : "  ") + format("%.2g", flops) + ": " +
             format("%.2f", fraction);
  row("GEMM efficiency", curve);
  row("vector", format("%.1f GFLOP/s", cluster.vectorFlops / 1e9));
  row("memory bandwidth",
      format("%.1f GB/s", cluster.memoryBandwidth / 1e9) +
          format(" (in the caches, not in the file: %.1f GB/s)",
                 device.cacheBandwidth / 1e9));
  row("memory capacity",
      format("%.1f GiB per rank", double(cluster.memoryCapacity) / (1 << 30)));
  row("kernel overhead", format("%.1f ns", cluster.kernelOverhead * 1e9));
  row("stream handoff", format("%.2f us", cluster.streamHandoff * 1e6));
  if (cluster.sharedCpuSwitch > 0)
    row("shared CPU switch", format("%.2f us", cluster.sharedCpuSwitch * 1e6));
  row("cores' time", format("%.0f%% (CPU time / wall time while measuring)",
                            device.cpuShare * 100));
  for (const LinkLevel &link : cluster.links)
    row("link " + link.name,
        format("latency %.2f us, ", link.latency * 1e6) +
            format("bandwidth %.2f GB/s", link.bandwidth / 1e9) +
            (fit ? format(" (rms error %.0f%%", fit->rmsRelativeError * 100) +
                       " over " + std::to_string(linkTimings) + " timings)"
                 : std::string(" (default: one rank, nothing measured)")));
  return out.str();
}

/// Every timing as JSON lines: the products (per shape, median over the
/// ranks), the other device figures, the collectives with their fit.
std::string timingsJson(const DeviceTimings &device,
                        const std::vector<LinkTiming> &links,
                        const AlphaBeta *fit) {
  auto number = [](double value) { return format("%.6g", value); };
  std::string out;
  for (const GemmTiming &gemm : device.gemmF32)
    out += "{\"gemm_f32\": \"" + gemm.shape +
           "\", \"flops\": " + number(gemm.flops) +
           ", \"flops_per_s\": " + number(gemm.throughput) + "}\n";
  out += "{\"gemm_f64_flops_per_s\": " + number(device.peakF64) +
         ", \"vector_flops_per_s\": " + number(device.vectorFlops) +
         ", \"triad_bytes_per_s\": " + number(device.bandwidth) +
         ", \"cached_triad_bytes_per_s\": " + number(device.cacheBandwidth) +
         ", \"firing_seconds\": " + number(device.firingSeconds) +
         ", \"handoff_seconds\": " + number(device.handoffSeconds) +
         ", \"shared_switch_seconds\": " + number(device.sharedSwitchSeconds) +
         "}\n";
  for (const LinkTiming &link : links) {
    auto [c1, c2] = ringCoefficients(link.kind, link.ranks);
    out += "{\"collective\": \"" + collectiveKindName(link.kind) +
           "\", \"ranks\": " + std::to_string(link.ranks) +
           ", \"bytes\": " + number(link.bytes) +
           ", \"seconds\": " + number(link.seconds);
    if (fit)
      out += ", \"fitted_seconds\": " +
             number(c1 * fit->alpha + c2 * link.bytes / fit->beta);
    out += "}\n";
  }
  return out;
}

} // namespace

Expected<Calibration> calibrate(const CalibrationOptions &options,
                                World *world) {
  const bool root = !world || world->rank() == 0;
  const int ranks = world ? world->size() : 1;
  const int localRanks = world ? world->localSize() : 1;
  CalibrationOptions measuring = options;
  measuring.localRanks = localRanks;
  const std::string when = utcNow();
  const double loadBefore = loadAverage();
  auto progress = [&](const std::string &what) {
    if (root && options.progress)
      options.progress(what);
  };
  auto sync = [&] {
    if (world)
      world->barrier();
  };

  Expected<DeviceTimings> measured = measureDevice(measuring, sync, progress);
  Status status = measured.ok() ? Status::success() : measured.error();
  if (world)
    status = world->agree(status);
  if (!status.ok())
    return status;
  std::vector<LinkTiming> links;
  if (ranks >= 2) {
    progress("collectives");
    links = measureLinks(*world, options.quick);
  }
  std::vector<DeviceTimings> perRank = {*measured};
  if (world) {
    std::vector<std::string> texts = world->gather(serialize(*measured));
    perRank.clear();
    for (const std::string &text : texts)
      perRank.push_back(deserialize(text));
  }
  if (!root)
    return Calibration();
  const double loadAfter = loadAverage();
  DeviceTimings device = combine(perRank);

  ClusterDescription cluster;
  cluster.name = hostName() + ": " + cpuModel() + ", " +
                 std::to_string(availableCpus()) + " cores, " +
                 std::to_string(ranks) +
                 (ranks == 1 ? " rank x " : " ranks x ") +
                 std::to_string(options.threadsPerRank) +
                 (options.threadsPerRank == 1 ? " thread" : " threads");
  cluster.kind = "cpu";
  const double peak = gemmPeak(device.gemmF32);
  cluster.peakFlops = {{"f32", roundSignificant(peak)},
                       {"f64", roundSignificant(device.peakF64)}};
  cluster.gemmEfficiency = gemmEfficiencyCurve(device.gemmF32, peak);
  // More ranks than that on this machine share its cores.
  cluster.concurrentRanks =
      std::max<int64_t>(1, availableCpus() / options.threadsPerRank);
  cluster.vectorFlops = roundSignificant(device.vectorFlops);
  cluster.memoryBandwidth = roundSignificant(device.bandwidth);
  cluster.memoryCapacity = physicalMemory() / localRanks;
  cluster.kernelOverhead = roundSignificant(device.firingSeconds, 3);
  cluster.streamHandoff = roundSignificant(device.handoffSeconds, 3);
  cluster.sharedCpuSwitch = roundSignificant(device.sharedSwitchSeconds, 3);

  std::string linkText;
  std::optional<AlphaBeta> fit;
  const bool oneMachine = localRanks == ranks;
  LinkLevel link;
  link.name = oneMachine ? "shared memory" : "network";
  if (!links.empty()) {
    Expected<AlphaBeta> fitted = fitAlphaBeta(links);
    if (!fitted.ok())
      return fitted.error();
    fit = *fitted;
    link.latency = roundSignificant(fit->alpha, 3);
    link.bandwidth = roundSignificant(fit->beta, 3);
    linkText = "links: ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER and "
               "ALL_TO_ALL over all " +
               std::to_string(ranks) +
               " ranks, and SEND/RECV with ranks 0 and 1 sending to each "
               "other at once (the bidirectional beta of docs/simulator.md), "
               "the runtime's MpiCollectives ops on f32 from 8 bytes to " +
               std::string(options.quick ? "4 MiB" : "16 MiB") +
               ", wall time, the fastest of " + (options.quick ? "3" : "9") +
               " batches (the least disturbed by other processes); alpha "
               "and beta fitted to the ring formulas of "
               "docs/simulator.md by least squares on log(formula / "
               "measured), alpha >= 0 (rms relative error " +
               format("%.0f%%", fit->rmsRelativeError * 100) + " over " +
               std::to_string(links.size()) + " timings)" +
               (oneMachine ? "." : "; the ranks span several machines.");
  } else {
    link.latency = kDefaultLatency;
    link.bandwidth = kDefaultBandwidth;
    linkText = "links: NOT MEASURED (one rank; run with --np 2 or more): "
               "the default of lib/Runtime/CalibrateCluster.cpp, what 2 ranks "
               "measured on the 2-core development machine.";
  }
  link.devices = 0;
  cluster.links = {link};
  cluster.sources = describeSources(options, device, ranks, localRanks, when,
                                    loadBefore, loadAfter, linkText);
  Calibration result;
  result.summary =
      summaryTable(cluster, device, fit ? &*fit : nullptr, links.size());
  if (fit)
    result.summary += linkTable(links, *fit);
  result.timings = timingsJson(device, links, fit ? &*fit : nullptr);
  result.cluster = std::move(cluster);
  return result;
}

} // namespace runtime
} // namespace oneflow
