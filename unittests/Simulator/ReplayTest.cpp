//===- ReplayTest.cpp - The simulator's replay on hand-built plans --------===//

#include "TestPlans.h"

#include "oneflow/Simulator/Simulator.h"

#include "gtest/gtest.h"

using namespace oneflow;
using namespace oneflow::simulator;

namespace {

Report simulateOk(const plan::Plan &plan, bool trace = false) {
  Options options;
  options.trace = trace;
  llvm::Expected<Report> report = simulate(plan, testCluster(), options);
  EXPECT_TRUE(bool(report)) << llvm::toString(report.takeError());
  return report ? *report : Report();
}

std::string errorOf(const plan::Plan &plan) {
  llvm::Expected<Report> report = simulate(plan, testCluster());
  return report ? "" : llvm::toString(report.takeError());
}

void expectSplitSums(const Report &report) {
  EXPECT_NEAR(report.computeSeconds + report.exposedCommunicationSeconds +
                  report.bubbleSeconds,
              report.stepSeconds, 1e-12);
}

/// testCluster() with the handoff costs and, when `cpus` > 0, a node of
/// `cpus` CPUs for its ranks.
cost::Cluster clusterWith(int cpus) {
  cost::Cluster cluster = testCluster();
  cluster.kind = "cpu";
  cluster.streamHandoff = 1e-4;
  cluster.sharedCpuSwitch = 2e-4;
  cluster.concurrentRanks = cpus;
  return cluster;
}

Report simulateOn(const plan::Plan &plan, const cost::Cluster &cluster) {
  Options options;
  options.trace = true;
  llvm::Expected<Report> report = simulate(plan, cluster, options);
  EXPECT_TRUE(bool(report)) << llvm::toString(report.takeError());
  return report ? *report : Report();
}

TEST(Replay, InputFromAnotherStreamWaitsForTheHandoff) {
  PlanMaker make(1);
  int64_t x = make.regst(0, 4), y = make.regst(0, 4), z = make.regst(0, 4);
  make.kernel(0, "a", 1e9, {}, {x});
  make.kernel(0, "b", 1e9, {x}, {y}).set_stream("comm");
  make.kernel(0, "c", 1e9, {y}, {z});
  Report report = simulateOn(make.plan, clusterWith(0));
  // Two handoffs (compute -> comm -> compute) of 0.1 ms each.
  EXPECT_DOUBLE_EQ(report.stepSeconds, 3e-3 + 2e-4);
  EXPECT_DOUBLE_EQ(report.trace[1].start, 1e-3 + 1e-4);
  EXPECT_DOUBLE_EQ(report.computeSeconds, 2e-3);
  expectSplitSums(report);
}

TEST(Replay, RanksSharingACpuRunInTurnUntilTheyBlock) {
  // Two ranks on one CPU, no communication: the first keeps the CPU for
  // both its kernels (it never blocks), then the second runs. Each
  // switch of the CPU to a thread costs 0.2 ms.
  PlanMaker make(2);
  for (int rank : {0, 1}) {
    int64_t x = make.regst(rank, 4), y = make.regst(rank, 4);
    make.kernel(rank, "a", rank == 0 ? 1e9 : 2e9, {}, {x});
    make.kernel(rank, "b", 1e9, {x}, {y});
  }
  Report report = simulateOn(make.plan, clusterWith(1));
  const double sw = 2e-4;
  EXPECT_EQ(report.simulatedRanks, 2);
  EXPECT_DOUBLE_EQ(report.trace[0].start, sw);
  EXPECT_DOUBLE_EQ(report.trace[1].start, sw + 1e-3);
  EXPECT_DOUBLE_EQ(report.trace[2].start, 2 * sw + 2e-3);
  EXPECT_DOUBLE_EQ(report.trace[3].start, 2 * sw + 4e-3);
  EXPECT_DOUBLE_EQ(report.stepSeconds, 2 * sw + 5e-3);
  // Without the CPU limit both run at once.
  EXPECT_DOUBLE_EQ(simulateOn(make.plan, clusterWith(0)).stepSeconds, 3e-3);
}

TEST(Replay, CollectiveOnASharedCpuWaitsForItsMembersTurns) {
  // Two ranks on one CPU: gradient (compute), all-reduce (comm), then a
  // kernel on the result (compute).
  PlanMaker make(2);
  for (int rank : {0, 1}) {
    int64_t g = make.regst(rank, 4000), a = make.regst(rank, 4000),
            out = make.regst(rank, 4);
    make.kernel(rank, "grad", 1e9, {}, {g});
    make.collective(rank, plan::Collective::ALL_REDUCE, {0, 1}, 3, {g}, {a});
    make.kernel(rank, "after", 1e9, {a}, {out});
  }
  Report report = simulateOn(make.plan, clusterWith(1));
  // Every switch of the CPU to a thread costs sw. Rank 0's gradient ends
  // at sw + 1 ms, rank 1's at 2 sw + 2 ms (rank 0's comm thread asked
  // behind rank 1's compute thread). Each comm thread switches in and
  // posts: rank 0 at 3 sw + 2 ms, rank 1 at 4 sw + 2 ms. Rank 1, posting
  // last, does its share of the all-reduce at once (2 alpha + B / beta on
  // the pair link: 6 us), then rank 0 switches in for its share.
  const double sw = 2e-4, share = 2e-6 + 4e-6;
  double reduced = 5 * sw + 2e-3 + 2 * share;
  EXPECT_DOUBLE_EQ(report.trace[1].start, 3 * sw + 2e-3);
  EXPECT_DOUBLE_EQ(report.trace[4].start, 4 * sw + 2e-3);
  EXPECT_DOUBLE_EQ(report.trace[1].start + report.trace[1].duration, reduced);
  // Then each compute thread switches in, in turn.
  EXPECT_DOUBLE_EQ(report.trace[2].start, reduced + sw);
  EXPECT_DOUBLE_EQ(report.trace[5].start, reduced + sw + 1e-3 + sw);
  EXPECT_DOUBLE_EQ(report.stepSeconds, reduced + 2 * (sw + 1e-3));
  expectSplitSums(report);
}

TEST(Replay, OneRankRunsItsStreamsInOrder) {
  PlanMaker make(1);
  int64_t x = make.regst(0, 1000000), y = make.regst(0, 1000),
          z = make.regst(0, 1000000);
  make.task(0, plan::INPUT, "io", "input x", {}, {x});
  make.kernel(0, "a", 1e9, {x}, {y});
  make.kernel(0, "b", 2e9, {y}, {z});
  make.task(0, plan::OUTPUT, "io", "output z", {z}, {});
  Report report = simulateOk(make.plan);
  // Copies of 1e6 bytes at 1e12 bytes/s: 1 us each; kernels 1 and 2 ms.
  EXPECT_DOUBLE_EQ(report.stepSeconds, 1e-6 + 3e-3 + 1e-6);
  EXPECT_DOUBLE_EQ(report.computeSeconds, 3e-3);
  EXPECT_NEAR(report.exposedCommunicationSeconds, 2e-6, 1e-15);
  EXPECT_EQ(report.bubbleSeconds, 0);
  EXPECT_EQ(report.simulatedRanks, 1);
  EXPECT_DOUBLE_EQ(report.tflopsPerDevice, 3e9 / report.stepSeconds / 1e12);
  EXPECT_EQ(report.cluster, "test cluster");
}

TEST(Replay, CollectiveStartsWhenTheLastMemberIsReady) {
  PlanMaker make(2);
  for (int rank : {0, 1}) {
    int64_t g = make.regst(rank, 4000000), a = make.regst(rank, 4000000),
            out = make.regst(rank, 4);
    make.kernel(rank, "grad", rank == 0 ? 1e9 : 3e9, {}, {g});
    make.collective(rank, plan::Collective::ALL_REDUCE, {0, 1}, 3, {g}, {a});
    make.kernel(rank, "after", 1e9, {a}, {out});
  }
  Report report = simulateOk(make.plan, /*trace=*/true);
  // Starts at 3 ms (rank 1's gradient); ring on the pair link:
  // 2 (n-1) alpha + 2 (n-1)/n B / beta = 2e-6 + 4e-3.
  double allReduce = 2e-6 + 4e-3;
  EXPECT_DOUBLE_EQ(report.stepSeconds, 3e-3 + allReduce + 1e-3);
  // Both ranks end together: the lower one is analyzed. Its compute
  // stream waits 2 ms for rank 1 and then the all-reduce itself.
  EXPECT_EQ(report.lastRank, 0);
  EXPECT_DOUBLE_EQ(report.computeSeconds, 2e-3);
  EXPECT_NEAR(report.exposedCommunicationSeconds, 2e-3 + allReduce, 1e-12);
  expectSplitSums(report);
  // Rank 0's all-reduce waits from 1 ms, as the runtime's firing would.
  ASSERT_EQ(report.trace.size(), 6u);
  EXPECT_DOUBLE_EQ(report.trace[1].start, 1e-3);
  EXPECT_DOUBLE_EQ(report.trace[1].duration, 2e-3 + allReduce);
  EXPECT_DOUBLE_EQ(report.trace[4].start, 3e-3);
}

TEST(Replay, ReceiveWaitingForItsSendIsPipelineBubble) {
  PlanMaker make(2);
  int64_t a = make.regst(0, 1000000), b = make.regst(1, 1000000),
          out = make.regst(1, 4);
  make.kernel(0, "fwd stage 0", 2e9, {}, {a});
  make.collective(0, plan::Collective::SEND, {0, 1}, 7, {a}, {});
  make.collective(1, plan::Collective::RECV, {0, 1}, 7, {}, {b});
  make.kernel(1, "fwd stage 1", 1e9, {b}, {out});
  Report report = simulateOk(make.plan);
  // alpha + B / beta on the pair link.
  double transfer = 1e-6 + 1e-3;
  EXPECT_DOUBLE_EQ(report.stepSeconds, 2e-3 + transfer + 1e-3);
  EXPECT_EQ(report.lastRank, 1);
  EXPECT_DOUBLE_EQ(report.computeSeconds, 1e-3);
  EXPECT_DOUBLE_EQ(report.bubbleSeconds, 2e-3);
  EXPECT_NEAR(report.exposedCommunicationSeconds, transfer, 1e-12);
  expectSplitSums(report);
}

TEST(Replay, SendsDoNotBlockTheirStream) {
  // Each rank sends, then receives what the other sent: blocking sends
  // would wait for each other forever (1F1B's steady state does this).
  PlanMaker make(2);
  for (int rank : {0, 1}) {
    int other = 1 - rank;
    int64_t x = make.regst(rank, 1000), y = make.regst(rank, 1000);
    make.kernel(rank, "produce", 1e6, {}, {x});
    make.collective(rank, plan::Collective::SEND, {rank, other}, rank, {x}, {});
    make.collective(rank, plan::Collective::RECV, {other, rank}, other, {},
                    {y});
    make.kernel(rank, "consume", 1e6, {y}, {});
  }
  Report report = simulateOk(make.plan);
  EXPECT_DOUBLE_EQ(report.stepSeconds, 1e-6 + (1e-6 + 1e-6) + 1e-6);
}

TEST(Replay, DeadlockIsAnErrorSpellingTheCycle) {
  // Each rank receives before it sends.
  PlanMaker make(2);
  for (int rank : {0, 1}) {
    int other = 1 - rank;
    int64_t x = make.regst(rank, 1000), y = make.regst(rank, 1000);
    make.kernel(rank, "k" + std::to_string(rank), 1e6, {}, {x});
    make.collective(rank, plan::Collective::RECV, {other, rank}, rank + 1, {},
                    {y});
    make.collective(rank, plan::Collective::SEND, {rank, other}, other + 1, {x},
                    {});
  }
  EXPECT_EQ(errorOf(make.plan),
            "the plan deadlocks, a cycle of waits:\n"
            "  rank 0 'RECV tag 1' waits for its peer rank 1 'SEND tag 1'\n"
            "  rank 1 'SEND tag 1' is queued behind rank 1 'RECV tag 2' on "
            "its comm stream\n"
            "  rank 1 'RECV tag 2' waits for its peer rank 0 'SEND tag 2'\n"
            "  rank 0 'SEND tag 2' is queued behind rank 0 'RECV tag 1' on "
            "its comm stream");
}

TEST(Replay, DeadlockThroughADependencyLaterInTheSchedule) {
  // A kernel reads what the next kernel of its own stream writes.
  PlanMaker make(1);
  int64_t x = make.regst(0, 4), y = make.regst(0, 4);
  make.kernel(0, "first", 1, {y}, {x});
  make.kernel(0, "second", 1, {x}, {y});
  EXPECT_EQ(errorOf(make.plan),
            "the plan deadlocks, a cycle of waits:\n"
            "  rank 0 'first' waits for rank 0 'second'\n"
            "  rank 0 'second' is queued behind rank 0 'first' on its "
            "compute stream");
}

TEST(Replay, RolesReplayTheirRepresentativesOnly) {
  // Two roles (pipeline stages) of a mesh of 2: ranks {0, 1} and {2, 3}.
  PlanMaker make(4);
  make.plan.add_mesh_shape(2);
  for (std::vector<int32_t> members :
       std::vector<std::vector<int32_t>>{{0, 1}, {2, 3}}) {
    plan::Role *role = make.plan.add_roles();
    for (int32_t member : members)
      role->add_members(member);
  }
  int64_t g = make.regst(0, 1000000), a = make.regst(0, 1000000),
          b = make.regst(2, 1000000);
  make.kernel(0, "grad", 1e9, {}, {g});
  make.collective(0, plan::Collective::ALL_REDUCE, {0, 1}, 0, {g}, {a})
      .mutable_collective()
      ->set_mesh_axis(0);
  make.collective(0, plan::Collective::SEND, {0, 2}, 1, {a}, {});
  make.collective(2, plan::Collective::RECV, {0, 2}, 1, {}, {b});
  make.kernel(2, "use", 2e9, {b}, {});
  Report report = simulateOk(make.plan);
  // The all-reduce needs no other member (rank 1 acts alike): 1 ms, then
  // 2e-6 + 1e-3 on the pair link; the send crosses to the outer link:
  // 1e-5 + 1e6 / 1e8; then 2 ms.
  double step = 1e-3 + (2e-6 + 1e-3) + (1e-5 + 1e-2) + 2e-3;
  EXPECT_DOUBLE_EQ(report.stepSeconds, step);
  EXPECT_EQ(report.simulatedRanks, 2);
  EXPECT_EQ(report.numRanks, 4);
  // Every member computes: (1e9 + 2e9) FLOPs twice over 4 ranks.
  EXPECT_DOUBLE_EQ(report.tflopsPerDevice, 6e9 / (4 * step) / 1e12);
  ASSERT_EQ(report.roles.size(), 2u);
  EXPECT_EQ(report.roles[1].members, 2);
  EXPECT_EQ(report.roles[1].representative, 2);
}

TEST(Replay, WaitForOrdersTasksOfOtherStreams) {
  PlanMaker make(1);
  int64_t big = make.regst(0, 1000000000), w = make.regst(0, 64, true),
          v = make.regst(0, 64);
  plan::Task &input = make.task(0, plan::INPUT, "io", "input", {}, {big});
  make.kernel(0, "value", 5e8, {}, {v});
  make.task(0, plan::ASSIGN, "compute", "assign", {v}, {w})
      .add_wait_for(input.id());
  Report report = simulateOk(make.plan, /*trace=*/true);
  // The input's copy takes 1 ms; the assign waits for it.
  EXPECT_DOUBLE_EQ(report.trace[2].start, 1e-3);
}

TEST(Replay, InconsistentPlansAreErrors) {
  {
    PlanMaker make(2);
    int64_t g = make.regst(0, 4), a = make.regst(0, 4);
    make.kernel(0, "grad", 1, {}, {g});
    make.collective(0, plan::Collective::ALL_REDUCE, {0, 1}, 3, {g}, {a});
    EXPECT_EQ(errorOf(make.plan), "plan: collective 'ALL_REDUCE tag 3' (tag "
                                  "3) has 1 of its 2 members in the plan");
  }
  {
    PlanMaker make(2);
    int64_t a = make.regst(0, 4);
    make.kernel(0, "k", 1, {}, {a});
    make.collective(0, plan::Collective::SEND, {0, 1}, 4, {a}, {});
    EXPECT_EQ(errorOf(make.plan),
              "plan: 'SEND tag 4' has no receive with tag 4");
  }
  {
    PlanMaker make(1);
    int64_t a = make.regst(0, 4);
    make.kernel(0, "reads nothing written", 1, {a}, {});
    EXPECT_EQ(errorOf(make.plan), "plan: task 'reads nothing written' reads "
                                  "regst 'r0', which no task writes");
    make.plan.mutable_tasks(0)->set_in_regsts(0, 9);
    EXPECT_EQ(errorOf(make.plan), "plan: task 'reads nothing written' reads "
                                  "regst 9, which the plan lacks");
  }
}

TEST(Replay, TraceAndJsonOutputs) {
  PlanMaker make(1);
  int64_t x = make.regst(0, 1000);
  make.kernel(0, "k \"quoted\"", 1e9, {}, {x});
  Report report = simulateOk(make.plan, /*trace=*/true);
  EXPECT_EQ(traceToJson(report, make.plan),
            "[\n{\"name\": \"k \\\"quoted\\\"\", \"ph\": \"X\", \"ts\": "
            "0.000, \"dur\": 1000.000, \"pid\": 0, \"tid\": \"compute\", "
            "\"args\": {\"task\": 0, \"step\": 0}}\n]\n");
  std::string json = reportToJson(report);
  for (const char *key :
       {"\"cluster\": \"test cluster\"", "\"num_ranks\": 1",
        "\"step_seconds\": 0.001", "\"compute_seconds\": 0.001",
        "\"exposed_communication_seconds\": 0", "\"bubble_seconds\": 0",
        "\"tflops_per_device\": 1", "\"peak_memory_bytes\": 1024",
        "\"fits\": true", "\"activations_bytes\": 1024"})
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
}

} // namespace

namespace {

TEST(Replay, CudaTransfersRunOnAStreamPerDirection) {
  // Rank 1 receives twice from rank 0 and runs an all-reduce with rank 2
  // on its comm stream meanwhile. Under MPI the receives block the comm
  // thread, so the all-reduce waits for them; in a CUDA plan they wait on
  // their direction's stream, and the two sends, on theirs, follow each
  // other.
  auto build = [](const std::string &device) {
    PlanMaker make(3);
    make.plan.set_device(device);
    int64_t a = make.regst(0, 1000000), b = make.regst(0, 1000000);
    make.kernel(0, "a", 2e9, {}, {a});
    make.kernel(0, "b", 1e6, {}, {b});
    make.collective(0, plan::Collective::SEND, {0, 1}, 10, {a}, {});
    make.collective(0, plan::Collective::SEND, {0, 1}, 11, {b}, {});
    int64_t ra = make.regst(1, 1000000), rb = make.regst(1, 1000000);
    make.collective(1, plan::Collective::RECV, {0, 1}, 10, {}, {ra});
    make.collective(1, plan::Collective::RECV, {0, 1}, 11, {}, {rb});
    for (int rank : {1, 2}) {
      int64_t g = make.regst(rank, 4), s = make.regst(rank, 4);
      make.kernel(rank, "g", 1e6, {}, {g});
      make.collective(rank, plan::Collective::ALL_REDUCE, {1, 2}, 20, {g},
                      {s});
    }
    return make.plan;
  };
  // The transfers: 1e-6 + 1e-3 each on the pair link, after a's 2 ms.
  double transfer = 1e-6 + 1e-3;
  // All-reduce of 4 bytes over ranks 1 and 2 (outer link): 2e-5 + 4e-8.
  double allReduce = 2e-5 + 4e-8;
  Report mpi = simulateOk(build("cpu"), /*trace=*/true);
  Report cuda = simulateOk(build("cuda"), /*trace=*/true);
  // Tasks: rank 0's a, b and sends (0-3), rank 1's receives (4, 5), then
  // g and the all-reduce of ranks 1 (6, 7) and 2 (8, 9).
  // MPI: the second transfer starts when rank 1's comm thread reaches its
  // receive, after the first one; the all-reduce after both.
  EXPECT_DOUBLE_EQ(mpi.trace[5].start, 2e-3 + transfer);
  EXPECT_DOUBLE_EQ(mpi.trace[7].start, 2e-3 + 2 * transfer);
  EXPECT_DOUBLE_EQ(mpi.stepSeconds, 2e-3 + 2 * transfer + allReduce);
  // CUDA: the all-reduce runs at once, not behind the receives.
  EXPECT_DOUBLE_EQ(cuda.trace[7].start, 1e-6);
  EXPECT_DOUBLE_EQ(cuda.trace[7].duration, allReduce);
  // b's send waits behind a's on the direction's stream.
  EXPECT_DOUBLE_EQ(cuda.trace[3].start, 2e-3 + transfer);
  EXPECT_DOUBLE_EQ(cuda.stepSeconds, 2e-3 + 2 * transfer);
}

} // namespace
