//===- SbpUtils.cpp - Shared helpers of the SBP passes --------------------===//

#include "SbpUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::oneflow;
using sbp::Sbp;

sbp::MeshOp mlir::oneflow::getGraphMesh(func::FuncOp graph) {
  auto placement = graph->getAttrOfType<FlatSymbolRefAttr>(
      sbp::SBPDialect::kPlacementAttrName);
  if (!placement) {
    graph.emitError() << "the graph is not placed on a mesh (run "
                         "sbp-apply-strategy or set sbp.placement)";
    return {};
  }
  return sbp::lookupMesh(graph, placement);
}

LogicalResult mlir::oneflow::getPlacedGraph(ModuleOp module,
                                            func::FuncOp &graph,
                                            sbp::MeshOp &mesh) {
  graph = module.lookupSymbol<func::FuncOp>("main");
  if (!graph)
    return success();
  mesh = getGraphMesh(graph);
  return success(bool(mesh));
}

NdSbp mlir::oneflow::broadcastNd(size_t rank) {
  return NdSbp(rank, Sbp::broadcast());
}

NdSbp mlir::oneflow::argumentSbp(func::FuncOp graph, unsigned index,
                                 size_t meshRank) {
  if (auto nd = graph.getArgAttrOfType<sbp::NdSbpAttr>(
          index, sbp::SBPDialect::kNdSbpAttrName))
    return nd.getValues();
  return broadcastNd(meshRank);
}

bool mlir::oneflow::splitsDivide(ArrayRef<Sbp> nd, Type type,
                                 ArrayRef<int64_t> meshShape) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return llvm::none_of(nd, [](Sbp s) { return s.isSplit(); });
  SmallVector<int64_t> divisor(tensor.getRank(), 1);
  for (auto [axis, s] : llvm::enumerate(nd)) {
    if (!s.isSplit())
      continue;
    if (s.axis >= tensor.getRank())
      return false;
    divisor[s.axis] *= meshShape[axis];
  }
  for (auto [dim, d] : llvm::enumerate(divisor))
    if (tensor.getDimSize(dim) % d != 0)
      return false;
  return true;
}

double mlir::oneflow::tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  Type element = tensor.getElementType();
  int64_t bytes =
      element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
  return double(tensor.getNumElements()) * bytes;
}

std::string mlir::oneflow::ndString(ArrayRef<Sbp> nd) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "[";
  llvm::interleaveComma(nd, os, [&](Sbp s) { os << s.str(); });
  os << "]";
  return out;
}

std::string mlir::oneflow::meshString(ArrayRef<int64_t> shape) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return out;
}

NdSbp mlir::oneflow::producedSbp(func::FuncOp graph, Value value,
                                 size_t meshRank) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return argumentSbp(graph, arg.getArgNumber(), meshRank);
  Operation *op = value.getDefiningOp();
  if (auto boxing = dyn_cast<sbp::BoxingOp>(op))
    return boxing.getTo().getValues();
  auto sig = op->getAttrOfType<sbp::SignatureAttr>(
      sbp::SBPDialect::kSignatureAttrName);
  if (!sig)
    return broadcastNd(meshRank);
  return sig.getOutputs()[cast<OpResult>(value).getResultNumber()].getValues();
}

FlatSymbolRefAttr mlir::oneflow::placeGraph(ModuleOp module, func::FuncOp graph,
                                            ArrayRef<int64_t> shape,
                                            StringRef device) {
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToStart(module.getBody());
  auto mesh = sbp::MeshOp::create(
      builder, module.getLoc(), builder.getStringAttr("mesh"),
      builder.getDenseI64ArrayAttr(shape), DenseI64ArrayAttr(),
      builder.getStringAttr(device));
  SymbolTable(module).insert(mesh);
  auto placement = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  graph->setAttr(sbp::SBPDialect::kPlacementAttrName, placement);
  return placement;
}

void mlir::oneflow::forEachNdSignature(
    const sbp::SbpFactorRule &rule, ArrayRef<int64_t> meshShape,
    unsigned numOperands, unsigned numResults,
    function_ref<void(const NdSignature &, double, bool)> visit) {
  SmallVector<sbp::SbpSignature> sigs = rule.enumerateSignatures();
  size_t axes = meshShape.size();
  SmallVector<size_t> index(axes, 0);
  while (true) {
    NdSignature nd;
    nd.operands.assign(numOperands, NdSbp(axes));
    nd.results.assign(numResults, NdSbp(axes));
    double degree = 1;
    SmallVector<int64_t> piecesOfFactor(rule.getNumFactors(), 1);
    for (size_t axis = 0; axis < axes; ++axis) {
      const sbp::SbpSignature &sig = sigs[index[axis]];
      for (size_t i = 0; i < sig.operands.size(); ++i)
        nd.operands[i][axis] = sig.operands[i];
      for (size_t i = 0; i < sig.results.size(); ++i)
        nd.results[i][axis] = sig.results[i];
      if (sig.splitFactor >= 0) {
        degree *= meshShape[axis];
        piecesOfFactor[sig.splitFactor] *= meshShape[axis];
      }
    }
    bool wholeUnits = true;
    for (auto [factor, pieces] : llvm::enumerate(piecesOfFactor)) {
      int64_t units = rule.getFactorUnits(factor);
      wholeUnits &= units == 0 || units % pieces == 0;
    }
    visit(nd, degree, wholeUnits);
    // Next combination (odometer over the mesh axes).
    size_t axis = 0;
    while (axis < axes && ++index[axis] == sigs.size())
      index[axis++] = 0;
    if (axis == axes)
      break;
  }
}
