//===- CostModel.cpp - Seconds of plan tasks on a cluster -----------------===//

#include "oneflow/Cost/CostModel.h"

#include <algorithm>

using namespace oneflow;
using namespace oneflow::cost;

double oneflow::cost::kernelSeconds(const plan::TaskCost &cost,
                                    const Cluster &cluster, bool allowTf32) {
  double seconds = cluster.kernelOverhead;
  if (cost.gemm_flops() > 0) {
    double perProduct =
        cost.gemm_flops() / double(std::max<int64_t>(cost.gemm_count(), 1));
    seconds += cost.gemm_flops() / (cluster.peak(cost.dtype(), allowTf32) *
                                    cluster.efficiency(perProduct));
  }
  return seconds + std::max(cost.vector_flops() / cluster.vectorFlops,
                            cost.bytes() / cluster.memoryBandwidth);
}

double oneflow::cost::copySeconds(double bytes, const Cluster &cluster) {
  return cluster.kernelOverhead + bytes / cluster.memoryBandwidth;
}

double oneflow::cost::collectiveSeconds(plan::Collective::Kind kind,
                                        double bytes,
                                        llvm::ArrayRef<int32_t> group,
                                        const Cluster &cluster) {
  const Link &link = cluster.linkFor(group);
  double alpha = link.latency, beta = link.bandwidth;
  if (kind == plan::Collective::SEND || kind == plan::Collective::RECV)
    return alpha + bytes / beta;
  double n = double(group.size());
  if (n <= 1)
    return 0;
  // Ring algorithms: n - 1 steps of B / n each way (twice for all-reduce:
  // a reduce-scatter then an all-gather).
  double once = (n - 1) * alpha + (n - 1) / n * bytes / beta;
  return kind == plan::Collective::ALL_REDUCE ? 2 * once : once;
}
