//===- Simulate.cpp - oneflow-opt --simulate ------------------------------===//

#include "Simulate.h"

#include "oneflow/Cost/CostModel.h"
#include "oneflow/Simulator/Simulator.h"
#include "oneflow/Target/EmitPlan.h"
#include "oneflow/Target/EmittedPlan.h"
#include "oneflow/Transforms/SbpAutoStrategy.h"

#include "llvm/Support/raw_ostream.h"

namespace sim = ::oneflow::simulator;
using mlir::oneflow::PlanSimulation;

struct PlanSimulation::Impl {
  ::oneflow::cost::Cluster cluster;
  std::string jsonPath, tracePath;
  mlir::oneflow::EmittedPlan emitted;
};

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

PlanSimulation::PlanSimulation() : impl(std::make_unique<Impl>()) {}
PlanSimulation::~PlanSimulation() = default;

std::unique_ptr<PlanSimulation>
PlanSimulation::create(llvm::StringRef clusterPath, llvm::StringRef jsonPath,
                       llvm::StringRef tracePath) {
  std::shared_ptr<::oneflow::cost::Cluster> cluster = readCluster(clusterPath);
  if (!cluster)
    return nullptr;
  std::unique_ptr<PlanSimulation> simulation(new PlanSimulation());
  simulation->impl->cluster = std::move(*cluster);
  simulation->impl->jsonPath = jsonPath.str();
  simulation->impl->tracePath = tracePath.str();
  return simulation;
}

void PlanSimulation::attach(EmitPlanOptions &options) {
  options.planOut = &impl->emitted;
}

/// Writes `text` to `path` through a temporary file and a rename, so that
/// a crash never leaves half a file behind.
static bool writeAtomically(llvm::StringRef path, llvm::StringRef text) {
  llvm::Error error = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  });
  if (!error)
    return true;
  llvm::errs() << "error: cannot write " << path << ": "
               << llvm::toString(std::move(error)) << "\n";
  return false;
}

bool PlanSimulation::run(PhaseTimes &times) {
  times.start("simulate");
  const ::oneflow::plan::Plan &plan = impl->emitted.plan;
  sim::Options options;
  options.trace = !impl->tracePath.empty();
  llvm::Expected<sim::Report> report =
      sim::simulate(plan, impl->cluster, options);
  if (!report) {
    llvm::errs() << "error: --simulate: " << llvm::toString(report.takeError())
                 << "\n";
    return false;
  }
  if (!impl->jsonPath.empty() &&
      !writeAtomically(impl->jsonPath, sim::reportToJson(*report)))
    return false;
  if (!impl->tracePath.empty() &&
      !writeAtomically(impl->tracePath, sim::traceToJson(*report, plan)))
    return false;
  times.print(llvm::errs());
  sim::printReport(llvm::errs(), *report);
  return true;
}

bool mlir::oneflow::simulateModule(ModuleOp module, EmitPlanOptions options,
                                   llvm::StringRef clusterPath,
                                   SimulatedStep &step) {
  std::shared_ptr<::oneflow::cost::Cluster> cluster = readCluster(clusterPath);
  if (!cluster)
    return false;
  EmittedPlan emitted;
  options.planOnly = true;
  options.planOut = &emitted;
  options.report = nullptr;
  options.times = nullptr;
  if (failed(emitPlan(module, options)))
    return false;
  llvm::Expected<sim::Report> report =
      sim::simulate(emitted.plan, *cluster, sim::Options());
  if (!report) {
    llvm::errs() << "error: --simulate: " << llvm::toString(report.takeError())
                 << "\n";
    return false;
  }
  step.stepSeconds = report->stepSeconds;
  step.computeSeconds = report->computeSeconds;
  step.communicationSeconds = report->exposedCommunicationSeconds;
  step.bubbleSeconds = report->bubbleSeconds;
  step.peakMemoryBytes = double(report->peakMemoryBytes());
  step.fits = report->fits();
  return true;
}

bool mlir::oneflow::makePricedReport(llvm::StringRef clusterPath,
                                     SbpReportOptions &options) {
  SbpAutoOptions pricers;
  ClusterSummary summary;
  if (!makeAutoPricers(clusterPath, /*allowTf32=*/false, pricers, &summary))
    return false;
  options.pricedOn = summary.name;
  options.pricer = std::move(pricers.pricer);
  return true;
}
