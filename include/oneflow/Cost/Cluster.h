//===- Cluster.h - Cluster descriptions (clusters/*.json) -------*- C++ -*-===//
//
// What a cluster file says about one device and the links between devices,
// in the format of docs/simulator.md. Parsing is strict: an unknown key, a
// missing field or a value out of range is an error naming the file and the
// key path ("clusters/x.json: device.gemm_efficiency[2]: expected [flops,
// fraction]").
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_COST_CLUSTER_H
#define ONEFLOW_COST_CLUSTER_H

#include "oneflow/plan.pb.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace oneflow {
namespace cost {

/// One level of the interconnect: `devices` consecutive ranks share it (0:
/// every rank).
struct Link {
  std::string name;
  int64_t devices = 0;
  double latency = 0;   // alpha, seconds per transfer
  double bandwidth = 0; // beta, bytes/s one rank sends (and receives)
};

struct Cluster {
  std::string name;
  std::string kind; // "gpu" or "cpu"
  /// Dense peak FLOP/s per element type: f32, tf32, bf16, f16, f64.
  std::map<std::string, double> peakFlops;
  /// (flops of one product, achieved fraction of the peak), by flops.
  std::vector<std::pair<double, double>> gemmEfficiency;
  /// The same for the convolution kernels (conv2d, conv_transpose2d,
  /// conv2d_grad_filter), by the flops of one image and group of a
  /// convolution; empty: the products' curve, by the whole convolution.
  std::vector<std::pair<double, double>> convEfficiency[3];
  /// How many ranks of one node (links[0]'s group) compute at full speed
  /// at once: a CPU node's cores over the threads per rank. More ranks on
  /// a node share it. 0: no limit (one rank per GPU).
  int64_t concurrentRanks = 0;
  double vectorFlops = 0;
  double memoryBandwidth = 0;
  int64_t memoryCapacity = 0;
  double kernelOverhead = 0;
  /// Seconds a task waits, when its input comes from another stream of
  /// its rank, for that thread to wake up (0: not in the file).
  double streamHandoff = 0;
  /// CPU seconds the switch to a woken thread costs when ranks share CPUs
  /// (0: not in the file; streamHandoff then).
  double sharedCpuSwitch = 0;
  /// Innermost first; the last one connects every rank.
  std::vector<Link> links;
  std::string sources;

  /// The peak of products of `dtype`: f32 runs as tf32 when allowed and
  /// the file has it; a type the file lacks falls back to f32.
  double peak(plan::DataType dtype, bool allowTf32) const;
  /// The achieved fraction of the peak of one product of `flops`: the
  /// points interpolated linearly in log10(flops), clamped at both ends.
  double efficiency(double flops) const;
  /// The fraction achieved by one convolution of `flops` of kind `conv`
  /// (0: conv2d, 1: conv_transpose2d, 2: conv2d_grad_filter).
  double convEfficiencyOf(int conv, double flops) const;
  /// How much slower every task runs when `numRanks` ranks share the
  /// nodes: ranks on a node over concurrentRanks, at least 1.
  double sharingFactor(int64_t numRanks) const;
  /// The innermost level holding every rank of `ranks`.
  const Link &linkFor(llvm::ArrayRef<int32_t> ranks) const;
};

/// Parses and validates `text`; errors start with `fileName`.
llvm::Expected<Cluster> parseCluster(llvm::StringRef text,
                                     llvm::StringRef fileName);

/// Reads and parses the cluster file at `path`.
llvm::Expected<Cluster> readClusterFile(llvm::StringRef path);

} // namespace cost
} // namespace oneflow

#endif // ONEFLOW_COST_CLUSTER_H
