//===- SbpReport.cpp - What a distribution costs --------------------------===//

#include "oneflow/Transforms/SbpReport.h"

#include "SbpUtils.h"

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/Provenance.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SBPREPORT
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {


/// The variable an optimizer update's result is assigned to (through
/// boxings and other update ops), if any.
StringRef updatedVariable(Operation *op) {
  SmallVector<Operation *> work{op};
  for (size_t i = 0; i < work.size() && i < 32; ++i)
    for (Operation *user : work[i]->getUsers()) {
      if (auto assign = dyn_cast<AssignOp>(user))
        return assign.getVarName();
      std::optional<Provenance> provenance = getProvenance(user);
      if (isa<sbp::BoxingOp>(user) ||
          (provenance && provenance->phase == "update"))
        work.push_back(user);
    }
  return "";
}

/// `op`'s ONNX node (or module) name, with its training phase when it is
/// not the forward pass; the parameter an optimizer update computes;
/// empty when it has no name.
std::string describeOp(Operation *op) {
  if (auto assign = dyn_cast<AssignOp>(op))
    return "parameter " + assign.getVarName().str();
  std::optional<Provenance> phase = getProvenance(op);
  if (phase && phase->phase == "update")
    if (StringRef variable = updatedVariable(op); !variable.empty())
      return "update of " + variable.str();
  std::string name = locationName(op->getLoc());
  if (name.empty())
    return "";
  if (std::optional<Provenance> provenance = getProvenance(op);
      provenance && provenance->phase != "forward")
    name += " (" + provenance->phase.str() + ")";
  return name;
}

/// Where `value` comes from: a parameter, a graph input, or the op that
/// computes it (its name, else its kind), looking through earlier boxings.
std::string describeSource(func::FuncOp graph, Value value) {
  for (int depth = 0; depth < 16; ++depth) {
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      auto name = graph.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                                     "onnx.name");
      return "input " + (name ? name.str()
                              : "#" + std::to_string(argument.getArgNumber()));
    }
    Operation *op = value.getDefiningOp();
    if (auto variable = dyn_cast<VariableOp>(op))
      return "parameter " + variable.getVarName().str();
    if (auto boxing = dyn_cast<sbp::BoxingOp>(op)) {
      value = boxing.getInput();
      continue;
    }
    if (std::string name = describeOp(op); !name.empty())
      return name;
    return op->getName().getStringRef().str();
  }
  return "(a chain of boxings)";
}

/// Where the boxed value goes: its first user that has a name.
std::string describeUse(Value value) {
  for (Operation *user : value.getUsers())
    if (std::string name = describeOp(user); !name.empty())
      return name;
  for (Operation *user : value.getUsers())
    return user->getName().getStringRef().str();
  return "(unused)";
}

struct BoxingLine {
  std::string conversion, collectives, type, source, use;
  double bytes = 0, seconds = 0;
};

struct KindTotal {
  int64_t steps = 0;
  double bytes = 0, seconds = 0;
};

} // namespace

LogicalResult mlir::oneflow::printSbpReport(ModuleOp module,
                                            llvm::raw_ostream &os,
                                            const SbpReportOptions &options) {
  func::FuncOp graph;
  sbp::MeshOp mesh;
  if (failed(getPlacedGraph(module, graph, mesh)))
    return failure();
  if (!graph)
    return success();
  SmallVector<int64_t> shape(mesh.getShape());
  bool priced = static_cast<bool>(options.pricer);
  os << "SBP report: mesh " << meshString(shape) << " of " << mesh.getDevice()
     << " devices\n";

  std::vector<BoxingLine> lines;
  llvm::MapVector<sbp::BoxingKind, KindTotal> perKind;
  for (Operation &op : graph.getOps()) {
    auto boxing = dyn_cast<sbp::BoxingOp>(op);
    if (!boxing) {
      if (auto sig = op.getAttrOfType<sbp::SignatureAttr>(
              sbp::SBPDialect::kSignatureAttrName)) {
        std::string name = describeOp(&op);
        os << "  " << op.getName().getStringRef()
           << (name.empty() ? "" : " (" + name + ")") << ": " << sig << "\n";
      }
      continue;
    }
    SmallVector<sbp::Sbp, 3> from = boxing.getFrom().getValues(),
                             to = boxing.getTo().getValues();
    BoxingLine line;
    line.conversion = ndString(from) + " -> " + ndString(to);
    llvm::raw_string_ostream type(line.type);
    type << boxing.getInput().getType();
    line.source = describeSource(graph, boxing.getInput());
    line.use = describeUse(boxing.getResult());
    for (const sbp::BoxingStep &step : sbp::boxingStepsND(
             from, to, tensorBytes(boxing.getInput().getType()), shape)) {
      double seconds = priced ? options.pricer(step, shape) : 0;
      line.bytes += step.bytesSent;
      line.seconds += seconds;
      KindTotal &total = perKind[step.kind];
      ++total.steps;
      total.bytes += step.bytesSent;
      total.seconds += seconds;
      if (!line.collectives.empty())
        line.collectives += ", ";
      line.collectives += llvm::formatv("{0} on axis {1}",
                                        sbp::stringifyBoxingKind(step.kind),
                                        step.axis);
    }
    lines.push_back(std::move(line));
  }

  // The costliest first: what to look at when a distribution is slow.
  std::stable_sort(lines.begin(), lines.end(),
                   [&](const BoxingLine &a, const BoxingLine &b) {
                     return priced ? a.seconds > b.seconds : a.bytes > b.bytes;
                   });
  os << "boxings by cost (bytes each device sends"
     << (priced ? ", predicted seconds on " + options.pricedOn : "")
     << "):\n";
  double totalBytes = 0, totalSeconds = 0;
  for (const BoxingLine &line : lines) {
    totalBytes += line.bytes;
    totalSeconds += line.seconds;
    os << llvm::formatv("  {0,12} B", int64_t(line.bytes));
    if (priced)
      os << llvm::formatv("  {0,10:e2} s", line.seconds);
    os << "  " << line.source << " -> " << line.use << ": " << line.conversion
       << " of " << line.type << " ("
       << (line.collectives.empty() ? "no collective" : line.collectives)
       << ")\n";
  }
  if (!perKind.empty()) {
    os << "per kind:";
    bool first = true;
    for (auto &[kind, total] : perKind) {
      os << (first ? " " : "; ") << sbp::stringifyBoxingKind(kind) << " "
         << total.steps << "x, " << int64_t(total.bytes) << " B";
      if (priced)
        os << llvm::formatv(", {0:e2} s", total.seconds);
      first = false;
    }
    os << "\n";
  }
  os << llvm::formatv("total: {0} boxings, {1} bytes per device per step",
                      lines.size(), int64_t(totalBytes));
  if (priced)
    os << llvm::formatv(", {0:e3} s on {1}", totalSeconds, options.pricedOn);
  os << "\n";
  os.flush();
  return success();
}

namespace {
struct SbpReportPass : public oneflow::impl::SbpReportBase<SbpReportPass> {
  SbpReportPass() = default;
  explicit SbpReportPass(SbpReportOptions options)
      : options(std::move(options)) {}
  void runOnOperation() override {
    if (failed(printSbpReport(getOperation(), llvm::outs(), options)))
      signalPassFailure();
  }
  SbpReportOptions options;
};
} // namespace

std::unique_ptr<Pass>
mlir::oneflow::createSbpReportPass(SbpReportOptions options) {
  return std::make_unique<SbpReportPass>(std::move(options));
}
