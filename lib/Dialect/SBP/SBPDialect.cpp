//===- SBPDialect.cpp - The sbp dialect -----------------------------------===//

#include "oneflow/Dialect/SBP/SBPDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sbp;

#include "oneflow/Dialect/SBP/SBPOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "oneflow/Dialect/SBP/SBPAttrs.cpp.inc"

#include "oneflow/Dialect/SBP/SBPInterfaces.cpp.inc"

void SBPDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "oneflow/Dialect/SBP/SBPAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "oneflow/Dialect/SBP/SBPOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// SBP values <-> attributes
//===----------------------------------------------------------------------===//

std::optional<Sbp> mlir::sbp::getSbpValue(Attribute attr) {
  return llvm::TypeSwitch<Attribute, std::optional<Sbp>>(attr)
      .Case([](SplitAttr split) { return Sbp::split(split.getAxis()); })
      .Case([](BroadcastAttr) { return Sbp::broadcast(); })
      .Case([](PartialSumAttr) { return Sbp::partialSum(); })
      .Default([](Attribute) { return std::nullopt; });
}

Attribute mlir::sbp::getSbpAttr(MLIRContext *context, Sbp value) {
  switch (value.kind) {
  case Sbp::Kind::Split:
    return SplitAttr::get(context, value.axis);
  case Sbp::Kind::Broadcast:
    return BroadcastAttr::get(context);
  case Sbp::Kind::PartialSum:
    return PartialSumAttr::get(context);
  }
  llvm_unreachable("unknown SBP kind");
}

FailureOr<Sbp> mlir::sbp::parseSbpValue(AsmParser &parser) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  if (keyword == "B")
    return Sbp::broadcast();
  if (keyword == "P")
    return Sbp::partialSum();
  if (keyword == "S") {
    int64_t axis;
    if (parser.parseLess() || parser.parseInteger(axis) ||
        parser.parseGreater())
      return failure();
    return Sbp::split(axis);
  }
  return parser.emitError(loc, "expected an SBP (S<axis>, B or P), got '")
         << keyword << "'";
}

FailureOr<NdSbpAttr> mlir::sbp::parseNdSbpBody(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<Attribute, 3> entries;
  auto parseEntry = [&]() -> ParseResult {
    FailureOr<Sbp> value = parseSbpValue(parser);
    if (failed(value))
      return failure();
    entries.push_back(getSbpAttr(parser.getContext(), *value));
    return success();
  };
  if (succeeded(parser.parseOptionalLSquare())) {
    if (parser.parseCommaSeparatedList(parseEntry) || parser.parseRSquare())
      return failure();
  } else if (parseEntry()) {
    return failure();
  }
  return NdSbpAttr::getChecked([&]() { return parser.emitError(loc); },
                               parser.getContext(), entries);
}

void mlir::sbp::printNdSbpBody(AsmPrinter &printer, NdSbpAttr attr,
                               bool allowBare) {
  auto printEntry = [&](Attribute entry) {
    printer << getSbpValue(entry)->str();
  };
  if (allowBare && attr.size() == 1) {
    printEntry(attr.getSbps().front());
    return;
  }
  printer << "[";
  llvm::interleaveComma(attr.getSbps(), printer, printEntry);
  printer << "]";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

LogicalResult SplitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t axis) {
  if (axis < 0)
    return emitError() << "split axis must be non-negative, got " << axis;
  return success();
}

LogicalResult NdSbpAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<Attribute> sbps) {
  if (sbps.empty() || sbps.size() > 3)
    return emitError() << "an nd-SBP has 1 to 3 entries (one per mesh axis), "
                          "got "
                       << sbps.size();
  for (Attribute entry : sbps)
    if (!getSbpValue(entry))
      return emitError() << "nd-SBP entry must be #sbp.S<i>, #sbp.B or "
                            "#sbp.P, got "
                         << entry;
  return success();
}

SmallVector<Sbp, 3> NdSbpAttr::getValues() const {
  return llvm::map_to_vector<3>(
      getSbps(), [](Attribute entry) { return *getSbpValue(entry); });
}

NdSbpAttr NdSbpAttr::get(MLIRContext *context, ArrayRef<Sbp> values) {
  auto entries = llvm::map_to_vector<3>(
      values, [&](Sbp value) { return getSbpAttr(context, value); });
  return get(context, entries);
}

LogicalResult
NdSbpAttr::verifyForRank(function_ref<InFlightDiagnostic()> emitError,
                         int64_t rank) const {
  for (Sbp value : getValues())
    if (value.isSplit() && value.axis >= rank)
      return emitError() << "split axis " << value.axis
                         << " is out of range for a tensor of rank " << rank;
  return success();
}

Attribute NdSbpAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  FailureOr<NdSbpAttr> attr = parseNdSbpBody(parser);
  if (failed(attr) || parser.parseGreater())
    return {};
  return *attr;
}

void NdSbpAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printNdSbpBody(printer, *this);
  printer << ">";
}

LogicalResult
SignatureAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<NdSbpAttr> inputs, ArrayRef<NdSbpAttr> outputs) {
  std::optional<size_t> meshRank;
  for (NdSbpAttr nd : llvm::concat<const NdSbpAttr>(inputs, outputs)) {
    if (meshRank && *meshRank != nd.size())
      return emitError() << "all nd-SBPs of a signature must have the same "
                            "length (the mesh rank)";
    meshRank = nd.size();
  }
  return success();
}

Attribute SignatureAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  auto parseList = [&](SmallVectorImpl<NdSbpAttr> &list) {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Paren, [&]() -> ParseResult {
          FailureOr<NdSbpAttr> nd = parseNdSbpBody(parser);
          if (failed(nd))
            return failure();
          list.push_back(*nd);
          return success();
        });
  };
  SmallVector<NdSbpAttr> inputs, outputs;
  if (parser.parseLess() || parseList(inputs) || parser.parseArrow() ||
      parseList(outputs) || parser.parseGreater())
    return {};
  return SignatureAttr::getChecked([&]() { return parser.emitError(loc); },
                                   parser.getContext(), inputs, outputs);
}

void SignatureAttr::print(AsmPrinter &printer) const {
  auto printList = [&](ArrayRef<NdSbpAttr> list) {
    printer << "(";
    llvm::interleaveComma(list, printer, [&](NdSbpAttr nd) {
      printNdSbpBody(printer, nd, /*allowBare=*/true);
    });
    printer << ")";
  };
  printer << "<";
  printList(getInputs());
  printer << " -> ";
  printList(getOutputs());
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Discardable attributes: sbp.sig, sbp.placement, sbp.nd
//===----------------------------------------------------------------------===//

MeshOp mlir::sbp::lookupMesh(Operation *from, FlatSymbolRefAttr symbol) {
  return SymbolTable::lookupNearestSymbolFrom<MeshOp>(from, symbol);
}

/// The mesh named by the `sbp.placement` of `op`, if it has one. Emits an
/// error and fails when the attribute is malformed or names no mesh.
static FailureOr<MeshOp> getPlacementMesh(Operation *op) {
  Attribute attr = op->getAttr(SBPDialect::kPlacementAttrName);
  if (!attr)
    return MeshOp();
  auto symbol = dyn_cast<FlatSymbolRefAttr>(attr);
  if (!symbol)
    return op->emitOpError() << "'" << SBPDialect::kPlacementAttrName
                             << "' must be a symbol reference to an sbp.mesh";
  MeshOp mesh = lookupMesh(op, symbol);
  if (!mesh)
    return op->emitOpError()
           << "'" << SBPDialect::kPlacementAttrName << "' names " << symbol
           << ", which is not an sbp.mesh";
  return mesh;
}

/// Checks an nd-SBP against the type it describes and the mesh it lives on.
static LogicalResult
verifyNdSbpFor(function_ref<InFlightDiagnostic()> emitError, NdSbpAttr nd,
               Type type, MeshOp mesh) {
  if (mesh && (int64_t)nd.size() != (int64_t)mesh.getShape().size())
    return emitError() << "nd-SBP has " << nd.size() << " entries but mesh @"
                       << mesh.getSymName() << " has " << mesh.getShape().size()
                       << " axes";
  auto shaped = dyn_cast<ShapedType>(type);
  if (shaped && shaped.hasRank())
    return nd.verifyForRank(emitError, shaped.getRank());
  return success();
}

LogicalResult SBPDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kPlacementAttrName)
    return getPlacementMesh(op);
  if (name == kSignatureAttrName) {
    auto sig = dyn_cast<SignatureAttr>(attr.getValue());
    if (!sig)
      return op->emitOpError()
             << "'" << name << "' must be an #sbp.sig attribute";
    if (sig.getInputs().size() != op->getNumOperands() ||
        sig.getOutputs().size() != op->getNumResults())
      return op->emitOpError()
             << "SBP signature has " << sig.getInputs().size()
             << " operand and " << sig.getOutputs().size()
             << " result entries, but the op has " << op->getNumOperands()
             << " operands and " << op->getNumResults() << " results";
    FailureOr<MeshOp> mesh = getPlacementMesh(op);
    if (failed(mesh))
      return failure();
    for (auto [index, nd] : llvm::enumerate(sig.getInputs()))
      if (failed(verifyNdSbpFor(
              [&]() {
                return op->emitOpError() << "SBP of operand #" << index << ": ";
              },
              nd, op->getOperand(index).getType(), *mesh)))
        return failure();
    for (auto [index, nd] : llvm::enumerate(sig.getOutputs()))
      if (failed(verifyNdSbpFor(
              [&]() {
                return op->emitOpError() << "SBP of result #" << index << ": ";
              },
              nd, op->getResult(index).getType(), *mesh)))
        return failure();
    return success();
  }
  if (name == kNdSbpAttrName)
    return op->emitOpError()
           << "'" << name << "' belongs on function arguments and results";
  if (name == kNumRanksAttrName) {
    auto count = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !count || count.getInt() < 1)
      return op->emitOpError()
             << "'" << name << "' must be a positive integer on a module";
    return success();
  }
  // Shared programs (sbp-localize share-programs): the ranks running a
  // program, and the mesh they lie on.
  if (name == "sbp.role_members" || name == "sbp.role_mesh_shape") {
    auto values = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    bool onModule = name == "sbp.role_mesh_shape";
    if (!values || values.empty() ||
        (onModule ? !isa<ModuleOp>(op) : !isa<FunctionOpInterface>(op)) ||
        llvm::any_of(values.asArrayRef(),
                     [&](int64_t v) { return onModule ? v < 1 : v < 0; }))
      return op->emitOpError()
             << "'" << name << "' must be a non-empty array of "
             << (onModule ? "positive mesh axis sizes on a module"
                          : "non-negative ranks on a function");
    return success();
  }
  return op->emitOpError() << "unknown sbp attribute '" << name << "'";
}

/// Verifies `sbp.nd` on a function argument or result of type `type`.
static LogicalResult verifyValueAttr(Operation *op, NamedAttribute attr,
                                     Type type, StringRef what,
                                     unsigned index) {
  if (attr.getName().getValue() != SBPDialect::kNdSbpAttrName)
    return op->emitOpError()
           << "unknown sbp attribute '" << attr.getName().getValue() << "' on "
           << what << " #" << index;
  auto nd = dyn_cast<NdSbpAttr>(attr.getValue());
  if (!nd)
    return op->emitOpError() << "'" << attr.getName().getValue() << "' of "
                             << what << " #" << index << " must be an #sbp.nd";
  FailureOr<MeshOp> mesh = getPlacementMesh(op);
  if (failed(mesh))
    return failure();
  return verifyNdSbpFor(
      [&]() {
        return op->emitOpError() << "SBP of " << what << " #" << index << ": ";
      },
      nd, type, *mesh);
}

LogicalResult SBPDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  Region &region = op->getRegion(regionIndex);
  Type type =
      region.empty() ? Type() : region.front().getArgument(argIndex).getType();
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    type = func.getArgumentTypes()[argIndex];
  return verifyValueAttr(op, attr, type, "argument", argIndex);
}

LogicalResult SBPDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  Type type;
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    type = func.getResultTypes()[resultIndex];
  return verifyValueAttr(op, attr, type, "result", resultIndex);
}
