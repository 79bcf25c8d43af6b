//===- SBPDialect.td - The sbp dialect ---------------------*- tablegen -*-===//

#ifndef ONEFLOW_DIALECT_SBP_SBPDIALECT_TD
#define ONEFLOW_DIALECT_SBP_SBPDIALECT_TD

include "mlir/IR/OpBase.td"

def SBP_Dialect : Dialect {
  let name = "sbp";
  let cppNamespace = "::mlir::sbp";
  let summary = "Split / Broadcast / Partial-sum distribution of global tensors";
  let description = [{
    The `sbp` dialect describes how a global (logical) tensor is laid out on a
    device mesh: per mesh axis it is split along one tensor axis (`S<i>`),
    broadcast (`B`) or held as partial sums (`P`). It defines the meshes
    (`sbp.mesh`), the SBP attributes, the per-op signature attribute
    (`sbp.sig`), the op interface through which compute ops declare the
    signatures they admit, and the boxing op that converts a value from one
    distribution to another.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Discardable attribute names.
    static constexpr ::llvm::StringLiteral kSignatureAttrName = "sbp.sig";
    static constexpr ::llvm::StringLiteral kPlacementAttrName = "sbp.placement";
    static constexpr ::llvm::StringLiteral kNdSbpAttrName = "sbp.nd";
    /// On a localized module: how many ranks its @main_rank<r> run on.
    static constexpr ::llvm::StringLiteral kNumRanksAttrName = "sbp.num_ranks";
  }];
}

#endif // ONEFLOW_DIALECT_SBP_SBPDIALECT_TD
