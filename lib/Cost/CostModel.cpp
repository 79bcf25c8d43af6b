//===- CostModel.cpp - Seconds of plan tasks on a cluster -----------------===//

#include "oneflow/Cost/CostModel.h"

#include <algorithm>

using namespace oneflow;
using namespace oneflow::cost;

double oneflow::cost::kernelSeconds(const plan::TaskCost &cost,
                                    const Cluster &cluster, bool allowTf32) {
  double seconds = cluster.kernelOverhead;
  const double peak = cluster.peak(cost.dtype(), allowTf32);
  // Convolutions on their kernels' curves, the other products on the
  // products' curve.
  const plan::ConvWork *convs[] = {&cost.conv2d(), &cost.conv_transpose2d(),
                                   &cost.conv2d_grad_filter()};
  double gemmFlops = cost.gemm_flops();
  int64_t gemmCount = cost.gemm_count();
  for (int kind = 0; kind < 3; ++kind) {
    const plan::ConvWork &conv = *convs[kind];
    if (conv.flops() <= 0)
      continue;
    // A kind's own curve is by the product of one image and group; without
    // one, a convolution is one product (as cuDNN's implicit GEMMs run).
    double perProduct =
        cluster.convEfficiency[kind].empty()
            ? conv.flops() / double(std::max<int64_t>(conv.count(), 1))
            : conv.flops() / double(std::max<int64_t>(conv.images(), 1));
    seconds +=
        conv.flops() / (peak * cluster.convEfficiencyOf(kind, perProduct));
    gemmFlops -= conv.flops();
    gemmCount -= conv.count();
  }
  if (gemmFlops > 0) {
    double perProduct = gemmFlops / double(std::max<int64_t>(gemmCount, 1));
    seconds += gemmFlops / (peak * cluster.efficiency(perProduct));
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
