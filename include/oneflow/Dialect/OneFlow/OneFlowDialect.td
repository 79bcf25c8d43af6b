//===- OneFlowDialect.td - The oneflow dialect -------------*- tablegen -*-===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ONEFLOWDIALECT_TD
#define ONEFLOW_DIALECT_ONEFLOW_ONEFLOWDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def OneFlow_Dialect : Dialect {
  let name = "oneflow";
  let cppNamespace = "::mlir::oneflow";
  let summary = "Compute ops on global tensors";
  let description = [{
    The ops of a training or inference graph with global (logical)
    semantics: value semantics on ranked, statically shaped builtin tensors.
    Every op states its SBP factor rule through `SbpRuleOpInterface`, so the
    `sbp` passes can distribute it.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::sbp::SBPDialect"];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def OneFlow_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu is computed", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Tanh", 1, "tanh">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::oneflow";
}
def OneFlow_GeluApproximationAttr
    : EnumAttr<OneFlow_Dialect, OneFlow_GeluApproximation, "gelu_approximation"> {
  let assemblyFormat = "`<` $value `>`";
}

def OneFlow_LossReduction : I32EnumAttr<"LossReduction",
    "how per-sample losses are combined", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Mean", 1, "mean">,
      I32EnumAttrCase<"Sum", 2, "sum">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::oneflow";
}
def OneFlow_LossReductionAttr
    : EnumAttr<OneFlow_Dialect, OneFlow_LossReduction, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def OneFlow_PadMode : I32EnumAttr<"PadMode", "how padding is filled", [
      I32EnumAttrCase<"Constant", 0, "constant">,
      I32EnumAttrCase<"Reflect", 1, "reflect">,
      I32EnumAttrCase<"Edge", 2, "edge">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::oneflow";
}
def OneFlow_PadModeAttr : EnumAttr<OneFlow_Dialect, OneFlow_PadMode, "pad_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWDIALECT_TD
