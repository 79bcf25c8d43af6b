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

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir {
namespace oneflow {

class PhaseTimes;
struct EmitPlanOptions;
struct EmittedPlan;

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

/// What the simulator predicts for one plan (the search's check of its
/// candidates).
struct SimulatedStep {
  double stepSeconds = 0, computeSeconds = 0, communicationSeconds = 0,
         bubbleSeconds = 0;
  double peakMemoryBytes = 0;
  bool fits = true;
};

/// Builds the plan of `module` (graph passes done) with `options` but no
/// kernel code, and replays one step of it on the cluster of
/// `clusterPath`; false after an error (diagnosed).
bool simulateModule(ModuleOp module, EmitPlanOptions options,
                    llvm::StringRef clusterPath, SimulatedStep &step);

/// Report options pricing each boxing on the cluster of `clusterPath`
/// (`--sbp-report --simulate=CLUSTER.json`): the collective of every 1-D
/// step timed by the cost model over a device group along its mesh axis
/// (ranks the axis' stride apart, row-major mesh), so that the link level
/// is the one the axis spans. False after printing the error.
bool makePricedReport(llvm::StringRef clusterPath, SbpReportOptions &options);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TOOLS_ONEFLOW_OPT_SIMULATE_H
