//===- OneFlowDialect.cpp - The oneflow dialect ---------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::oneflow;

#include "oneflow/Dialect/OneFlow/OneFlowOpsDialect.cpp.inc"

#include "oneflow/Dialect/OneFlow/OneFlowEnums.cpp.inc"

#include "oneflow/Dialect/OneFlow/OneFlowInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "oneflow/Dialect/OneFlow/OneFlowAttrs.cpp.inc"

void OneFlowDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "oneflow/Dialect/OneFlow/OneFlowAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "oneflow/Dialect/OneFlow/OneFlowOps.cpp.inc"
      >();
  attachGradientInterfaces(getContext());
}

Operation *OneFlowDialect::materializeConstant(OpBuilder &builder,
                                               Attribute value, Type type,
                                               Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
