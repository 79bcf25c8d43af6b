//===- SBPOps.td - SBP ops ---------------------------------*- tablegen -*-===//

#ifndef ONEFLOW_DIALECT_SBP_SBPOPS_TD
#define ONEFLOW_DIALECT_SBP_SBPOPS_TD

include "oneflow/Dialect/SBP/SBPAttrs.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class SBP_Op<string mnemonic, list<Trait> traits = []>
    : Op<SBP_Dialect, mnemonic, traits>;

def SBP_MeshOp : SBP_Op<"mesh", [Symbol]> {
  let summary = "a device mesh (placement)";
  let description = [{
    Declares a mesh of devices: the device kind, its shape (1 to 3 axes) and
    the global ranks it holds in row-major order (default: 0..N-1).

    ```mlir
    sbp.mesh @m shape = [2, 2] device = "cpu"
    sbp.mesh @stage1 shape = [2] ranks = [2, 3] device = "cuda"
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       DenseI64ArrayAttr:$shape,
                       OptionalAttr<DenseI64ArrayAttr>:$ranks,
                       StrAttr:$device);
  let assemblyFormat = [{
    $sym_name `shape` `=` $shape (`ranks` `=` $ranks^)? `device` `=` $device
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumDevices();
    /// The global rank of every device, row-major.
    ::llvm::SmallVector<int64_t> getRankList();
  }];
}

def SBP_BoxingOp : SBP_Op<"boxing", [Pure,
    AllTypesMatch<["input", "output"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "convert a global tensor from one nd-SBP to another";
  let description = [{
    The logical value is unchanged; only its distribution on the mesh changes.
    Lowering turns it into collectives (all-reduce, all-gather, ...).

    ```mlir
    %y = sbp.boxing %x from [S<0>, P] to [S<0>, B] on @m : tensor<64x10xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, SBP_NdSbpAttr:$from,
                       SBP_NdSbpAttr:$to, FlatSymbolRefAttr:$mesh);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $input `from` custom<NdSbp>($from) `to` custom<NdSbp>($to) `on` $mesh
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // ONEFLOW_DIALECT_SBP_SBPOPS_TD
