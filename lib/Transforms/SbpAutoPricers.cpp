//===- SbpAutoPricers.cpp - Cluster prices of the auto strategy -----------===//
//
// The pricers the SBP solve (sbp-auto-strategy) and the outer search
// (--auto-parallel) read off a cluster file: boxings as collectives over
// the device group of their mesh axis, an op's local work by the cost
// model's kernel formula.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Transforms/SbpAutoStrategy.h"

#include "oneflow/Cost/CostModel.h"
#include "oneflow/Cost/TaskWork.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>

static std::shared_ptr<::oneflow::cost::Cluster>
readCluster(llvm::StringRef clusterPath) {
  llvm::Expected<::oneflow::cost::Cluster> cluster =
      ::oneflow::cost::readClusterFile(clusterPath);
  if (!cluster) {
    llvm::errs() << "error: --simulate: " << llvm::toString(cluster.takeError())
                 << "\n";
    return nullptr;
  }
  return std::make_shared<::oneflow::cost::Cluster>(std::move(*cluster));
}

llvm::StringRef mlir::oneflow::defaultAutoCluster() {
  return ONEFLOW_DEFAULT_CLUSTER;
}

/// Seconds of one 1-D boxing step on `cluster`: the collective over a
/// device group along its mesh axis (ranks the axis' stride apart, in a
/// row-major mesh), so that the link level is the one the axis spans.
static mlir::oneflow::BoxingPricer
boxingPricer(std::shared_ptr<::oneflow::cost::Cluster> cluster) {
  return [cluster](const mlir::sbp::BoxingStep &step,
                   llvm::ArrayRef<int64_t> meshShape) -> double {
    using Kind = ::oneflow::plan::Collective;
    int64_t size = meshShape[step.axis], stride = 1;
    for (size_t axis = step.axis + 1; axis < meshShape.size(); ++axis)
      stride *= meshShape[axis];
    std::vector<int32_t> group;
    for (int64_t member = 0; member < size; ++member)
      group.push_back(int32_t(member * stride));
    // The collective's input bytes (its output's for an all-gather), as
    // the cost model counts them; conversions without one cost nothing.
    Kind::Kind kind;
    double bytes = step.groupBytes;
    switch (step.kind) {
    case mlir::sbp::BoxingKind::AllReduce:
      kind = Kind::ALL_REDUCE;
      break;
    case mlir::sbp::BoxingKind::ReduceScatter:
      kind = Kind::REDUCE_SCATTER;
      break;
    case mlir::sbp::BoxingKind::AllGather:
      kind = Kind::ALL_GATHER;
      break;
    case mlir::sbp::BoxingKind::AllToAll:
      kind = Kind::ALL_TO_ALL;
      bytes /= size;
      break;
    default:
      return 0;
    }
    return ::oneflow::cost::collectiveSeconds(kind, bytes, group, *cluster);
  };
}

static ::oneflow::plan::DataType planDataType(mlir::Type type) {
  if (type && type.isF64())
    return ::oneflow::plan::F64;
  if (type && type.isF16())
    return ::oneflow::plan::F16;
  if (type && type.isBF16())
    return ::oneflow::plan::BF16;
  return ::oneflow::plan::F32;
}

bool mlir::oneflow::makeAutoPricers(llvm::StringRef clusterPath, bool allowTf32,
                                    SbpAutoOptions &options,
                                    ClusterSummary *summary) {
  std::shared_ptr<::oneflow::cost::Cluster> cluster = readCluster(clusterPath);
  if (!cluster)
    return false;
  options.pricer = boxingPricer(cluster);
  options.kernelPricer = [cluster, allowTf32](const mlir::oneflow::OpCost &work,
                                              double bytes,
                                              mlir::Type element) {
    ::oneflow::plan::TaskCost cost;
    mlir::oneflow::setTaskWork(work, cost);
    cost.set_bytes(bytes);
    cost.set_dtype(planDataType(element));
    // The per-task overhead is the same for every layout.
    return ::oneflow::cost::kernelSeconds(cost, *cluster, allowTf32) -
           cluster->kernelOverhead;
  };
  if (summary) {
    summary->name = cluster->name;
    summary->memoryCapacity = double(cluster->memoryCapacity);
    summary->memoryBandwidth = cluster->memoryBandwidth;
    summary->kernelOverhead = cluster->kernelOverhead;
    summary->devicesPerNode =
        cluster->links.empty() ? 0 : cluster->links.front().devices;
    summary->collective = [cluster](CollectiveKind kind, double bytes,
                                    llvm::ArrayRef<int32_t> group) {
      using Kind = ::oneflow::plan::Collective;
      Kind::Kind k = kind == CollectiveKind::AllReduce   ? Kind::ALL_REDUCE
                     : kind == CollectiveKind::AllGather ? Kind::ALL_GATHER
                                                         : Kind::SEND;
      return ::oneflow::cost::collectiveSeconds(k, bytes, group, *cluster);
    };
  }
  return true;
}
