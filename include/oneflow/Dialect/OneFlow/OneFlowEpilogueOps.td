//===- OneFlowEpilogueOps.td - products with aux epilogues -*- tablegen -*-===//
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

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWEPILOGUEOPS_TD
