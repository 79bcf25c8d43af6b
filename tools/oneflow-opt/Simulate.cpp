//===- Simulate.cpp - oneflow-opt --simulate ------------------------------===//

#include "Simulate.h"

#include "oneflow/Cost/CostModel.h"
#include "oneflow/Simulator/Simulator.h"
#include "oneflow/Target/EmitPlan.h"
#include "oneflow/Target/EmittedPlan.h"

#include "llvm/Support/raw_ostream.h"

namespace sim = ::oneflow::simulator;
using mlir::oneflow::PlanSimulation;

struct PlanSimulation::Impl {
  ::oneflow::cost::Cluster cluster;
  std::string jsonPath, tracePath;
  mlir::oneflow::EmittedPlan emitted;
};

PlanSimulation::PlanSimulation() : impl(std::make_unique<Impl>()) {}
PlanSimulation::~PlanSimulation() = default;

std::unique_ptr<PlanSimulation>
PlanSimulation::create(llvm::StringRef clusterPath, llvm::StringRef jsonPath,
                       llvm::StringRef tracePath) {
  llvm::Expected<::oneflow::cost::Cluster> cluster =
      ::oneflow::cost::readClusterFile(clusterPath);
  if (!cluster) {
    llvm::errs() << "error: --simulate: " << llvm::toString(cluster.takeError())
                 << "\n";
    return nullptr;
  }
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

bool mlir::oneflow::makePricedReport(llvm::StringRef clusterPath,
                                     SbpReportOptions &options) {
  llvm::Expected<::oneflow::cost::Cluster> cluster =
      ::oneflow::cost::readClusterFile(clusterPath);
  if (!cluster) {
    llvm::errs() << "error: --simulate: " << llvm::toString(cluster.takeError())
                 << "\n";
    return false;
  }
  options.pricedOn = cluster->name;
  options.pricer = [cluster = std::move(*cluster)](
                       const sbp::BoxingStep &step,
                       ArrayRef<int64_t> meshShape) -> double {
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
    case sbp::BoxingKind::AllReduce:
      kind = Kind::ALL_REDUCE;
      break;
    case sbp::BoxingKind::ReduceScatter:
      kind = Kind::REDUCE_SCATTER;
      break;
    case sbp::BoxingKind::AllGather:
      kind = Kind::ALL_GATHER;
      break;
    case sbp::BoxingKind::AllToAll:
      kind = Kind::ALL_TO_ALL;
      bytes /= size;
      break;
    default:
      return 0;
    }
    return ::oneflow::cost::collectiveSeconds(kind, bytes, group, cluster);
  };
  return true;
}
