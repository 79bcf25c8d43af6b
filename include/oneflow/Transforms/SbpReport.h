//===- SbpReport.h - What a distribution costs, boxing by boxing -*- C++ -*-===//
//
// The SBP report of a placed graph: each op's signature, then every boxing
// named by where its tensor comes from and where it goes, with the bytes
// each device sends and, given a pricer (a cluster description), its
// predicted seconds; sorted by cost, with totals per collective kind.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TRANSFORMS_SBPREPORT_H
#define ONEFLOW_TRANSFORMS_SBPREPORT_H

#include "oneflow/Dialect/SBP/BoxingCost.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir {
namespace oneflow {

/// Seconds one 1-D boxing step (a collective along one mesh axis) takes on
/// a mesh of `meshShape`.
using BoxingPricer = std::function<double(const sbp::BoxingStep &step,
                                          ArrayRef<int64_t> meshShape)>;

struct SbpReportOptions {
  /// Prices the boxings; without one the report gives bytes only.
  BoxingPricer pricer;
  /// What the prices are for (the cluster's name), printed with them.
  std::string pricedOn;
};

/// Prints the report of @main of `module` to `os`; a module without @main
/// prints nothing. Fails, diagnosed, when @main is not placed on a mesh.
LogicalResult printSbpReport(ModuleOp module, llvm::raw_ostream &os,
                             const SbpReportOptions &options = {});

/// The sbp-print-report pass with a pricer, printing to stdout.
std::unique_ptr<Pass> createSbpReportPass(SbpReportOptions options);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TRANSFORMS_SBPREPORT_H
