//===- CostModelTest.cpp - Task seconds against hand-computed numbers -----===//

#include "oneflow/Cost/CostModel.h"

#include "gtest/gtest.h"

using namespace oneflow;
using namespace oneflow::cost;

namespace {

Cluster testCluster() {
  // Round numbers: one efficiency segment from (1e6, 0.2) to (1e10, 0.6).
  return cantFail(parseCluster(R"({
    "version": 1, "name": "test",
    "device": {"kind": "gpu", "peak_flops": {"f32": 1e12, "tf32": 4e12,
                                             "bf16": 8e12},
               "gemm_efficiency": [[1e6, 0.2], [1e10, 0.6]],
               "vector_flops": 1e11, "memory_bandwidth": 1e10,
               "memory_capacity": 1000000, "kernel_overhead": 1e-5},
    "links": [{"name": "fast", "devices": 4, "latency": 1e-6,
               "bandwidth": 1e10},
              {"name": "slow", "devices": 0, "latency": 1e-5,
               "bandwidth": 1e9}]})",
                               "test.json"));
}

plan::TaskCost taskCost(double gemm, int64_t count, double vector, double bytes,
                        plan::DataType dtype = plan::F32) {
  plan::TaskCost cost;
  cost.set_gemm_flops(gemm);
  cost.set_gemm_count(count);
  cost.set_vector_flops(vector);
  cost.set_bytes(bytes);
  cost.set_dtype(dtype);
  return cost;
}

TEST(CostModel, KernelSeconds) {
  Cluster cluster = testCluster();
  // Two products of 1e8 FLOPs each: efficiency 0.4 at 1e8; f32 at 1e12.
  // GEMM 2e8 / 4e11 = 5e-4; vector 1e6 / 1e11 = 1e-5 < bytes 1e6 / 1e10 =
  // 1e-4; plus the overhead 1e-5.
  EXPECT_DOUBLE_EQ(kernelSeconds(taskCost(2e8, 2, 1e6, 1e6), cluster, false),
                   1e-5 + 5e-4 + 1e-4);
  // TF32 allowed: 2e8 / (4e12 * 0.4) = 1.25e-4.
  EXPECT_DOUBLE_EQ(kernelSeconds(taskCost(2e8, 2, 1e6, 1e6), cluster, true),
                   1e-5 + 1.25e-4 + 1e-4);
  // BF16 with vector work above the memory time: 1e10 / 1e11 = 0.1 s.
  EXPECT_DOUBLE_EQ(
      kernelSeconds(taskCost(1e10, 1, 1e10, 1e3, plan::BF16), cluster, false),
      1e-5 + 1e10 / (8e12 * 0.6) + 0.1);
  // No product: overhead and memory.
  EXPECT_DOUBLE_EQ(kernelSeconds(taskCost(0, 0, 0, 5e5), cluster, false),
                   1e-5 + 5e-5);
  EXPECT_DOUBLE_EQ(copySeconds(1e7, cluster), 1e-5 + 1e-3);
}

TEST(CostModel, ConvolutionsOnTheirOwnCurves) {
  Cluster cluster = testCluster();
  cluster.convEfficiency[2] = {{1e6, 0.1}, {1e10, 0.1}};
  // A conv2d_grad_filter of 1e8 FLOPs (its curve: 0.1, read at the flops
  // of one image) and a product of
  // 1e8 FLOPs (the products' curve: 0.4) in one kernel.
  plan::TaskCost cost = taskCost(2e8, 2, 0, 0);
  cost.mutable_conv2d_grad_filter()->set_flops(1e8);
  cost.mutable_conv2d_grad_filter()->set_count(1);
  cost.mutable_conv2d_grad_filter()->set_images(1);
  EXPECT_DOUBLE_EQ(kernelSeconds(cost, cluster, false),
                   1e-5 + 1e8 / (1e12 * 0.1) + 1e8 / (1e12 * 0.4));
  // A conv2d without a curve of its own is one product (its 8 images are
  // not 8 products of the products' curve).
  plan::TaskCost conv = taskCost(1e8, 1, 0, 0);
  conv.mutable_conv2d()->set_flops(1e8);
  conv.mutable_conv2d()->set_count(1);
  conv.mutable_conv2d()->set_images(8);
  EXPECT_DOUBLE_EQ(kernelSeconds(conv, cluster, false),
                   kernelSeconds(taskCost(1e8, 1, 0, 0), cluster, false));
}

TEST(CostModel, CollectivesAsRings) {
  Cluster cluster = testCluster();
  double bytes = 1e6;
  std::vector<int32_t> inside = {0, 1, 2, 3}, across = {0, 4, 8, 12};
  // n = 4 on the fast level: alpha 1e-6, beta 1e10: (n-1)/n B / beta =
  // 7.5e-5.
  EXPECT_DOUBLE_EQ(
      collectiveSeconds(plan::Collective::ALL_REDUCE, bytes, inside, cluster),
      2 * 3 * 1e-6 + 2 * 7.5e-5);
  EXPECT_DOUBLE_EQ(collectiveSeconds(plan::Collective::REDUCE_SCATTER, bytes,
                                     inside, cluster),
                   3 * 1e-6 + 7.5e-5);
  EXPECT_DOUBLE_EQ(
      collectiveSeconds(plan::Collective::ALL_GATHER, bytes, inside, cluster),
      3 * 1e-6 + 7.5e-5);
  EXPECT_DOUBLE_EQ(
      collectiveSeconds(plan::Collective::ALL_TO_ALL, bytes, inside, cluster),
      3 * 1e-6 + 7.5e-5);
  // Across nodes: alpha 1e-5, beta 1e9.
  EXPECT_DOUBLE_EQ(
      collectiveSeconds(plan::Collective::ALL_REDUCE, bytes, across, cluster),
      2 * 3 * 1e-5 + 2 * 7.5e-4);
  EXPECT_DOUBLE_EQ(collectiveSeconds(plan::Collective::REDUCE_SCATTER, bytes,
                                     across, cluster),
                   3 * 1e-5 + 7.5e-4);
  // A transfer: alpha + B / beta.
  EXPECT_DOUBLE_EQ(
      collectiveSeconds(plan::Collective::SEND, bytes, {0, 1}, cluster),
      1e-6 + 1e-4);
  EXPECT_DOUBLE_EQ(
      collectiveSeconds(plan::Collective::RECV, bytes, {3, 4}, cluster),
      1e-5 + 1e-3);
  // A group of one moves nothing.
  EXPECT_EQ(
      collectiveSeconds(plan::Collective::ALL_REDUCE, bytes, {2}, cluster), 0);
}

} // namespace
