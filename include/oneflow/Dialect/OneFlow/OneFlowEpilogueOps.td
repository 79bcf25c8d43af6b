//===- OneFlowEpilogueOps.td - products with epilogues -----*- tablegen -*-===//
//
// Products whose library call also computes what follows them.
//
// A linear layer's forward product and the backward product that computes
// the gradient flowing into its activation, as cuBLASLt runs them with the
// activation (or its gradient) as the epilogue: the forward keeps an aux
// tensor for the backward. Only oneflow-fold-gemm-aux-epilogues makes them,
// on the rank programs of CUDA plans (after distribution, so their SBP
// rules keep every dimension whole); both lower to one call of the kernel
// library (include/oneflow/Runtime/CUDA/KernelABI.h has the layouts).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ONEFLOWEPILOGUEOPS_TD
#define ONEFLOW_DIALECT_ONEFLOW_ONEFLOWEPILOGUEOPS_TD

def OneFlow_F32Matrix : 2DTensorOf<[F32]>;

def OneFlow_MatmulActAuxOp : OneFlow_Op<"matmul_act_aux", [Pure]> {
  let summary = "act(op(a) op(b) + bias), keeping what act's gradient needs";
  let description = [{
    `c = act(op(a) op(b) + bias)` in f32, `bias` one value per column of
    the `[m, n]` result, and `aux` what `matmul_act_grad` reads back, laid
    out as cuBLASLt's RELU_AUX_BIAS / GELU_AUX_BIAS epilogues write it: for
    `relu` the bit mask of `op(a) op(b) + bias > 0`, a row of `ld` bits per
    row of `c` (`ld` = n rounded up to a multiple of 128), as i32 words
    (`[m, ld / 32]`); for `gelu_tanh` (GELU in tanh form) the
    pre-activation `op(a) op(b) + bias`, `[m, ld]` with `ld` = n rounded up
    to a multiple of 8.

    ```mlir
    %h, %mask = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<relu>, transpose_b}
      : (tensor<8x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> (tensor<8x128xf32>, tensor<8x4xi32>)
    ```
  }];
  let arguments = (ins OneFlow_F32Matrix:$a, OneFlow_F32Matrix:$b,
                       1DTensorOf<[F32]>:$bias,
                       OneFlow_EpilogueActivationAttr:$activation,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs OneFlow_F32Matrix:$c,
                      2DTensorOf<[F32, I32]>:$aux);
  let assemblyFormat = [{
    $a `,` $b `,` $bias attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def OneFlow_MatmulActGradOp : OneFlow_Op<"matmul_act_grad", [Pure]> {
  let summary = "op(a) op(b) * act'(pre), pre read back from an aux tensor";
  let description = [{
    `c = op(a) op(b) * act'(pre)` in f32, where `aux` is what the
    `matmul_act_aux` of the same `[m, n]` result shape and activation wrote
    (cuBLASLt's DRELU / DGELU epilogues): the gradient of the
    pre-activation when `op(a) op(b)` is the gradient of the activation's
    output. With `bias_grad`, also the column sums of `c` (DRELU_BGRAD /
    DGELU_BGRAD): that layer's bias gradient. The product's k must not be
    1.

    ```mlir
    %dpre, %db = oneflow.matmul_act_grad %dy, %w2, %mask {activation = #oneflow.epilogue_activation<relu>}
      : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<8x4xi32>) -> (tensor<8x128xf32>, tensor<128xf32>)
    ```
  }];
  let arguments = (ins OneFlow_F32Matrix:$a, OneFlow_F32Matrix:$b,
                       2DTensorOf<[F32, I32]>:$aux,
                       OneFlow_EpilogueActivationAttr:$activation,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs OneFlow_F32Matrix:$c,
                      Optional<1DTensorOf<[F32]>>:$bias_grad);
  let assemblyFormat = [{
    $a `,` $b `,` $aux attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

// A convolution of a CPU inference plan with the residual sum and the
// activation after it, as oneDNN's post-ops apply them while the result is
// in registers. Only oneflow-fold-conv-epilogues makes it, on rank programs
// (after distribution: every dimension whole), from `channels_last`
// `constant_weight` f32 convs.
def OneFlow_Conv2DEpilogueOp : OneFlow_Op<"conv2d_epilogue", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "act(conv2d(x, w) + bias + residual), NHWC, constant weights";
  let description = [{
    `y = act(conv2d(x, weight) + bias + residual)` in f32, where `x` and `y`
    are NHWC (`[n, h, w, c]`, `[n, oh, ow, out_channels]`), the weight is
    OIHW and holds the same values for the life of the plan (as
    `constant_weight` on `oneflow.conv2d`), `bias` is optional (one value
    per output channel) and so is `residual` (of `y`'s type). `activation`
    is optional: `relu`, `clip` (to `[clip_min, clip_max]`, both given),
    `silu` (`x * sigmoid(x)`) or `hard_swish` (`x * clamp(x / 6 + 0.5, 0,
    1)`). The other attributes are conv2d's.

    ```mlir
    %y = oneflow.conv2d_epilogue %x, %w bias %b residual %r {activation = #oneflow.conv_activation<relu>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x8x8x16xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32]>:$x,
                       StaticShapeTensorOf<[F32]>:$weight,
                       Optional<StaticShapeTensorOf<[F32]>>:$bias,
                       Optional<StaticShapeTensorOf<[F32]>>:$residual,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       OptionalAttr<OneFlow_ConvActivationAttr>:$activation,
                       OptionalAttr<F64Attr>:$clip_min,
                       OptionalAttr<F64Attr>:$clip_max);
  let results = (outs StaticShapeTensorOf<[F32]>:$y);
  let assemblyFormat = [{
    $x `,` $weight (`bias` $bias^)? (`residual` $residual^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWEPILOGUEOPS_TD
