//===- WatchdogTest.cpp - The watchdog's logic, thread and engine hooks ---===//

#include "RunHelpers.h"

#include "oneflow/Runtime/Watchdog.h"

#include "gtest/gtest.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

TEST(Watchdog, PlacesRoundTripAndGrowAlongTheSchedule) {
  const int tasks = 3;
  std::vector<ThreadPlace> order;
  for (int64_t step = 0; step < 3; ++step) {
    order.push_back({step, 0, ThreadPlace::StepBarrier});
    for (int task = 0; task < tasks; ++task) {
      order.push_back({step, task, ThreadPlace::Waiting});
      order.push_back({step, task, ThreadPlace::Running});
    }
    order.push_back({step, tasks, ThreadPlace::Finishing});
    order.push_back({step, tasks, ThreadPlace::Sending});
  }
  order.push_back({2, tasks, ThreadPlace::Done});
  int64_t previous = -1;
  for (const ThreadPlace &place : order) {
    int64_t code =
        ThreadPlace::encode(place.step, place.task, place.activity, tasks);
    EXPECT_GT(code, previous) << "step " << place.step << " task " << place.task
                              << " activity " << place.activity;
    previous = code;
    ThreadPlace back = ThreadPlace::decode(code, tasks);
    EXPECT_EQ(back.step, place.step);
    EXPECT_EQ(back.task, place.task);
    EXPECT_EQ(back.activity, place.activity);
  }
  // Large steps of large schedules still fit.
  int64_t big = ThreadPlace::encode(int64_t(1) << 36, 999999,
                                    ThreadPlace::Running, 1000000);
  EXPECT_EQ(ThreadPlace::decode(big, 1000000).step, int64_t(1) << 36);
  EXPECT_EQ(ThreadPlace::decode(big, 1000000).task, 999999);
}

TEST(Watchdog, DetectorFiresOnlyAfterTheLimitWithoutChange) {
  StallDetector detector;
  std::vector<int64_t> a = {1, 2}, b = {1, 3};
  EXPECT_FALSE(detector.observe(a, 10.0, 2.5));
  EXPECT_FALSE(detector.observe(a, 11.0, 2.5));
  EXPECT_FALSE(detector.observe(a, 12.4, 2.5));
  EXPECT_TRUE(detector.observe(a, 12.5, 2.5));
  EXPECT_DOUBLE_EQ(detector.idleSeconds(12.5), 2.5);
  // A change restarts the clock.
  EXPECT_FALSE(detector.observe(b, 13.0, 2.5));
  EXPECT_FALSE(detector.observe(b, 15.4, 2.5));
  EXPECT_TRUE(detector.observe(b, 15.5, 2.5));
  // A longer limit (startup) applies to the same idle time.
  EXPECT_FALSE(detector.observe(b, 15.6, 10));
  // No limit: never.
  EXPECT_FALSE(detector.observe(b, 1e9, 0));
  detector.reset(20.0);
  EXPECT_FALSE(detector.observe(b, 20.0, 1));
  EXPECT_TRUE(detector.observe(b, 21.0, 1));
}

TEST(Watchdog, FormatsRankLists) {
  EXPECT_EQ(formatRanks({}), "");
  EXPECT_EQ(formatRanks({3}), "3");
  EXPECT_EQ(formatRanks({0, 1}), "0, 1");
  EXPECT_EQ(formatRanks({0, 1, 2, 5, 7, 8}), "0-2, 5, 7, 8");
  EXPECT_EQ(formatRanks({2, 0}), "2, 0");
  std::vector<int> many;
  for (int r = 0; r < 1000; ++r)
    if (r != 17)
      many.push_back(r);
  EXPECT_EQ(formatRanks(many), "0-16, 18-999");
}

TEST(Watchdog, DescribesTasks) {
  PlanBuilder b;
  int64_t x = b.regst("x"), y = b.regst("y"), z = b.regst("z");
  int64_t input = b.input("x", x);
  int64_t kernel = b.kernel("copy", "test_copy_f32", {x}, {y});
  int64_t sum =
      b.collective("sum", plan::Collective::ALL_REDUCE, 0, {y}, {z}, {0, 1, 2},
                   /*tag=*/7);
  int64_t recv = b.collective("recv", plan::Collective::RECV, 0, {}, {x}, {},
                              /*tag=*/2, 0, 0, /*peer=*/1);
  int64_t send = b.collective("send", plan::Collective::SEND, 1, {z}, {}, {},
                              /*tag=*/3, 0, 0, /*peer=*/0);
  EXPECT_EQ(describeBlockingTask(b.taskById(input)),
            "task 'input x' (id " + std::to_string(input) + ", INPUT 'x')");
  EXPECT_EQ(describeBlockingTask(b.taskById(kernel)),
            "task 'copy' (id 1, KERNEL test_copy_f32)");
  EXPECT_EQ(describeBlockingTask(b.taskById(sum)),
            "task 'sum' (id 2, ALL_REDUCE tag 7 over ranks [0-2])");
  EXPECT_EQ(describeBlockingTask(b.taskById(recv)),
            "task 'recv' (id 3, RECV from rank 1, tag 2)");
  EXPECT_EQ(describeBlockingTask(b.taskById(send)),
            "task 'send' (id 4, SEND to rank 0, tag 3)");
  b.taskById(kernel).clear_name();
  EXPECT_EQ(describeBlockingTask(b.taskById(kernel)),
            "task (id 1, KERNEL test_copy_f32)");
}

TEST(Watchdog, SummaryGroupsRanksAndNamesTheSilentOnes) {
  std::map<int, std::string> answers = {
      {0, "in ALL_REDUCE tag 1 over ranks [0-3] at step 3"},
      {2, "in ALL_REDUCE tag 1 over ranks [0-3] at step 3"},
      {3, "running task 'f' (id 9, KERNEL f) at step 3"}};
  EXPECT_EQ(summarizeAnswers(4, answers),
            (std::vector<std::string>{
                "rank 1: no answer (stopped, hung or dead)",
                "ranks 0, 2: in ALL_REDUCE tag 1 over ranks [0-3] at step 3",
                "rank 3: running task 'f' (id 9, KERNEL f) at step 3"}));
  // Everyone answered alike: one line.
  std::map<int, std::string> alike;
  for (int r = 0; r < 1000; ++r)
    alike[r] = "x";
  EXPECT_EQ(summarizeAnswers(1000, alike),
            (std::vector<std::string>{"ranks 0-999: x"}));
  // A ring: every rank a line of its own, capped.
  std::map<int, std::string> ring;
  for (int r = 0; r < 100; ++r)
    ring[r] = "receiving from rank " + std::to_string((r + 99) % 100);
  std::vector<std::string> lines = summarizeAnswers(100, ring, 4);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "rank 0: receiving from rank 99");
  EXPECT_EQ(lines[3], "and 97 more ranks in 97 other places");
}

/// A source whose progress the test drives.
class FakeSource final : public ProgressSource {
public:
  void sample(std::vector<int64_t> &words) const override {
    words.push_back(counter.load());
  }
  StallReport describe() const override {
    StallReport report;
    report.step = 4;
    report.detail = "stream 'fake' is stuck";
    report.summary = "stuck";
    return report;
  }
  std::atomic<int64_t> counter{0};
};

/// Collects what a watchdog prints and whether it ended the "job".
struct Capture {
  std::mutex mutex;
  std::condition_variable changed;
  std::string text;
  bool terminated = false;
  double terminatedAt = 0;

  WatchdogOptions options(double timeout, double startup) {
    WatchdogOptions o;
    o.timeoutSeconds = timeout;
    o.startupSeconds = startup;
    o.print = [this](const std::string &line) {
      std::lock_guard<std::mutex> lock(mutex);
      text += line;
    };
    o.terminate = [this] {
      std::lock_guard<std::mutex> lock(mutex);
      terminated = true;
      terminatedAt = now();
      changed.notify_all();
    };
    return o;
  }
  bool waitTerminated(double seconds) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::duration<double>(seconds),
                            [&] { return terminated; });
  }
};

TEST(Watchdog, QuietWhileTheSourceProgresses) {
  Capture capture;
  FakeSource source;
  Watchdog watchdog(capture.options(0.1, 0.1), nullptr);
  watchdog.attach(&source);
  watchdog.stepFinished();
  // 0.6 s of progress every 20 ms: six times the timeout in all.
  for (int i = 0; i < 30; ++i) {
    ++source.counter;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(watchdog.fired());
  watchdog.attach(nullptr);
  EXPECT_TRUE(capture.text.empty()) << capture.text;
}

TEST(Watchdog, FiresOnceTheSourceStalls) {
  Capture capture;
  FakeSource source;
  Watchdog watchdog(capture.options(0.3, 0.3), nullptr);
  watchdog.attach(&source);
  watchdog.stepFinished();
  double stalled = now();
  ASSERT_TRUE(capture.waitTerminated(5));
  double after = capture.terminatedAt - stalled;
  EXPECT_GE(after, 0.3);
  EXPECT_LT(after, 1.5);
  EXPECT_TRUE(watchdog.fired());
  watchdog.attach(nullptr);
  EXPECT_NE(capture.text.find("error: watchdog: no progress for 0."),
            std::string::npos)
      << capture.text;
  EXPECT_NE(capture.text.find(" s (timeout 0.3 s) at step 4: stream 'fake' "
                              "is stuck\n"),
            std::string::npos)
      << capture.text;
}

TEST(Watchdog, StartupLimitUntilAStepFinished) {
  Capture capture;
  FakeSource source;
  Watchdog watchdog(capture.options(0.2, 30), nullptr);
  watchdog.attach(&source);
  // Loading and the first step: 0.2 s is not the limit yet.
  EXPECT_FALSE(capture.waitTerminated(0.5));
  watchdog.stepFinished();
  ASSERT_TRUE(capture.waitTerminated(5));
  watchdog.attach(nullptr);
  EXPECT_NE(capture.text.find("(timeout 0.2 s) at step 4"), std::string::npos)
      << capture.text;
}

TEST(Watchdog, PhasesOutsideRunsUseTheStartupLimit) {
  Capture capture;
  Watchdog watchdog(capture.options(30, 0.3), nullptr);
  watchdog.stepFinished(); // No run attached: still the startup limit.
  {
    WatchdogPhase phase(&watchdog, "saving checkpoint 'c'");
    ASSERT_TRUE(capture.waitTerminated(5));
  }
  EXPECT_NE(capture.text.find(
                "s (startup timeout 0.3 s) while saving checkpoint 'c'\n"),
            std::string::npos)
      << capture.text;
}

TEST(Watchdog, ZeroDisablesIt) {
  Capture capture;
  Watchdog watchdog(capture.options(0, 0.1), nullptr);
  EXPECT_FALSE(watchdog.enabled());
  EXPECT_FALSE(capture.waitTerminated(0.3));
}

TEST(Watchdog, TeardownsRunBeforeTheEnd) {
  Capture capture;
  Watchdog watchdog(capture.options(0.1, 0.1), nullptr);
  std::atomic<bool> tornDown{false};
  std::atomic<bool> beforeEnd{false};
  watchdog.addTeardown([&] {
    tornDown = true;
    std::lock_guard<std::mutex> lock(capture.mutex);
    beforeEnd = !capture.terminated;
  });
  ASSERT_TRUE(capture.waitTerminated(5));
  EXPECT_TRUE(tornDown);
  EXPECT_TRUE(beforeEnd);
}

// The real ending: a process of its own exits with 124, having printed
// the line, well within the timeout plus a poll.
TEST(Watchdog, EndsTheProcessWithItsExitStatus) {
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  double start = now();
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(pipeFds[1], STDERR_FILENO);
    WatchdogOptions options;
    options.timeoutSeconds = 0.2;
    options.startupSeconds = 0.2;
    Watchdog watchdog(options, nullptr);
    WatchdogPhase phase(&watchdog, "waiting forever");
    while (true)
      ::pause();
  }
  ::close(pipeFds[1]);
  std::string text;
  char buffer[256];
  ssize_t n;
  while ((n = ::read(pipeFds[0], buffer, sizeof(buffer))) > 0)
    text.append(buffer, size_t(n));
  ::close(pipeFds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kWatchdogExitCode);
  EXPECT_LT(now() - start, 5);
  EXPECT_NE(text.find("error: watchdog: no progress for "), std::string::npos)
      << text;
  EXPECT_NE(text.find("(startup timeout 0.2 s) while waiting forever\n"),
            std::string::npos)
      << text;
}

/// a (persistent) -> hang (compute) -> b -> copy (comm) -> c -> output.
plan::Plan hangingPlan(const std::string &symbol) {
  PlanBuilder b;
  int64_t a = b.persistent("a", 0);
  int64_t m = b.regst("b"), c = b.regst("c");
  b.kernel("hang", symbol, {a}, {m});
  b.kernel("copy", "test_copy_f32", {m}, {c}, "comm");
  b.output("c", c);
  return b.plan;
}

std::unique_ptr<Executor>
loadWatched(const PlanDir &dir, const plan::Plan &plan, Watchdog &watchdog) {
  dir.writePlan(plan);
  dir.write("weights.bin", floatBytes({1, 2, 3, 4}));
  ExecutorOptions options;
  options.watchdog = &watchdog;
  Expected<std::unique_ptr<Executor>> executor =
      Executor::load(dir.path(), options);
  if (!executor.ok()) {
    ADD_FAILURE() << executor.error().message();
    return nullptr;
  }
  return executor.take();
}

// The engine's threads tell the watchdog where they are: a kernel that
// hangs at step 2 is named, with the stream waiting behind it.
TEST(Watchdog, NamesTheHungKernelAndTheStep) {
  resetHangingKernel();
  Capture capture;
  Watchdog watchdog(capture.options(0.3, 0.3), nullptr);
  PlanDir dir;
  plan::Plan plan = hangingPlan("test_hang");
  auto executor = loadWatched(dir, plan, watchdog);
  ASSERT_TRUE(executor);
  RunOptions options;
  options.steps = 5;
  options.firstStep = 10; // Steps are named globally.
  OutputCollector outputs(plan, 15, /*everyStep=*/false);
  std::thread releaser([&] {
    capture.waitTerminated(10);
    releaseHangingKernel();
  });
  Status status =
      runWithTimeout(*executor, options, InputFeed(), outputs.sink());
  releaser.join();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(values(outputs.output("c")), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_TRUE(watchdog.fired());
  EXPECT_NE(capture.text.find(
                "(timeout 0.3 s) at step 12: stream 'compute' is running task "
                "'hang' (id 0, KERNEL test_hang); stream 'comm' waits to fire "
                "task 'copy' (id 1, KERNEL test_copy_f32); stream 'io' waits "
                "to fire task 'output c' (id 2, OUTPUT 'c')\n"),
            std::string::npos)
      << capture.text;
}

// Slow steady steps (100 ms each, 0.8 s in all) under a 0.5 s timeout:
// progress, not the run's length, counts.
TEST(Watchdog, SlowStepsAreProgress) {
  Capture capture;
  Watchdog watchdog(capture.options(0.5, 0.5), nullptr);
  PlanDir dir;
  plan::Plan plan = hangingPlan("test_copy_100ms_f32");
  auto executor = loadWatched(dir, plan, watchdog);
  ASSERT_TRUE(executor);
  RunOptions options;
  options.steps = 8;
  OutputCollector outputs(plan, 8, /*everyStep=*/false);
  double start = now();
  Status status =
      runWithTimeout(*executor, options, InputFeed(), outputs.sink());
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_GT(now() - start, 0.75);
  EXPECT_FALSE(watchdog.fired()) << capture.text;
}

} // namespace
