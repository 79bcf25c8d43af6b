//===- runtime_overhead.cpp - The engine's cost per actor firing ----------===//
//
// oneflow-runtime-bench [TASKS [STEPS [REPEATS]]]   (default 100 1000 5)
//
// Runs chains of TASKS no-op kernels (test_noop from the test kernel
// library) for STEPS steps and prints the wall time per firing: the cost of
// the runtime itself (readiness checks, messages, slot bookkeeping, the
// kernel call), in a few configurations. The best of REPEATS runs counts.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

struct Config {
  const char *name;
  std::vector<std::string> streams; // tasks take these in turn
  int slots;
  bool trace;
};

plan::Plan chain(int tasks, const Config &config) {
  PlanBuilder b;
  int64_t previous = -1;
  for (int k = 0; k < tasks; ++k) {
    int64_t next = b.regst("v" + std::to_string(k), plan::F32, {kTestLength},
                           config.slots);
    std::vector<int64_t> ins;
    if (previous >= 0)
      ins.push_back(previous);
    b.kernel("noop" + std::to_string(k), "test_noop", ins, {next},
             config.streams[k % config.streams.size()]);
    previous = next;
  }
  return b.plan;
}

} // namespace

int main(int argc, char **argv) {
  int tasks = argc > 1 ? std::atoi(argv[1]) : 100;
  int steps = argc > 2 ? std::atoi(argv[2]) : 1000;
  int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  if (tasks < 1 || steps < 1 || repeats < 1) {
    std::fprintf(stderr, "usage: oneflow-runtime-bench [TASKS [STEPS "
                         "[REPEATS]]]\n");
    return 1;
  }
  const Config configs[] = {
      {"one stream", {"compute"}, 1, false},
      {"one stream, traced", {"compute"}, 1, true},
      {"two streams alternating, 1 slot", {"compute", "comm"}, 1, false},
      {"two streams alternating, 2 slots", {"compute", "comm"}, 2, false},
  };
  std::printf("chain of %d no-op kernels, %d steps, best of %d runs\n", tasks,
              steps, repeats);
  for (const Config &config : configs) {
    PlanDir dir;
    dir.writePlan(chain(tasks, config));
    Expected<std::unique_ptr<Executor>> executor = Executor::load(dir.path());
    if (!executor.ok()) {
      std::fprintf(stderr, "error: %s\n", executor.error().message().c_str());
      return 1;
    }
    RunOptions options;
    options.steps = steps;
    options.trace = config.trace;
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
      Status status = (*executor)->run(options, InputFeed(), OutputSink());
      if (!status.ok()) {
        std::fprintf(stderr, "error: %s\n", status.message().c_str());
        return 1;
      }
      best = std::min(best, (*executor)->stats().totalSeconds);
    }
    double firings = double(tasks) * steps;
    std::printf("  %-34s %8.1f ns/firing  (%.2f ms per run)\n", config.name,
                best * 1e9 / firings, best * 1e3);
  }
  return 0;
}
