//===- RunHelpers.cpp - Running plans in GoogleTest cases -----------------===//

#include "RunHelpers.h"

#include "oneflow/Runtime/PlanGraph.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>

namespace oneflow {
namespace runtime {
namespace test {

Status runWithTimeout(Executor &executor, const RunOptions &options,
                      const InputFeed &feed, const OutputSink &sink) {
  auto done = std::async(std::launch::async,
                         [&] { return executor.run(options, feed, sink); });
  if (done.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fprintf(stderr, "FATAL: the run did not finish in 60 s (hang)\n");
    std::abort();
  }
  return done.get();
}

std::unique_ptr<Executor> loadOrFail(const PlanDir &dir,
                                     const plan::Plan &plan) {
  dir.writePlan(plan);
  Expected<std::unique_ptr<Executor>> executor = Executor::load(dir.path());
  if (!executor.ok()) {
    ADD_FAILURE() << executor.error().message();
    return nullptr;
  }
  return executor.take();
}

std::string planProblems(const plan::Plan &plan) {
  Expected<PlanGraph> graph = PlanGraph::build(plan);
  EXPECT_FALSE(graph.ok()) << "the plan is valid";
  return graph.ok() ? "" : graph.error().message();
}

std::string floatBytes(std::vector<float> values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(float));
}

std::string int32Bytes(std::vector<int32_t> values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(int32_t));
}

} // namespace test
} // namespace runtime
} // namespace oneflow
