//===- PipelineSchedule.cpp - The order of a pipeline stage's work --------===//

#include "oneflow/Transforms/PipelineSchedule.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::oneflow;

bool mlir::oneflow::isPipelineSchedule(StringRef schedule) {
  return schedule == "gpipe" || schedule == "1f1b" || schedule == "interleaved";
}

std::string mlir::oneflow::checkPipelineSchedule(StringRef schedule,
                                                 int64_t numStages,
                                                 int64_t virtualStages,
                                                 int64_t microbatches) {
  if (!isPipelineSchedule(schedule))
    return "unknown pipeline schedule '" + schedule.str() +
           "' (expected gpipe, 1f1b or interleaved)";
  if (virtualStages < 1)
    return "the number of virtual stages must be positive, got " +
           std::to_string(virtualStages);
  if (schedule != "interleaved") {
    if (virtualStages != 1)
      return "virtual stages (" + std::to_string(virtualStages) +
             ") need the interleaved schedule, not " + schedule.str();
    return "";
  }
  if (virtualStages < 2)
    return "the interleaved schedule needs at least 2 virtual stages per "
           "rank";
  if (microbatches % numStages != 0)
    return "the interleaved schedule runs micro-batches in groups of the " +
           std::to_string(numStages) + " stages: the micro-batch count " +
           std::to_string(microbatches) + " must be a multiple of it";
  return "";
}

SmallVector<PipelineWork> mlir::oneflow::pipelineOrder(StringRef schedule,
                                                       int64_t numStages,
                                                       int64_t virtualStages,
                                                       int64_t microbatches,
                                                       int64_t stage) {
  SmallVector<PipelineWork> order;
  if (schedule == "gpipe") {
    for (int64_t m = 0; m < microbatches; ++m)
      order.push_back({false, m, 0});
    for (int64_t m = 0; m < microbatches; ++m)
      order.push_back({true, m, 0});
    return order;
  }
  int64_t chunks = schedule == "interleaved" ? virtualStages : 1;
  int64_t total = microbatches * chunks;
  // The k-th forward or backward of the rank: groups of S micro-batches
  // go through the chunks in turn (one chunk: micro-batch k).
  auto work = [&](int64_t k, bool backward) {
    int64_t group = k / (numStages * chunks), within = k % (numStages * chunks);
    int64_t chunk = within / numStages;
    int64_t microbatch = group * numStages + within % numStages;
    if (chunks == 1)
      chunk = 0, microbatch = k;
    return PipelineWork{backward, microbatch,
                        backward ? chunks - 1 - chunk : chunk};
  };
  int64_t warmup = chunks == 1
                       ? numStages - 1 - stage
                       : (numStages - 1 - stage) * 2 + (chunks - 1) * numStages;
  warmup = std::min(warmup, total);
  int64_t forward = 0, backward = 0;
  for (; forward < warmup; ++forward)
    order.push_back(work(forward, false));
  while (backward < total) {
    if (forward < total)
      order.push_back(work(forward++, false));
    order.push_back(work(backward++, true));
  }
  return order;
}

SmallVector<int64_t> mlir::oneflow::peakInFlight(ArrayRef<PipelineWork> order,
                                                 int64_t virtualStages) {
  SmallVector<int64_t> current(virtualStages, 0), peak(virtualStages, 0);
  for (const PipelineWork &work : order) {
    int64_t &count = current[work.chunk];
    count += work.backward ? -1 : 1;
    peak[work.chunk] = std::max(peak[work.chunk], count);
  }
  return peak;
}
