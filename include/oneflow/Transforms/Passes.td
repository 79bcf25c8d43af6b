//===- Passes.td - oneflow transformation passes -----------*- tablegen -*-===//

#ifndef ONEFLOW_TRANSFORMS_PASSES_TD
#define ONEFLOW_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineKernels : Pass<"oneflow-outline-kernels", "ModuleOp"> {
  let summary = "Outline every compute op of @main into its own kernel function";
  let description = [{
    Each oneflow op of the graph function (other than constants and
    variables) moves into a private `func.func @kernel_<n>` marked
    `oneflow.kernel`, and the graph calls it. The graph function then reads
    as the task graph of the plan: one call per kernel task, one SSA value
    per register. Kernel fusion later outlines groups of ops instead of
    single ones.
  }];
  let options = [
    Option<"graphFunction", "graph", "std::string", /*default=*/"\"main\"",
           "The function holding the graph">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // ONEFLOW_TRANSFORMS_PASSES_TD
