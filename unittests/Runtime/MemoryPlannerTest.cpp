//===- MemoryPlannerTest.cpp - Arena layout and reuse ---------------------===//

#include "TestSupport.h"

#include "oneflow/Runtime/MemoryPlanner.h"

#include "gtest/gtest.h"

#include <random>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

std::string threadOf(const PlanGraph &graph, int task) {
  const plan::Task &t = graph.plan().tasks(task);
  return std::to_string(t.rank()) + "/" + t.stream();
}

/// The planner's contract, checked pairwise: two regsts whose bytes overlap
/// are both single-slot, each read and written on one and the same thread,
/// and never live at the same time; everything is aligned and in bounds.
void checkInvariants(const PlanGraph &graph, const MemoryPlan &memory,
                     int64_t alignment = 64) {
  const auto &regsts = graph.regsts();
  for (size_t i = 0; i < regsts.size(); ++i) {
    const RegstPlacement &p = memory.placements[i];
    if (p.rank < 0)
      continue;
    EXPECT_EQ(p.offset % alignment, 0);
    EXPECT_GE(p.slotStride, regsts[i].regst->size_bytes());
    const auto &limit =
        p.persistent ? memory.persistentBytes : memory.arenaBytes;
    EXPECT_LE(p.offset + p.bytes(), limit[p.rank]);
    for (size_t j = i + 1; j < regsts.size(); ++j) {
      const RegstPlacement &q = memory.placements[j];
      if (q.rank != p.rank || q.persistent != p.persistent || p.bytes() == 0 ||
          q.bytes() == 0)
        continue;
      bool overlap =
          p.offset < q.offset + q.bytes() && q.offset < p.offset + p.bytes();
      if (!overlap)
        continue;
      std::string pair =
          regsts[i].regst->name() + " and " + regsts[j].regst->name();
      ASSERT_FALSE(p.persistent) << pair;
      EXPECT_EQ(p.numSlots, 1) << pair;
      EXPECT_EQ(q.numSlots, 1) << pair;
      // One thread for both, and every task of both on it.
      std::string thread = threadOf(graph, regsts[i].producer);
      for (size_t r : {i, j}) {
        EXPECT_EQ(threadOf(graph, regsts[r].producer), thread) << pair;
        for (int c : regsts[r].consumers)
          EXPECT_EQ(threadOf(graph, c), thread) << pair;
      }
      // Disjoint live ranges: producer .. last consumer.
      auto end = [&](size_t r) {
        return regsts[r].consumers.empty() ? regsts[r].producer
                                           : regsts[r].consumers.back();
      };
      bool disjoint =
          end(i) < regsts[j].producer || end(j) < regsts[i].producer;
      EXPECT_TRUE(disjoint) << pair << " share bytes while both live";
    }
  }
}

/// INPUT -> n chained copies (on `streams` in turn) -> OUTPUT, regsts of
/// `floats` f32 each with `slots` slots.
PlanBuilder chain(int n, int64_t floats, std::vector<std::string> streams,
                  int slots = 1) {
  PlanBuilder b;
  int64_t previous = b.regst("x", plan::F32, {floats});
  b.input("x", previous);
  for (int k = 0; k < n; ++k) {
    int64_t next = b.regst("v" + std::to_string(k), plan::F32, {floats}, slots);
    b.kernel("copy" + std::to_string(k), "test_copy_f32", {previous}, {next},
             streams[k % streams.size()]);
    previous = next;
  }
  b.output("y", previous);
  return b;
}

TEST(MemoryPlanner, ReusesMemoryAlongAChain) {
  // 10 kernels passing 1 MiB tensors along on one stream.
  PlanBuilder b = chain(10, 1 << 18, {"compute"});
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  MemoryPlan memory = planMemory(*graph);
  checkInvariants(*graph, memory);

  const int64_t MiB = 1 << 20;
  // Each regst has its own MiB without reuse: x and v0..v9.
  EXPECT_EQ(memory.totalUnsharedBytes(), 11 * MiB);
  // x (io -> compute) and v9 (compute -> io) cross streams: own bytes.
  // v0..v8 live on compute only, each overlapping its neighbours: two
  // buffers, used alternately.
  EXPECT_EQ(memory.totalArenaBytes(), 4 * MiB);
  EXPECT_EQ(memory.savedBytes(), 7 * MiB);
  EXPECT_EQ(memory.placements[1].offset, memory.placements[3].offset);
  EXPECT_EQ(memory.placements[2].offset, memory.placements[4].offset);
  EXPECT_NE(memory.placements[1].offset, memory.placements[2].offset);
  EXPECT_FALSE(memory.placements[0].shareable);
  EXPECT_FALSE(memory.placements[10].shareable);
  std::printf("chain of 10 kernels on 1 MiB tensors: %lld bytes without "
              "reuse, %lld planned, %lld saved\n",
              (long long)memory.totalUnsharedBytes(),
              (long long)memory.totalArenaBytes(),
              (long long)memory.savedBytes());

  MemoryPlanOptions noReuse;
  noReuse.reuse = false;
  MemoryPlan plain = planMemory(*graph, noReuse);
  checkInvariants(*graph, plain);
  EXPECT_EQ(plain.totalArenaBytes(), 11 * MiB);
  EXPECT_EQ(plain.savedBytes(), 0);
}

TEST(MemoryPlanner, NoReuseAcrossStreams) {
  PlanBuilder b = chain(8, 256, {"compute", "comm"});
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  MemoryPlan memory = planMemory(*graph);
  checkInvariants(*graph, memory);
  EXPECT_EQ(memory.savedBytes(), 0);
  for (const RegstPlacement &p : memory.placements)
    EXPECT_FALSE(p.shareable);
}

TEST(MemoryPlanner, NoReuseWithSeveralSlots) {
  PlanBuilder b = chain(8, 256, {"compute"}, /*slots=*/2);
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  MemoryPlan memory = planMemory(*graph);
  checkInvariants(*graph, memory);
  EXPECT_EQ(memory.savedBytes(), 0);
  // Slots are laid out side by side.
  EXPECT_EQ(memory.placements[1].slotStride, 1024);
  EXPECT_EQ(memory.placements[1].bytes(), 2048);
}

TEST(MemoryPlanner, PersistentRegstsHaveTheirOwnBlock) {
  PlanBuilder b;
  int64_t x = b.regst("x"), a = b.regst("a"), y = b.regst("y");
  int64_t w = b.persistent("w", 0), unused = b.persistent("unused", 16);
  (void)unused;
  b.input("x", x);
  b.kernel("add", "test_add_f32", {x, w}, {a});
  b.kernel("copy", "test_copy_f32", {a}, {y});
  b.output("y", y);
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  MemoryPlan memory = planMemory(*graph);
  checkInvariants(*graph, memory);
  EXPECT_TRUE(memory.placements[w].persistent);
  EXPECT_EQ(memory.persistentBytes[0], 64);
  EXPECT_EQ(memory.placements[4].rank, -1); // read by nobody: not allocated
}

TEST(MemoryPlanner, AlignsToTheRequestedBoundary) {
  PlanBuilder b = chain(5, 3, {"compute"}); // 12-byte tensors
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok());
  MemoryPlanOptions options;
  options.alignment = 128;
  MemoryPlan memory = planMemory(*graph, options);
  checkInvariants(*graph, memory, 128);
  EXPECT_EQ(memory.placements[0].slotStride, 128);
}

/// Random DAGs: mixed sizes, streams, slots, fan-out; the invariants hold
/// and single-stream plans do save memory.
class RandomPlans : public testing::TestWithParam<int> {};

TEST_P(RandomPlans, KeepTheInvariants) {
  std::mt19937 rng(GetParam());
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  const char *streams[] = {"compute", "compute", "comm", "io"};
  bool oneStream = GetParam() % 2 == 0;
  PlanBuilder b;
  std::vector<int64_t> regsts = {b.regst("x", plan::F32, {1 + pick(100)})};
  b.input("x", regsts[0]);
  for (int k = 0; k < 60; ++k) {
    int64_t out = b.regst("v" + std::to_string(k), plan::F32, {1 + pick(1000)},
                          pick(4) ? 1 : 2);
    // Mostly recent inputs (a real graph's locality), sometimes old ones.
    int n = int(regsts.size());
    int i = pick(3) ? n - 1 - pick(std::min(n, 4)) : pick(n);
    int j = pick(n);
    b.kernel("k" + std::to_string(k), "test_add_f32", {regsts[i], regsts[j]},
             {out}, oneStream ? "compute" : streams[pick(4)]);
    regsts.push_back(out);
  }
  b.output("y", regsts.back());
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  MemoryPlan memory = planMemory(*graph);
  checkInvariants(*graph, memory);
  EXPECT_LE(memory.totalArenaBytes(), memory.totalUnsharedBytes());
  if (oneStream) {
    EXPECT_GT(memory.savedBytes(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomPlans, testing::Range(0, 20));

} // namespace
