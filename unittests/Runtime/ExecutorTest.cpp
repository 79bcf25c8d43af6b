//===- ExecutorTest.cpp - The actor engine on real plans and kernels ------===//

#include "RunHelpers.h"

#include "oneflow/Runtime/Initializer.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstring>
#include <dirent.h>
#include <random>
#include <sched.h>
#include <thread>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

/// Step s feeds {s, s+1, s+2, s+3}.
std::vector<std::map<std::string, HostTensor>> rampInputs(int steps) {
  std::vector<std::map<std::string, HostTensor>> perStep;
  for (int s = 0; s < steps; ++s)
    perStep.push_back({{"x", vec({float(s), s + 1.f, s + 2.f, s + 3.f})}});
  return perStep;
}

int countThreads() {
  int count = 0;
  if (DIR *dir = ::opendir("/proc/self/task")) {
    while (dirent *entry = ::readdir(dir))
      count += entry->d_name[0] != '.';
    ::closedir(dir);
  }
  return count;
}

/// The thread count once it has fallen to `expected`, or after a second:
/// runWithTimeout's helper thread hands over the result just before it
/// exits, so it may still be listed for a moment.
int countThreadsSettled(int expected) {
  int count = countThreads();
  for (int i = 0; i < 100 && count > expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    count = countThreads();
  }
  return count;
}

TEST(Executor, ChainComputesEveryStep) {
  PlanBuilder b;
  int64_t x = b.regst("x"), a = b.regst("a"), y = b.regst("y");
  int64_t scale = b.persistent("scale", /*weightsOffset=*/4, plan::F32, {1});
  b.input("x", x);
  b.kernel("double", "test_add_f32", {x, x}, {a});
  b.kernel("scale", "test_scale", {a, scale}, {y});
  b.output("y", y);
  PlanDir dir;
  dir.write("weights.bin", floatBytes({0, 3}));
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);

  const int steps = 8;
  OutputCollector outputs(b.plan, steps, /*everyStep=*/true);
  RunOptions options;
  options.steps = steps;
  std::vector<int64_t> reported;
  options.onStepDone = [&](int64_t step, double seconds) {
    reported.push_back(step);
    EXPECT_GE(seconds, 0);
  };
  Status status = runWithTimeout(
      *executor, options, feedTensors(rampInputs(steps)), outputs.sink());
  ASSERT_TRUE(status.ok()) << status.message();
  for (int s = 0; s < steps; ++s)
    EXPECT_EQ(values(outputs.output("y", s)),
              (std::vector<float>{6.f * s, 6.f * (s + 1), 6.f * (s + 2),
                                  6.f * (s + 3)}))
        << "step " << s;
  EXPECT_EQ(reported, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(executor->stats().stepSeconds.size(), size_t(steps));
  EXPECT_EQ(executor->stats().firings, 4 * steps);
}

/// The CPUs each stream's thread may run on: {count, lowest} from a kernel
/// on the compute and one on the comm stream.
std::pair<std::vector<float>, std::vector<float>>
streamThreadCpus(const ExecutorOptions &executorOptions) {
  PlanBuilder b;
  int64_t x = b.regst("x"), a = b.regst("a"), c = b.regst("c");
  b.input("x", x);
  b.kernel("on compute", "test_thread_cpus", {x}, {a}, "compute");
  b.kernel("on comm", "test_thread_cpus", {x}, {c}, "comm");
  b.output("a", a);
  b.output("c", c);
  PlanDir dir;
  dir.writePlan(b.plan);
  Expected<std::unique_ptr<Executor>> executor =
      Executor::load(dir.path(), executorOptions);
  if (!executor.ok()) {
    ADD_FAILURE() << executor.error().message();
    return {};
  }
  OutputCollector outputs(b.plan, 1, /*everyStep=*/true);
  RunOptions options;
  Status status = runWithTimeout(**executor, options,
                                 feedTensors(rampInputs(1)), outputs.sink());
  EXPECT_TRUE(status.ok()) << status.message();
  std::vector<float> onCompute = values(outputs.output("a", 0));
  std::vector<float> onComm = values(outputs.output("c", 0));
  onCompute.resize(2);
  onComm.resize(2);
  return {onCompute, onComm};
}

TEST(Executor, StreamCpuBindsEveryStreamThread) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &allowed))
    ++cpu;
  float processCpus = float(CPU_COUNT(&allowed));

  ExecutorOptions unbound;
  auto [computeFree, commFree] = streamThreadCpus(unbound);
  EXPECT_EQ(computeFree.at(0), processCpus);
  EXPECT_EQ(commFree.at(0), processCpus);

  ExecutorOptions bound;
  bound.streamCpu = cpu;
  auto [compute, comm] = streamThreadCpus(bound);
  EXPECT_EQ(compute, (std::vector<float>{1.f, float(cpu)}));
  EXPECT_EQ(comm, (std::vector<float>{1.f, float(cpu)}));
  // The process itself keeps its CPUs (only the engine's threads move).
  cpu_set_t after;
  ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&allowed, &after));
}

/// x -> copy (compute) -> a; x -> scale by 2 (comm) -> b; a + b -> y:
/// y = 3x, across two streams with various slot counts.
struct DiamondSlots {
  int x, a, b, y;
};
class Diamond : public testing::TestWithParam<DiamondSlots> {};

TEST_P(Diamond, JoinsAcrossStreams) {
  DiamondSlots slots = GetParam();
  PlanBuilder b;
  int64_t x = b.regst("x", plan::F32, {kTestLength}, slots.x);
  int64_t a = b.regst("a", plan::F32, {kTestLength}, slots.a);
  int64_t c = b.regst("b", plan::F32, {kTestLength}, slots.b);
  int64_t y = b.regst("y", plan::F32, {kTestLength}, slots.y);
  int64_t two = b.persistent("two", 0, plan::F32, {1});
  b.input("x", x);
  b.kernel("copy", "test_copy_f32", {x}, {a}, "compute");
  b.kernel("scale", "test_scale", {x, two}, {c}, "comm");
  b.kernel("add", "test_add_f32", {a, c}, {y}, "compute");
  b.output("y", y);
  PlanDir dir;
  dir.write("weights.bin", floatBytes({2}));
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);

  const int steps = 25;
  OutputCollector outputs(b.plan, steps, true);
  RunOptions options;
  options.steps = steps;
  Status status = runWithTimeout(
      *executor, options, feedTensors(rampInputs(steps)), outputs.sink());
  ASSERT_TRUE(status.ok()) << status.message();
  for (int s = 0; s < steps; ++s)
    EXPECT_EQ(values(outputs.output("y", s)),
              (std::vector<float>{3.f * s, 3.f * (s + 1), 3.f * (s + 2),
                                  3.f * (s + 3)}))
        << "step " << s;
}

INSTANTIATE_TEST_SUITE_P(
    Slots, Diamond,
    testing::Values(DiamondSlots{1, 1, 1, 1}, DiamondSlots{2, 3, 1, 1},
                    DiamondSlots{1, 2, 4, 3}, DiamondSlots{3, 3, 3, 3}),
    [](const testing::TestParamInfo<DiamondSlots> &info) {
      const DiamondSlots &s = info.param;
      return "x" + std::to_string(s.x) + "a" + std::to_string(s.a) + "b" +
             std::to_string(s.b) + "y" + std::to_string(s.y);
    });

/// Random DAGs of copy/add kernels on random streams and slot counts,
/// checked against a direct evaluation, step by step.
class RandomGraph : public testing::TestWithParam<int> {};

TEST_P(RandomGraph, MatchesReference) {
  std::mt19937 rng(GetParam());
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  const char *streams[] = {"compute", "comm", "io"};
  PlanBuilder b;
  std::vector<int64_t> regsts = {
      b.regst("x", plan::F32, {kTestLength}, 1 + pick(3))};
  // Each value is coefficient * x (elementwise), so the reference is exact.
  std::vector<float> coefficient = {1};
  std::vector<int> consumers = {0};
  b.input("x", regsts[0], streams[pick(3)]);
  const int kernels = 12 + pick(20);
  for (int k = 0; k < kernels; ++k) {
    int64_t out = b.regst("v" + std::to_string(k + 1), plan::F32, {kTestLength},
                          1 + pick(3));
    int i = pick(int(regsts.size()));
    if (pick(2)) {
      int j = pick(int(regsts.size()));
      b.kernel("add" + std::to_string(k), "test_add_f32",
               {regsts[i], regsts[j]}, {out}, streams[pick(3)]);
      coefficient.push_back(coefficient[i] + coefficient[j]);
      ++consumers[j];
    } else {
      b.kernel("copy" + std::to_string(k),
               pick(8) ? "test_copy_f32" : "test_slow_copy_f32", {regsts[i]},
               {out}, streams[pick(3)]);
      coefficient.push_back(coefficient[i]);
    }
    ++consumers[i];
    regsts.push_back(out);
    consumers.push_back(0);
  }
  std::vector<std::string> outputNames;
  for (size_t r = 0; r < regsts.size(); ++r)
    if (consumers[r] == 0 || pick(4) == 0) {
      outputNames.push_back("out" + std::to_string(r));
      b.output(outputNames.back(), regsts[r], streams[pick(3)]);
    }
  PlanDir dir;
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);

  const int steps = 6;
  OutputCollector outputs(b.plan, steps, true);
  RunOptions options;
  options.steps = steps;
  Status status = runWithTimeout(
      *executor, options, feedTensors(rampInputs(steps)), outputs.sink());
  ASSERT_TRUE(status.ok()) << status.message();
  for (const std::string &name : outputNames) {
    float c = coefficient[std::stoi(name.substr(3))];
    for (int s = 0; s < steps; ++s)
      EXPECT_EQ(
          values(outputs.output(name, s)),
          (std::vector<float>{c * s, c * (s + 1), c * (s + 2), c * (s + 3)}))
          << name << " at step " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGraph, testing::Range(0, 12));

/// A producer whose output has k slots runs at most k steps ahead of a slow
/// consumer on another stream, and does reach k (the slots are used).
class BackPressure : public testing::TestWithParam<int> {};

TEST_P(BackPressure, ProducerStaysWithinSlots) {
  const int k = GetParam();
  PlanBuilder b;
  int64_t producerId = b.persistent("producer id", 0, plan::I32, {1});
  int64_t consumerId = b.persistent("consumer id", 4, plan::I32, {1});
  int64_t x = b.regst("x");
  int64_t piece = b.regst("piece", plan::F32, {kTestLength}, k);
  int64_t y = b.regst("y");
  b.input("x", x, "io");
  b.kernel("producer", "test_record", {producerId, x}, {piece}, "compute");
  b.kernel("consumer", "test_slow_record", {consumerId, piece}, {y}, "comm");
  b.output("y", y, "comm");
  PlanDir dir;
  dir.write("weights.bin", int32Bytes({1, 2}));
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);

  resetKernelLog();
  const int steps = 30;
  RunOptions options;
  options.steps = steps;
  OutputCollector outputs(b.plan, steps, false);
  Status status = runWithTimeout(
      *executor, options, feedTensors(rampInputs(steps)), outputs.sink());
  ASSERT_TRUE(status.ok()) << status.message();

  std::vector<int32_t> log = kernelLog();
  ASSERT_EQ(log.size(), size_t(2 * steps));
  int produced = 0, consumed = 0, maxLead = 0;
  for (int32_t id : log) {
    (id == 1 ? produced : consumed) += 1;
    maxLead = std::max(maxLead, produced - consumed);
  }
  std::printf("num_slots = %d: the producer ran at most %d steps ahead\n", k,
              maxLead);
  EXPECT_LE(maxLead, k);
  // The consumer sleeps before it logs, so the fast producer fills every
  // free slot first.
  EXPECT_EQ(maxLead, k);
}

INSTANTIATE_TEST_SUITE_P(Slots, BackPressure, testing::Values(1, 2, 3, 5));

TEST(Executor, PersistentRegstsAreReadEveryStep) {
  PlanBuilder b;
  int64_t x = b.regst("x"), a = b.regst("a"), c = b.regst("c");
  int64_t w = b.persistent("w", 16); // {5, 6, 7, 8} after 4 padding floats
  int64_t zeros = b.persistent("zeros", -1);
  b.input("x", x);
  b.kernel("add w", "test_add_f32", {x, w}, {a}, "compute");
  b.kernel("add zeros", "test_add_f32", {zeros, w}, {c}, "comm");
  b.output("a", a);
  b.output("c", c);
  b.output("w", w); // A persistent regst read by an OUTPUT task.
  PlanDir dir;
  dir.write("weights.bin", floatBytes({-1, -1, -1, -1, 5, 6, 7, 8}));
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);
  const int steps = 5;
  OutputCollector outputs(b.plan, steps, true);
  RunOptions options;
  options.steps = steps;
  Status status = runWithTimeout(
      *executor, options, feedTensors(rampInputs(steps)), outputs.sink());
  ASSERT_TRUE(status.ok()) << status.message();
  for (int s = 0; s < steps; ++s) {
    EXPECT_EQ(values(outputs.output("a", s)),
              (std::vector<float>{5.f + s, 7.f + s, 9.f + s, 11.f + s}));
    EXPECT_EQ(values(outputs.output("c", s)), (std::vector<float>{5, 6, 7, 8}));
    EXPECT_EQ(values(outputs.output("w", s)), (std::vector<float>{5, 6, 7, 8}));
  }
  float *data = static_cast<float *>(executor->persistentData(w));
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data[0], 5);
  EXPECT_EQ(executor->persistentData(x), nullptr);
}

TEST(Executor, InitializersFillTheirPieceAtLoad) {
  // A 2x4 normal variable in two row pieces, and a ones regst; no weights
  // and no weights file.
  PlanBuilder b;
  int64_t x = b.regst("x"), a = b.regst("a");
  int64_t top = b.persistent("w.top", -1, plan::F32, {1, 4});
  int64_t bottom = b.persistent("w.bottom", -1, plan::F32, {1, 4});
  int64_t ones = b.persistent("ones");
  plan::Initializer init;
  init.set_kind(plan::Initializer::NORMAL);
  init.set_std(0.5);
  init.set_seed(11);
  init.set_stream(3);
  for (auto [regst, row] : {std::pair(top, 0), std::pair(bottom, 1)}) {
    b.variable(regst, "w", {2, 4}, {row, 0});
    *b.regstById(regst).mutable_initializer() = init;
  }
  b.regstById(ones).mutable_initializer()->set_kind(plan::Initializer::ONES);
  b.input("x", x);
  b.kernel("add", "test_add_f32", {x, ones}, {a});
  b.kernel("read w", "test_add_f32", {top, bottom}, {b.regst("unused")});
  b.output("a", a);
  PlanDir dir;
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);
  InitializerSampler sampler(init);
  for (auto [regst, first] : {std::pair(top, 0), std::pair(bottom, 4)}) {
    const float *piece =
        static_cast<const float *>(executor->persistentData(regst));
    ASSERT_NE(piece, nullptr);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(piece[i], float(sampler(first + i))) << first + i;
  }
  EXPECT_EQ(static_cast<const float *>(
                executor->persistentData(ones))[kTestLength - 1],
            1.0f);
}

/// x -> slow copy (comm) -> a -> copy (compute) -> y, with a feed that
/// fails at step 3: every thread stops, run() returns the error, nothing
/// hangs, and the executor runs again afterwards.
TEST(Executor, AnErrorStopsEveryThread) {
  PlanBuilder b;
  int64_t x = b.regst("x", plan::F32, {kTestLength}, 2);
  int64_t a = b.regst("a", plan::F32, {kTestLength}, 2), y = b.regst("y");
  b.input("x", x);
  b.kernel("slow", "test_slow_copy_f32", {x}, {a}, "comm");
  b.kernel("copy", "test_copy_f32", {a}, {y}, "compute");
  b.output("y", y, "compute");
  PlanDir dir;
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);

  const int steps = 10;
  auto inputs = rampInputs(steps);
  inputs[3]["x"] = vec({1, 2}); // The wrong size.
  RunOptions options;
  options.steps = steps;
  OutputCollector outputs(b.plan, steps, true);
  // A first run lets helper threads the process starts lazily (e.g. a
  // sanitizer's) appear before counting ours.
  Status status = runWithTimeout(
      *executor, options, feedTensors(rampInputs(steps)), outputs.sink());
  ASSERT_TRUE(status.ok()) << status.message();
  int threadsBefore = countThreads();
  status =
      runWithTimeout(*executor, options, feedTensors(inputs), outputs.sink());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("task 'input x'"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("at step 3"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("input 'x' is f32[2]"), std::string::npos)
      << status.message();
  EXPECT_LE(executor->stats().stepSeconds.size(), 3u);
  // Every engine thread was joined.
  EXPECT_EQ(countThreadsSettled(threadsBefore), threadsBefore);

  // A failing sink stops the run too.
  int calls = 0;
  OutputSink failing = [&](const std::string &, int64_t step, const void *,
                           int64_t) {
    ++calls;
    return step == 2 ? Status::error("disk full") : Status::success();
  };
  status = runWithTimeout(*executor, options, feedTensors(rampInputs(steps)),
                          failing);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("disk full"), std::string::npos);
  EXPECT_EQ(calls, 3);

  // The state is reset for the next run.
  status = runWithTimeout(*executor, options, feedTensors(rampInputs(steps)),
                          outputs.sink());
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(values(outputs.output("y", 9)),
            (std::vector<float>{9, 10, 11, 12}));
  EXPECT_EQ(countThreadsSettled(threadsBefore), threadsBefore);
}

TEST(Executor, MissingInputValueIsAnError) {
  PlanBuilder b;
  int64_t x = b.regst("x"), y = b.regst("y");
  b.input("x", x);
  b.kernel("copy", "test_copy_f32", {x}, {y});
  b.output("y", y);
  PlanDir dir;
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);
  Status status =
      runWithTimeout(*executor, RunOptions(), feedTensors({{}}), OutputSink());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no value for input 'x'"), std::string::npos)
      << status.message();
}

TEST(Executor, TraceHasOneEventPerFiring) {
  PlanBuilder b;
  int64_t x = b.regst("x"), y = b.regst("y");
  b.input("x", x);
  b.kernel("copy", "test_copy_f32", {x}, {y}, "comm");
  b.output("y", y);
  PlanDir dir;
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);
  RunOptions options;
  options.steps = 3;
  options.trace = true;
  Status status = runWithTimeout(*executor, options, feedTensors(rampInputs(3)),
                                 OutputSink());
  ASSERT_TRUE(status.ok()) << status.message();
  const std::vector<TraceEvent> &trace = executor->trace();
  ASSERT_EQ(trace.size(), 9u);
  int copies = 0;
  for (const TraceEvent &event : trace) {
    EXPECT_GE(event.startNs, 0);
    EXPECT_GE(event.durationNs, 0);
    EXPECT_EQ(event.rank, 0);
    if (event.name == "copy") {
      EXPECT_EQ(event.stream, "comm");
      EXPECT_EQ(event.taskId, 1);
      EXPECT_EQ(event.step, copies++);
    }
  }
  EXPECT_EQ(copies, 3);
}

TEST(Executor, WeightsFileTooShort) {
  PlanBuilder b;
  int64_t x = b.regst("x"), y = b.regst("y");
  int64_t w = b.persistent("w", 8);
  b.input("x", x);
  b.kernel("add", "test_add_f32", {x, w}, {y});
  b.output("y", y);
  PlanDir dir;
  dir.write("weights.bin", std::string(10, '\0'));
  dir.writePlan(b.plan);
  Expected<std::unique_ptr<Executor>> executor = Executor::load(dir.path());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find(
                "is too short: regst 'w' (id 2) needs bytes [8, 24), the "
                "file has 10"),
            std::string::npos)
      << executor.error().message();

  std::remove(dir.file("weights.bin").c_str());
  executor = Executor::load(dir.path());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find("cannot read weights file"),
            std::string::npos)
      << executor.error().message();
}

TEST(Executor, RejectsMultiRankPlans) {
  PlanBuilder b;
  int64_t x = b.regst("x"), y = b.regst("y");
  b.input("x", x);
  b.kernel("copy", "test_copy_f32", {x}, {y});
  b.output("y", y);
  b.plan.set_num_ranks(2);
  PlanDir dir;
  dir.writePlan(b.plan);
  Expected<std::unique_ptr<Executor>> executor = Executor::load(dir.path());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find("the plan has 2 ranks"),
            std::string::npos)
      << executor.error().message();
}

TEST(Executor, MissingOrCorruptPlan) {
  PlanDir dir;
  Expected<std::unique_ptr<Executor>> executor = Executor::load(dir.path());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find("plan.pb"), std::string::npos);
  dir.write("plan.pb", "\xff\xff\xff garbage");
  executor = Executor::load(dir.path());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find("is not a valid plan"),
            std::string::npos)
      << executor.error().message();
  executor = Executor::load(dir.path() + "/nonexistent");
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find("does not exist"),
            std::string::npos);
}

TEST(Executor, IdentityGraphNeedsNoKernelLibrary) {
  PlanBuilder b;
  int64_t x = b.regst("x");
  b.input("x", x);
  b.output("y", x);
  b.plan.clear_kernel_library();
  PlanDir dir;
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);
  OutputCollector outputs(b.plan, 2, true);
  RunOptions options;
  options.steps = 2;
  Status status = runWithTimeout(*executor, options, feedTensors(rampInputs(2)),
                                 outputs.sink());
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(values(outputs.output("y", 1)), (std::vector<float>{1, 2, 3, 4}));
}

} // namespace
