//===- SBPOps.cpp - SBP ops -----------------------------------------------===//

#include "oneflow/Dialect/SBP/SBPDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::sbp;

//===----------------------------------------------------------------------===//
// Custom directive: nd-SBP lists in op assembly.
//===----------------------------------------------------------------------===//

static ParseResult parseNdSbp(OpAsmParser &parser, NdSbpAttr &attr) {
  FailureOr<NdSbpAttr> parsed = parseNdSbpBody(parser);
  if (failed(parsed))
    return failure();
  attr = *parsed;
  return success();
}

static void printNdSbp(OpAsmPrinter &printer, Operation *, NdSbpAttr attr) {
  printNdSbpBody(printer, attr);
}

#define GET_OP_CLASSES
#include "oneflow/Dialect/SBP/SBPOps.cpp.inc"

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

int64_t MeshOp::getNumDevices() {
  int64_t count = 1;
  for (int64_t dim : getShape())
    count *= dim;
  return count;
}

SmallVector<int64_t> MeshOp::getRankList() {
  if (std::optional<ArrayRef<int64_t>> ranks = getRanks())
    return llvm::to_vector(*ranks);
  return llvm::to_vector(llvm::seq<int64_t>(0, getNumDevices()));
}

LogicalResult MeshOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  if (shape.empty() || shape.size() > 3)
    return emitOpError() << "mesh must have 1 to 3 axes, got " << shape.size();
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitOpError() << "mesh axis sizes must be positive, got " << dim;
  if (getDevice() != "cpu" && getDevice() != "cuda")
    return emitOpError() << "device must be \"cpu\" or \"cuda\", got \""
                         << getDevice() << "\"";
  if (std::optional<ArrayRef<int64_t>> ranks = getRanks()) {
    if ((int64_t)ranks->size() != getNumDevices())
      return emitOpError() << "mesh of " << getNumDevices() << " devices lists "
                           << ranks->size() << " ranks";
    llvm::DenseSet<int64_t> seen;
    for (int64_t rank : *ranks) {
      if (rank < 0)
        return emitOpError() << "ranks must be non-negative, got " << rank;
      if (!seen.insert(rank).second)
        return emitOpError() << "rank " << rank << " appears twice";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// BoxingOp
//===----------------------------------------------------------------------===//

LogicalResult BoxingOp::verify() {
  if (getFrom().size() != getTo().size())
    return emitOpError() << "source and target nd-SBP lengths differ ("
                         << getFrom().size() << " vs " << getTo().size() << ")";
  int64_t rank = getInput().getType().getRank();
  auto emitFrom = [&]() { return emitOpError() << "source SBP: "; };
  auto emitTo = [&]() { return emitOpError() << "target SBP: "; };
  if (failed(getFrom().verifyForRank(emitFrom, rank)) ||
      failed(getTo().verifyForRank(emitTo, rank)))
    return failure();
  return success();
}

LogicalResult BoxingOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto mesh = symbolTable.lookupNearestSymbolFrom<MeshOp>(*this, getMeshAttr());
  if (!mesh)
    return emitOpError() << "'@" << getMesh() << "' does not name an sbp.mesh";
  if ((int64_t)getFrom().size() != (int64_t)mesh.getShape().size())
    return emitOpError() << "nd-SBP has " << getFrom().size()
                         << " entries but mesh @" << getMesh() << " has "
                         << mesh.getShape().size() << " axes";
  return success();
}

OpFoldResult BoxingOp::fold(FoldAdaptor) {
  if (getFrom() == getTo())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// CollectiveOp
//===----------------------------------------------------------------------===//

LogicalResult CollectiveOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto output = cast<RankedTensorType>(getOutput().getType());
  if (input.getElementType() != output.getElementType())
    return emitOpError() << "changes the element type";
  if (input.getRank() != output.getRank())
    return emitOpError() << "changes the rank";
  ArrayRef<int64_t> group = getGroup();
  if (group.empty())
    return emitOpError() << "has an empty group";
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t rank : group)
    if (rank < 0 || !seen.insert(rank).second)
      return emitOpError() << "group holds rank " << rank
                           << " twice or negative";
  int64_t n = group.size(), rank = input.getRank();
  auto checkAxis = [&](int64_t axis, StringRef what) -> LogicalResult {
    if (axis < 0 || axis >= rank)
      return emitOpError() << what << " " << axis << " is out of range";
    return success();
  };
  // The expected output shape for the kind.
  SmallVector<int64_t> expected(input.getShape());
  StringRef kind = getKind();
  if (kind == "all_gather" || kind == "reduce_scatter" ||
      kind == "all_to_all") {
    if (failed(checkAxis(getAxis(), "axis")))
      return failure();
    int64_t &dim = expected[getAxis()];
    if (kind == "all_gather") {
      dim *= n;
    } else {
      if (dim % n != 0)
        return emitOpError() << "axis " << getAxis() << " of size " << dim
                             << " does not divide among " << n << " ranks";
      dim /= n;
    }
    if (kind == "all_to_all") {
      if (failed(checkAxis(getConcatAxis(), "concat_axis")))
        return failure();
      expected[getConcatAxis()] *= n;
    }
  } else if (kind != "all_reduce") {
    return emitOpError() << "unknown kind '" << kind
                         << "' (expected all_reduce, all_gather, "
                            "reduce_scatter or all_to_all)";
  }
  if (ArrayRef<int64_t>(expected) != output.getShape())
    return emitOpError() << "result type " << output << " does not match the "
                         << kind << " of " << input << " over " << n
                         << " ranks";
  return success();
}

//===----------------------------------------------------------------------===//
// SendOp / RecvOp
//===----------------------------------------------------------------------===//

/// A point-to-point transfer names a global rank and a tag, both >= 0.
static LogicalResult verifyPointToPoint(Operation *op, int64_t peer,
                                        int64_t tag) {
  if (peer < 0)
    return op->emitOpError()
           << "peer must be a global rank (>= 0), got " << peer;
  if (tag < 0)
    return op->emitOpError() << "tag must be non-negative, got " << tag;
  return success();
}

LogicalResult SendOp::verify() {
  return verifyPointToPoint(*this, getPeer(), getTag());
}

LogicalResult RecvOp::verify() {
  return verifyPointToPoint(*this, getPeer(), getTag());
}
