//===- OneFlowOps.td - oneflow ops -------------------------*- tablegen -*-===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ONEFLOWOPS_TD
#define ONEFLOW_DIALECT_ONEFLOW_ONEFLOWOPS_TD

include "oneflow/Dialect/OneFlow/OneFlowDialect.td"
include "oneflow/Dialect/SBP/SBPInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Types and base classes
//===----------------------------------------------------------------------===//

def OneFlow_Tensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def OneFlow_FloatTensor : StaticShapeTensorOf<[F16, BF16, F32, F64]>;
def OneFlow_NumericTensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I32, I64]>;
def OneFlow_BoolTensor : StaticShapeTensorOf<[I1]>;
def OneFlow_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def OneFlow_I64Tensor : StaticShapeTensorOf<[I64]>;

// Every oneflow op declares its SBP rule.
class OneFlow_Op<string mnemonic, list<Trait> traits = []>
    : Op<OneFlow_Dialect, mnemonic,
         !listconcat(traits, [DeclareOpInterfaceMethods<SBP_SbpRuleOpInterface>])>;

// Ops whose result types follow from operands and attributes.
class OneFlow_InferredOp<string mnemonic, list<Trait> traits = []>
    : OneFlow_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])>;

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// `linear` says whether partial sums pass through (f(a + b) = f(a) + f(b)).
class OneFlow_UnaryOp<string mnemonic, Type tensorType, bit linear = 0,
                      list<Trait> traits = []>
    : OneFlow_Op<mnemonic, !listconcat(traits,
                 [Pure, SameOperandsAndResultType])> {
  let arguments = (ins tensorType:$x);
  let results = (outs tensorType:$y);
  let assemblyFormat = "$x attr-dict `:` type($y)";
  let extraClassDefinition = [{
    ::mlir::sbp::SbpFactorRule $cppClass::getSbpFactorRule() {
      return ::mlir::oneflow::getElementwiseSbpRule(*this, }]
      # !if(linear, "::mlir::sbp::PartialRule::Joint", "::mlir::sbp::PartialRule::None")
      # [{);
    }
  }];
}

class OneFlow_FloatUnaryOp<string mnemonic, string what>
    : OneFlow_UnaryOp<mnemonic, OneFlow_FloatTensor> {
  let summary = what;
}

def OneFlow_ReluOp : OneFlow_FloatUnaryOp<"relu", "max(x, 0)">;
def OneFlow_TanhOp : OneFlow_FloatUnaryOp<"tanh", "hyperbolic tangent">;
def OneFlow_SigmoidOp : OneFlow_FloatUnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def OneFlow_ExpOp : OneFlow_FloatUnaryOp<"exp", "e^x">;
def OneFlow_LogOp : OneFlow_FloatUnaryOp<"log", "natural logarithm">;
def OneFlow_SqrtOp : OneFlow_FloatUnaryOp<"sqrt", "square root">;
def OneFlow_RsqrtOp : OneFlow_FloatUnaryOp<"rsqrt", "1 / sqrt(x)">;
def OneFlow_ErfOp : OneFlow_FloatUnaryOp<"erf", "Gauss error function">;
def OneFlow_ReciprocalOp : OneFlow_FloatUnaryOp<"reciprocal", "1 / x">;
def OneFlow_SinOp : OneFlow_FloatUnaryOp<"sin", "sine">;
def OneFlow_CosOp : OneFlow_FloatUnaryOp<"cos", "cosine">;
def OneFlow_SoftplusOp : OneFlow_FloatUnaryOp<"softplus", "log(1 + exp(x))">;
def OneFlow_SoftsignOp : OneFlow_FloatUnaryOp<"softsign", "x / (1 + |x|)">;
def OneFlow_SiluOp : OneFlow_FloatUnaryOp<"silu", "x * sigmoid(x)">;
def OneFlow_CeilOp : OneFlow_FloatUnaryOp<"ceil", "round towards +inf">;
def OneFlow_FloorOp : OneFlow_FloatUnaryOp<"floor", "round towards -inf">;
def OneFlow_RoundOp : OneFlow_FloatUnaryOp<"round", "round half to even">;
def OneFlow_AsinOp : OneFlow_FloatUnaryOp<"asin", "arcsine">;
def OneFlow_AcosOp : OneFlow_FloatUnaryOp<"acos", "arccosine">;
def OneFlow_AtanOp : OneFlow_FloatUnaryOp<"atan", "arctangent">;

def OneFlow_GeluOp : OneFlow_UnaryOp<"gelu", OneFlow_FloatTensor> {
  let summary = "Gaussian error linear unit (erf or tanh form)";
  let arguments = (ins OneFlow_FloatTensor:$x,
      DefaultValuedAttr<OneFlow_GeluApproximationAttr,
                        "::mlir::oneflow::GeluApproximation::None">:$approximate);
}

def OneFlow_LeakyReluOp : OneFlow_UnaryOp<"leaky_relu", OneFlow_FloatTensor> {
  let summary = "x >= 0 ? x : alpha * x";
  let arguments = (ins OneFlow_FloatTensor:$x,
                       DefaultValuedAttr<F64Attr, "0.01">:$alpha);
}

def OneFlow_EluOp : OneFlow_UnaryOp<"elu", OneFlow_FloatTensor> {
  let summary = "x >= 0 ? x : alpha * (exp(x) - 1)";
  let arguments = (ins OneFlow_FloatTensor:$x,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
}

def OneFlow_SeluOp : OneFlow_UnaryOp<"selu", OneFlow_FloatTensor> {
  let summary = "gamma * (x >= 0 ? x : alpha * (exp(x) - 1))";
  let arguments = (ins OneFlow_FloatTensor:$x,
      DefaultValuedAttr<F64Attr, "1.6732632423543772">:$alpha,
      DefaultValuedAttr<F64Attr, "1.0507009873554805">:$gamma);
}

def OneFlow_HardSigmoidOp : OneFlow_UnaryOp<"hard_sigmoid", OneFlow_FloatTensor> {
  let summary = "clamp(alpha * x + beta, 0, 1)";
  let arguments = (ins OneFlow_FloatTensor:$x,
                       DefaultValuedAttr<F64Attr, "0.2">:$alpha,
                       DefaultValuedAttr<F64Attr, "0.5">:$beta);
}

def OneFlow_NegOp : OneFlow_UnaryOp<"neg", OneFlow_NumericTensor, /*linear=*/1> {
  let summary = "-x";
  let hasFolder = 1;
}
def OneFlow_AbsOp : OneFlow_UnaryOp<"abs", OneFlow_NumericTensor> {
  let summary = "|x|";
}
def OneFlow_SignOp : OneFlow_UnaryOp<"sign", OneFlow_NumericTensor> {
  let summary = "-1, 0 or 1";
}
def OneFlow_NotOp : OneFlow_UnaryOp<"not", OneFlow_BoolTensor> {
  let summary = "logical not";
  let hasFolder = 1;
}

def OneFlow_ClipOp : OneFlow_UnaryOp<"clip", OneFlow_NumericTensor> {
  let summary = "clamp x to [min, max] (either bound optional)";
  let arguments = (ins OneFlow_NumericTensor:$x,
                       OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops with numpy broadcasting
//===----------------------------------------------------------------------===//

// `partial` is the C++ PartialRule, `linearOperands` the operands it covers;
// `fold` names the BinaryFold that evaluates the op on constants.
class OneFlow_BinaryOp<string mnemonic, Type tensorType, string fold,
                       bit isCompare = 0, string partial = "None",
                       string linearOperands = "{}">
    : OneFlow_InferredOp<mnemonic, [ResultsBroadcastableShape,
                                    AllElementTypesMatch<["lhs", "rhs"]>]> {
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::mlir::oneflow::inferBroadcastType(
          location, adaptor.getOperands(), }] # !if(isCompare, "true", "false") # [{,
          inferred);
    }
    ::mlir::sbp::SbpFactorRule $cppClass::getSbpFactorRule() {
      return ::mlir::oneflow::getElementwiseSbpRule(
          *this, ::mlir::sbp::PartialRule::}] # partial # [{, }] # linearOperands # [{);
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::mlir::oneflow::foldBinary(
          getResult().getType(), adaptor.getLhs(), adaptor.getRhs(),
          ::mlir::oneflow::BinaryFold::}] # fold # [{);
    }
  }];
}

def OneFlow_AddOp : OneFlow_BinaryOp<"add", OneFlow_NumericTensor, "Add", 0, "Joint"> {
  let summary = "lhs + rhs";
}
def OneFlow_SubOp : OneFlow_BinaryOp<"sub", OneFlow_NumericTensor, "Sub", 0, "Joint"> {
  let summary = "lhs - rhs";
}
def OneFlow_MulOp : OneFlow_BinaryOp<"mul", OneFlow_NumericTensor, "Mul", 0, "Each"> {
  let summary = "lhs * rhs";
}
def OneFlow_DivOp
    : OneFlow_BinaryOp<"div", OneFlow_NumericTensor, "Div", 0, "Each", "{0}"> {
  let summary = "lhs / rhs (integer division truncates)";
}
def OneFlow_PowOp : OneFlow_BinaryOp<"pow", OneFlow_NumericTensor, "Pow"> {
  let summary = "lhs ^ rhs";
}
def OneFlow_MaxOp : OneFlow_BinaryOp<"max", OneFlow_NumericTensor, "Max"> {
  let summary = "elementwise maximum";
}
def OneFlow_MinOp : OneFlow_BinaryOp<"min", OneFlow_NumericTensor, "Min"> {
  let summary = "elementwise minimum";
}
def OneFlow_AndOp : OneFlow_BinaryOp<"and", OneFlow_BoolTensor, "And"> {
  let summary = "logical and";
}
def OneFlow_OrOp : OneFlow_BinaryOp<"or", OneFlow_BoolTensor, "Or"> {
  let summary = "logical or";
}
def OneFlow_XorOp : OneFlow_BinaryOp<"xor", OneFlow_BoolTensor, "Xor"> {
  let summary = "logical xor";
}
def OneFlow_EqualOp : OneFlow_BinaryOp<"equal", OneFlow_Tensor, "Equal", 1> {
  let summary = "lhs == rhs";
}
def OneFlow_NotEqualOp : OneFlow_BinaryOp<"not_equal", OneFlow_Tensor, "NotEqual", 1> {
  let summary = "lhs != rhs";
}
def OneFlow_LessOp : OneFlow_BinaryOp<"less", OneFlow_NumericTensor, "Less", 1> {
  let summary = "lhs < rhs";
}
def OneFlow_LessEqualOp : OneFlow_BinaryOp<"less_equal", OneFlow_NumericTensor, "LessEqual", 1> {
  let summary = "lhs <= rhs";
}
def OneFlow_GreaterOp : OneFlow_BinaryOp<"greater", OneFlow_NumericTensor, "Greater", 1> {
  let summary = "lhs > rhs";
}
def OneFlow_GreaterEqualOp
    : OneFlow_BinaryOp<"greater_equal", OneFlow_NumericTensor, "GreaterEqual", 1> {
  let summary = "lhs >= rhs";
}

def OneFlow_WhereOp : OneFlow_InferredOp<"where", [
    AllElementTypesMatch<["on_true", "on_false"]>]> {
  let summary = "condition ? on_true : on_false, with broadcasting";
  let arguments = (ins OneFlow_BoolTensor:$condition, OneFlow_Tensor:$on_true,
                       OneFlow_Tensor:$on_false);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:`
    functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def OneFlow_DropoutOp : OneFlow_Op<"dropout", [Pure,
    AllTypesMatch<["x", "y"]>]> {
  let summary = "zero elements at random, scale the rest by 1 / (1 - ratio)";
  let description = [{
    Training-mode dropout with a counter-based generator: element i is kept
    when `u(seed, stream, step, positions[i]) >= ratio`, `u` uniform in
    [0, 1) from a hash of its arguments (docs/architecture.md, *Dropout*),
    so the mask depends only on the seed, the op's stream, the training
    step and each element's logical position, never on how the tensor is
    distributed. `positions` (int64, x's shape) holds the positions: built
    from per-dimension index constants, it is split with x by any SBP.
    `step` is a rank-0 int64 counter (the graph's `dropout.step` variable).
    The gradient is the same op applied to the output gradient.

    ```mlir
    %y = oneflow.dropout %x, %pos, %step {ratio = 1.0E-1 : f64, seed = 0 : i64, stream = 3 : i64}
        : (tensor<8x64xf32>, tensor<8x64xi64>, tensor<i64>) -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_I64Tensor:$positions,
                       OneFlow_I64Tensor:$step, F64Attr:$ratio,
                       DefaultValuedAttr<I64Attr, "0">:$seed,
                       DefaultValuedAttr<I64Attr, "0">:$stream);
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = [{
    $x `,` $positions `,` $step attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::sbp::SbpFactorRule $cppClass::getSbpFactorRule() {
      return ::mlir::oneflow::getElementwiseSbpRule(
          *this, ::mlir::sbp::PartialRule::None);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Casts, constants and variables
//===----------------------------------------------------------------------===//

def OneFlow_CastOp : OneFlow_Op<"cast", [Pure]> {
  let summary = "convert the element type";
  let arguments = (ins OneFlow_Tensor:$x);
  let results = (outs OneFlow_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($y)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def OneFlow_ConstantOp : OneFlow_Op<"constant", [Pure, ConstantLike,
    AllTypesMatch<["value", "output"]>]> {
  let summary = "a constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs OneFlow_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def OneFlow_VariableOp : OneFlow_Op<"variable", [MemoryEffects<[MemRead]>]> {
  let summary = "read a named persistent parameter";
  let description = [{
    The current value of a model parameter. `initial_value` holds its
    initial data (a dense resource for imported weights), or `initializer`
    says how each rank draws it at load time (no data in the compiler or
    the plan); at most one of them is given. All reads of one name denote
    the same parameter.

    ```mlir
    %w = oneflow.variable @fc1.weight : tensor<784x512xf32>
    %e = oneflow.variable @wte {initializer =
        #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 1>}
        : tensor<50304x768xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$var_name,
                       OptionalAttr<ElementsAttr>:$initial_value,
                       OptionalAttr<OneFlow_InitializerAttr>:$initializer);
  let results = (outs OneFlow_Tensor:$output);
  let assemblyFormat = "$var_name attr-dict `:` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def OneFlow_MatmulOp : OneFlow_InferredOp<"matmul", [
    AllElementTypesMatch<["a", "b", "c"]>]> {
  let summary = "2-D matrix product, operands optionally transposed";
  let arguments = (ins OneFlow_NumericTensor:$a, OneFlow_NumericTensor:$b,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs OneFlow_NumericTensor:$c);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
  let hasCanonicalizer = 1;
}

def OneFlow_BatchMatmulOp : OneFlow_InferredOp<"batch_matmul", [
    AllElementTypesMatch<["a", "b", "c"]>]> {
  let summary = "batched matrix product with broadcast batch dimensions";
  let arguments = (ins OneFlow_NumericTensor:$a, OneFlow_NumericTensor:$b,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs OneFlow_NumericTensor:$c);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
  let hasCanonicalizer = 1;
}

def OneFlow_Conv2DOp : OneFlow_InferredOp<"conv2d", [
    AllElementTypesMatch<["x", "weight", "y"]>]> {
  let summary = "2-D convolution, NCHW input and OIHW weight";
  let description = [{
    `pads` is `[top, left, bottom, right]`; the weight is
    `[out_channels, in_channels / groups, kh, kw]`; `bias` is `[out_channels]`.
    `constant_weight` (set by `oneflow-mark-constant-weights`) says the
    weight is a parameter no step writes: a CPU kernel may keep its own
    copy of it in another layout, made once. `channels_last` (set by
    `oneflow-channels-last` on inference plans) makes `x` and `y` NHWC,
    `[n, h, w, c]` and `[n, oh, ow, out_channels]`; the weight stays OIHW.
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$weight,
                       Optional<OneFlow_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       UnitAttr:$constant_weight, UnitAttr:$channels_last);
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = [{
    $x `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_ConvTranspose2DOp : OneFlow_InferredOp<"conv_transpose2d", [
    AllElementTypesMatch<["x", "weight", "y"]>]> {
  let summary = "2-D transposed convolution, NCHW input, weight [C_in, C_out / groups, kh, kw]";
  let description = [{
    The gradient of conv2d with respect to its input. Output size per
    spatial dimension: `(in - 1) * stride - pad_begin - pad_end +
    dilation * (k - 1) + output_padding + 1`. `pads` is `[top, left, bottom,
    right]`.
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$weight,
                       Optional<OneFlow_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = [{
    $x `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

def OneFlow_MaxPool2DOp : OneFlow_InferredOp<"max_pool2d"> {
  let summary = "2-D max pooling (NCHW); pads are [top, left, bottom, right]";
  let arguments = (ins OneFlow_FloatTensor:$x, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, UnitAttr:$ceil_mode,
                       UnitAttr:$channels_last);
  let description = [{
    `channels_last` (set by `oneflow-channels-last`) makes `x` and `y` NHWC.
  }];
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
}

def OneFlow_AvgPool2DOp : OneFlow_InferredOp<"avg_pool2d"> {
  let summary = "2-D average pooling (NCHW); pads are [top, left, bottom, right]";
  let description = [{
    `channels_last` (set by `oneflow-channels-last`) makes `x` and `y` NHWC.
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       UnitAttr:$ceil_mode, UnitAttr:$count_include_pad,
                       UnitAttr:$channels_last);
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
}

def OneFlow_GlobalAvgPool2DOp : OneFlow_InferredOp<"global_avg_pool2d"> {
  let summary = "mean over H and W (NCHW -> NC11)";
  let arguments = (ins OneFlow_FloatTensor:$x);
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
}

def OneFlow_GlobalMaxPool2DOp : OneFlow_InferredOp<"global_max_pool2d"> {
  let summary = "max over H and W (NCHW -> NC11)";
  let arguments = (ins OneFlow_FloatTensor:$x);
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
}

def OneFlow_BatchNormOp : OneFlow_Op<"batch_norm", [Pure,
    AllTypesMatch<["x", "y"]>,
    AllTypesMatch<["scale", "bias", "mean", "variance"]>]> {
  let summary = "batch normalization with running statistics (inference)";
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$scale,
                       OneFlow_FloatTensor:$bias, OneFlow_FloatTensor:$mean,
                       OneFlow_FloatTensor:$variance,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = [{
    $x `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    type($x) `,` type($scale)
  }];
  let hasVerifier = 1;
}

def OneFlow_BatchNormTrainOp : OneFlow_Op<"batch_norm_train", [Pure,
    AllTypesMatch<["x", "y"]>,
    AllTypesMatch<["scale", "bias", "running_mean", "running_variance",
                   "new_running_mean", "new_running_variance", "saved_mean",
                   "saved_inv_std"]>]> {
  let summary = "batch normalization with batch statistics (training)";
  let description = [{
    Normalizes with the statistics of this batch (over N, H, W), returns the
    updated running statistics
    (`running * (1 - momentum) + batch * momentum`, unbiased variance) and
    the batch mean and inverse standard deviation that the gradient needs.
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$scale,
                       OneFlow_FloatTensor:$bias,
                       OneFlow_FloatTensor:$running_mean,
                       OneFlow_FloatTensor:$running_variance,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum);
  let results = (outs OneFlow_FloatTensor:$y,
                      OneFlow_FloatTensor:$new_running_mean,
                      OneFlow_FloatTensor:$new_running_variance,
                      OneFlow_FloatTensor:$saved_mean,
                      OneFlow_FloatTensor:$saved_inv_std);
  let assemblyFormat = [{
    $x `,` $scale `,` $bias `,` $running_mean `,` $running_variance attr-dict
    `:` type($x) `,` type($scale)
  }];
  let hasVerifier = 1;
}

def OneFlow_LayerNormOp : OneFlow_Op<"layer_norm", [Pure,
    AllTypesMatch<["x", "y"]>]> {
  let summary = "normalize over the trailing axes [axis, rank)";
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$scale,
                       Optional<OneFlow_FloatTensor>:$bias, I64Attr:$axis,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = [{
    $x `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, softmax
//===----------------------------------------------------------------------===//

// `linear`: splitting a reduced axis leaves partial sums (sum, mean).
class OneFlow_ReduceOp<string mnemonic, string what, bit linear, string fold>
    : OneFlow_InferredOp<mnemonic> {
  let summary = what;
  let description = [{
    Reduces over `axes` (sorted, distinct, non-negative); `keepdims` keeps
    them as size-1 dimensions.
  }];
  let arguments = (ins OneFlow_NumericTensor:$x, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
  let results = (outs OneFlow_NumericTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::mlir::oneflow::inferReductionType(
          location, ::llvm::cast<::mlir::RankedTensorType>(adaptor.getX().getType()),
          adaptor.getAxes(), adaptor.getKeepdims(), /*resultElementType=*/{},
          inferred);
    }
    ::mlir::sbp::SbpFactorRule $cppClass::getSbpFactorRule() {
      return ::mlir::oneflow::getReductionSbpRule(
          getX().getType().getRank(), getAxes(), getKeepdims(), }]
          # !if(linear, "true", "false") # [{);
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::mlir::oneflow::foldReduce(getY().getType(), adaptor.getX(),
                                         getAxes(),
                                         ::mlir::oneflow::ReduceFold::}] # fold # [{);
    }
  }];
  let hasFolder = 1;
}

def OneFlow_ReduceSumOp : OneFlow_ReduceOp<"reduce_sum", "sum over axes", 1, "Sum">;
def OneFlow_ReduceMeanOp
    : OneFlow_ReduceOp<"reduce_mean", "mean over axes", 1, "Mean">;
def OneFlow_ReduceMaxOp : OneFlow_ReduceOp<"reduce_max", "max over axes", 0, "Max">;
def OneFlow_ReduceMinOp : OneFlow_ReduceOp<"reduce_min", "min over axes", 0, "Min">;
def OneFlow_ReduceProdOp
    : OneFlow_ReduceOp<"reduce_prod", "product over axes", 0, "Prod">;

class OneFlow_ArgReduceOp<string mnemonic, string what>
    : OneFlow_InferredOp<mnemonic> {
  let summary = what;
  let arguments = (ins OneFlow_NumericTensor:$x, I64Attr:$axis,
                       UnitAttr:$keepdims, UnitAttr:$select_last_index);
  let results = (outs OneFlow_I64Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::mlir::oneflow::inferReductionType(
          location, ::llvm::cast<::mlir::RankedTensorType>(adaptor.getX().getType()),
          {static_cast<int64_t>(adaptor.getAxis())}, adaptor.getKeepdims(),
          ::mlir::IntegerType::get(context, 64), inferred);
    }
    ::mlir::sbp::SbpFactorRule $cppClass::getSbpFactorRule() {
      return ::mlir::oneflow::getReductionSbpRule(
          getX().getType().getRank(), {static_cast<int64_t>(getAxis())}, getKeepdims(),
          /*linear=*/false);
    }
  }];
}

def OneFlow_ArgMaxOp : OneFlow_ArgReduceOp<"argmax", "index of the maximum along axis">;
def OneFlow_ArgMinOp : OneFlow_ArgReduceOp<"argmin", "index of the minimum along axis">;

class OneFlow_SoftmaxLikeOp<string mnemonic, string what>
    : OneFlow_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins OneFlow_FloatTensor:$x, I64Attr:$axis);
  let results = (outs OneFlow_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($y)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::oneflow::verifyAxis(getOperation(), getAxis(),
                                         getX().getType().getRank());
    }
    ::mlir::sbp::SbpFactorRule $cppClass::getSbpFactorRule() {
      return ::mlir::oneflow::getWholeAxesSbpRule(
          *this, {static_cast<int64_t>(getAxis())});
    }
  }];
}

def OneFlow_SoftmaxOp : OneFlow_SoftmaxLikeOp<"softmax", "softmax along axis">;
def OneFlow_LogSoftmaxOp
    : OneFlow_SoftmaxLikeOp<"log_softmax", "log of softmax along axis">;

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def OneFlow_ReshapeOp : OneFlow_Op<"reshape", [Pure]> {
  let summary = "same elements, new shape (row-major)";
  let arguments = (ins OneFlow_Tensor:$x);
  let results = (outs OneFlow_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($y)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

class OneFlow_ReshapeLikeOp<string mnemonic, string what>
    : OneFlow_InferredOp<mnemonic> {
  let summary = what;
  let results = (outs OneFlow_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
  let hasCanonicalizer = 1;
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::mlir::sbp::SbpFactorRule $cppClass::getSbpFactorRule() {
      return ::mlir::oneflow::getReshapeSbpRule(getX().getType(),
                                                getY().getType());
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::mlir::oneflow::foldReshapeOfConstant(adaptor.getX(),
                                                    getY().getType());
    }
  }];
}

def OneFlow_FlattenOp : OneFlow_ReshapeLikeOp<"flatten",
    "collapse [0, axis) and [axis, rank) into a 2-D tensor"> {
  let arguments = (ins OneFlow_Tensor:$x, I64Attr:$axis);
}
def OneFlow_SqueezeOp : OneFlow_ReshapeLikeOp<"squeeze",
    "remove the size-1 dimensions listed in axes"> {
  let arguments = (ins OneFlow_Tensor:$x, DenseI64ArrayAttr:$axes);
}
def OneFlow_UnsqueezeOp : OneFlow_ReshapeLikeOp<"unsqueeze",
    "insert size-1 dimensions at the result positions listed in axes"> {
  let arguments = (ins OneFlow_Tensor:$x, DenseI64ArrayAttr:$axes);
}

def OneFlow_TransposeOp : OneFlow_InferredOp<"transpose"> {
  let summary = "permute dimensions: result dim i is input dim perm[i]";
  let arguments = (ins OneFlow_Tensor:$x, DenseI64ArrayAttr:$perm);
  let results = (outs OneFlow_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def OneFlow_ConcatOp : OneFlow_InferredOp<"concat"> {
  let summary = "concatenate along axis";
  let arguments = (ins Variadic<OneFlow_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def OneFlow_SplitOp : OneFlow_InferredOp<"split"> {
  let summary = "split along axis into pieces of the given sizes";
  let arguments = (ins OneFlow_Tensor:$x, I64Attr:$axis,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<OneFlow_Tensor>:$outputs);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($outputs)";
}

def OneFlow_SliceOp : OneFlow_InferredOp<"slice"> {
  let summary = "strided slice [start, limit) per dimension";
  let description = [{
    Per dimension: `start`, `limit` and a non-zero `step`, already clamped to
    the dimension (for a negative step, `limit` may be -1).
  }];
  let arguments = (ins OneFlow_Tensor:$x, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits, DenseI64ArrayAttr:$steps);
  let results = (outs OneFlow_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
  let hasFolder = 1;
}

def OneFlow_GatherOp : OneFlow_InferredOp<"gather"> {
  let summary = "take slices of data along axis at the given indices";
  let description = [{
    `result.shape = data.shape[:axis] + indices.shape + data.shape[axis+1:]`.
    With axis 0 this is an embedding lookup. Negative indices count from
    the end of the axis.
  }];
  let arguments = (ins OneFlow_Tensor:$data, OneFlow_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def OneFlow_GatherElementsOp : OneFlow_InferredOp<"gather_elements"> {
  let summary = "pick elements of data along axis at per-element indices";
  let description = [{
    `result[i][j][k] = data[indices[i][j][k]][j][k]` for axis 0 (likewise
    for other axes). The result has the shape of `indices`, which has the
    rank of `data` and is no larger than it off the axis. Negative indices
    count from the end of the axis.
  }];
  let arguments = (ins OneFlow_Tensor:$data, OneFlow_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_CumSumOp : OneFlow_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "running sum along axis";
  let description = [{
    `exclusive` leaves out the element itself; `reverse` sums from the end.
  }];
  let arguments = (ins OneFlow_NumericTensor:$x, I64Attr:$axis,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs OneFlow_NumericTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($y)";
  let hasVerifier = 1;
}

def OneFlow_TopKOp : OneFlow_InferredOp<"topk"> {
  let summary = "the k largest (or smallest) elements along axis";
  let description = [{
    Returns the values and their int64 indices, sorted when `sorted` is set
    (ties keep the lower index first).
  }];
  let arguments = (ins OneFlow_NumericTensor:$x, I64Attr:$k, I64Attr:$axis,
                       UnitAttr:$smallest, UnitAttr:$sorted);
  let results = (outs OneFlow_NumericTensor:$values, OneFlow_I64Tensor:$indices);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($values) `,` type($indices)";
}

def OneFlow_NonMaxSuppressionOp : OneFlow_InferredOp<"non_max_suppression"> {
  let summary = "greedy non-maximum suppression of boxes, per batch and class";
  let description = [{
    ONNX's NonMaxSuppression. `boxes` is [B, N, 4]: corners `[y1, x1, y2,
    x2]` (either corner first), or `[x_center, y_center, width, height]`
    with `center_point_box`; `scores` is [B, C, N]. Per batch and class, the
    boxes scoring above `score_threshold` (when given) are taken in falling
    score order (ties: lower index first); one is dropped when its IoU with
    an already selected box exceeds `iou_threshold`; selection stops at
    `max_output_boxes_per_class` boxes.

    How many boxes survive depends on the data, so `selected` is a bound:
    room for `B * C * min(N, max_boxes_bound)` rows `[batch, class, box]`
    (in batch, class, selection order), of which the first `num_selected`
    are valid and the rest zeros (valid indices for a Gather after it).
    `max_boxes_bound` is a per-class limit known at compile time (a
    constant `max_output_boxes_per_class`); without it the bound is N.

    ```mlir
    %sel, %n = oneflow.non_max_suppression %boxes, %scores, %max, %iou, %thr
        : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>,
           tensor<1xf32>, tensor<1xf32>) -> (tensor<6x3xi64>, tensor<i64>)
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32]>:$boxes,
                       StaticShapeTensorOf<[F32]>:$scores,
                       OneFlow_I64Tensor:$max_output_boxes_per_class,
                       StaticShapeTensorOf<[F32]>:$iou_threshold,
                       Optional<StaticShapeTensorOf<[F32]>>:$score_threshold,
                       UnitAttr:$center_point_box,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$max_boxes_bound);
  let results = (outs OneFlow_I64Tensor:$selected,
                      0DTensorOf<[I64]>:$num_selected);
  let assemblyFormat = [{
    $boxes `,` $scores `,` $max_output_boxes_per_class `,` $iou_threshold
    (`,` $score_threshold^)? attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_UniqueOp : OneFlow_InferredOp<"unique"> {
  let summary = "the distinct slices along an axis (or elements), and where they occur";
  let description = [{
    ONNX's Unique. With `axis`, the entries are the slices of `x` along it
    (compared element by element in row-major order); without, `x`'s
    elements, flattened. `y` holds the distinct entries, sorted ascending
    when `sorted` is set, else in order of first occurrence; `indices` the
    first occurrence of each, `counts` how often each occurs, and
    `inverse_indices` for every entry of `x` its place in `y`.

    How many entries are distinct depends on the data: `y`, `indices` and
    `counts` have room for all of them along the axis (zeros after the
    valid ones) and `num_unique` says how many are valid.
  }];
  let arguments = (ins OneFlow_NumericTensor:$x, OptionalAttr<I64Attr>:$axis,
                       UnitAttr:$sorted);
  let results = (outs OneFlow_NumericTensor:$y, OneFlow_I64Tensor:$indices,
                      OneFlow_I64Tensor:$inverse_indices,
                      OneFlow_I64Tensor:$counts,
                      0DTensorOf<[I64]>:$num_unique);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type(results)";
}

def OneFlow_NonZeroOp : OneFlow_InferredOp<"non_zero"> {
  let summary = "the coordinates of the non-zero elements";
  let description = [{
    ONNX's NonZero: `y[d, k]` is coordinate `d` of the k-th non-zero element
    of `x` in row-major order. `x` is f64 (the importer casts to it, exactly
    for every ONNX type: it only asks which elements are zero; NaN is not).

    How many elements are non-zero depends on the data: `y` has room for
    all of them ([rank, elements]), zeros after the first `count` columns.
  }];
  let arguments = (ins StaticShapeTensorOf<[F64]>:$x);
  let results = (outs OneFlow_I64Tensor:$y, 0DTensorOf<[I64]>:$count);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type(results)";
}

def OneFlow_ExpandOp : OneFlow_Op<"expand", [Pure,
    AllElementTypesMatch<["x", "y"]>]> {
  let summary = "broadcast to a larger shape (numpy rules)";
  let arguments = (ins OneFlow_Tensor:$x);
  let results = (outs OneFlow_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($y)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def OneFlow_PadOp : OneFlow_InferredOp<"pad"> {
  let summary = "pad each dimension (pads = low..., high...)";
  let arguments = (ins OneFlow_Tensor:$x, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<OneFlow_PadModeAttr,
                                         "::mlir::oneflow::PadMode::Constant">:$mode,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs OneFlow_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
}

def OneFlow_CoordinateSliceOp : OneFlow_Op<"coordinate_slice", [Pure,
    AllElementTypesMatch<["x", "y"]>]> {
  let summary = "a window along one axis placed by this rank's mesh coordinate";
  let description = [{
    `y[..., i, ...] = x[..., i + coordinates[mesh_axis] * step, ...]` along
    `axis`, zero where that index falls outside `x`; the other dimensions
    are equal. `coordinates` holds the rank's coordinate along each mesh
    axis (a `mesh_coordinates` variable), so one program serves every rank
    of a mesh: a positive `step` cuts the rank's piece of a replicated
    tensor, a negative one places the rank's piece into zeros (a partial
    sum).

    ```mlir
    %y = oneflow.coordinate_slice %x, %coords {axis = 0, mesh_axis = 1, step = 32}
        : (tensor<64x8xf32>, tensor<2xi64>) -> tensor<32x8xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, OneFlow_I64Tensor:$coordinates,
                       I64Attr:$axis, I64Attr:$mesh_axis, I64Attr:$step);
  let results = (outs OneFlow_Tensor:$y);
  let assemblyFormat = [{
    $x `,` $coordinates attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def OneFlow_TileOp : OneFlow_InferredOp<"tile"> {
  let summary = "repeat the tensor along each dimension";
  let arguments = (ins OneFlow_Tensor:$x, DenseI64ArrayAttr:$repeats);
  let results = (outs OneFlow_Tensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($y)";
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def OneFlow_SoftmaxCrossEntropyOp : OneFlow_InferredOp<"softmax_cross_entropy"> {
  let summary = "cross-entropy of softmax(logits) against class indices";
  let description = [{
    `logits` is `[..., C]`, `labels` the class indices `[...]`. With
    `mean` reduction the loss is the mean over all label positions that are
    not `ignore_index` (PyTorch's `F.cross_entropy` on flattened logits).
  }];
  let arguments = (ins OneFlow_FloatTensor:$logits,
                       OneFlow_IndexTensor:$labels,
                       DefaultValuedAttr<OneFlow_LossReductionAttr,
                           "::mlir::oneflow::LossReduction::Mean">:$reduction,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs OneFlow_FloatTensor:$loss);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_MseLossOp : OneFlow_InferredOp<"mse_loss", [
    AllTypesMatch<["input", "target"]>]> {
  let summary = "mean squared error";
  let arguments = (ins OneFlow_FloatTensor:$input,
                       OneFlow_FloatTensor:$target,
                       DefaultValuedAttr<OneFlow_LossReductionAttr,
                           "::mlir::oneflow::LossReduction::Mean">:$reduction);
  let results = (outs OneFlow_FloatTensor:$loss);
  let assemblyFormat = [{
    $input `,` $target attr-dict `:` functional-type(operands, results)
  }];
}

include "oneflow/Dialect/OneFlow/OneFlowGradOps.td"
include "oneflow/Dialect/OneFlow/OneFlowKernelOps.td"
include "oneflow/Dialect/OneFlow/OneFlowEpilogueOps.td"

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWOPS_TD
