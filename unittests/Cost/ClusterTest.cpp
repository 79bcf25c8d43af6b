//===- ClusterTest.cpp - Cluster files: parsing, lookups ------------------===//

#include "oneflow/Cost/Cluster.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>

using namespace oneflow;
using namespace oneflow::cost;

namespace {

/// A valid file with `device` and `links` substituted where given.
std::string file(const std::string &device = "", const std::string &links = "",
                 const std::string &extra = "") {
  std::string deviceText = device.empty() ? R"({
    "kind": "gpu", "peak_flops": {"f32": 1e13, "tf32": 1e14, "bf16": 2e14},
    "gemm_efficiency": [[1e6, 0.1], [1e8, 0.5], [1e10, 0.9]],
    "vector_flops": 1e13, "memory_bandwidth": 1e12,
    "memory_capacity": 8e10, "kernel_overhead": 5e-6})"
                                          : device;
  std::string linksText = links.empty() ? R"([
    {"name": "nvlink", "devices": 2, "latency": 1e-6, "bandwidth": 1e11},
    {"name": "node", "devices": 8, "latency": 2e-6, "bandwidth": 5e10},
    {"name": "ib", "devices": 0, "latency": 1e-5, "bandwidth": 1e10}])"
                                        : links;
  return R"({"version": 1, "name": "test", "device": )" + deviceText +
         R"(, "links": )" + linksText + extra + "}";
}

/// The error parsing `text` as x.json gives ("" when it parses).
std::string errorOf(const std::string &text) {
  llvm::Expected<Cluster> cluster = parseCluster(text, "x.json");
  if (cluster)
    return "";
  return llvm::toString(cluster.takeError());
}

std::string device(const std::string &replace, const std::string &with) {
  std::string text = R"({
    "kind": "gpu", "peak_flops": {"f32": 1e13},
    "gemm_efficiency": [[1e6, 0.1], [1e8, 0.5]],
    "vector_flops": 1e13, "memory_bandwidth": 1e12,
    "memory_capacity": 80000000000, "kernel_overhead": 5e-6})";
  size_t at = text.find(replace);
  EXPECT_NE(at, std::string::npos) << replace;
  return text.replace(at, replace.size(), with);
}

TEST(Cluster, ParsesEveryField) {
  llvm::Expected<Cluster> cluster =
      parseCluster(file("", "", R"(, "sources": "made up")"), "x.json");
  ASSERT_TRUE(bool(cluster)) << llvm::toString(cluster.takeError());
  EXPECT_EQ(cluster->name, "test");
  EXPECT_EQ(cluster->kind, "gpu");
  EXPECT_EQ(cluster->peakFlops.at("tf32"), 1e14);
  ASSERT_EQ(cluster->gemmEfficiency.size(), 3u);
  EXPECT_EQ(cluster->gemmEfficiency[1], std::make_pair(1e8, 0.5));
  EXPECT_EQ(cluster->vectorFlops, 1e13);
  EXPECT_EQ(cluster->memoryBandwidth, 1e12);
  // Written as 8e10: a whole number in exponent form.
  EXPECT_EQ(cluster->memoryCapacity, 80000000000);
  EXPECT_EQ(cluster->kernelOverhead, 5e-6);
  ASSERT_EQ(cluster->links.size(), 3u);
  EXPECT_EQ(cluster->links[1].name, "node");
  EXPECT_EQ(cluster->links[1].devices, 8);
  EXPECT_EQ(cluster->links[2].latency, 1e-5);
  EXPECT_EQ(cluster->sources, "made up");
}

TEST(Cluster, ShippedFilesParse) {
  for (const char *name :
       {"a100-80gb-sxm.json", "h100-80gb-sxm.json", "h200-sxm.json"}) {
    std::string path = std::string(ONEFLOW_CLUSTERS_DIR) + "/" + name;
    llvm::Expected<Cluster> cluster = readClusterFile(path);
    ASSERT_TRUE(bool(cluster)) << llvm::toString(cluster.takeError());
    EXPECT_FALSE(cluster->sources.empty()) << name;
    EXPECT_GT(cluster->peak(plan::BF16, true), cluster->peak(plan::F32, false))
        << name;
  }
}

TEST(Cluster, ErrorsNameTheFileAndTheKeyPath) {
  EXPECT_EQ(errorOf(file("", "", R"(, "colour": 1)")),
            "x.json: colour: unknown key (expected one of version, name, "
            "device, links, sources)");
  EXPECT_EQ(errorOf(R"({"version": 1})"), "x.json: name: missing");
  EXPECT_EQ(errorOf(file(device("\"vector_flops\": 1e13, ", ""))),
            "x.json: device.vector_flops: missing");
  EXPECT_EQ(errorOf(file(device("[1e8, 0.5]", "[1e8, 0.5], [1e9]"))),
            "x.json: device.gemm_efficiency[2]: expected [flops, fraction]");
  EXPECT_EQ(errorOf(file(device("[1e8, 0.5]", "[1e5, 0.5]"))),
            "x.json: device.gemm_efficiency[1]: flops must increase from "
            "point to point");
  EXPECT_EQ(errorOf(file(device("[1e8, 0.5]", "[1e8, 1.5]"))),
            "x.json: device.gemm_efficiency[1]: fraction must be in (0, 1]");
  EXPECT_EQ(errorOf(file(device("\"f32\": 1e13", "\"f32\": 1e13, \"fp8\": 1"))),
            "x.json: device.peak_flops.fp8: unknown key (expected one of "
            "f32, tf32, bf16, f16, f64)");
  EXPECT_EQ(errorOf(file(device("\"f32\": 1e13", "\"bf16\": 1e13"))),
            "x.json: device.peak_flops.f32: missing");
  EXPECT_EQ(errorOf(file(device("\"gpu\"", "\"tpu\""))),
            "x.json: device.kind: expected \"gpu\" or \"cpu\"");
  EXPECT_EQ(errorOf(file(device("80000000000", "8.5"))),
            "x.json: device.memory_capacity: expected a whole number");
  EXPECT_EQ(errorOf(file(device("5e-6", "\"fast\""))),
            "x.json: device.kernel_overhead: expected a number");
  EXPECT_EQ(errorOf(file(device("1e12", "-1"))),
            "x.json: device.memory_bandwidth: expected a positive number");
  EXPECT_EQ(errorOf(file("", R"([{"name": "a", "devices": 8, "latency": 0,
                                  "bandwidth": 1}])")),
            "x.json: links[0].devices: the outermost level must connect "
            "every rank (0)");
  EXPECT_EQ(errorOf(file("", R"([{"name": "a", "devices": 4, "latency": 0,
                                  "bandwidth": 1},
                                 {"name": "b", "devices": 6, "latency": 0,
                                  "bandwidth": 1},
                                 {"name": "c", "devices": 0, "latency": 0,
                                  "bandwidth": 1}])")),
            "x.json: links[1].devices: expected a multiple of "
            "links[0].devices (4) larger than it");
  EXPECT_EQ(errorOf(file("", R"([{"name": "a", "devices": 0, "latency": -1,
                                  "bandwidth": 1}])")),
            "x.json: links[0].latency: expected a number >= 0");
  EXPECT_EQ(errorOf(file("", R"([{"name": "a", "devices": 0, "latency": 0,
                                  "bandwidth": 1, "mtu": 4096}])")),
            "x.json: links[0].mtu: unknown key (expected one of name, "
            "devices, latency, bandwidth)");
  EXPECT_EQ(errorOf(file("", "[]")),
            "x.json: links: expected a non-empty array of link levels");
  EXPECT_EQ(errorOf("{\"version\": 2}"),
            "x.json: version: expected 1, the only version");
  EXPECT_EQ(errorOf("[1]"), "x.json: expected an object");
  EXPECT_EQ(errorOf("{"),
            "x.json: invalid JSON: [1:1, byte=1]: Expected object key");
  llvm::Expected<Cluster> missing = readClusterFile("/nonexistent/c.json");
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "/nonexistent/c.json: cannot read: No such file or directory");
}

TEST(Cluster, EfficiencyIsLinearInLog10OfFlopsAndClamped) {
  Cluster cluster = cantFail(parseCluster(file(), "x.json"));
  // Points (1e6, 0.1), (1e8, 0.5), (1e10, 0.9).
  EXPECT_DOUBLE_EQ(cluster.efficiency(1e3), 0.1);
  EXPECT_DOUBLE_EQ(cluster.efficiency(1e6), 0.1);
  EXPECT_DOUBLE_EQ(cluster.efficiency(1e7), 0.3);
  EXPECT_DOUBLE_EQ(cluster.efficiency(1e8), 0.5);
  EXPECT_DOUBLE_EQ(cluster.efficiency(1e9), 0.7);
  EXPECT_NEAR(cluster.efficiency(std::pow(10.0, 9.5)), 0.8, 1e-12);
  EXPECT_DOUBLE_EQ(cluster.efficiency(1e10), 0.9);
  EXPECT_DOUBLE_EQ(cluster.efficiency(1e15), 0.9);
}

TEST(Cluster, ConvolutionCurvesAndSharedNodes) {
  Cluster cluster = cantFail(
      parseCluster(file(device("\"gemm_efficiency\": [[1e6, 0.1], [1e8, 0.5]],",
                               R"("gemm_efficiency": [[1e6, 0.1], [1e8, 0.5]],
                     "conv_efficiency": {"conv2d_grad_filter": [[1e6, 0.05],
                                                                [1e8, 0.25]]},
                     "concurrent_ranks": 2,)")),
                   "x.json"));
  // Its own curve for conv2d_grad_filter, the products' for the others.
  EXPECT_DOUBLE_EQ(cluster.convEfficiencyOf(2, 1e7), 0.15);
  EXPECT_DOUBLE_EQ(cluster.convEfficiencyOf(0, 1e7), 0.3);
  EXPECT_DOUBLE_EQ(cluster.convEfficiencyOf(1, 1e9), 0.5);
  // links[0] groups 2 ranks, and a node runs 2 at full speed.
  EXPECT_EQ(cluster.sharingFactor(8), 1.0);
  Cluster oneNode = cantFail(parseCluster(
      file(device("\"vector_flops\"", "\"concurrent_ranks\": 2, "
                                      "\"vector_flops\""),
           R"([{"name": "shm", "devices": 0, "latency": 0, "bandwidth": 1}])"),
      "x.json"));
  EXPECT_EQ(oneNode.sharingFactor(1), 1.0);
  EXPECT_EQ(oneNode.sharingFactor(2), 1.0);
  EXPECT_EQ(oneNode.sharingFactor(4), 2.0);
  EXPECT_EQ(oneNode.sharingFactor(3), 1.5);
  // Without the key, no sharing.
  EXPECT_EQ(cantFail(parseCluster(file(), "x.json")).sharingFactor(64), 1.0);

  EXPECT_EQ(errorOf(file(device("\"vector_flops\"",
                                "\"conv_efficiency\": {\"conv3d\": []}, "
                                "\"vector_flops\""))),
            "x.json: device.conv_efficiency.conv3d: unknown key (expected one "
            "of conv2d, conv_transpose2d, conv2d_grad_filter)");
  EXPECT_EQ(errorOf(file(device("\"vector_flops\"",
                                "\"conv_efficiency\": {\"conv2d\": "
                                "[[1e6, 2]]}, \"vector_flops\""))),
            "x.json: device.conv_efficiency.conv2d[0]: fraction must be in "
            "(0, 1]");
  EXPECT_EQ(errorOf(file(device("\"vector_flops\"", "\"concurrent_ranks\": 0, "
                                                    "\"vector_flops\""))),
            "x.json: device.concurrent_ranks: expected a positive number");

  // The wake-up of a thread by another: optional, 0 without the keys.
  Cluster handoff = cantFail(parseCluster(
      file(device("\"vector_flops\"", "\"stream_handoff\": 5e-6, "
                                      "\"shared_cpu_switch\": 8e-6, "
                                      "\"vector_flops\"")),
      "x.json"));
  EXPECT_EQ(handoff.streamHandoff, 5e-6);
  EXPECT_EQ(handoff.sharedCpuSwitch, 8e-6);
  EXPECT_EQ(cantFail(parseCluster(file(), "x.json")).streamHandoff, 0);
  EXPECT_EQ(errorOf(file(device("\"vector_flops\"", "\"stream_handoff\": -1, "
                                                    "\"vector_flops\""))),
            "x.json: device.stream_handoff: expected a number >= 0");
}

TEST(Cluster, PeakPerElementType) {
  Cluster cluster = cantFail(parseCluster(file(), "x.json"));
  EXPECT_EQ(cluster.peak(plan::F32, /*allowTf32=*/false), 1e13);
  EXPECT_EQ(cluster.peak(plan::F32, /*allowTf32=*/true), 1e14);
  EXPECT_EQ(cluster.peak(plan::BF16, false), 2e14);
  // Types the file lacks run at the f32 peak.
  EXPECT_EQ(cluster.peak(plan::F16, false), 1e13);
  EXPECT_EQ(cluster.peak(plan::I64, true), 1e13);
  Cluster noTf32 = cantFail(parseCluster(file(device("", "")), "x.json"));
  EXPECT_EQ(noTf32.peak(plan::F32, true), 1e13);
}

TEST(Cluster, LinkLevelIsTheInnermostHoldingEveryMember) {
  Cluster cluster = cantFail(parseCluster(file(), "x.json"));
  // Levels: pairs (2), nodes of 8, everything.
  auto level = [&](std::vector<int32_t> ranks) {
    return cluster.linkFor(ranks).name;
  };
  EXPECT_EQ(level({3}), "nvlink");
  EXPECT_EQ(level({0, 1}), "nvlink");
  EXPECT_EQ(level({6, 7}), "nvlink");
  EXPECT_EQ(level({1, 2}), "node");
  EXPECT_EQ(level({0, 2, 4, 6}), "node");
  EXPECT_EQ(level({8, 15}), "node");
  EXPECT_EQ(level({7, 8}), "ib");
  EXPECT_EQ(level({0, 8, 16, 24}), "ib");
}

} // namespace
