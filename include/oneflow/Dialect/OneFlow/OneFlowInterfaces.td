//===- OneFlowInterfaces.td - oneflow op interfaces --------*- tablegen -*-===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ONEFLOWINTERFACES_TD
#define ONEFLOW_DIALECT_ONEFLOW_ONEFLOWINTERFACES_TD

include "mlir/IR/OpBase.td"

def OneFlow_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mlir::oneflow";
  let description = [{
    The gradient rule of a differentiable op, used by `oneflow-autodiff`:
    given the gradients of the loss with respect to the op's results, build
    the gradients with respect to its operands. The rules are attached as
    external models (OneFlowGradients.cpp) so that they live in one place.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/[{
        Builds, at the builder's insertion point, the gradient of every
        operand from `resultGrads` (one per result; null where the loss does
        not depend on that result). Appends one value per operand to
        `operandGrads`, null for operands without a gradient (integer
        indices, conditions) or whose gradient is zero. Fails with a
        diagnostic when the op's configuration has no gradient rule.
      }],
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"buildGradients",
      /*args=*/(ins "::mlir::OpBuilder &":$builder,
                    "::llvm::ArrayRef<::mlir::Value>":$resultGrads,
                    "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWINTERFACES_TD
