//===- PlanGraphTest.cpp - Plan validation --------------------------------===//

#include "TestSupport.h"

#include "oneflow/Runtime/PlanGraph.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

/// x -> double (test_add_f32) -> a -> copy -> y, with input x, output y.
PlanBuilder validPlan() {
  PlanBuilder b;
  int64_t x = b.regst("x"), a = b.regst("a"), y = b.regst("y");
  b.input("x", x);
  b.kernel("double", "test_add_f32", {x, x}, {a});
  b.kernel("copy", "test_copy_f32", {a}, {y}, "comm");
  b.output("y", y);
  return b;
}

/// The validation message of `plan`, which must be invalid.
std::string problems(const plan::Plan &plan) {
  Expected<PlanGraph> graph = PlanGraph::build(plan);
  EXPECT_FALSE(graph.ok());
  return graph.ok() ? "" : graph.error().message();
}

#define EXPECT_PROBLEM(plan, text)                                             \
  do {                                                                         \
    std::string message = problems(plan);                                      \
    EXPECT_NE(message.find(text), std::string::npos) << message;               \
  } while (false)

TEST(PlanGraph, IndexesAValidPlan) {
  PlanBuilder b = validPlan();
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  // x (regst 0) is produced by task 0 and read once by task 1 (twice as an
  // argument).
  const PlanGraph::RegstNode &x = graph->regsts()[0];
  EXPECT_EQ(x.producer, 0);
  EXPECT_EQ(x.consumers, std::vector<int>{1});
  EXPECT_EQ(graph->tasks()[1].inRegsts, (std::vector<int>{0, 0}));
  EXPECT_EQ(graph->regsts()[2].consumers, std::vector<int>{3});
  EXPECT_EQ(x.rank, 0);
  EXPECT_EQ(graph->regstIndex(2), 2);
  EXPECT_EQ(graph->regstIndex(42), -1);
}

TEST(PlanGraph, DanglingRegstIds) {
  PlanBuilder b = validPlan();
  b.taskById(2).add_in_regsts(99);
  b.taskById(1).add_out_regsts(77);
  std::string message = problems(b.plan);
  EXPECT_NE(message.find("task 'copy' (id 2): in_regst 99 does not exist"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("task 'double' (id 1): out_regst 77 does not exist"),
            std::string::npos)
      << message;
  // Every problem is reported, one per line.
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1);
}

TEST(PlanGraph, RegstWithTwoProducers) {
  PlanBuilder b = validPlan();
  b.taskById(2).set_out_regsts(0, 1); // copy also writes a
  EXPECT_PROBLEM(b.plan, "regst 'a' (id 1) has two producers: task 'double' "
                         "(id 1) and task 'copy' (id 2)");
}

TEST(PlanGraph, SizeBytesInconsistentWithDesc) {
  PlanBuilder b = validPlan();
  b.regstById(1).set_size_bytes(12);
  EXPECT_PROBLEM(b.plan, "regst 'a' (id 1): size_bytes 12 does not match "
                         "f32[4] (16 bytes)");
  b = validPlan();
  b.regstById(1).mutable_desc()->set_dtype(plan::DT_INVALID);
  EXPECT_PROBLEM(b.plan, "regst 'a' (id 1): invalid dtype 0");
  b = validPlan();
  b.regstById(1).mutable_desc()->set_shape(0, -4);
  EXPECT_PROBLEM(b.plan, "regst 'a' (id 1): invalid shape");
}

TEST(PlanGraph, UnknownStream) {
  PlanBuilder b = validPlan();
  b.taskById(1).set_stream("gpu0");
  EXPECT_PROBLEM(b.plan, "task 'double' (id 1): unknown stream 'gpu0' "
                         "(streams: compute, comm, io)");
}

TEST(PlanGraph, DuplicateIds) {
  PlanBuilder b = validPlan();
  b.regstById(2).set_id(1);
  EXPECT_PROBLEM(b.plan, "regst id 1 is declared twice");
  b = validPlan();
  b.taskById(2).set_id(1);
  EXPECT_PROBLEM(b.plan, "task id 1 is used twice");
}

TEST(PlanGraph, ScheduleMustBeTopological) {
  PlanBuilder b = validPlan();
  b.plan.mutable_tasks()->SwapElements(1, 2);
  EXPECT_PROBLEM(b.plan, "task 'copy' (id 2) reads regst 'a' (id 1) before "
                         "its producer task 'double' (id 1) in the schedule");
  b = validPlan();
  b.taskById(1).add_in_regsts(1); // double reads its own output a
  EXPECT_PROBLEM(b.plan, "task 'double' (id 1) reads its own output regst "
                         "'a' (id 1)");
}

TEST(PlanGraph, RegstsNeedProducersAndSlots) {
  PlanBuilder b = validPlan();
  int64_t orphan = b.regst("orphan");
  b.taskById(2).add_in_regsts(orphan);
  EXPECT_PROBLEM(b.plan, "regst 'orphan' (id 3) has no producer");
  b = validPlan();
  b.regstById(1).set_num_slots(0);
  EXPECT_PROBLEM(b.plan, "regst 'a' (id 1): num_slots is 0 (must be >= 1)");
  b = validPlan();
  b.regstById(1).mutable_desc()->set_shape(0, int64_t(1) << 40);
  b.regstById(1).set_size_bytes(int64_t(1) << 42);
  b.regstById(1).set_num_slots(1 << 20);
  EXPECT_PROBLEM(b.plan, "regst 'a' (id 1): f32[1099511627776] x 1048576 "
                         "slots is more than 1125899906842624 bytes");
}

TEST(PlanGraph, TaskShapes) {
  PlanBuilder b = validPlan();
  b.taskById(1).clear_kernel_symbol();
  EXPECT_PROBLEM(b.plan, "task 'double' (id 1): KERNEL task without "
                         "kernel_symbol");
  b = validPlan();
  b.taskById(0).add_in_regsts(2);
  EXPECT_PROBLEM(b.plan, "an INPUT task has no in_regsts and one out_regst");
  b = validPlan();
  b.taskById(3).add_out_regsts(1);
  EXPECT_PROBLEM(b.plan, "an OUTPUT task has one in_regst and no out_regsts");
  b = validPlan();
  b.taskById(1).set_kind(static_cast<plan::TaskKind>(7));
  EXPECT_PROBLEM(b.plan, "task 'double' (id 1): unknown task kind 7");
  b = validPlan();
  b.plan.clear_kernel_library();
  EXPECT_PROBLEM(b.plan, "the plan has KERNEL tasks but no kernel_library");
}

TEST(PlanGraph, InputsAndOutputs) {
  PlanBuilder b = validPlan();
  b.taskById(0).set_io_name("z");
  std::string message = problems(b.plan);
  EXPECT_NE(message.find("task 'input x' (id 0): 'z' is not a graph input"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("graph input 'x' has 0 INPUT tasks"),
            std::string::npos)
      << message;
  b = validPlan();
  b.plan.mutable_outputs(0)->mutable_desc()->set_shape(0, 5);
  EXPECT_PROBLEM(b.plan, "graph output 'y' is f32[5] but its regst 'y' (id 2) "
                         "is f32[4]");
  b = validPlan();
  *b.plan.add_inputs() = b.plan.inputs(0);
  EXPECT_PROBLEM(b.plan, "graph input 'x' is declared twice");
  b = validPlan();
  b.plan.mutable_outputs(0)->set_regst(1);
  EXPECT_PROBLEM(b.plan, "task 'output y' (id 3): graph output 'y' is regst "
                         "1, not 2");
}

TEST(PlanGraph, VersionRanksAndWeights) {
  PlanBuilder b = validPlan();
  b.plan.set_version(2);
  EXPECT_PROBLEM(b.plan, "unsupported plan version 2 (this runtime reads "
                         "version 1)");
  b = validPlan();
  b.plan.set_num_ranks(0);
  EXPECT_PROBLEM(b.plan, "num_ranks is 0");
  b.plan.set_num_ranks(kMaxRanks + 1);
  EXPECT_PROBLEM(b.plan, "num_ranks is 1048577 (at most 1048576)");
  b = validPlan();
  b.taskById(1).set_rank(3);
  EXPECT_PROBLEM(b.plan, "task 'double' (id 1): rank 3 is outside [0, 1)");
  b = validPlan();
  b.persistent("w", 0);
  b.plan.clear_weights_file();
  EXPECT_PROBLEM(b.plan, "regst 'w' (id 3) has weights_offset 0 but the plan "
                         "has no weights_file");
}

TEST(PlanGraph, InitializersAreChecked) {
  PlanBuilder b = validPlan();
  int64_t w = b.persistent("w");
  b.regstById(w).mutable_initializer()->set_kind(plan::Initializer::NORMAL);
  b.regstById(w).mutable_initializer()->set_std(-1);
  EXPECT_PROBLEM(b.plan, "regst 'w' (id 3): normal initializer needs a finite "
                         "mean and std >= 0, got mean 0, std -1");
  b = validPlan();
  w = b.persistent("w", -1, plan::I64);
  b.regstById(w).mutable_initializer()->set_kind(plan::Initializer::UNIFORM);
  b.regstById(w).mutable_initializer()->set_b(1);
  EXPECT_PROBLEM(b.plan, "regst 'w' (id 3): a random initializer cannot fill "
                         "i64 values");
  b = validPlan();
  w = b.persistent("w", 0);
  b.regstById(w).mutable_initializer()->set_kind(plan::Initializer::ONES);
  EXPECT_PROBLEM(
      b.plan, "regst 'w' (id 3) has both weights_offset 0 and an initializer");
  b = validPlan();
  b.regstById(1).mutable_initializer()->set_kind(plan::Initializer::ZEROS);
  EXPECT_PROBLEM(b.plan, "regst 'a' (id 1) has an initializer but is not "
                         "persistent");
}

TEST(PlanGraph, RegstsStayOnOneRank) {
  PlanBuilder b = validPlan();
  b.plan.set_num_ranks(2);
  b.taskById(2).set_rank(1);
  b.taskById(3).set_rank(1);
  EXPECT_PROBLEM(b.plan, "regst 'a' (id 1) is used on ranks 0 and 1");
}

TEST(PlanGraph, ReadPlanFile) {
  PlanDir dir;
  Expected<plan::Plan> plan = readPlanFile(dir.file("plan.pb"));
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message().find("cannot read"), std::string::npos);
  dir.write("plan.pb", "\x0a\xff\xff\xff\xff");
  plan = readPlanFile(dir.file("plan.pb"));
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message().find("is not a valid plan"),
            std::string::npos);
  dir.writePlan(validPlan().plan);
  plan = readPlanFile(dir.file("plan.pb"));
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->tasks_size(), 4);
}

} // namespace
