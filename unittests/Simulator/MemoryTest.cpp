//===- MemoryTest.cpp - Memory per role, as the runtime places it ---------===//

#include "TestPlans.h"

#include "oneflow/Simulator/Simulator.h"

#include "gtest/gtest.h"

using namespace oneflow;
using namespace oneflow::simulator;

namespace {

/// A training step of one parameter with AdamW-like state.
PlanMaker trainingStep() {
  PlanMaker make(1);
  int64_t w = make.regst(0, 1000, true, "fc.weight", /*trainable=*/true);
  int64_t m = make.regst(0, 100, true, "fc.weight.exp_avg");
  int64_t step = make.regst(0, 8, true, "optimizer.step");
  int64_t frozen = make.regst(0, 256, true, "emb.weight");
  int64_t constant = make.regst(0, 64, true);
  int64_t x = make.regst(0, 640), a = make.regst(0, 1000),
          b = make.regst(0, 1000), g = make.regst(0, 1000);
  make.task(0, plan::INPUT, "io", "input", {}, {x});
  make.kernel(0, "fwd", 1, {x, w, frozen, constant}, {a});
  make.kernel(0, "bwd", 1, {a}, {b});
  make.kernel(0, "grad", 1, {b}, {g});
  // Updates the parameter and its state in place.
  make.kernel(0, "update", 1, {w, m, step, g}, {w, m, step});
  return make;
}

TEST(Memory, SplitsPersistentRegstsAndPacksTheArena) {
  PlanMaker make = trainingStep();
  std::vector<RoleMemory> roles = roleMemory(make.plan, testCluster());
  ASSERT_EQ(roles.size(), 1u);
  const RoleMemory &memory = roles[0];
  // 64-byte slots.
  EXPECT_EQ(memory.parameters, 1024);
  EXPECT_EQ(memory.optimizerState, 128 + 64);
  EXPECT_EQ(memory.buffers, 256 + 64);
  // The input crosses streams: its own 640 bytes. a [fwd, bwd], b [bwd,
  // grad] and g [grad, update] share one pool of the compute stream: a
  // and g do not overlap, so 2 x 1024.
  EXPECT_EQ(memory.gradients, 1024);
  EXPECT_EQ(memory.activations, 640 + 2048 - 1024);
  EXPECT_EQ(memory.total(), 1024 + 192 + 320 + 640 + 2048);
  EXPECT_EQ(memory.capacity, 1000000000);
  EXPECT_TRUE(memory.fits());
  RoleMemory small = memory;
  small.capacity = 4000;
  EXPECT_FALSE(small.fits());
}

TEST(Memory, SendInputsAndExtraSlotsDoNotShare) {
  PlanMaker make(2);
  int64_t a = make.regst(0, 1000), b = make.regst(0, 1000),
          c = make.regst(0, 1000), r = make.regst(1, 1000);
  make.kernel(0, "a", 1, {}, {a});
  make.collective(0, plan::Collective::SEND, {0, 1}, 0, {a}, {});
  make.kernel(0, "b", 1, {}, {b});
  make.plan.mutable_regsts(int(c))->set_num_slots(2);
  make.kernel(0, "c", 1, {b}, {c});
  make.kernel(0, "d", 1, {c}, {});
  make.collective(1, plan::Collective::RECV, {0, 1}, 0, {}, {r});
  std::vector<RoleMemory> roles = roleMemory(make.plan, testCluster());
  ASSERT_EQ(roles.size(), 2u);
  // a (read by a SEND) and c (two slots) have their own bytes; b alone in
  // its pool.
  EXPECT_EQ(roles[0].activations, 1024 + 2 * 1024 + 1024);
  EXPECT_EQ(roles[1].activations, 1024);
  EXPECT_EQ(roles[1].representative, 1);
  EXPECT_EQ(roles[1].members, 1);
}

} // namespace
