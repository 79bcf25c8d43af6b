//===- ClusterFile.h - Cluster descriptions and their fits ------*- C++ -*-===//
//
// The cluster description file of docs/simulator.md (what the plan
// simulator reads) as a struct, its writer, and the fits that turn raw
// timings into its figures: the GEMM efficiency curve and the alpha-beta
// model of a link. Pure functions, no MPI: `oneflow-run --calibrate`
// (Calibrate.h) measures, these summarize, and the unit tests check them
// on synthetic timings.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CLUSTERFILE_H
#define ONEFLOW_RUNTIME_CLUSTERFILE_H

#include "oneflow/Runtime/Status.h"
#include "oneflow/plan.pb.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace oneflow {
namespace runtime {

/// One level of `links`: `devices` consecutive ranks share it (0: all).
struct LinkLevel {
  std::string name;
  int64_t devices = 0;
  double latency = 0;   // alpha, seconds
  double bandwidth = 0; // beta, bytes/s
};

/// Every key of the file; docs/simulator.md says what each means.
struct ClusterDescription {
  std::string name;
  std::string kind = "cpu";                              // device.kind
  std::vector<std::pair<std::string, double>> peakFlops; // dtype, FLOP/s
  std::vector<std::pair<double, double>> gemmEfficiency; // flops, fraction
  /// device.concurrent_ranks: ranks a node runs at full speed (its cores
  /// over the threads per rank); 0 leaves the key out.
  int64_t concurrentRanks = 0;
  double vectorFlops = 0;
  double memoryBandwidth = 0;
  int64_t memoryCapacity = 0;
  double kernelOverhead = 0;
  /// Seconds a task waits for its thread's wake-up when its input comes
  /// from another stream; 0: not written.
  double streamHandoff = 0;
  /// CPU seconds a switch to a woken thread costs when ranks share CPUs;
  /// 0: not written.
  double sharedCpuSwitch = 0;
  std::vector<LinkLevel> links;
  std::string sources;
};

/// Every violation of the format's rules, one a line: a known kind and
/// peak keys (f32, tf32, bf16, f16, f64), positive finite figures,
/// efficiency points sorted by flops with fractions in (0, 1], links from
/// inner to outer with the outermost covering all ranks (devices 0).
Status validateCluster(const ClusterDescription &cluster);

/// The file's JSON text, with exactly the keys of docs/simulator.md.
std::string clusterToJson(const ClusterDescription &cluster);

/// Validates, then writes `path` atomically (temporary file, fsync,
/// rename): a reader sees the old file or the new one.
Status writeClusterFile(const std::string &path,
                        const ClusterDescription &cluster);

/// `value` rounded to `digits` significant decimal digits: measured
/// figures carry no more precision than that, and the file stays readable.
double roundSignificant(double value, int digits = 4);

/// One GEMM shape's measurement.
struct GemmTiming {
  double flops = 0;      // of one product: 2 m n k
  double throughput = 0; // achieved FLOP/s (the median of its repeats)
  std::string shape;     // "MxNxK" and N/T per operand, e.g. "64x64x32NT"
};

/// The peak: the largest throughput of any shape. Each shape's figure is
/// already a median of repeats, so a single lucky repeat cannot set it.
double gemmPeak(const std::vector<GemmTiming> &timings);

/// The efficiency curve of docs/simulator.md from per-shape timings:
/// shapes grouped by half decades of flops, each group's median flops and
/// median fraction of `peak`, then made non-decreasing in flops (pool
/// adjacent violators, weighted by group size: a larger product is never
/// predicted slower per FLOP than a smaller one, which noise and shape
/// quirks would otherwise make the curve claim). Fractions lie in (0, 1].
std::vector<std::pair<double, double>>
gemmEfficiencyCurve(const std::vector<GemmTiming> &timings, double peak);

/// The coefficients of alpha and of B / beta in the time of collective
/// `kind` over `n` ranks (docs/simulator.md's ring formulas): time =
/// first * alpha + second * B / beta.
std::pair<double, double> ringCoefficients(plan::Collective::Kind kind, int n);

/// One collective's measurement.
struct LinkTiming {
  plan::Collective::Kind kind = plan::Collective::ALL_REDUCE;
  int ranks = 2;
  double bytes = 0; // B: the input's bytes (the output's for ALL_GATHER)
  double seconds = 0;
};

struct AlphaBeta {
  double alpha = 0; // seconds
  double beta = 0;  // bytes/s
  /// Root mean square of (model - measured) / measured over the timings.
  double rmsRelativeError = 0;
};

/// Least squares of the ring formulas over `timings` on log(model /
/// measured), so that 8-byte latencies and 16 MiB transfers weigh alike and
/// a model 2x too slow costs as much as one 2x too fast, with alpha >= 0
/// (started from the linear fit of relative errors). Errors when the
/// timings cannot determine a positive bandwidth.
Expected<AlphaBeta> fitAlphaBeta(const std::vector<LinkTiming> &timings);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_CLUSTERFILE_H
