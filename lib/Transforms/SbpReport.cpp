//===- SbpReport.cpp - What a distribution costs --------------------------===//

#include "SbpUtils.h"

#include "oneflow/Dialect/SBP/BoxingCost.h"
#include "oneflow/Transforms/Passes.h"

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

std::string describe(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    text += " (" + name.getName().str() + ")";
  return text;
}

/// The collectives of an nd conversion, axis by axis.
std::string collectives(ArrayRef<sbp::Sbp> from, ArrayRef<sbp::Sbp> to) {
  std::string text;
  for (size_t axis = 0; axis < from.size(); ++axis) {
    if (from[axis] == to[axis])
      continue;
    if (!text.empty())
      text += ", ";
    text += llvm::formatv("{0} on axis {1}",
                          sbp::stringifyBoxingKind(
                              sbp::classifyBoxing(from[axis], to[axis])),
                          axis)
                .str();
  }
  return text;
}

struct SbpReportPass : public oneflow::impl::SbpReportBase<SbpReportPass> {
  void runOnOperation() override {
    func::FuncOp graph;
    sbp::MeshOp mesh;
    if (failed(getPlacedGraph(getOperation(), graph, mesh)))
      return signalPassFailure();
    if (!graph)
      return;
    SmallVector<int64_t> shape(mesh.getShape());
    llvm::raw_ostream &os = llvm::outs();
    os << "SBP report: mesh " << meshString(shape) << " of " << mesh.getDevice()
       << " devices\n";
    double total = 0;
    unsigned boxings = 0;
    for (Operation &op : graph.getOps()) {
      if (auto boxing = dyn_cast<sbp::BoxingOp>(op)) {
        SmallVector<sbp::Sbp, 3> from = boxing.getFrom().getValues(),
                                 to = boxing.getTo().getValues();
        double bytes = sbp::boxingBytesND(
            from, to, tensorBytes(boxing.getInput().getType()), shape);
        total += bytes;
        ++boxings;
        os << llvm::formatv("  boxing {0} -> {1} of {2}: {3}, {4} bytes "
                            "per device\n",
                            ndString(from), ndString(to),
                            boxing.getInput().getType(), collectives(from, to),
                            (int64_t)bytes);
        continue;
      }
      if (auto sig = op.getAttrOfType<sbp::SignatureAttr>(
              sbp::SBPDialect::kSignatureAttrName))
        os << "  " << describe(&op) << ": " << sig << "\n";
    }
    os << llvm::formatv("total: {0} boxings, {1} bytes per device per step\n",
                        boxings, (int64_t)total);
    os.flush();
  }
};
} // namespace
