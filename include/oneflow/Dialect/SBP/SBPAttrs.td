//===- SBPAttrs.td - SBP attributes ------------------------*- tablegen -*-===//

#ifndef ONEFLOW_DIALECT_SBP_SBPATTRS_TD
#define ONEFLOW_DIALECT_SBP_SBPATTRS_TD

include "oneflow/Dialect/SBP/SBPDialect.td"
include "mlir/IR/AttrTypeBase.td"

class SBP_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<SBP_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def SBP_SplitAttr : SBP_Attr<"Split", "S"> {
  let summary = "split along a tensor axis";
  let description = [{
    `#sbp.S<i>`: each device of the mesh axis holds an equal, contiguous slice
    of the tensor along axis `i`.
  }];
  let parameters = (ins "int64_t":$axis);
  let assemblyFormat = "`<` $axis `>`";
  let genVerifyDecl = 1;
}

def SBP_BroadcastAttr : SBP_Attr<"Broadcast", "B"> {
  let summary = "broadcast";
  let description = "`#sbp.B`: every device of the mesh axis holds the full tensor.";
}

def SBP_PartialSumAttr : SBP_Attr<"PartialSum", "P"> {
  let summary = "partial sum";
  let description = [{
    `#sbp.P`: every device of the mesh axis holds a tensor of the full shape;
    the logical value is their sum.
  }];
}

def SBP_NdSbpAttr : SBP_Attr<"NdSbp", "nd"> {
  let summary = "an SBP per mesh axis";
  let description = [{
    `#sbp.nd<[S<0>, B]>`: the distribution of a tensor on an n-D mesh, one
    1-D SBP (`S<i>`, `B` or `P`) per mesh axis, outermost axis first.
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::Attribute", "SBP entries">:$sbps);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    size_t size() const { return getSbps().size(); }
    /// The entries as plain values.
    ::llvm::SmallVector<::mlir::sbp::Sbp, 3> getValues() const;
    static NdSbpAttr get(::mlir::MLIRContext *context,
                         ::llvm::ArrayRef<::mlir::sbp::Sbp> values);
    /// Checks split axes against a tensor of rank `rank`.
    ::llvm::LogicalResult verifyForRank(
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
        int64_t rank) const;
  }];
}

def SBP_SignatureAttr : SBP_Attr<"Signature", "sig"> {
  let summary = "the nd-SBP of every operand and result of an op";
  let description = [{
    `#sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>`. On a 1-D mesh the
    brackets may be dropped: `#sbp.sig<(S<0>, B) -> (S<0>)>`.
  }];
  let parameters = (ins ArrayRefParameter<"NdSbpAttr", "operand nd-SBPs">:$inputs,
                        ArrayRefParameter<"NdSbpAttr", "result nd-SBPs">:$outputs);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // ONEFLOW_DIALECT_SBP_SBPATTRS_TD
