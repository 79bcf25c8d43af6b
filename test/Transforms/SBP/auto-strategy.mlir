// --sbp-strategy=auto: every op's signature from a cost-based solve on the
// cluster of --simulate. --sbp-auto-enumerate also prices every assignment
// of signatures to the 6 nodes (2 variables, 2 products, the ReLU, the
// input): the solve must find the enumerated optimum (with a memory limit:
// of the problem with the memory penalty the solve ended with). Two 4096x4096 projections with a ReLU between
// them on 4 A100s (NVLink). The layouts that matter, per projection: data
// parallel (rows split, weight replicated: no communication, the whole
// weight per device), column-parallel (weight split on its outputs: a
// quarter of the product, the input whole), row-parallel (weight split on
// its inputs: partial sums, one all-reduce of the result), or replicated.

// 8 rows: the products are tiny and run at a fraction of the peak, so
// splitting the weights wins: column-parallel then row-parallel (Megatron),
// one all-reduce of 8x4096 floats (128 KiB) at the end. Data parallelism
// cannot split 8 rows any better and replicates 128 MiB of weights.
// RUN: oneflow-opt %S/Inputs/chain-small-batch.mlir --mesh=4 --sbp-strategy=auto --sbp-auto-enumerate --simulate=%S/../../../clusters/a100-80gb-sxm.json 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: sbp-auto: enumeration of 2916 assignments: optimum [[OPT:[0-9.e-]+]]; the solve's [[OPT]]{{$}}
// SMALL: sbp-auto: mesh [4]: 6 nodes, 0 left after eliminations, solved exactly; predicted compute {{.*}} s + communication {{.*}} s; variables 32 MiB per device
// SMALL: oneflow.variable @w1 {{.*}}sbp.sig = #sbp.sig<() -> (S<1>)>
// SMALL: oneflow.variable @w2 {{.*}}sbp.sig = #sbp.sig<() -> (S<0>)>
// SMALL: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<(B, S<1>) -> (S<1>)>
// SMALL: oneflow.relu {{.*}}sbp.sig = #sbp.sig<(S<1>) -> (S<1>)>
// SMALL: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<(S<1>, S<0>) -> (P)>
// SMALL: sbp.boxing {{.*}} from [P] to [B]

// 8192 rows: every layout computes the same quarter of the products, and
// the activations (128 MiB) dwarf the weights: data parallel, the weights
// replicated, the input sliced for free and only the result gathered.
// RUN: oneflow-opt %S/Inputs/chain-large-batch.mlir --mesh=4 --sbp-strategy=auto --sbp-auto-enumerate --simulate=%S/../../../clusters/a100-80gb-sxm.json 2>&1 | FileCheck %s --check-prefix=LARGE
// LARGE: sbp-auto: enumeration of 2916 assignments: optimum [[OPT:[0-9.e-]+]]; the solve's [[OPT]]{{$}}
// LARGE: sbp-auto: mesh [4]: {{.*}} solved exactly; {{.*}} variables 128 MiB per device
// LARGE: oneflow.variable @w1 {{.*}}sbp.sig = #sbp.sig<() -> (B)>
// LARGE: oneflow.variable @w2 {{.*}}sbp.sig = #sbp.sig<() -> (B)>
// LARGE: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<(S<0>, B) -> (S<0>)>
// LARGE: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<(S<0>, B) -> (S<0>)>
// LARGE: sbp.boxing {{.*}} from [S<0>] to [B]

// With 100 MiB per device the two replicated weights (128 MiB) do not fit:
// one of them must be split (64 + 16 MiB fit, 64 + 64 do not). The
// cheapest is the first projection column-parallel (the input is whole on
// every device anyway), its result turned to rows by an all-to-all; the
// second stays data parallel.
// RUN: oneflow-opt %S/Inputs/chain-large-batch.mlir --mesh=4 --sbp-strategy=auto --sbp-auto-enumerate --simulate=%S/Inputs/a100-100mib.json 2>&1 | FileCheck %s --check-prefix=MEMORY
// MEMORY: sbp-auto: enumeration of 2916 assignments: optimum [[OPT:[0-9.e-]+]]; the solve's [[OPT]]{{$}}
// MEMORY: sbp-auto: mesh [4]: {{.*}} variables 80 MiB per device
// MEMORY: oneflow.variable @w1 {{.*}}sbp.sig = #sbp.sig<() -> (S<1>)>
// MEMORY: oneflow.variable @w2 {{.*}}sbp.sig = #sbp.sig<() -> (B)>
// MEMORY: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<(B, S<1>) -> (S<1>)>
// MEMORY: sbp.boxing {{.*}} from [S<1>] to [S<0>]
// MEMORY: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<(S<0>, B) -> (S<0>)>

// On a 2x2 mesh (8.5 million assignments of nd-signatures) too.
// RUN: oneflow-opt %S/Inputs/chain-small-batch.mlir --mesh=2x2 --sbp-strategy=auto --sbp-auto-enumerate --simulate=%S/../../../clusters/a100-80gb-sxm.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=MESH2D
// MESH2D: sbp-auto: enumeration of 8503056 assignments: optimum [[OPT:[0-9.e-]+]]; the solve's [[OPT]]{{$}}
// MESH2D: sbp-auto: mesh [2, 2]: 6 nodes, 0 left after eliminations, solved exactly

// A limit no layout meets: on one device the weights are 128 MiB whatever
// their SBP.
// RUN: not oneflow-opt %S/Inputs/chain-large-batch.mlir --mesh=1 --sbp-strategy=auto --simulate=%S/Inputs/a100-100mib.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFIT
// NOFIT: error: sbp-auto: the variables need at least 134217728 bytes per device on the mesh [1] however they are split, more than the 104857600 bytes of memory

// On a 2x2 mesh a training step's core (the nodes no elimination removes)
// is too large to prove optimal within the branch-and-bound budget: the
// result is stated with its lower bound.
// RUN: oneflow-opt %S/../../Import/ONNX/Inputs/torch/mlp_opset17.onnx --train --label=y --mesh=2x2 --sbp-strategy=auto -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUND
// BOUND: sbp-auto: mesh [2, 2]: {{[0-9]+}} nodes, {{[0-9]+}} left after eliminations, solved heuristically (the optimum is at least {{[0-9.e-]+}} s); predicted compute
