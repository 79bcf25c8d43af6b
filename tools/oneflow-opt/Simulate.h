//===- Simulate.h - oneflow-opt --simulate ----------------------*- C++ -*-===//
//
// The plan simulator behind `--emit=plan --simulate=CLUSTER.json`, apart
// from oneflow-opt.cpp so that the driver need not see the plan schema.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_ONEFLOW_OPT_SIMULATE_H
#define ONEFLOW_TOOLS_ONEFLOW_OPT_SIMULATE_H

#include "oneflow/Transforms/SbpAutoStrategy.h"
#include "oneflow/Transforms/SbpReport.h"

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir {
namespace oneflow {

class PhaseTimes;
struct EmitPlanOptions;

class PlanSimulation {
public:
  /// Reads the cluster file at `clusterPath` (before compiling, so that a
  /// bad file fails fast); null after printing the error. `jsonPath` and
  /// `tracePath` (empty: none) receive the report and the trace.
  static std::unique_ptr<PlanSimulation> create(llvm::StringRef clusterPath,
                                                llvm::StringRef jsonPath,
                                                llvm::StringRef tracePath);
  ~PlanSimulation();

  /// Makes emitPlan hand over the plan it writes.
  void attach(EmitPlanOptions &options);

  /// Replays one step of the plan (phase "simulate" of `times`), prints
  /// `times` and the report on stderr and writes the files asked for;
  /// false after printing an error.
  bool run(PhaseTimes &times);

private:
  PlanSimulation();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Report options pricing each boxing on the cluster of `clusterPath`
/// (`--sbp-report --simulate=CLUSTER.json`): the collective of every 1-D
/// step timed by the cost model over a device group along its mesh axis
/// (ranks the axis' stride apart, row-major mesh), so that the link level
/// is the one the axis spans. False after printing the error.
bool makePricedReport(llvm::StringRef clusterPath, SbpReportOptions &options);

enum class CollectiveKind { AllReduce, AllGather, Send };

/// What the outer search needs of a cluster beyond the pricers.
struct ClusterSummary {
  std::string name;
  double memoryCapacity = 0, memoryBandwidth = 0, kernelOverhead = 0;
  /// Devices of the innermost link level (0: all).
  int64_t devicesPerNode = 0;
  /// Seconds of a collective (a SEND: one transfer) of `bytes` over `group`.
  std::function<double(CollectiveKind, double bytes, ArrayRef<int32_t> group)>
      collective;
};

/// The pricers of --sbp-strategy=auto from the cluster of `clusterPath`:
/// each boxing step as makePricedReport prices it, each op's local work by
/// the cost model's kernel formula (without the per-task overhead, which
/// no layout changes). False after printing the error.
bool makeAutoPricers(llvm::StringRef clusterPath, bool allowTf32,
                     SbpAutoOptions &options,
                     ClusterSummary *summary = nullptr);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TOOLS_ONEFLOW_OPT_SIMULATE_H
