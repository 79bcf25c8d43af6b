//===- OneFlowGradOps.td - gradient and training ops -------*- tablegen -*-===//
//
// Ops that reverse-mode differentiation and the optimizer emit where the
// gradient is not a short composition of forward ops. Each names the forward
// op it differentiates; result types are explicit (they equal the type of
// the forward operand whose gradient they are).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ONEFLOWGRADOPS_TD
#define ONEFLOW_DIALECT_ONEFLOW_ONEFLOWGRADOPS_TD

class OneFlow_GradOp<string mnemonic, list<Trait> traits = []>
    : OneFlow_Op<mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
}

def OneFlow_Conv2DGradFilterOp : OneFlow_GradOp<"conv2d_grad_filter", [
    AllElementTypesMatch<["x", "dy", "dweight"]>]> {
  let summary = "gradient of conv2d with respect to its weight";
  let description = [{
    `x` and `dy` are conv2d's input and output gradient (NCHW); the result
    has the weight's type `[out_channels, in_channels / groups, kh, kw]`.
    Attributes as on conv2d.
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$dy,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs OneFlow_FloatTensor:$dweight);
  let assemblyFormat = [{
    $x `,` $dy attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_MaxPool2DGradOp : OneFlow_GradOp<"max_pool2d_grad", [
    AllTypesMatch<["x", "dx"]>, AllElementTypesMatch<["x", "dy"]>]> {
  let summary = "gradient of max_pool2d: dy routed to each window's maximum";
  let description = [{
    Each output gradient goes to the first position (row-major in the
    window) that holds the window's maximum of `x`. Attributes as on
    max_pool2d.
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$dy,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                       UnitAttr:$ceil_mode);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = [{
    $x `,` $dy attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_AvgPool2DGradOp : OneFlow_GradOp<"avg_pool2d_grad", [
    AllElementTypesMatch<["dy", "dx"]>]> {
  let summary = "gradient of avg_pool2d: dy spread evenly over each window";
  let description = [{
    The result has the type of avg_pool2d's input. Attributes as on
    avg_pool2d (the divisor counts padding only with `count_include_pad`).
  }];
  let arguments = (ins OneFlow_FloatTensor:$dy, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       UnitAttr:$ceil_mode, UnitAttr:$count_include_pad);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = "$dy attr-dict `:` type($dy) `->` type($dx)";
}

def OneFlow_GatherGradOp : OneFlow_GradOp<"gather_grad", [
    AllElementTypesMatch<["dy", "ddata"]>]> {
  let summary = "gradient of gather: dy scatter-added at the indices";
  let description = [{
    The result has gather's data type; rows that several indices select
    receive the sum of their gradients (the embedding backward). Negative
    indices count from the end of the axis.
  }];
  let arguments = (ins OneFlow_IndexTensor:$indices, OneFlow_FloatTensor:$dy,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs OneFlow_FloatTensor:$ddata);
  let assemblyFormat = [{
    $indices `,` $dy attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_GatherElementsGradOp : OneFlow_GradOp<"gather_elements_grad", [
    AllElementTypesMatch<["dy", "ddata"]>]> {
  let summary = "gradient of gather_elements: dy scatter-added per element";
  let arguments = (ins OneFlow_IndexTensor:$indices, OneFlow_FloatTensor:$dy,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs OneFlow_FloatTensor:$ddata);
  let assemblyFormat = [{
    $indices `,` $dy attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_SliceGradOp : OneFlow_GradOp<"slice_grad", [
    AllElementTypesMatch<["dy", "dx"]>]> {
  let summary = "gradient of slice: dy placed at the sliced positions, zeros elsewhere";
  let arguments = (ins OneFlow_FloatTensor:$dy, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits, DenseI64ArrayAttr:$steps);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = "$dy attr-dict `:` type($dy) `->` type($dx)";
}

def OneFlow_SoftmaxCrossEntropyGradOp
    : OneFlow_GradOp<"softmax_cross_entropy_grad", [
        AllTypesMatch<["logits", "dlogits"]>]> {
  let summary = "gradient of softmax_cross_entropy without reduction";
  let description = [{
    `dlogits = (softmax(logits) - onehot(labels)) * dloss[..., None]`, with
    `dloss` of the labels' shape (the gradient of the per-position losses);
    positions labelled `ignore_index` get zeros.
  }];
  let arguments = (ins OneFlow_FloatTensor:$logits,
                       OneFlow_IndexTensor:$labels,
                       OneFlow_FloatTensor:$dloss,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs OneFlow_FloatTensor:$dlogits);
  let assemblyFormat = [{
    $logits `,` $labels `,` $dloss attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_LayerNormGradOp : OneFlow_GradOp<"layer_norm_grad", [
    AllTypesMatch<["x", "dy", "dx"]>,
    AllTypesMatch<["scale", "dscale", "dbias"]>]> {
  let summary = "gradients of layer_norm for its input, scale and bias";
  let description = [{
    Recomputes the statistics of `x` over `[axis, rank)`. `dscale` and
    `dbias` have the scale's type (the trailing shape).
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$scale,
                       OneFlow_FloatTensor:$dy, I64Attr:$axis,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs OneFlow_FloatTensor:$dx, OneFlow_FloatTensor:$dscale,
                      OneFlow_FloatTensor:$dbias);
  let assemblyFormat = [{
    $x `,` $scale `,` $dy attr-dict `:` type($x) `,` type($scale)
  }];
}

def OneFlow_BatchNormGradOp : OneFlow_GradOp<"batch_norm_grad", [
    AllTypesMatch<["x", "dy", "dx"]>,
    AllTypesMatch<["scale", "saved_mean", "saved_inv_std", "dscale",
                   "dbias"]>]> {
  let summary = "gradients of batch_norm_train for its input, scale and bias";
  let description = [{
    Uses the batch statistics batch_norm_train saved (mean and inverse
    standard deviation per channel, over N, H, W).
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$scale,
                       OneFlow_FloatTensor:$saved_mean,
                       OneFlow_FloatTensor:$saved_inv_std,
                       OneFlow_FloatTensor:$dy);
  let results = (outs OneFlow_FloatTensor:$dx, OneFlow_FloatTensor:$dscale,
                      OneFlow_FloatTensor:$dbias);
  let assemblyFormat = [{
    $x `,` $scale `,` $saved_mean `,` $saved_inv_std `,` $dy attr-dict `:`
    type($x) `,` type($scale)
  }];
}

//===----------------------------------------------------------------------===//
// Training state
//===----------------------------------------------------------------------===//

def OneFlow_AssignOp : OneFlow_Op<"assign", [MemoryEffects<[MemWrite]>]> {
  let summary = "store a new value into a named persistent parameter";
  let description = [{
    The parameter `var_name` holds `value` from the next step on; every read
    of it in this step sees the old value. `value` has the type of the
    parameter's reads.

    ```mlir
    oneflow.assign @fc1.weight, %w_new : tensor<784x512xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$var_name, OneFlow_Tensor:$value);
  let assemblyFormat = "$var_name `,` $value attr-dict `:` type($value)";
}

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWGRADOPS_TD
