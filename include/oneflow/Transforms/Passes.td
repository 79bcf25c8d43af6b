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

def SerializeSmallParallelLoops
    : Pass<"oneflow-serialize-small-parallel-loops", "ModuleOp"> {
  let summary = "Run parallel loops with little work sequentially";
  let description = [{
    Outermost `scf.parallel` loops whose static amount of work (the trip
    counts of the loop and of every loop nested in it, multiplied) is below
    `min-work` become nested `scf.for` loops: starting threads would cost
    more than the loop. The others are left for OpenMP.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"32768",
           "Iterations (innermost bodies) below which a loop stays sequential">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

#endif // ONEFLOW_TRANSFORMS_PASSES_TD
