//===- SBPDialect.h - The sbp dialect ---------------------------*- C++ -*-===//

#ifndef ONEFLOW_DIALECT_SBP_SBPDIALECT_H
#define ONEFLOW_DIALECT_SBP_SBPDIALECT_H

#include "oneflow/Dialect/SBP/SbpRule.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "oneflow/Dialect/SBP/SBPOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "oneflow/Dialect/SBP/SBPAttrs.h.inc"

#include "oneflow/Dialect/SBP/SBPInterfaces.h.inc"

#define GET_OP_CLASSES
#include "oneflow/Dialect/SBP/SBPOps.h.inc"

namespace mlir {
namespace sbp {

/// Converts a `#sbp.S<i>`, `#sbp.B` or `#sbp.P` attribute to its value.
std::optional<Sbp> getSbpValue(Attribute attr);
/// The attribute of a 1-D SBP value.
Attribute getSbpAttr(MLIRContext *context, Sbp value);

/// Parses `S<i>`, `B` or `P` (no dialect prefix).
FailureOr<Sbp> parseSbpValue(AsmParser &parser);
/// Parses `[S<0>, B]`, or a single bare entry meaning a 1-D list.
FailureOr<NdSbpAttr> parseNdSbpBody(AsmParser &parser);
/// Prints `[S<0>, B]`; `allowBare` drops the brackets of a single entry.
void printNdSbpBody(AsmPrinter &printer, NdSbpAttr attr,
                    bool allowBare = false);

/// The mesh that `symbol` names, looked up from `from`.
MeshOp lookupMesh(Operation *from, FlatSymbolRefAttr symbol);

} // namespace sbp
} // namespace mlir

#endif // ONEFLOW_DIALECT_SBP_SBPDIALECT_H
