//===- SbpInsertBoxing.cpp - Convert SBPs between producers and consumers -===//

#include "SbpUtils.h"

#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SBPINSERTBOXING
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {
struct SbpInsertBoxingPass
    : public oneflow::impl::SbpInsertBoxingBase<SbpInsertBoxingPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp graph;
    sbp::MeshOp mesh;
    if (failed(getPlacedGraph(module, graph, mesh)))
      return signalPassFailure();
    if (!graph)
      return;
    size_t meshRank = mesh.getShape().size();
    auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
    MLIRContext *context = module.getContext();

    OpBuilder builder(context);
    auto convert = [&](OpOperand &operand, const NdSbp &wanted) {
      NdSbp have = producedSbp(graph, operand.get(), meshRank);
      if (have == wanted)
        return;
      builder.setInsertionPoint(operand.getOwner());
      auto boxing = sbp::BoxingOp::create(
          builder, operand.get().getLoc(), operand.get().getType(),
          operand.get(), sbp::NdSbpAttr::get(context, have),
          sbp::NdSbpAttr::get(context, wanted), meshRef);
      operand.set(boxing.getOutput());
    };
    for (Operation &op : llvm::make_early_inc_range(graph.getOps())) {
      if (isa<func::ReturnOp>(op)) {
        // Graph results are full logical values.
        for (OpOperand &operand : op.getOpOperands())
          convert(operand, broadcastNd(meshRank));
        continue;
      }
      // A boxing converts from its own source SBP.
      if (auto boxing = dyn_cast<sbp::BoxingOp>(op)) {
        convert(boxing->getOpOperand(0), boxing.getFrom().getValues());
        continue;
      }
      auto sig = op.getAttrOfType<sbp::SignatureAttr>(
          sbp::SBPDialect::kSignatureAttrName);
      if (!sig)
        continue;
      for (OpOperand &operand : op.getOpOperands())
        convert(operand,
                sig.getInputs()[operand.getOperandNumber()].getValues());
    }
  }
};
} // namespace
