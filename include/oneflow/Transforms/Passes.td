//===- Passes.td - oneflow transformation passes -----------*- tablegen -*-===//

#ifndef ONEFLOW_TRANSFORMS_PASSES_TD
#define ONEFLOW_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineKernels : Pass<"oneflow-outline-kernels", "ModuleOp"> {
  let summary = "Outline every compute op of @main into its own kernel function";
  let description = [{
    Each oneflow op of the graph function (other than constants and
    variables) moves into a private `func.func @kernel_<n>_<op>` marked
    `oneflow.kernel`, and the graph calls it; a `oneflow.fused` region
    becomes one `@kernel_<n>_fused_<root op>` taking the values its body
    reads from above. The graph function then reads as the task graph of
    the plan: one call per kernel task, one SSA value per register.
  }];
  let options = [
    Option<"graphFunction", "graph", "std::string", /*default=*/"\"main\"",
           "The function holding the graph">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def Fuse : Pass<"oneflow-fuse", "::mlir::func::FuncOp"> {
  let summary = "Group a rank's ops into fused kernels";
  let description = [{
    Greedy producer-consumer fusion on a localized rank program (see
    Fuse.cpp): chains of elementwise and broadcasting ops, reductions and
    normalizations with their elementwise producers and consumers, and
    elementwise epilogues (bias, activation, residual) of matrix products
    and convolutions. Each group of two or more ops becomes a
    `oneflow.fused` region, which `oneflow-outline-kernels` turns into one
    kernel; values used only inside a group never become registers. No op
    is duplicated; nothing fuses across a collective, a send or a receive,
    nor across training phases or micro-batches. Kernel functions are left
    alone.
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
}

def MarkConstantWeights : Pass<"oneflow-mark-constant-weights", "ModuleOp"> {
  let summary = "Mark convolutions whose weight is a parameter no step writes";
  let description = [{
    A `oneflow.conv2d` whose weight is read straight from a
    `oneflow.variable` that no `oneflow.assign` in the module writes (every
    parameter of an inference plan, frozen ones in training) gets
    `constant_weight`. Its CPU kernel then reorders the weight into
    oneDNN's blocked layout once, on its first call, instead of on every
    call: the variable's register keeps its address and its values for the
    whole run. Weights computed by other ops are not marked: their buffers
    may be reused for other values.
  }];
}

def ChannelsLast : Pass<"oneflow-channels-last", "ModuleOp"> {
  let summary = "Run an inference plan's convolutions on NHWC activations";
  let description = [{
    Each f32 `oneflow.conv2d` marked `constant_weight` becomes a
    `channels_last` conv between a transpose to NHWC and one back to NCHW;
    the transposes then sink through elementwise and broadcasting ops,
    concatenations, global pools and f32 max and average pools (which
    become `channels_last` too), and a transpose to NCHW followed by one to
    NHWC folds away. Chains of convolutions (MobileNet's blocks, a ResNet)
    thus keep their activations NHWC and the kernels reorder nothing;
    transposes remain only where a chain meets a layout-bound op (a
    reshape, batch norm) or the graph's inputs and outputs. Transposes
    left on size-1 dimensions become reshapes.
  }];
}

def FoldConvEpilogues
    : Pass<"oneflow-fold-conv-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Fold residual adds and activations into channels-last convs";
  let description = [{
    On a CPU inference plan's rank programs, after `oneflow-channels-last`
    and before fusion: a `channels_last` `constant_weight` f32
    `oneflow.conv2d`, optionally followed by the add of a residual of its
    type, optionally followed by relu, clip (both bounds), silu (or `y *
    sigmoid(y)`) or hard-swish (`y * hard_sigmoid(y)`, alpha 1/6, beta
    1/2), becomes one `oneflow.conv2d_epilogue`: the kernel library applies
    both as oneDNN post-ops while the result is in registers, instead of
    another pass over the output. Values folded must have no other use.
  }];
}

def UpdateVariablesInPlace
    : Pass<"oneflow-update-variables-in-place", "ModuleOp"> {
  let summary = "Let kernel calls write updated variables into their own buffers";
  let description = [{
    After outlining: a kernel result whose only use is an `oneflow.assign`
    to a variable the same call reads, with every other read of that
    variable's value before the call, may be written over the variable.
    Such results are recorded on the call as `oneflow.updates_in_place`
    (per result, the argument it overwrites, or -1): the decision depends
    on the call's place in the program, not on the kernel body, which other
    calls may share. `oneflow-share-kernels` records it on the kernel; the
    plan builder then gives the result the variable's register and drops
    the ASSIGN copy, and `oneflow-in-place-kernel-results` makes the kernel
    safe for it.
  }];
}

def ShareKernels : Pass<"oneflow-share-kernels", "ModuleOp"> {
  let summary = "One kernel per distinct body and in-place decision";
  let description = [{
    Kernels (`oneflow.kernel` functions) with identical bodies (the same
    function type and ops, locations aside: a repeated layer, or the same
    piece on another rank) whose calls make the same in-place decision
    (`oneflow.updates_in_place` on the call, or none) become one kernel,
    which all those calls use and which is compiled once. The kernel
    records its calls' decision as `oneflow.updates_in_place`; a kernel
    whose calls decide differently is split into one copy per decision.
  }];
}

def SbpApplyStrategy : Pass<"sbp-apply-strategy", "ModuleOp"> {
  let summary = "Place @main on a mesh and pin the anchor SBPs of a strategy";
  let description = [{
    Creates `sbp.mesh @mesh` with the given shape and device, places the
    graph on it, and pins SBPs on the mesh axes the strategy names:

    - `data`: graph inputs split along their first (batch) axis, parameters
      broadcast, optimizer state (variables with `oneflow.state_of`) split
      along its first dimension that the axis divides and no other axis
      splits, by `zero` (ZeRO stages): 0 keeps it broadcast like its
      parameter; 1 and 2 split it, so each rank updates 1/n of the
      parameter from a reduce-scattered gradient and all-gathers the result
      (1 and 2 give the same plan: no gradient buffer outlives its
      reduction); 3 splits the trained parameters too, and every phase and
      micro-batch that reads one all-gathers it before its first read there
      (a boxing per phase, so the gathered copy dies with the phase).
    - `tensor` (Megatron): matmuls with a parameter weight alternate between
      column-parallel (weight split on its output features) and row-parallel
      (split on its input features) along chains of ops that keep a feature
      split (elementwise ops, reshapes, transposes, softmax, batched matmuls
      of activations), so that a column/row pair needs one all-reduce;
      embedding tables are split on the vocabulary.

    `data,tensor` on a 2-D mesh applies data to axis 0 and tensor to axis 1.
    Everything not pinned is left to `sbp-infer`.
  }];
  let options = [
    ListOption<"meshShape", "mesh", "int64_t", "Devices per mesh axis (1 to 3 axes)">,
    Option<"strategy", "strategy", "std::string", /*default=*/"\"data\"",
           "data, tensor or data,tensor (one entry per mesh axis)">,
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "cpu or cuda">,
    Option<"zero", "zero", "int64_t", /*default=*/"1",
           "ZeRO stage on the data-parallel axes: 0 (replicated), 1 and 2 "
           "(optimizer state split), 3 (parameters split too)">,
  ];
  let dependentDialects = ["::mlir::sbp::SBPDialect"];
}

def SbpAutoStrategy : Pass<"sbp-auto-strategy", "ModuleOp"> {
  let summary = "Place @main on a mesh and pin every op's SBP by a cost-based solve";
  let description = [{
    `--sbp-strategy=auto`: creates `sbp.mesh @mesh` and pins the
    nd-signature of every op and graph argument that minimizes the
    predicted seconds of the step on the cluster file `cluster` (each op's
    local work by the cost model's kernel formula, each boxing as the
    collectives of its 1-D steps over the device group of their mesh axis),
    with the variables' bytes per device under the cluster's memory
    capacity. The SBP graph is solved as in OneFlow: nodes of one
    candidate, one neighbour or two neighbours eliminated exactly, the core
    by branch and bound within a budget (a stated lower bound when it does
    not finish); docs/simulator.md. Signatures already pinned are kept.

    `zero` (with `data-axes`) holds a ZeRO stage on those mesh axes instead
    of leaving the optimizer state's layout to the solve: 0 replicated, 1
    and 2 optimizer state split, 3 trained parameters split too.

    `repeated-layers` solves identical layers once: ops are grouped into
    layers by their location's module path up to its first index
    (`blocks.3`), each layer keyed by its ops in order (name, attributes
    other than a variable's name and data, types, which earlier op of the
    layer each operand comes from); a layer whose key an earlier layer has
    shares that layer's nodes in the SBP graph, its costs added to them,
    so the solve is exact for "identical layers, identical signatures".
  }];
  let options = [
    ListOption<"meshShape", "mesh", "int64_t", "Devices per mesh axis (1 to 3 axes)">,
    Option<"cluster", "cluster", "std::string", /*default=*/"\"\"",
           "Cluster file the solve prices on (default: clusters/cpu-local.json)">,
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "cpu or cuda">,
    Option<"zero", "zero", "int64_t", /*default=*/"-1",
           "ZeRO stage held on data-axes (-1: the solve lays out the "
           "optimizer state itself)">,
    ListOption<"dataAxes", "data-axes", "int64_t",
               "The mesh axes `zero` applies to">,
    Option<"repeatedLayers", "repeated-layers", "bool", /*default=*/"false",
           "Solve identical layers (equal op by op, module paths with an "
           "index) once: each copy takes its first layer's signatures">,
    Option<"enumerate", "enumerate", "bool", /*default=*/"false",
           "Also enumerate every assignment (small graphs) and print the "
           "optimum next to the solve's">,
  ];
  let dependentDialects = ["::mlir::sbp::SBPDialect"];
}

def SbpInfer : Pass<"sbp-infer", "ModuleOp"> {
  let summary = "Give every op of the placed graph an SBP signature";
  let description = [{
    Walks the graph in order and gives each op without a pinned signature
    the nd-signature (one signature of its factor rule per mesh axis) with
    the least cost: the bytes that boxing its operands from their
    producers' SBPs moves (the architecture's cost table, axis by axis),
    plus the per-device share of its compute. Splits must divide the
    dimensions they split. Ties go to the first signature in enumeration
    order, so the result is deterministic.
  }];
  let dependentDialects = ["::mlir::sbp::SBPDialect"];
}

def SbpInsertBoxing : Pass<"sbp-insert-boxing", "ModuleOp"> {
  let summary = "Insert sbp.boxing where a producer's SBP is not what its consumer needs";
  let description = [{
    After `sbp-infer`, every operand whose producer's nd-SBP differs from
    the one the consumer's signature needs is converted by an `sbp.boxing`.
    Graph results are boxed to all-broadcast: full logical values.
  }];
  let dependentDialects = ["::mlir::sbp::SBPDialect"];
}

def SbpReport : Pass<"sbp-print-report", "ModuleOp"> {
  let summary = "Print each op's SBP signature and the bytes every boxing moves";
  let description = [{
    Prints, for the placed graph, one line per op with its signature and one
    per boxing with the collective it needs and the bytes each device sends,
    then the total, so that users can see what a distribution costs.
  }];
}

def SbpLocalize : Pass<"sbp-localize", "ModuleOp"> {
  let summary = "Split the distributed @main into one local program per rank";
  let description = [{
    For every device of @main's mesh, writes @main_rank<r> (r its global
    rank): values take their local shapes from their nd-SBP (a dimension
    split along several mesh axes is cut by axis 0 first), parameters and
    constants keep their slice of the data, inputs arrive whole and are
    sliced, and every `sbp.boxing` becomes `sbp.collective` ops along one
    mesh axis at a time (or a local slice, or zeros for the non-owning
    pieces of a partial sum). The module gets `sbp.num_ranks`; @main is
    removed.

    With `share-programs`, only the first device's program is written and
    every device of the mesh runs it (one program per rank role): what
    depends on the device is computed from a `mesh_coordinates` variable
    at run time (`oneflow.coordinate_slice` cuts pieces, masks keep partial
    sums on one device), split parameters keep their whole data
    (`oneflow.whole_value`) for each rank to load its piece, collectives
    name their mesh axis, and the program lists its ranks in
    `sbp.role_members`.
  }];
  let options = [
    Option<"sharePrograms", "share-programs", "bool", /*default=*/"false",
           "Write one program that every device of the mesh runs">
  ];
  let dependentDialects = ["::mlir::sbp::SBPDialect",
                           "::mlir::oneflow::OneFlowDialect"];
}

def SplitFusedProjections : Pass<"oneflow-split-fused-projections", "ModuleOp"> {
  let summary = "One projection per piece of a split fused projection (QKV)";
  let description = [{
    `split(matmul(x, W) + b)` along the last axis, with W and b parameters
    used only there, becomes one matmul (+ bias) per piece with
    `<W>.part<i>` / `<b>.part<i>` sliced from the data. Same values; lets
    the tensor strategy split attention by heads.
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def AddLoss : Pass<"oneflow-add-loss", "ModuleOp"> {
  let summary = "Make @main return the training loss of one of its outputs";
  let description = [{
    Adds a graph input named `label` carrying the labels and makes @main
    return one scalar, the loss of output `loss-on` (the first output when
    empty) against the labels; the other outputs are dropped.

    - `cross-entropy`: the output holds logits `[..., C]` (floating point),
      the labels are int64 class indices `[...]`; the loss is the mean of
      the per-position cross-entropies (PyTorch's `F.cross_entropy` on
      flattened logits).
    - `mse`: the labels have the output's type; the loss is the mean of the
      squared differences.

    The loss is named `loss` (the `oneflow.loss_output` module attribute) and
    the labels' first dimension is recorded as `oneflow.batch_size`. The
    model runs in training mode: a `batch_norm` whose statistics are
    variables becomes `batch_norm_train` (batch statistics) and assigns the
    updated running statistics.
  }];
  let options = [
    Option<"loss", "loss", "std::string", /*default=*/"\"cross-entropy\"",
           "cross-entropy or mse">,
    Option<"label", "label", "std::string", /*default=*/"\"labels\"",
           "Name of the new graph input that carries the labels">,
    Option<"lossOn", "loss-on", "std::string", /*default=*/"\"\"",
           "The output the loss is taken on (default: the first)">,
  ];
}

def Autodiff : Pass<"oneflow-autodiff", "ModuleOp"> {
  let summary = "Reverse-mode differentiation of @main's first result";
  let description = [{
    @main's first result must be a scalar loss. Every op between the
    sources and the loss is differentiated through its GradientOpInterface
    rule, in reverse program order; gradients of values used several times
    are summed. The gradients are appended as results of @main, each marked
    with `oneflow.gradient_of` (the variable's symbol, or the argument's
    index) and named `grad_<name>`:

    - `wrt=variables` (training): every floating-point `oneflow.variable`
      not listed in `freeze`; variables that get a gradient are marked
      `oneflow.trainable`. Reads of one variable are merged first.
    - `wrt=arguments` (gradient checks): every floating-point argument.

    With `microbatches=M`, the forward program runs once per micro-batch
    (every argument cut into M along its first axis; micro-batch m takes
    samples m, m+M, ...) followed by its backward, and the gradients are
    summed (gradient accumulation): the loss and gradients equal those of
    the whole batch, with one micro-batch's activations alive at a time.

    Ops on the path without a rule are all reported, each at its location.
  }];
  let options = [
    Option<"wrt", "wrt", "std::string", /*default=*/"\"variables\"",
           "Differentiate with respect to 'variables' or 'arguments'">,
    ListOption<"freeze", "freeze", "std::string",
               "Variables that are not trained">,
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"1",
           "Accumulate gradients over this many micro-batches">,
  ];
}

def MixedPrecision : Pass<"oneflow-mixed-precision", "ModuleOp"> {
  let summary = "Type a graph for bf16 or f16 mixed precision, as autocast";
  let description = [{
    Gives @main the types PyTorch's autocast gives a model (its CPU op lists
    in torch 1.13), before oneflow-autodiff:

    - products (matmul, batch_matmul, conv2d, conv_transpose2d) compute in
      the low type: their operands are cast to it;
    - losses (softmax_cross_entropy, mse_loss) compute in f32;
    - softmax, log_softmax, normalizations, sums and means of a low-type
      input compute in f32 and give the low type back;
    - every other op runs in its inputs' type: f32 when a low and an f32
      tensor meet, the low type when only low tensors do; constants and
      0-d tensors follow the tensor they meet (PyTorch's scalars), and a
      parameter added to a product (a linear layer's bias) joins it.

    Parameters stay f32 variables, the master weights: each use reads a cast
    of them, so their gradients (through the casts), the optimizer state and
    the update are f32, and checkpoints save them. The graph's results keep
    their declared types. `precision=f32` changes nothing.
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"bf16\"",
           "f32, bf16 or f16">,
  ];
}

def WidenLowPrecision : Pass<"oneflow-widen-low-precision", "ModuleOp"> {
  let summary = "Accumulate bf16 and f16 products and reductions in f32";
  let description = [{
    Ops that accumulate (products, convolutions, pooling averages,
    reductions, softmax, normalizations, losses and their gradients) whose
    tensors are bf16 or f16 compute in f32: their operands are widened
    (exactly), the op runs in f32 and each result is rounded back to its
    type once. This is the numerics of bf16 GEMMs on every device (f32
    accumulation), lets the CPU call the f32 BLAS, and keeps long sums
    accurate. Values between ops keep the low type, so activations,
    messages and kept tensors keep their size.

    With `keep-products` (CUDA plans) the products (matmul, batch_matmul)
    keep their bf16/f16 operands and result: cuBLASLt multiplies them on
    the tensor cores at the low type's rate, accumulates in f32 and rounds
    the result once, as the widened op does.
  }];
  let options = [
    Option<"keepProducts", "keep-products", "bool", /*default=*/"false",
           "Leave bf16/f16 products to a GEMM that accumulates in f32 "
           "(CUDA plans)">,
  ];
}

def Recompute : Pass<"oneflow-recompute", "ModuleOp"> {
  let summary = "Recompute forward activations in the backward pass";
  let description = [{
    Runs after oneflow-autodiff. A forward value that the backward pass
    reads is normally kept alive from its forward op until its last backward
    use; recomputing it trades that memory for work. The ops to recompute
    are cloned into the backward pass of their micro-batch, each right
    before the first backward op that needs it (so one layer's recomputed
    activations are alive only while that layer's backward runs), and the
    backward ops read the clones. The clones are backward ops of the same
    forward op (provenance), so pipeline stages place and schedule them
    with that op's backward.

    - `none`: nothing.
    - `selective` (Megatron's selective recomputation): the cheap ops whose
      results are large: elementwise ops, softmax, layout ops (reshape,
      transpose, slices, ...) and products of two activations (attention
      scores and their use), whenever everything they read is kept anyway
      (parameters, inputs, values the backward reads itself) or is
      recomputed too.
    - `full`: every forward op of a layer except those whose results leave
      the layer; only each layer's inputs and outputs stay alive. A layer is
      the ops whose location names share their module path up to its first
      index (`/blocks.3/attn/MatMul` and `blocks.3.mlp.fc` are in `blocks.3`;
      without an index, the first component); an unnamed op joins the layer
      of its first operand whose producer has one (else the unnamed layer).

    Ops with memory effects are never recomputed. The loss and gradients
    are unchanged.
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"none\"",
           "none, selective or full">,
  ];
}

def Optimizer : Pass<"oneflow-optimizer", "ModuleOp"> {
  let summary = "Turn @main's variable gradients into optimizer updates";
  let description = [{
    Consumes the results that `oneflow-autodiff` appended: for each variable
    gradient, builds the update and `oneflow.assign`s the new value (and the
    new optimizer state) to the variables, then removes the gradient
    results. Optimizer state lives in variables named `<param>.<state>`
    (zeros initially, marked `oneflow.state_of`) and `optimizer.step`.

    - `sgd`: `w -= lr * g`, with PyTorch's momentum (buffer `momentum_buffer`,
      `nesterov`) and L2 `weight-decay` (added to the gradient).
    - `adamw`: PyTorch's AdamW (states `exp_avg`, `exp_avg_sq`; decoupled
      weight decay; bias corrections from the step count).

    A negative `weight-decay` means the optimizer's default (0 for sgd,
    0.01 for adamw).
  }];
  let options = [
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd or adamw">,
    Option<"lr", "lr", "double", /*default=*/"0.01", "Learning rate">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD with Nesterov momentum">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"-1.0",
           "Weight decay (negative: the optimizer's default)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "AdamW beta2">,
    Option<"epsilon", "eps", "double", /*default=*/"1e-8", "AdamW epsilon">,
  ];
}

//===----------------------------------------------------------------------===//
// Pipelining
//===----------------------------------------------------------------------===//

def SbpPipelineStages : Pass<"sbp-pipeline-stages", "ModuleOp"> {
  let summary = "Partition a training graph into pipeline stages";
  let description = [{
    Gives every op of @main that has a place an `oneflow.stage`. The forward
    program (the ops of one micro-batch, in program order) is cut into
    `stages` contiguous pieces of balanced cost: floating-point operations
    (2MNK for products, the output size for the rest) plus the bytes of the
    activations each op produces; the cut minimizes the costliest stage.
    Forward ops the user annotated with `oneflow.stage` keep their stage
    (unannotated ones follow the op before them). Every copy of a forward op
    (one per micro-batch) and every backward op that differentiates it share
    its stage; the other ops (optimizer updates, sums of micro-batch losses)
    take the latest stage among their operands' producers. Ops that depend
    on no staged op (slices of the inputs, constants, the optimizer's step
    count) stay unplaced: every stage that needs them computes its own copy.
    The provenance oneflow-autodiff records says which op is which. The
    gradient of a parameter read on several stages, which autodiff sums in
    one chain through every micro-batch, is summed per micro-batch and the
    sums added for the update: a chain hopping between stages in
    micro-batch order would tie each micro-batch's backward to the previous
    one's on every stage (a deadlock under the interleaved schedule).

    With `virtual-stages` V > 1 (the interleaved schedule) the program is
    cut into `stages` * V chunks, and chunk c will run on stage c mod S: the
    stage attribute then names the chunk.

    With `memory-limit`, a stage's estimated memory must fit: every
    variable its forward ops read (a trained one twice, for its gradient,
    plus its optimizer state), plus the activations of one micro-batch that
    the backward reads, times the micro-batches in flight on that stage
    (GPipe: all of them; 1F1B: S - s on stage s; interleaved: what the
    schedule's order keeps of each chunk, PipelineSchedule.h). The estimate
    is for one device per stage: data and tensor parallelism inside a stage
    only lower it. An interleaved rank holds V chunks, each of which must
    fit 1/V of the limit (the sum then fits). When no cut into `stages`
    fits, the error gives the smallest stage count that does.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "Number of pipeline stages">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Print each stage's forward ops and share of the cost to stderr">,
    Option<"memoryLimit", "memory-limit", "int64_t", /*default=*/"0",
           "Bytes a rank of a stage may hold (0: no limit); the cut keeps "
           "every stage's estimate under it or fails naming the smallest "
           "stage count that fits">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"1f1b\"",
           "gpipe, 1f1b or interleaved: how many micro-batches' activations "
           "a stage holds (all of them, S - s on stage s, or what the "
           "interleaved order keeps)">,
    Option<"virtualStages", "virtual-stages", "int64_t", /*default=*/"1",
           "Model chunks per stage (interleaved schedule): the cut makes "
           "stages * virtual-stages of them">,
  ];
}

def SbpPipelineSplit : Pass<"sbp-pipeline-split", "ModuleOp"> {
  let summary = "Give each pipeline stage its own ranks and schedule them";
  let description = [{
    Runs after sbp-localize on a graph whose ops sbp-pipeline-stages placed.
    Device d's program becomes one program per stage: rank s * D + d runs
    stage s (D devices per stage, so data and tensor parallelism work inside
    every stage). A value used on another stage is sent (`sbp.send`) by its
    producer's rank and received (`sbp.recv`) by the consumer's; collectives
    move to their stage's ranks; ops that depend on no staged op (input
    slices, constants, replicated state) are copied where needed; a trained
    parameter read on several stages lives on each of them (its summed
    gradient reaches each, and every copy takes the same update). Each
    program is then ordered
    by the `schedule`, which the runtime follows:

    - `gpipe`: the forward work of every micro-batch, then every backward.
    - `1f1b`: S - 1 - s forwards to fill the pipeline, then one forward and
      one backward in turn, then the remaining backwards.
    - `interleaved` (Megatron-LM's interleaved 1F1B): the graph was cut into
      S * V chunks (sbp-pipeline-stages with `virtual-stages`); stage s
      holds chunks s, s + S, ..., and runs them in groups of S micro-batches
      per chunk, (S - 1 - s) * 2 + (V - 1) * S forwards ahead, then one
      forward and one backward in turn: a bubble of (S - 1) / (V * M)
      instead of (S - 1) / M. M must be a multiple of S.

    The optimizer update comes last. Outputs (the loss) are sent to rank 0.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "Number of pipeline stages">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"1f1b\"",
           "gpipe, 1f1b or interleaved">,
    Option<"virtualStages", "virtual-stages", "int64_t", /*default=*/"1",
           "Model chunks per stage (interleaved schedule)">,
    Option<"matchReceiveOrder", "match-receive-order", "bool",
           /*default=*/"false",
           "Put each rank's receives from a peer in the order the peer sends "
           "them (NCCL, which CUDA plans use, matches by order, MPI by tag)">,
  ];
  let dependentDialects = ["::mlir::sbp::SBPDialect"];
}

def SbpBucketCollectives : Pass<"sbp-bucket-collectives", "ModuleOp"> {
  let summary = "Coalesce independent collectives of each rank into buckets";
  let description = [{
    Runs on the local programs (after sbp-localize and sbp-pipeline-split).
    Collectives of one kind (`all_reduce`, `reduce_scatter`, `all_gather`),
    group and element type are packed, in program order, into buckets of at
    most `bucket-bytes` input bytes: the members' inputs are reshaped (and,
    when split or gathered along an inner axis, transposed) so that each
    member's block of one concatenated tensor holds its pieces, one
    collective moves the concatenation, and the result is split back.
    A bucket closes when the next collective would overflow it (bytes or
    members) or depends on
    its results, so each bucket is launched as soon as its own inputs exist
    (gradient reductions overlap the rest of the backward pass). Every rank
    applies the same rule to its program; buckets keep their first member's
    tag.
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"26214400",
           "Most input bytes per bucket (0: no buckets); DDP's 25 MiB">,
    Option<"bucketMembers", "bucket-members", "int64_t", /*default=*/"128",
           "Most collectives per bucket (its packing kernels take a pointer "
           "per member; a CUDA kernel's parameters fit 544)">,
  ];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
}

#endif // ONEFLOW_TRANSFORMS_PASSES_TD
