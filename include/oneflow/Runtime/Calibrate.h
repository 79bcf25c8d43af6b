//===- Calibrate.h - Measuring this machine's description -------*- C++ -*-===//
//
// `oneflow-run --calibrate=FILE` measures what docs/simulator.md's cost
// model needs of this machine, on every rank of the job at once (so each
// figure is what one rank gets while the others work too, as in a run):
//
//  - the f32 (and f64) products through the kernel library's own entry
//    points (oneflow_gemm_f32/_f64, oneDNN / OpenBLAS) over square and
//    transformer shapes: the peak and the efficiency curve;
//  - an elementwise loop bound by arithmetic (vector FLOP/s), a streaming
//    triad (memory bandwidth), the physical memory per rank;
//  - the cost of one firing: a chain of empty kernels on the real Executor;
//  - with two ranks or more, the link: the runtime's own collectives
//    (MpiCollectives) from 8 bytes to 16 MiB, fitted to the ring formulas.
//
// The kernels come from a module linked like every plan's kernels.so
// (lib/Kernels/CalibrationKernels.cpp), loaded with the thread budget a
// plan's kernels get.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CALIBRATE_H
#define ONEFLOW_RUNTIME_CALIBRATE_H

#include "oneflow/Runtime/ClusterFile.h"

#include <functional>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

class World;

struct CalibrationOptions {
  /// Fewer and smaller measurements (a few seconds, for tests): the
  /// figures are rougher (the bandwidth's arrays barely exceed the caches).
  bool quick = false;
  /// The calibration kernel module; empty: calibrationKernelsPath().
  std::string kernelsPath;
  /// The threads each rank's kernels get (the vector loop's share, and the
  /// file's description).
  int threadsPerRank = 1;
  /// The ranks on this machine (set by calibrate()).
  int localRanks = 1;
  /// Told (on rank 0) the name of each phase as it starts.
  std::function<void(const std::string &)> progress;
};

/// The module built with the runtime ($ONEFLOW_CALIBRATION_KERNELS first,
/// then the build tree's, then lib/ next to the executable's bin/).
std::string calibrationKernelsPath();

/// What one rank measured of its device.
struct DeviceTimings {
  std::vector<GemmTiming> gemmF32;
  double peakF64 = 0;        // FLOP/s of the largest f64 product
  double vectorFlops = 0;    // FLOP/s
  double bandwidth = 0;      // bytes/s, beyond the caches
  double cacheBandwidth = 0; // bytes/s, 1.5 MiB per thread (not in the file)
  double firingSeconds = 0;
  /// Wall seconds a task waits, beyond a firing, when its input comes from
  /// another stream (thread) of its rank: the wake-up of that thread.
  double handoffSeconds = 0;
  /// The same with every rank of this machine on one CPU, per handoff and
  /// rank: the CPU time a switch to a woken thread costs when ranks share
  /// CPUs (0: one rank on this machine).
  double sharedSwitchSeconds = 0;
  /// CPU time over wall time while measuring (per working thread): the
  /// share of its cores the rank had; below 1 when other processes ran.
  double cpuShare = 1;
};

/// Measures this rank's device from the CPU time it spends (see
/// Calibrate.cpp: what the machine does, not how busy it was), with wall
/// times only for cpuShare. `sync` is called before each measurement
/// (a barrier over the ranks, so they measure the same thing at the same
/// time); `progress` gets a word about each phase.
Expected<DeviceTimings>
measureDevice(const CalibrationOptions &options,
              const std::function<void()> &sync,
              const std::function<void(const std::string &)> &progress);

/// Collective over `world`: times the runtime's collectives among all its
/// ranks (ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER, ALL_TO_ALL over every
/// rank; SEND/RECV as ranks 0 and 1 exchanging at once, each sending to
/// and receiving from the other, the way docs/simulator.md's beta is
/// defined). Rank 0 gets the timings, the others none.
std::vector<LinkTiming> measureLinks(World &world, bool quick);

struct Calibration {
  ClusterDescription cluster;
  /// The table oneflow-run prints (docs/runtime.md's calibrate section).
  std::string summary;
  /// Every timing behind the figures, one JSON object a line.
  std::string timings;
};

/// Collective over `world` when set: measures every rank, and rank 0
/// combines the ranks' figures (medians) and fits the link. Only rank 0's
/// result holds anything.
Expected<Calibration> calibrate(const CalibrationOptions &options,
                                World *world);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_CALIBRATE_H
