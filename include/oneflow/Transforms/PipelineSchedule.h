//===- PipelineSchedule.h - The order of a stage's work ---------*- C++ -*-===//
//
// The schedules a pipelined training step can follow, as the order in which
// one rank runs the forward and backward work of its micro-batches and model
// chunks. sbp-pipeline-split orders each rank's program by it, and
// sbp-pipeline-stages reads from it how many micro-batches' activations a
// chunk holds at once.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TRANSFORMS_PIPELINESCHEDULE_H
#define ONEFLOW_TRANSFORMS_PIPELINESCHEDULE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
namespace oneflow {

/// One piece of a rank's work: the forward or backward of micro-batch
/// `microbatch` through the rank's model chunk `chunk` (its virtual stage:
/// with V chunks per rank and S ranks, chunk v of rank s is stage v * S + s
/// of the model).
struct PipelineWork {
  bool backward = false;
  int64_t microbatch = 0;
  int64_t chunk = 0;
};

/// The schedules: "gpipe", "1f1b", "interleaved".
bool isPipelineSchedule(StringRef schedule);

/// Why (`numStages`, `virtualStages`, `microbatches`) cannot follow
/// `schedule`; empty when they can.
std::string checkPipelineSchedule(StringRef schedule, int64_t numStages,
                                  int64_t virtualStages, int64_t microbatches);

/// The order in which rank `stage` of `numStages` runs its forward and
/// backward work:
///  - gpipe: every micro-batch's forward, then every backward;
///  - 1f1b: S - 1 - s forwards to fill the pipeline, then one forward and
///    one backward in turn, then the remaining backwards;
///  - interleaved (Megatron-LM's interleaved 1F1B, V chunks per rank):
///    forwards go through the chunks in groups of S micro-batches (chunk 0
///    for micro-batches 0..S-1, chunk 1 for the same, ..., then the next S),
///    backwards the same way from the last chunk; (S - 1 - s) * 2 + (V - 1)
///    * S forwards fill the pipeline, then one forward and one backward in
///    turn. Its bubble is (S - 1) / (V * M) of the work instead of
///    (S - 1) / M. Needs M divisible by S.
/// Valid arguments only (see checkPipelineSchedule).
SmallVector<PipelineWork> pipelineOrder(StringRef schedule, int64_t numStages,
                                        int64_t virtualStages,
                                        int64_t microbatches, int64_t stage);

/// For each of the rank's `virtualStages` chunks, the most micro-batches
/// whose activations it holds at once (forward done, backward not yet)
/// under `order`.
SmallVector<int64_t> peakInFlight(ArrayRef<PipelineWork> order,
                                  int64_t virtualStages);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TRANSFORMS_PIPELINESCHEDULE_H
