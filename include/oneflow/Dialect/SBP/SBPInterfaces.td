//===- SBPInterfaces.td - SBP op interfaces ----------------*- tablegen -*-===//

#ifndef ONEFLOW_DIALECT_SBP_SBPINTERFACES_TD
#define ONEFLOW_DIALECT_SBP_SBPINTERFACES_TD

include "mlir/IR/OpBase.td"

def SBP_SbpRuleOpInterface : OpInterface<"SbpRuleOpInterface"> {
  let cppNamespace = "::mlir::sbp";
  let description = [{
    Implemented by every op that can run distributed. The op states its
    einsum-like factor rule (see SbpRule.h), from which the signatures it
    admits on each mesh axis follow.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the factor rule of this op instance.",
      /*retTy=*/"::mlir::sbp::SbpFactorRule",
      /*methodName=*/"getSbpFactorRule">,
  ];
  let extraSharedClassDeclaration = [{
    /// The 1-D signatures this op admits.
    ::llvm::SmallVector<::mlir::sbp::SbpSignature> getSbpSignatures() {
      return $_op.getSbpFactorRule().enumerateSignatures();
    }
  }];
}

#endif // ONEFLOW_DIALECT_SBP_SBPINTERFACES_TD
