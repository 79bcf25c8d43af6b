//===- CalibrateTest.cpp - Cluster files and the calibration's fits -------===//

#include "TestSupport.h"

#include "oneflow/Runtime/ClusterFile.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Json.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

using Kind = plan::Collective::Kind;

/// Timings of every measured kind over `ranks`, 8 B to 16 MiB, made by the
/// ring formulas from alpha and beta, each scaled by (1 + noise * u) with
/// u uniform in [-1, 1].
std::vector<LinkTiming> syntheticLinks(double alpha, double beta, int ranks,
                                       double noise, unsigned seed = 1) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<LinkTiming> timings;
  for (double bytes = 8; bytes <= 16 << 20; bytes *= 4)
    for (Kind kind :
         {plan::Collective::ALL_REDUCE, plan::Collective::REDUCE_SCATTER,
          plan::Collective::ALL_GATHER, plan::Collective::SEND}) {
      int n = kind == plan::Collective::SEND ? 2 : ranks;
      auto [c1, c2] = ringCoefficients(kind, n);
      double seconds =
          (c1 * alpha + c2 * bytes / beta) * (1 + noise * u(random));
      timings.push_back({kind, n, bytes, seconds});
    }
  return timings;
}

TEST(Calibrate, RingCoefficientsAreTheDocsFormulas) {
  // docs/simulator.md: ALL_REDUCE 2 (n-1) alpha + 2 (n-1)/n B / beta, the
  // scatters and gathers (n-1) alpha + (n-1)/n B / beta, SEND alpha + B / beta.
  using P = std::pair<double, double>;
  EXPECT_EQ(ringCoefficients(plan::Collective::ALL_REDUCE, 4), P(6, 1.5));
  EXPECT_EQ(ringCoefficients(plan::Collective::REDUCE_SCATTER, 4), P(3, 0.75));
  EXPECT_EQ(ringCoefficients(plan::Collective::ALL_GATHER, 4), P(3, 0.75));
  EXPECT_EQ(ringCoefficients(plan::Collective::ALL_TO_ALL, 4), P(3, 0.75));
  EXPECT_EQ(ringCoefficients(plan::Collective::SEND, 2), P(1, 1));
  EXPECT_EQ(ringCoefficients(plan::Collective::RECV, 2), P(1, 1));
  EXPECT_EQ(ringCoefficients(plan::Collective::ALL_REDUCE, 2), P(2, 1));
}

TEST(Calibrate, FitRecoversExactAlphaBeta) {
  for (int ranks : {2, 3, 8}) {
    Expected<AlphaBeta> fit = fitAlphaBeta(syntheticLinks(3e-6, 5e9, ranks, 0));
    ASSERT_TRUE(fit.ok()) << fit.error().message();
    EXPECT_NEAR(fit->alpha, 3e-6, 3e-6 * 1e-9) << ranks;
    EXPECT_NEAR(fit->beta, 5e9, 5e9 * 1e-9) << ranks;
    EXPECT_LT(fit->rmsRelativeError, 1e-9);
  }
}

TEST(Calibrate, FitRecoversAlphaBetaFromNoisyTimings) {
  // +-10% noise on every timing, many seeds: both figures within 6% (the
  // worst of 200 seeds in a NumPy check: 4%).
  for (unsigned seed = 1; seed <= 20; ++seed) {
    Expected<AlphaBeta> fit =
        fitAlphaBeta(syntheticLinks(1.5e-6, 2.2e10, 4, 0.1, seed));
    ASSERT_TRUE(fit.ok()) << fit.error().message();
    EXPECT_NEAR(fit->alpha, 1.5e-6, 1.5e-6 * 0.06) << seed;
    EXPECT_NEAR(fit->beta, 2.2e10, 2.2e10 * 0.06) << seed;
    EXPECT_GT(fit->rmsRelativeError, 0.01);
    EXPECT_LT(fit->rmsRelativeError, 0.1);
  }
}

TEST(Calibrate, FitWeighsSmallAndLargeTransfersAlike) {
  // Ordinary least squares would fit the 16 MiB times and leave the
  // latency to chance; on relative errors a wrong latency costs as much.
  std::vector<LinkTiming> timings = syntheticLinks(2e-5, 1e9, 2, 0);
  Expected<AlphaBeta> fit = fitAlphaBeta(timings);
  ASSERT_TRUE(fit.ok());
  EXPECT_NEAR(fit->alpha, 2e-5, 2e-5 * 1e-6);
}

TEST(Calibrate, FitIsSymmetricInTheRatio) {
  // Reduce-scatters 3x slower than the formula and all-gathers 3x faster
  // (same coefficients): the fit is the formula itself, where a fit of
  // relative errors would lean towards the fast ones (-67% costs less
  // than +200%).
  std::vector<LinkTiming> timings;
  for (LinkTiming timing : syntheticLinks(2e-6, 4e9, 2, 0)) {
    if (timing.kind == plan::Collective::REDUCE_SCATTER)
      timing.seconds *= 3;
    else if (timing.kind == plan::Collective::ALL_GATHER)
      timing.seconds /= 3;
    else
      continue;
    timings.push_back(timing);
  }
  Expected<AlphaBeta> fit = fitAlphaBeta(timings);
  ASSERT_TRUE(fit.ok()) << fit.error().message();
  EXPECT_NEAR(fit->alpha, 2e-6, 2e-6 * 1e-6);
  EXPECT_NEAR(fit->beta, 4e9, 4e9 * 1e-6);
}

TEST(Calibrate, FitKeepsLatencyNonNegative) {
  // Times below the bandwidth line at small sizes would give a negative
  // latency: the fit then holds alpha at 0.
  std::vector<LinkTiming> timings;
  for (double bytes = 1024; bytes <= 1 << 24; bytes *= 2)
    timings.push_back({plan::Collective::SEND, 2, bytes,
                       bytes / 1e9 - (bytes < 1e4 ? 5e-7 : 0)});
  Expected<AlphaBeta> fit = fitAlphaBeta(timings);
  ASSERT_TRUE(fit.ok()) << fit.error().message();
  EXPECT_EQ(fit->alpha, 0);
  EXPECT_NEAR(fit->beta, 1e9, 1e9 * 0.2);
}

TEST(Calibrate, FitRejectsWhatDeterminesNoBandwidth) {
  EXPECT_FALSE(fitAlphaBeta({}).ok());
  // Zero-byte transfers only: the latency, but no bandwidth.
  Expected<AlphaBeta> fit =
      fitAlphaBeta({{plan::Collective::SEND, 2, 0, 1e-6},
                    {plan::Collective::SEND, 2, 0, 2e-6}});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.error().message().find("do not determine a bandwidth"),
            std::string::npos);
  EXPECT_FALSE(fitAlphaBeta({{plan::Collective::SEND, 2, 8, 0}}).ok());
}

TEST(Calibrate, EfficiencyCurveIsSortedBoundedAndMonotone) {
  // Throughput rising with size (1 - 1e6 / flops of a 100 GFLOP/s peak),
  // three shapes per size, and a dip at 1e8 (a shape the library handles
  // badly) that must not make larger products look slower.
  const double peak = 1e11;
  std::vector<GemmTiming> timings;
  for (double flops = 1e5; flops <= 1e10; flops *= std::sqrt(10.0))
    for (double jitter : {0.97, 1.0, 1.03}) {
      double fraction = std::max(0.02, 1 - 1e6 / (flops * jitter)) * jitter;
      if (std::abs(flops - 1e8) / 1e8 < 0.01)
        fraction *= 0.5;
      timings.push_back({flops * jitter, std::min(fraction, 1.0) * peak});
    }
  double measuredPeak = gemmPeak(timings);
  EXPECT_LE(measuredPeak, peak);
  EXPECT_GT(measuredPeak, 0.99 * peak);
  std::vector<std::pair<double, double>> curve =
      gemmEfficiencyCurve(timings, measuredPeak);
  ASSERT_GE(curve.size(), 8u);
  for (size_t i = 0; i < curve.size(); ++i) {
    EXPECT_GT(curve[i].second, 0);
    EXPECT_LE(curve[i].second, 1);
    if (i > 0) {
      EXPECT_GT(curve[i].first, curve[i - 1].first);
      EXPECT_GE(curve[i].second, curve[i - 1].second);
    }
  }
  // The ends: tiny products are inefficient, large ones near the peak.
  EXPECT_LT(curve.front().second, 0.1);
  EXPECT_GT(curve.back().second, 0.95);
  EXPECT_GE(curve.front().first, 9e4);
  EXPECT_LE(curve.back().first, 1.1e10);
}

TEST(Calibrate, EfficiencyCurveKeepsMonotoneMedians) {
  // Already monotone groups come out as their medians, one point each.
  std::vector<GemmTiming> timings = {
      {1e6, 20e9}, {1.2e6, 30e9}, {1.1e6, 25e9}, // median 25
      {1e8, 80e9}, {1.1e8, 90e9}, {1.2e8, 100e9}};
  std::vector<std::pair<double, double>> curve =
      gemmEfficiencyCurve(timings, 100e9);
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_EQ(curve[0], std::make_pair(1.1e6, 0.25));
  EXPECT_EQ(curve[1], std::make_pair(1.1e8, 0.9));
}

ClusterDescription sampleCluster() {
  ClusterDescription cluster;
  cluster.name = "host \"q\": AMD EPYC, 2 cores";
  cluster.kind = "cpu";
  cluster.peakFlops = {{"f32", 1.523e11}, {"f64", 6.1e10}};
  cluster.gemmEfficiency = {{1e5, 0.12}, {1e7, 0.6}, {1e9, 0.93}};
  cluster.vectorFlops = 4.4e10;
  cluster.memoryBandwidth = 1.25e10;
  cluster.memoryCapacity = 12638251008;
  cluster.kernelOverhead = 2.6e-8;
  cluster.links = {{"shared memory", 0, 1.7e-6, 6.2e9}};
  cluster.sources = "synthetic\nfigures";
  return cluster;
}

std::vector<std::string> keys(const JsonValue &object) {
  std::vector<std::string> names;
  for (const auto &[name, value] : object.members)
    names.push_back(name);
  return names;
}

TEST(Calibrate, JsonHasExactlyTheKeysOfTheFormat) {
  ClusterDescription cluster = sampleCluster();
  Expected<JsonValue> json = parseJson(clusterToJson(cluster));
  ASSERT_TRUE(json.ok()) << json.error().message();
  using Names = std::vector<std::string>;
  EXPECT_EQ(keys(*json),
            (Names{"version", "name", "device", "links", "sources"}));
  EXPECT_EQ(json->find("version")->asInteger(), 1);
  EXPECT_EQ(json->find("name")->text, cluster.name);
  EXPECT_EQ(json->find("sources")->text, cluster.sources);
  const JsonValue &device = *json->find("device");
  EXPECT_EQ(keys(device),
            (Names{"kind", "peak_flops", "gemm_efficiency", "vector_flops",
                   "memory_bandwidth", "memory_capacity", "kernel_overhead"}));
  EXPECT_EQ(device.find("kind")->text, "cpu");
  EXPECT_EQ(keys(*device.find("peak_flops")), (Names{"f32", "f64"}));
  EXPECT_EQ(device.find("peak_flops")->find("f32")->asDouble(), 1.523e11);
  const JsonValue &curve = *device.find("gemm_efficiency");
  ASSERT_EQ(curve.items.size(), 3u);
  EXPECT_EQ(curve.items[1].items[0].asDouble(), 1e7);
  EXPECT_EQ(curve.items[1].items[1].asDouble(), 0.6);
  EXPECT_EQ(device.find("vector_flops")->asDouble(), 4.4e10);
  EXPECT_EQ(device.find("memory_bandwidth")->asDouble(), 1.25e10);
  EXPECT_TRUE(device.find("memory_capacity")->isInteger());
  EXPECT_EQ(device.find("memory_capacity")->asInteger(), 12638251008);
  EXPECT_EQ(device.find("kernel_overhead")->asDouble(), 2.6e-8);
  const JsonValue &links = *json->find("links");
  ASSERT_EQ(links.items.size(), 1u);
  EXPECT_EQ(keys(links.items[0]),
            (Names{"name", "devices", "latency", "bandwidth"}));
  EXPECT_EQ(links.items[0].find("devices")->asInteger(), 0);
  EXPECT_EQ(links.items[0].find("latency")->asDouble(), 1.7e-6);
  EXPECT_EQ(links.items[0].find("bandwidth")->asDouble(), 6.2e9);

  // What a calibration writes: how many ranks the machine runs at full
  // speed, after the curve.
  cluster.concurrentRanks = 2;
  Expected<JsonValue> shared = parseJson(clusterToJson(cluster));
  ASSERT_TRUE(shared.ok()) << shared.error().message();
  const JsonValue &sharedDevice = *shared->find("device");
  EXPECT_EQ(keys(sharedDevice),
            (Names{"kind", "peak_flops", "gemm_efficiency", "concurrent_ranks",
                   "vector_flops", "memory_bandwidth", "memory_capacity",
                   "kernel_overhead"}));
  EXPECT_EQ(sharedDevice.find("concurrent_ranks")->asInteger(), 2);

  // And the wake-up of a thread by another: after the overhead.
  cluster.streamHandoff = 5.78e-6;
  cluster.sharedCpuSwitch = 7.91e-6;
  Expected<JsonValue> handoff = parseJson(clusterToJson(cluster));
  ASSERT_TRUE(handoff.ok()) << handoff.error().message();
  const JsonValue &handoffDevice = *handoff->find("device");
  EXPECT_EQ(keys(handoffDevice),
            (Names{"kind", "peak_flops", "gemm_efficiency", "concurrent_ranks",
                   "vector_flops", "memory_bandwidth", "memory_capacity",
                   "kernel_overhead", "stream_handoff", "shared_cpu_switch"}));
  EXPECT_EQ(handoffDevice.find("stream_handoff")->asDouble(), 5.78e-6);
  EXPECT_EQ(handoffDevice.find("shared_cpu_switch")->asDouble(), 7.91e-6);
}

TEST(Calibrate, NumbersRoundTripExactly) {
  ClusterDescription cluster = sampleCluster();
  cluster.vectorFlops = 1.0 / 3.0 * 1e11; // 17 digits
  cluster.kernelOverhead = 2.5e-300;
  Expected<JsonValue> json = parseJson(clusterToJson(cluster));
  ASSERT_TRUE(json.ok());
  const JsonValue &device = *json->find("device");
  EXPECT_EQ(device.find("vector_flops")->asDouble(), cluster.vectorFlops);
  EXPECT_EQ(device.find("kernel_overhead")->asDouble(), 2.5e-300);
  EXPECT_EQ(roundSignificant(123456789, 4), 123500000);
  EXPECT_EQ(roundSignificant(2.61849e-8, 3), 2.62e-8);
}

TEST(Calibrate, ValidationListsEveryProblem) {
  EXPECT_TRUE(validateCluster(sampleCluster()).ok());
  ClusterDescription cluster = sampleCluster();
  cluster.kind = "tpu";
  cluster.peakFlops.push_back({"int8", 1e12});
  cluster.gemmEfficiency = {{1e7, 0.5}, {1e6, 1.5}};
  cluster.vectorFlops = -1;
  cluster.memoryBandwidth = std::nan("");
  cluster.kernelOverhead = 0;
  cluster.streamHandoff = -1e-6;
  cluster.sharedCpuSwitch = std::nan("");
  cluster.links = {{"shared memory", 0, 1e-6, 1e9}, {"network", 2, 0, 1e9}};
  Status status = validateCluster(cluster);
  ASSERT_FALSE(status.ok());
  const std::string &text = status.message();
  for (const char *expected :
       {"device.kind 'tpu'", "unknown element type 'int8'",
        "point 1: flops must be positive and increasing",
        "point 1: the fraction must be in (0, 1]",
        "device.vector_flops must be positive",
        "device.memory_bandwidth must be positive",
        "device.kernel_overhead must be positive",
        "device.stream_handoff must not be negative",
        "device.shared_cpu_switch must not be negative",
        "links[0] ('shared memory'): devices must be positive",
        "links[1] ('network'): the outermost level must have devices 0",
        "links[1] ('network'): latency must be positive"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n"
                                                      << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 11) << text;
}

TEST(Calibrate, WritesTheFileAtomically) {
  TempDir dir;
  std::string path = dir.file("cluster.json");
  ASSERT_TRUE(writeClusterFile(path, sampleCluster()).ok());
  Expected<std::string> text = readFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, clusterToJson(sampleCluster()));

  // An invalid description never replaces the file.
  ClusterDescription bad = sampleCluster();
  bad.links.clear();
  Status status = writeClusterFile(path, bad);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("would be invalid:\nlinks is empty"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(*readFile(path), *text);
  // Nothing but the file: no temporary left behind.
  std::set<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(dir.path()))
    names.insert(entry.path().filename().string());
  EXPECT_EQ(names, std::set<std::string>{"cluster.json"});
  EXPECT_FALSE(
      writeClusterFile(dir.file("missing/cluster.json"), sampleCluster()).ok());
}

} // namespace
