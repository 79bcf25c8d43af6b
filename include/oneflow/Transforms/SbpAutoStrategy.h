//===- SbpAutoStrategy.h - Cost-based SBP of every op -----------*- C++ -*-===//
//
// `--sbp-strategy=auto`: places @main on a mesh and pins the nd-signature of
// every op and graph argument that minimizes the predicted seconds of the
// step: each op's local compute (priced by the caller, from a cluster file)
// plus every boxing on a producer -> consumer edge (each 1-D collective over
// the device group of its mesh axis), under a per-device memory limit on
// variables. Solved as OneFlow's SBP graph: nodes with one candidate, one
// neighbour or two neighbours are eliminated exactly; what remains is
// enumerated when small, else solved greedily with local improvement and
// the result's lower bound reported.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TRANSFORMS_SBPAUTOSTRATEGY_H
#define ONEFLOW_TRANSFORMS_SBPAUTOSTRATEGY_H

#include "oneflow/Cost/OpCost.h"
#include "oneflow/Transforms/SbpReport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir {
namespace oneflow {

/// Seconds of one op's local work: its FLOPs, the bytes it reads and
/// writes, and the element type of its first operand (or result).
using KernelPricer =
    std::function<double(const OpCost &work, double bytes, Type elementType)>;

struct SbpAutoOptions {
  SmallVector<int64_t> meshShape;
  std::string device = "cpu";
  /// Seconds of a 1-D boxing step and of an op's local work (required).
  BoxingPricer pricer;
  KernelPricer kernelPricer;
  /// Bytes of variables (parameters, optimizer state) one device may hold;
  /// 0: no limit.
  double memoryCapacity = 0;
  /// Multiplies the cost of edges out of variables and constants: the
  /// outer search solves a whole batch where each of `scale` micro-batches
  /// (per data-parallel rank) fetches its weights again.
  double sourceEdgeScale = 1;
  /// Extra seconds of a trainable variable laid out `nd` holding
  /// `localBytes` per device (the outer search's gradient reduction over
  /// the data-parallel ranks); none when empty.
  std::function<double(double localBytes, ArrayRef<sbp::Sbp> nd)> variableExtra;
  /// ZeRO stage to hold on `dataAxes` (-1: the solve's own choice): 0
  /// keeps the optimizer state replicated on them, 1 and 2 split it (every
  /// state tensor some split divides), 3 the trained parameters too (below
  /// 3 the parameters' layout is the solve's).
  int64_t zero = -1;
  SmallVector<int64_t> dataAxes;
  /// Layouts of named variables the outer search chose (nd-SBPs on this
  /// mesh); a solve one axis at a time keeps them.
  llvm::StringMap<SmallVector<sbp::Sbp, 3>> variablePins;
  /// Graphs of more ops than this on a mesh of several axes are solved one
  /// axis at a time (outermost first) rather than over nd-signatures.
  int64_t fullSolveLimit = 20000;
  /// Solve identical layers once (ops grouped by module path up to its
  /// first index; layers equal op by op, variables' names and data aside):
  /// every copy takes its first layer's signatures, each node's cost
  /// counted once per copy. Exact under that restriction.
  bool repeatedLayers = false;
  /// Also enumerate every assignment (small graphs) and print the optimum
  /// next to the solve's result: a check of the solver.
  bool enumerate = false;
  /// Where the summary line goes (null: nowhere).
  llvm::raw_ostream *report = nullptr;
};

/// What the solve predicts for the chosen signatures.
struct SbpAutoResult {
  double computeSeconds = 0;
  double communicationSeconds = 0;
  double extraSeconds = 0;
  /// A lower bound of the optimum (equal to the total when exact).
  double lowerBound = 0;
  bool exact = true;
  /// Per-device bytes of variables and of every other op result.
  double variableBytes = 0, activationBytes = 0;
  int64_t nodes = 0, coreNodes = 0;
  /// Indexed layers, those identical to an earlier one (solved with it),
  /// and the distinct layers they repeat.
  int64_t layers = 0, repeatedLayers = 0, layerGroups = 0;
  bool fits = true;
  double total() const {
    return computeSeconds + communicationSeconds + extraSeconds;
  }
};

/// Places @main of `module` on a mesh @mesh of `options.meshShape` and pins
/// every op's `sbp.sig` (every argument's `sbp.nd`) as the cheapest
/// solution found; signatures already pinned are kept. Fails, diagnosed,
/// when no layout fits the memory limit.
LogicalResult solveSbpAuto(ModuleOp module, const SbpAutoOptions &options,
                           SbpAutoResult *result = nullptr);

/// The pass running solveSbpAuto (the summary line on stderr); the ODS
/// pass `sbp-auto-strategy` with pricers, pins and report given in C++.
std::unique_ptr<Pass> createSbpAutoStrategyPass(SbpAutoOptions options);

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
/// each 1-D boxing step as a collective over a device group along its mesh
/// axis (ranks the axis' stride apart, row-major mesh, so that the link
/// level is the one the axis spans), each op's local work by the cost
/// model's kernel formula (without the per-task overhead, which no layout
/// changes). False after printing the error.
bool makeAutoPricers(llvm::StringRef clusterPath, bool allowTf32,
                     SbpAutoOptions &options,
                     ClusterSummary *summary = nullptr);

/// The cluster file the auto strategy prices on when none is named
/// (clusters/cpu-local.json of the source tree).
llvm::StringRef defaultAutoCluster();

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TRANSFORMS_SBPAUTOSTRATEGY_H
