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

def SBP_CollectiveOp : SBP_Op<"collective"> {
  let summary = "one rank's part of a collective over a group of ranks";
  let description = [{
    The local form of a boxing after localization: every member of `group`
    (global ranks, in order) runs a collective of the same `kind` and `tag`
    on its local piece. `all_reduce` sums; `all_gather` concatenates along
    `axis` in group order; `reduce_scatter` keeps piece `index in group`
    along `axis` of the sum; `all_to_all` splits along `axis`, sends piece j
    to member j and concatenates what it receives along `concat_axis`.
    In a program shared by the ranks of a mesh, `mesh_axis` names the axis
    the group runs along and `group`/`tag` are the first device's: each
    rank's own follow from its coordinates.

    ```mlir
    %y = sbp.collective all_gather %x group = [0, 2] axis = 0 tag = 3
        : tensor<16x10xf32> -> tensor<32x10xf32>
    ```
  }];
  let arguments = (ins StrAttr:$kind, AnyRankedTensor:$input,
                       DenseI64ArrayAttr:$group,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$concat_axis,
                       I64Attr:$tag, OptionalAttr<I64Attr>:$mesh_axis);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $kind $input `group` `=` $group attr-dict `:` type($input) `->`
    type($output)
  }];
  let hasVerifier = 1;
}

def SBP_SendOp : SBP_Op<"send", [MemoryEffects<[MemWrite]>]> {
  let summary = "send a local tensor to another rank";
  let description = [{
    One half of a point-to-point transfer: this rank sends `input` to the
    global rank `peer`, whose program holds the matching `sbp.recv` from this
    rank with the same `tag` and the same tensor type. Tags are unique in the
    program of the whole job (they also must not collide with the tags of
    `sbp.collective` ops). The send never blocks: it completes once the peer
    has received it. It has no results and writes memory (the peer's), so it
    is never removed.

    ```mlir
    sbp.send %y to 1 {tag = 7} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$peer,
                       I64Attr:$tag);
  let assemblyFormat = [{
    $input `to` $peer attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def SBP_RecvOp : SBP_Op<"recv", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "receive a tensor sent by another rank";
  let description = [{
    The other half of a point-to-point transfer: the result is the tensor
    that global rank `peer` sends with the matching `sbp.send` of the same
    `tag` (and type). The receive waits for the send. It reads memory (the
    peer's) and is not `Pure`: two receives are never merged, hoisted or
    reordered. It also declares a write, so a receive whose result is unused
    is still not removed: its peer's send must be matched.

    ```mlir
    %y = sbp.recv from 0 {tag = 7} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins I64Attr:$peer, I64Attr:$tag);
  let results = (outs AnyStaticShapeTensor:$output);
  let assemblyFormat = [{
    `from` $peer attr-dict `:` type($output)
  }];
  let hasVerifier = 1;
}

#endif // ONEFLOW_DIALECT_SBP_SBPOPS_TD
