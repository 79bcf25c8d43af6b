//===- OneFlowKernelOps.cpp - fused kernel regions ------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

using namespace mlir;
using namespace mlir::oneflow;

void FusedOp::build(OpBuilder &builder, OperationState &state,
                    TypeRange resultTypes) {
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  body->push_back(new Block);
}

LogicalResult FusedOp::verify() {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values whose types differ from its "
                         << getNumResults() << " results";
  return success();
}
