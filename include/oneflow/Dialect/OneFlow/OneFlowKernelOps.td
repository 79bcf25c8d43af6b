//===- OneFlowKernelOps.td - fused kernel regions ----------*- tablegen -*-===//

#ifndef ONEFLOW_DIALECT_ONEFLOW_ONEFLOWKERNELOPS_TD
#define ONEFLOW_DIALECT_ONEFLOW_ONEFLOWKERNELOPS_TD

include "mlir/Interfaces/ControlFlowInterfaces.td"

def OneFlow_FusedOp : Op<OneFlow_Dialect, "fused", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "ops that run as one kernel";
  let description = [{
    Built by `oneflow-fuse` on a rank's program: the ops of the body become
    one function of `kernels.so` (one kernel task of the plan). The body
    reads values defined above it; `oneflow.yield` names the values used
    after the region, which are its results. Values used only inside never
    become registers.

    ```mlir
    %y = oneflow.fused -> tensor<8x256xf32> {
      %0 = oneflow.add %x, %b : (tensor<8x256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
      %1 = oneflow.relu %0 : tensor<8x256xf32>
      oneflow.yield %1 : tensor<8x256xf32>
    }
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword (`->` type($results)^)? $body";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::TypeRange":$resultTypes)>];
}

def OneFlow_YieldOp : Op<OneFlow_Dialect, "yield", [
    Pure, Terminator, ReturnLike, HasParent<"FusedOp">]> {
  let summary = "the results of a fused kernel";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
}

#endif // ONEFLOW_DIALECT_ONEFLOW_ONEFLOWKERNELOPS_TD
