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

def OneFlow_EpilogueActivation : I32EnumAttr<"EpilogueActivation",
    "an activation a product's cuBLASLt epilogue applies or differentiates", [
      I32EnumAttrCase<"Relu", 0, "relu">,
      I32EnumAttrCase<"GeluTanh", 1, "gelu_tanh">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::oneflow";
}
def OneFlow_EpilogueActivationAttr
    : EnumAttr<OneFlow_Dialect, OneFlow_EpilogueActivation,
               "epilogue_activation"> {
  let assemblyFormat = "`<` $value `>`";
}

def OneFlow_ConvActivation : I32EnumAttr<"ConvActivation",
    "an activation a CPU convolution applies to its result as it writes it", [
      I32EnumAttrCase<"Relu", 1, "relu">,
      I32EnumAttrCase<"Clip", 2, "clip">,
      I32EnumAttrCase<"Silu", 3, "silu">,
      I32EnumAttrCase<"HardSwish", 4, "hard_swish">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::oneflow";
}
def OneFlow_ConvActivationAttr
    : EnumAttr<OneFlow_Dialect, OneFlow_ConvActivation, "conv_activation"> {
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

//===----------------------------------------------------------------------===//
// Variable initializers
//===----------------------------------------------------------------------===//

def OneFlow_InitDistribution : I32EnumAttr<"InitDistribution",
    "the distribution a variable initializer draws from", [
      I32EnumAttrCase<"Zeros", 0, "zeros">,
      I32EnumAttrCase<"Ones", 1, "ones">,
      I32EnumAttrCase<"Normal", 2, "normal">,
      I32EnumAttrCase<"Uniform", 3, "uniform">,
      I32EnumAttrCase<"TruncatedNormal", 4, "truncated_normal">,
      I32EnumAttrCase<"MeshCoordinates", 5, "mesh_coordinates">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::oneflow";
}

def OneFlow_InitializerAttr : AttrDef<OneFlow_Dialect, "Initializer"> {
  let mnemonic = "init";
  let summary = "how a variable's initial value is drawn";
  let description = [{
    A variable's initial value as a distribution instead of data, with the
    semantics of PyTorch's `nn.init`: `zeros`, `ones`, `normal` (`mean`,
    `std`), `uniform` (bounds `a` <= x < `b`) and `truncated_normal` (a
    normal of `mean`, `std` restricted to `[a, b]`). Each rank computes its
    own piece at load time; element `i` (row-major index in the logical
    tensor) depends only on `seed`, the stream and `i`, so every
    distribution sees the same logical tensor. The stream is the FNV-1a
    hash of the logical variable's name unless `stream` is given (a
    private copy of a variable keeps the original's stream). The exact
    generator is documented in docs/runtime.md.

    ```mlir
    #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 1234>
    #oneflow.init<uniform, a = -0.1, b = 0.1, seed = 7>
    #oneflow.init<truncated_normal, mean = 0.0, std = 1.0, a = -2.0, b = 2.0, seed = 7>
    #oneflow.init<ones>
    ```

    `mesh_coordinates` is not a distribution: each rank fills the (i64,
    one element per mesh axis) tensor with its own mesh coordinates, which
    a program shared by the ranks of a mesh reads its slice offsets from.

    Omitted parameters take PyTorch's defaults (mean 0, std 1, uniform
    bounds [0, 1), truncation bounds [-2, 2], seed 0).
  }];
  let parameters = (ins
    "::mlir::oneflow::InitDistribution":$distribution,
    APFloatParameter<"mean">:$mean,
    APFloatParameter<"standard deviation">:$std,
    APFloatParameter<"lower bound">:$a,
    APFloatParameter<"upper bound">:$b,
    "uint64_t":$seed,
    OptionalParameter<"std::optional<uint64_t>">:$stream);
  let builders = [
    AttrBuilder<(ins "::mlir::oneflow::InitDistribution":$distribution,
                     "double":$mean, "double":$std, "double":$a, "double":$b,
                     "uint64_t":$seed,
                     CArg<"std::optional<uint64_t>", "std::nullopt">:$stream), [{
      return $_get($_ctxt, distribution, ::llvm::APFloat(mean),
                   ::llvm::APFloat(std), ::llvm::APFloat(a),
                   ::llvm::APFloat(b), seed, stream);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    double getMeanValue() const { return getMean().convertToDouble(); }
    double getStdValue() const { return getStd().convertToDouble(); }
    double getAValue() const { return getA().convertToDouble(); }
    double getBValue() const { return getB().convertToDouble(); }
    /// Whether the values are random (normal, uniform, truncated normal).
    bool isRandom() const;
    /// The stream of a variable of logical name `name`: `stream` if given,
    /// else the 64-bit FNV-1a hash of the name.
    uint64_t getStreamFor(::llvm::StringRef name) const;
  }];
}

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWDIALECT_TD
