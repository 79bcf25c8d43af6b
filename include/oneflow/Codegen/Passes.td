//===- Passes.td - Kernel code generation passes -----------*- tablegen -*-===//
//
// The passes that lower an outlined kernel to loops and shape them for a
// target: shared by the backends (loop fusion, in-place writes, fast math,
// row loops), then CPU-specific (OpenMP loop shaping).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_CODEGEN_PASSES_TD
#define ONEFLOW_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def ApproximateMath : Pass<"oneflow-approximate-math"> {
  let summary = "Replace f32 transcendental math ops by polynomial approximations";
  let description = [{
    `math.exp`, `math.erf`, `math.tanh`, `math.log` and friends on f32
    become upstream MLIR's polynomial approximations: plain arithmetic that
    LLVM vectorizes, where a libm call would keep the loop scalar. f64 ops
    keep their libm calls (gradient checks rely on their accuracy).
    An f32 division by a constant becomes a multiplication by its
    reciprocal (within an ulp; a divide costs ~10 multiplies and does not
    pipeline).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::math::MathDialect"];
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

def FuseElementwiseLoops
    : Pass<"oneflow-fuse-elementwise-loops", "ModuleOp"> {
  let summary = "Fuse elementwise linalg.generic chains into one loop nest";
  let description = [{
    For kernel bodies on tensors. Like `linalg-fuse-elementwise-ops`, but a
    producer with several users is fused as well when its consumer reads
    each element once: the fused generic also yields the producer's value.
    A kernel that keeps intermediate values for the backward pass (GELU's
    pre-activation, its erf term) then computes and stores them all in one
    sweep over memory instead of one loop nest per stored value.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def WriteInPlace : Pass<"oneflow-write-in-place", "ModuleOp"> {
  let summary = "Let elementwise generics write over a dead operand";
  let description = [{
    For kernel bodies on tensors, before one-shot bufferization. An
    all-parallel `linalg.generic` whose output starts as `tensor.empty` and
    is only written takes as its output an input of the same type, read
    through the identity map, that nothing reads afterwards: bufferization then
    writes the result over that input's buffer (an epilogue runs in place on
    the BLAS output; an elementwise chain needs no second buffer). Function
    arguments are marked `bufferization.writable = false` first: a kernel
    never writes its input registers (bufferization copies if it must).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def FuseRowLoops : Pass<"oneflow-fuse-row-loops", "ModuleOp"> {
  let summary = "Fuse a kernel's adjacent parallel loops over shared rows";
  let description = [{
    After `convert-linalg-to-parallel-loops`. A fused softmax, layer norm or
    cross-entropy is a sequence of loop nests over the same outer
    dimensions: scale and mask, row maximum, exponentials and their sum,
    normalization. Adjacent `scf.parallel` loops that share their leading
    dimensions become one parallel loop over those dimensions whose body runs
    each loop's remaining dimensions sequentially, one after the other: a row
    is read from memory once and stays in cache for every step. Legal when
    each buffer one loop writes and the other accesses is indexed, in both,
    by the shared dimensions themselves; loops whose rows exceed `max-row`
    iterations are left apart (their rows would not stay in cache).
  }];
  let options = [
    Option<"maxRow", "max-row", "int64_t", /*default=*/"8192",
           "Most iterations per shared index for a loop to be fused">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def CollapseContiguousLoops
    : Pass<"oneflow-collapse-contiguous-loops", "ModuleOp"> {
  let summary = "Merge a parallel loop's trailing dimensions over contiguous rows";
  let description = [{
    After `oneflow-fuse-row-loops`. An elementwise nest over a tensor with
    short rows (a 3x3 filter, a 2x2 feature map) vectorizes its innermost
    loop badly: LLVM either runs 3 iterations scalar or vectorizes an outer
    loop with gathers and scatters. The trailing dimensions of an outermost
    reduction-free `scf.parallel` (lower bounds 0, steps 1, static upper
    bounds) are merged into one when each induction variable among them is
    used only as the trailing indices, in order, of loads and stores on
    identity-layout buffers whose trailing sizes are the loop's: those
    buffers are reached through a `memref.collapse_shape` with the merged
    index. The most trailing dimensions that qualify (two or more) are
    merged; others, e.g. a channel indexing a bias, stay.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def SequentialInnerLoops
    : Pass<"oneflow-sequential-inner-loops", "ModuleOp"> {
  let summary = "Give parallel loops a sequential, vectorizable innermost loop";
  let description = [{
    OpenMP collapses every dimension of an `scf.parallel` into one loop, so
    the contiguous innermost index would come back through divisions and
    LLVM could not vectorize. Each outermost reduction-free `scf.parallel`
    with two or more dimensions keeps its last dimension as an `scf.for`
    inside; a one-dimensional one runs blocks of iterations in parallel and
    the iterations of a block sequentially, `block` innermost-body
    iterations per block (fewer loop iterations when each holds a loop).
  }];
  let options = [
    Option<"block", "block", "int64_t", /*default=*/"1024",
           "Innermost iterations per parallel block of a one-dimensional loop">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def PromoteLoopAccumulators
    : Pass<"oneflow-promote-loop-accumulators", "ModuleOp"> {
  let summary = "Keep a loop's invariant memory cells in registers";
  let description = [{
    For kernel loops over buffers, before OpenMP outlining hides which
    buffers are distinct. In an `scf.for` with a static trip count of at
    least one and no memory access other than `memref.load`/`memref.store`:
    loads at loop-invariant indices of a buffer no store of the loop may
    write move before the loop; a cell read and written at invariant indices
    (a reduction's accumulator) becomes a loop-carried value, loaded once
    before the loop and stored once after it. Buffers are told apart when
    they are local allocations or `llvm.noalias` arguments. LLVM then keeps
    row statistics and accumulators in registers and vectorizes the row
    loops of normalizations and their gradients.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def InPlaceKernelResults
    : Pass<"oneflow-in-place-kernel-results", "ModuleOp"> {
  let summary = "Compute results marked updates_in_place into their argument";
  let description = [{
    For kernel bodies on tensors, before bufferization. A result marked in
    `oneflow.updates_in_place` shares its buffer with the argument it names.
    When an all-parallel `linalg.generic` computes it while reading the
    argument with the identity map, and every other reader of the argument
    comes before that generic, the generic writes into the argument (made
    `bufferization.writable`): one read and one write per element. Otherwise
    the kernel reads a copy of the argument made on entry.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

//===----------------------------------------------------------------------===//
// CUDA backend
//===----------------------------------------------------------------------===//

def MapLoopsToGPU : Pass<"oneflow-map-loops-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Run a kernel's loop nests as GPU launches";
  let description = [{
    Each top-level scf.parallel of a kernel body becomes a gpu.launch. An
    elementwise nest runs one thread per iteration (a 1-D grid of
    256-thread blocks over the flattened iteration space). A row nest (a
    parallel loop over rows whose body runs loops over the row, as
    oneflow-fuse-row-loops leaves softmax and layer norm) runs one block per
    row: loops over the row are strided over the block's threads with a
    barrier after each, a loop accumulating into a row cell becomes a
    per-thread accumulation combined by gpu.all_reduce, and other stores run
    on thread 0. Loop bounds must be static.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def PrepareLoopsForGPU : Pass<"oneflow-prepare-loops-for-gpu",
                              "::mlir::func::FuncOp"> {
  let summary = "Give a kernel's loops the shape oneflow-map-loops-to-gpu maps";
  let description = [{
    Before the GPU mapping: memref.copy becomes an elementwise parallel
    nest, and a top-level nest of scf.for around one scf.parallel (a
    reduction over leading dimensions into a vector, e.g. a bias gradient)
    is interchanged into a parallel loop over scf.for loops when the
    parallel iterations touch disjoint elements of every buffer they write,
    so each column becomes a row nest.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def PackElementwiseNests : Pass<"oneflow-pack-elementwise-nests",
                                "::mlir::func::FuncOp"> {
  let summary = "Run independent elementwise nests as one launch, one thread "
                "per element";
  let description = [{
    Before the GPU mapping. A row nest whose body is independent parts (no
    part touches a buffer another writes), each elementwise (every access
    to a buffer the part writes uses one index list naming each induction
    variable of the row and of the part's loops), as oneflow-fuse-row-loops
    leaves the optimizer's horizontally fused update, is split into its
    parts, each flattened into one iteration space. Consecutive independent
    parts and elementwise nests then become one parallel nest over their
    iteration spaces laid end to end, each rounded up to whole 256-thread
    blocks, a binary search over the boundaries picking the part: one
    launch, one thread per element, each block running one part (PyTorch's
    multi-tensor apply). Other nests are left as they are.
  }];
  let options = [
    Option<"maxArguments", "max-arguments", "unsigned", /*default=*/"512",
           "Most values from outside (launch arguments, 8-byte slots) one "
           "packed nest may use: 512 fill CUDA's 4 KB of kernel parameters">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def GpuLaunchesToCpuLoops
    : Pass<"oneflow-gpu-launches-to-cpu-loops", "::mlir::ModuleOp"> {
  let summary = "Run every gpu.launch as sequential CPU loops with GPU semantics";
  let description = [{
    For checking the CUDA backend's loop mapping on a machine without a
    GPU. A launch becomes a loop nest over its blocks; inside, the body is
    split at each top-level `gpu.barrier` and `gpu.all_reduce` into phases
    (MCUDA's loop fission), each run in a loop nest over the block's
    threads. Per-thread values used after a barrier live in a per-thread
    buffer (an alloca of blockDim elements) unless uniform (pure and
    computed from block-level values: computed once per block). A
    `gpu.all_reduce` folds the threads' operands in thread order, with its
    combining kind or region; its result is uniform. Barriers and
    all-reduces inside other regions, warp-level ops, asynchronous launches,
    clusters and memory attributions are errors.

    A sequential run cannot show a race between the threads of one phase;
    `reverse-threads` runs each phase's threads in reverse (the all-reduce
    folds keep thread order): a kernel whose results then change has one.
  }];
  let options = [
    Option<"reverseThreads", "reverse-threads", "bool", /*default=*/"false",
           "Run the threads of each phase from the last to the first">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def MoveHostWorkToGPU : Pass<"oneflow-move-host-work-to-gpu",
                             "::mlir::func::FuncOp"> {
  let summary = "Leave the host only launches, library calls and allocations";
  let description = [{
    After oneflow-map-loops-to-gpu, buffers live on the device: a launch
    that captures a scalar the host computes from buffers recomputes it in
    its body, constant globals it reads move into it (outlining copies them
    into the GPU module), a full reduction into one cell becomes a launch
    of one block (gpu.all_reduce), and every other run of host ops that
    reads or writes buffers becomes a launch of one thread.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect"];
}

def GpuLaunchesToRuntimeCalls : Pass<"oneflow-gpu-launches-to-runtime-calls",
                                     "::mlir::ModuleOp"> {
  let summary = "Host code of CUDA kernels: calls of oneflow-run's CUDA ABI";
  let description = [{
    After gpu-module-to-binary: each gpu.launch_func becomes a call of
    oneflow_cuda_launch with the kernel's index in the module's
    `oneflow.gpu_kernels` list and its arguments as 8-byte slots; product
    and convolution library calls become their oneflow_cuda_ versions
    (other library calls are errors); the GPU binary is dropped.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def FoldGemmEpilogues : Pass<"oneflow-fold-gemm-epilogues", "::mlir::ModuleOp"> {
  let summary = "Fold bias and ReLU around a product into its cuBLASLt call";
  let description = [{
    On bufferized kernels (CUDA path): a batched product with a contiguous,
    untransposed A and a B shared by every batch becomes one product of
    batch * m rows; a broadcast of a bias vector over the rows of C before
    `oneflow_gemm_acc_f32(a, b, c, ...)` becomes
    `oneflow_gemm_bias_f32(a, b, bias, c, ...)` (cuBLASLt's bias
    epilogue), and an in-place ReLU of C right after it
    `oneflow_gemm_bias_relu_f32`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def FoldGemmTensorEpilogues
    : Pass<"oneflow-fold-gemm-tensor-epilogues", "::mlir::ModuleOp"> {
  let summary = "Fold GELU and bias gradients around a product into its "
                "cuBLASLt call";
  let description = [{
    On kernels on tensors, before oneflow-approximate-math (CUDA path): a
    product into a fresh buffer whose only reader is an elementwise
    gelu(product + bias) in tanh form becomes
    `oneflow_gemm_bias_gelu_f32(a, b, bias, c, ...)` (cuBLASLt's GELU_BIAS
    epilogue; erf GELU is a different function and is left alone); a plain
    product whose untransposed b (or transposed a) also feeds a column sum
    into zeros becomes `oneflow_gemm_bgrad_b_f32` (`_a_`), which writes the
    sum as well (cuBLASLt's BGRADA / BGRADB: a linear layer's bias gradient
    with its weight gradient).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def FoldGemmAuxEpilogues
    : Pass<"oneflow-fold-gemm-aux-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Fold activation gradients into their products' cuBLASLt "
                "epilogues (CUDA graphs)";
  let description = [{
    On a CUDA plan's rank programs (oneflow ops), before fusion: a linear
    layer `act(x W + b)`, act ReLU or GELU in tanh form, whose activation
    gradient `dh * act'(pre)` the training step computes from a backward
    product `dh = dY W_next` becomes `oneflow.matmul_act_aux` (cuBLASLt's
    RELU_AUX_BIAS / GELU_AUX_BIAS: h and an aux tensor, the ReLU bit mask
    or the pre-activation) and `oneflow.matmul_act_grad` (DRELU / DGELU
    reading that aux; with the layer's bias gradient, the column sum of
    the result, DRELU_BGRAD / DGELU_BGRAD). The backward ops are checked to
    compute `dh * act'(pre)` by evaluating them at sample points; layers
    where one of cuBLASLt's rules does not hold are left alone.
  }];
}

#endif // ONEFLOW_CODEGEN_PASSES_TD
