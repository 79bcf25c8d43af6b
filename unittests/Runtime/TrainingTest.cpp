//===- TrainingTest.cpp - ASSIGN, wait_for and step-by-step runs ----------===//

#include "RunHelpers.h"

#include "gtest/gtest.h"

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

#define EXPECT_PROBLEM(plan, text)                                             \
  do {                                                                         \
    std::string message = planProblems(plan);                                  \
    EXPECT_NE(message.find(text), std::string::npos) << message;               \
  } while (false)

/// Step s feeds {s, s+1, s+2, s+3}.
InputFeed rampFeed(std::vector<int64_t> *stepsSeen = nullptr) {
  return [stepsSeen](const std::string &, int64_t step, void *dst,
                     int64_t bytes) -> Status {
    float values[4] = {float(step), step + 1.f, step + 2.f, step + 3.f};
    if (bytes != sizeof(values))
      return Status::error("wrong size");
    std::memcpy(dst, values, sizeof(values));
    if (stepsSeen)
      stepsSeen->push_back(step);
    return Status::success();
  };
}

/// w_old at step s: w0 + the sum of the ramp inputs of steps 0 .. s-1.
std::vector<float> accumulated(std::vector<float> w0, int steps) {
  for (int s = 0; s < steps; ++s)
    for (int i = 0; i < 4; ++i)
      w0[i] += float(s + i);
  return w0;
}

/// Loads `plan` with weights {1, 2, 3, 4}, checks that it runs step by step
/// and runs `steps` steps of rampFeed() into `outputs`; nullptr (and a test
/// failure) when any of that fails.
std::unique_ptr<Executor> runRampSteps(const PlanDir &dir,
                                       const plan::Plan &plan, int steps,
                                       OutputCollector &outputs) {
  dir.write("weights.bin", floatBytes({1, 2, 3, 4}));
  auto executor = loadOrFail(dir, plan);
  if (!executor)
    return nullptr;
  EXPECT_TRUE(executor->stepByStep());
  RunOptions options;
  options.steps = steps;
  Status status =
      runWithTimeout(*executor, options, rampFeed(), outputs.sink());
  if (!status.ok()) {
    ADD_FAILURE() << status.message();
    return nullptr;
  }
  return executor;
}

struct TrainingShape {
  bool slowReader; // the reader of w on the comm stream takes 1 ms
  bool slowWriter; // the update on the compute stream takes 1 ms
};

class VariablePlusInput : public testing::TestWithParam<TrainingShape> {};

/// "w += x", a training-like plan:
///   compute: [slow] copy x -> x2; add w, x2 -> updated; sum updated -> loss;
///            ASSIGN updated -> w (waits for "read w")
///   comm:    read w (copy, maybe slow) -> old        io: input x, outputs
/// Every step's "old" must be w before the step's update: the read fires
/// before the ASSIGN of its step (wait_for), after the ASSIGN of the
/// previous one (step by step), whichever stream is slow.
TEST_P(VariablePlusInput, AccumulatesStepByStep) {
  TrainingShape shape = GetParam();
  PlanBuilder b;
  int64_t w = b.persistent("w", 0);
  b.variable(w, "w");
  int64_t x = b.regst("x", plan::F32, {kTestLength}, 2);
  int64_t x2 = b.regst("x2"), updated = b.regst("updated");
  int64_t loss = b.regst("loss", plan::F32, {});
  int64_t old = b.regst("old", plan::F32, {kTestLength}, 2);
  b.input("x", x);
  int64_t read = b.kernel(
      "read w", shape.slowReader ? "test_slow_copy_f32" : "test_copy_f32", {w},
      {old}, "comm");
  b.kernel("copy x", shape.slowWriter ? "test_slow_copy_f32" : "test_copy_f32",
           {x}, {x2});
  b.kernel("add", "test_add_f32", {w, x2}, {updated});
  b.kernel("sum", "test_sum_f32", {updated}, {loss});
  b.assign("assign w", updated, w, {read});
  b.output("old", old);
  b.output("loss", loss);
  b.plan.set_loss_output("loss");
  const int steps = 6;
  PlanDir dir;
  OutputCollector outputs(b.plan, steps, /*everyStep=*/true);
  auto executor = runRampSteps(dir, b.plan, steps, outputs);
  ASSERT_TRUE(executor);
  for (int s = 0; s < steps; ++s) {
    std::vector<float> before = accumulated({1, 2, 3, 4}, s);
    EXPECT_EQ(values(outputs.output("old", s)), before) << "step " << s;
    std::vector<float> after = accumulated({1, 2, 3, 4}, s + 1);
    EXPECT_EQ(outputs.output("loss", s).as<float>()[0],
              after[0] + after[1] + after[2] + after[3])
        << "step " << s;
  }
  float *data = static_cast<float *>(executor->persistentData(w));
  EXPECT_EQ(std::vector<float>(data, data + 4), accumulated({1, 2, 3, 4}, 6));

  // Variables keep their values from run to run; a run may continue the
  // step count of an earlier one.
  RunOptions options;
  options.firstStep = steps;
  options.steps = 2;
  std::vector<int64_t> fed, reported;
  options.onStepDone = [&](int64_t step, double) { reported.push_back(step); };
  OutputCollector more(b.plan, steps + 2, /*everyStep=*/false);
  Status status =
      runWithTimeout(*executor, options, rampFeed(&fed), more.sink());
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(fed, (std::vector<int64_t>{6, 7}));
  EXPECT_EQ(reported, (std::vector<int64_t>{6, 7}));
  EXPECT_EQ(values(more.output("old")), accumulated({1, 2, 3, 4}, 7));
  EXPECT_EQ(std::vector<float>(data, data + 4), accumulated({1, 2, 3, 4}, 8));
}

INSTANTIATE_TEST_SUITE_P(
    Speeds, VariablePlusInput,
    testing::Values(TrainingShape{false, false}, TrainingShape{true, false},
                    TrainingShape{false, true}, TrainingShape{true, true}),
    [](const testing::TestParamInfo<TrainingShape> &info) {
      return std::string(info.param.slowReader ? "SlowReader" : "FastReader") +
             (info.param.slowWriter ? "SlowWriter" : "FastWriter");
    });

/// A control dependency across streams without any data between the two
/// tasks (and without ASSIGN: steps may overlap): "second" on comm fires for
/// step s only after the slow "first" on compute did.
TEST(Training, WaitForOrdersTasksAcrossStreams) {
  PlanBuilder b;
  int64_t one = b.persistent("id 1", 0, plan::I32, {1});
  int64_t two = b.persistent("id 2", 4, plan::I32, {1});
  int64_t x = b.regst("x", plan::F32, {kTestLength}, 3);
  int64_t a = b.regst("a", plan::F32, {kTestLength}, 3);
  int64_t c = b.regst("c", plan::F32, {kTestLength}, 3);
  b.input("x", x);
  int64_t first =
      b.kernel("first", "test_slow_record", {one, x}, {a}, "compute");
  int64_t second = b.kernel("second", "test_record", {two, x}, {c}, "comm");
  b.taskById(second).add_wait_for(first);
  b.output("a", a);
  b.output("c", c);
  PlanDir dir;
  dir.write("weights.bin", int32Bytes({1, 2}));
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);
  EXPECT_FALSE(executor->stepByStep());
  resetKernelLog();
  RunOptions options;
  options.steps = 10;
  Status status = runWithTimeout(*executor, options, rampFeed(), OutputSink());
  ASSERT_TRUE(status.ok()) << status.message();
  std::vector<int32_t> log = kernelLog();
  ASSERT_EQ(log.size(), 20u);
  int firsts = 0, seconds = 0;
  for (int32_t id : log) {
    (id == 1 ? firsts : seconds) += 1;
    EXPECT_LE(seconds, firsts) << "'second' fired before 'first' of its step";
  }
}

/// In a step-by-step plan, no task of step k+1 fires before every task of
/// step k did, even on other streams and with free slots.
TEST(Training, StepByStepKeepsStepsApart) {
  PlanBuilder b;
  int64_t one = b.persistent("id 1", 0, plan::I32, {1});
  int64_t two = b.persistent("id 2", 4, plan::I32, {1});
  int64_t w = b.persistent("w", -1);
  int64_t x = b.regst("x", plan::F32, {kTestLength}, 3);
  int64_t a = b.regst("a", plan::F32, {kTestLength}, 3);
  int64_t c = b.regst("c", plan::F32, {kTestLength}, 3);
  b.input("x", x);
  b.kernel("fast", "test_record", {one, x}, {a}, "comm");
  b.kernel("slow", "test_slow_record", {two, x}, {c}, "compute");
  b.assign("assign", c, w);
  b.output("a", a);
  PlanDir dir;
  dir.write("weights.bin", int32Bytes({1, 2}));
  auto executor = loadOrFail(dir, b.plan);
  ASSERT_TRUE(executor);
  resetKernelLog();
  RunOptions options;
  options.steps = 8;
  Status status = runWithTimeout(*executor, options, rampFeed(), OutputSink());
  ASSERT_TRUE(status.ok()) << status.message();
  std::vector<int32_t> log = kernelLog();
  ASSERT_EQ(log.size(), 16u);
  // Each step logs 1 and 2 in some order: the pairs never interleave.
  for (size_t i = 0; i < log.size(); i += 2)
    EXPECT_NE(log[i], log[i + 1]) << "steps overlap at entry " << i;
  float *data = static_cast<float *>(executor->persistentData(w));
  EXPECT_EQ(std::vector<float>(data, data + 4),
            (std::vector<float>{7, 8, 9, 10}));
}

// Validation.

/// A valid training plan: w += x, the read of w ordered before the ASSIGN.
PlanBuilder trainingPlan() {
  PlanBuilder b;
  int64_t w = b.persistent("w", -1);
  b.variable(w, "w");
  int64_t x = b.regst("x"), updated = b.regst("updated"), old = b.regst("old");
  int64_t loss = b.regst("loss", plan::F32, {});
  b.input("x", x);                                         // task 0
  b.kernel("read w", "test_copy_f32", {w}, {old}, "comm"); // task 1
  b.kernel("add", "test_add_f32", {w, x}, {updated});      // task 2
  b.kernel("sum", "test_sum_f32", {updated}, {loss});      // task 3
  b.assign("assign w", updated, w, {1});                   // task 4
  b.output("old", old);                                    // task 5
  b.output("loss", loss);                                  // task 6
  b.plan.set_loss_output("loss");
  return b;
}

TEST(TrainingPlan, ValidPlanBuilds) {
  PlanBuilder b = trainingPlan();
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  EXPECT_TRUE(graph->hasVariableWrites());
  EXPECT_EQ(graph->taskIndex(4), 4);
  EXPECT_EQ(graph->taskIndex(99), -1);
}

TEST(TrainingPlan, AssignMustWaitForEveryReader) {
  PlanBuilder b = trainingPlan();
  b.taskById(4).clear_wait_for();
  EXPECT_PROBLEM(b.plan, "invalid plan: task 'assign w' (id 4) overwrites "
                         "regst 'w' (id 0) without waiting for task 'read w' "
                         "(id 1), which reads it in the same step");
  // A reader before the ASSIGN on its own thread, or one whose output the
  // ASSIGN consumes ("add"), needs no wait_for.
  b.taskById(1).set_stream("compute");
  EXPECT_TRUE(PlanGraph::build(b.plan).ok());
  // An output of the variable itself must be waited for too.
  PlanBuilder c = trainingPlan();
  c.output("w", 0);
  EXPECT_PROBLEM(c.plan, "without waiting for task 'output w' (id 7)");
  c.taskById(4).add_wait_for(7); // Later in the schedule, on another stream.
  EXPECT_TRUE(PlanGraph::build(c.plan).ok());
}

TEST(TrainingPlan, AssignShape) {
  {
    PlanBuilder b = trainingPlan();
    b.taskById(4).set_stream("comm");
    EXPECT_PROBLEM(b.plan, "task 'assign w' (id 4): ASSIGN tasks run on the "
                           "'compute' stream, not 'comm'");
  }
  {
    PlanBuilder b = trainingPlan();
    b.taskById(4).add_in_regsts(1);
    EXPECT_PROBLEM(b.plan, "an ASSIGN task has one in_regst and one "
                           "out_regst, not 2 and 1");
  }
  {
    PlanBuilder b = trainingPlan();
    int64_t other = b.regst("not persistent");
    b.taskById(4).set_out_regsts(0, other);
    EXPECT_PROBLEM(b.plan, "an ASSIGN task writes a persistent regst, not "
                           "regst 'not persistent'");
  }
  {
    PlanBuilder b = trainingPlan();
    b.taskById(4).set_in_regsts(0, 0);
    EXPECT_PROBLEM(b.plan, "task 'assign w' (id 4) copies regst 'w' (id 0) "
                           "onto itself");
  }
  {
    PlanBuilder b = trainingPlan();
    int64_t v = b.persistent("v", -1, plan::F32, {3});
    b.taskById(4).set_out_regsts(0, v);
    EXPECT_PROBLEM(b.plan, "task 'assign w' (id 4) copies f32[4] from regst "
                           "'updated' (id 2) into regst 'v' (id 5) of f32[3] "
                           "(ASSIGN needs the same dtype and shape)");
  }
  {
    // In a plan with ASSIGNs, only ASSIGNs and kernels that update a
    // variable they read write persistent regsts.
    PlanBuilder b = trainingPlan();
    int64_t v = b.persistent("v", -1);
    b.kernel("in place", "test_copy_f32", {2}, {v});
    EXPECT_PROBLEM(b.plan, "task 'in place' (id 7) writes persistent regst "
                           "'v' (id 5): only ASSIGN tasks, and kernels that "
                           "read it (an update in place), write persistent "
                           "regsts");
  }
}

TEST(TrainingPlan, WaitForLists) {
  PlanBuilder b = trainingPlan();
  b.taskById(3).add_wait_for(42);
  b.taskById(2).add_wait_for(2);
  b.taskById(4).add_wait_for(1);
  EXPECT_PROBLEM(b.plan, "task 'sum' (id 3): wait_for names task 42, which "
                         "does not exist");
  EXPECT_PROBLEM(b.plan, "task 'add' (id 2) waits for itself");
  EXPECT_PROBLEM(b.plan,
                 "task 'assign w' (id 4) waits for task 'read w' (id 1) twice");

  PlanBuilder c = trainingPlan();
  c.plan.set_num_ranks(2);
  c.onRank(1, 1);
  c.taskById(4).clear_wait_for();
  c.taskById(3).add_wait_for(1);
  EXPECT_PROBLEM(c.plan, "task 'sum' (id 3) on rank 0 waits for task 'read "
                         "w' (id 1) on rank 1 (wait_for names tasks of the "
                         "same rank)");

  // A cycle through wait_for: "read w" waits for the ASSIGN that waits for
  // it.
  PlanBuilder d = trainingPlan();
  d.taskById(1).add_wait_for(4);
  EXPECT_PROBLEM(d.plan, "the schedule deadlocks: ");
  EXPECT_PROBLEM(d.plan, "task 'assign w' (id 4) on rank 0");
  EXPECT_PROBLEM(d.plan, "a task waits for its wait_for tasks");
}

TEST(TrainingPlan, VariableSlices) {
  auto twoPieces = [](std::vector<int64_t> secondOffsets) {
    PlanBuilder b;
    int64_t p0 = b.persistent("w0", -1, plan::F32, {2, 2});
    int64_t p1 = b.persistent("w1", -1, plan::F32, {2, 2});
    b.variable(p0, "w", {2, 4}, {0, 0});
    b.variable(p1, "w", {2, 4}, secondOffsets);
    int64_t y = b.regst("y");
    b.kernel("add", "test_add_f32", {p0, p1}, {y});
    b.output("y", y);
    return b;
  };
  EXPECT_TRUE(PlanGraph::build(twoPieces({0, 2}).plan).ok());
  EXPECT_PROBLEM(twoPieces({0, 1}).plan,
                 "variable 'w': the pieces of regst 'w0' (id 0) and regst "
                 "'w1' (id 1) overlap without being replicas");
  EXPECT_PROBLEM(twoPieces({0, 3}).plan,
                 "regst 'w1' (id 1): its piece f32[2,2] at offsets [0,3] is "
                 "not inside variable 'w' of shape [2,4]");
  {
    // Replicas count once: two copies of the left half leave a hole.
    PlanBuilder b = twoPieces({0, 0});
    EXPECT_PROBLEM(b.plan, "variable 'w' of shape [2,4] has 8 elements but "
                           "its pieces cover 4 (the pieces must tile the "
                           "variable)");
  }
  {
    PlanBuilder b = twoPieces({0, 2});
    b.regstById(1).mutable_variable()->set_trainable(false);
    EXPECT_PROBLEM(b.plan, "variable 'w': regst 'w1' (id 1) disagrees with "
                           "regst 'w0' (id 0): trainable false vs true");
    b.regstById(1).mutable_variable()->set_global_shape(1, 6);
    EXPECT_PROBLEM(b.plan, "global_shape [2,6] vs [2,4]");
  }
  {
    PlanBuilder b = twoPieces({0, 2});
    b.regstById(1).mutable_variable()->add_offsets(0);
    EXPECT_PROBLEM(b.plan, "regst 'w1' (id 1): variable 'w' has global_shape "
                           "[2,4] and offsets [0,2,0] for a piece of "
                           "f32[2,2] (one entry per dimension each)");
  }
  {
    PlanBuilder b = twoPieces({0, 2});
    int64_t flowing = b.regst("flowing");
    b.variable(flowing, "v");
    EXPECT_PROBLEM(b.plan, "regst 'flowing' (id 3) holds a piece of variable "
                           "'v' but is not persistent");
  }
}

TEST(TrainingPlan, LossOutput) {
  PlanBuilder b = trainingPlan();
  b.plan.set_loss_output("nope");
  EXPECT_PROBLEM(b.plan, "the loss output 'nope' is not a graph output");
  b.plan.set_loss_output("old");
  EXPECT_PROBLEM(b.plan, "the loss output 'old' is f32[4] (a loss is one "
                         "floating-point element)");
}

/// "w += x" with the update in place: the kernel that adds reads w and
/// writes it (no ASSIGN, no copy). The plan still runs step by step and the
/// reader of w on another stream sees each step's old value.
TEST(Training, KernelUpdatesVariableInPlace) {
  PlanBuilder b;
  int64_t w = b.persistent("w", 0);
  b.variable(w, "w");
  int64_t x = b.regst("x", plan::F32, {kTestLength}, 2);
  int64_t old = b.regst("old", plan::F32, {kTestLength}, 2);
  b.input("x", x);
  int64_t read = b.kernel("read w", "test_slow_copy_f32", {w}, {old}, "comm");
  int64_t update = b.kernel("add in place", "test_add_f32", {w, x}, {w});
  b.taskById(update).add_wait_for(read);
  b.output("old", old);
  const int steps = 5;
  PlanDir dir;
  OutputCollector outputs(b.plan, steps, /*everyStep=*/true);
  auto executor = runRampSteps(dir, b.plan, steps, outputs);
  ASSERT_TRUE(executor);
  for (int s = 0; s < steps; ++s)
    EXPECT_EQ(values(outputs.output("old", s)), accumulated({1, 2, 3, 4}, s))
        << "step " << s;
  float *data = static_cast<float *>(executor->persistentData(w));
  EXPECT_EQ(std::vector<float>(data, data + 4), accumulated({1, 2, 3, 4}, 5));
}

TEST(TrainingPlan, InPlaceUpdateWaitsForReaders) {
  PlanBuilder b;
  int64_t w = b.persistent("w", -1);
  b.variable(w, "w");
  int64_t x = b.regst("x"), old = b.regst("old");
  b.input("x", x); // task 0
  int64_t read = b.kernel("read w", "test_copy_f32", {w}, {old}, "comm");
  int64_t update = b.kernel("add", "test_add_f32", {w, x}, {w}); // task 2
  b.output("old", old);
  EXPECT_PROBLEM(b.plan, "task 'add' (id 2) overwrites regst 'w' (id 0) "
                         "without waiting for task 'read w' (id 1)");
  b.taskById(update).add_wait_for(read);
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  EXPECT_TRUE(graph->hasVariableWrites());
}

} // namespace
