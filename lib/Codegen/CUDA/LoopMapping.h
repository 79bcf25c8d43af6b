//===- LoopMapping.h - Loop nests onto GPU blocks and threads ---*- C++ -*-===//
//
// oneflow-map-loops-to-gpu's mapping of one nest, for
// oneflow-move-host-work-to-gpu, which runs host code holding a reduction
// as one block of threads; and what the CUDA loop passes share: the block
// size of elementwise launches, which memrefs are one buffer.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_CODEGEN_CUDA_LOOPMAPPING_H
#define ONEFLOW_LIB_CODEGEN_CUDA_LOOPMAPPING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::oneflow {

/// Threads per block of an elementwise nest's launch (one thread per
/// iteration).
constexpr int64_t kElementwiseBlockSize = 256;

/// Marks a top-level scf.parallel whose iterations each run their inner
/// loops alone (a scan along an axis): oneflow-map-loops-to-gpu gives each
/// iteration a thread, as for an elementwise nest, not a block.
constexpr llvm::StringLiteral kThreadPerIterationAttr =
    "oneflow.gpu_thread_per_iteration";

/// The buffer behind a memref of a kernel body: the source of its views,
/// an argument updated in place and its result's out-parameter
/// (oneflow.updates_in_place) being one buffer. Other arguments and
/// allocations are distinct buffers (the plan gives each argument its own
/// register).
class BufferRoots {
public:
  explicit BufferRoots(func::FuncOp func);
  Value rootOf(Value memref) const;

private:
  llvm::DenseMap<Value, Value> sameAs;
};

/// Whether `loop` is a nest of scf.for accumulating into one cell fixed in
/// the nest (`cell = combine(cell, value)`, combine one of gpu.all_reduce's
/// operations), which a block's threads can share.
bool isReductionNest(scf::ForOp loop);

/// Whether `index` names `iv` one to one: `iv`, or it plus, minus or times
/// (a nonzero constant) values fixed outside `nest`, so distinct iterations
/// give distinct indices.
bool followsInductionVar(Value index, Value iv, scf::ForOp nest);

/// Replaces the top-level parallel nest `loop` by a gpu.launch (as
/// oneflow-map-loops-to-gpu does) and erases it.
LogicalResult mapLoopNestToGPU(scf::ParallelOp loop);

} // namespace mlir::oneflow

#endif // ONEFLOW_LIB_CODEGEN_CUDA_LOOPMAPPING_H
