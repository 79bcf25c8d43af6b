//===- BoxingCostTest.cpp - The boxing cost model -------------------------===//

#include "oneflow/Dialect/SBP/BoxingCost.h"

#include "gtest/gtest.h"

using namespace mlir::sbp;

namespace {

const Sbp S0 = Sbp::split(0), S1 = Sbp::split(1), B = Sbp::broadcast(),
          P = Sbp::partialSum();

TEST(BoxingCost, ClassifiesEveryConversionOfTheTable) {
  EXPECT_EQ(classifyBoxing(P, B), BoxingKind::AllReduce);
  EXPECT_EQ(classifyBoxing(P, S1), BoxingKind::ReduceScatter);
  EXPECT_EQ(classifyBoxing(S0, B), BoxingKind::AllGather);
  EXPECT_EQ(classifyBoxing(S0, S1), BoxingKind::AllToAll);
  EXPECT_EQ(classifyBoxing(B, S0), BoxingKind::LocalSlice);
  EXPECT_EQ(classifyBoxing(B, P), BoxingKind::ZeroFill);
  EXPECT_EQ(classifyBoxing(S0, P), BoxingKind::SplitToPartial);
  EXPECT_EQ(classifyBoxing(S1, S1), BoxingKind::Identity);
  EXPECT_EQ(stringifyBoxingKind(BoxingKind::AllReduce), "all-reduce");
}

TEST(BoxingCost, BytesFollowTheArchitectureTable) {
  const double T = 1024;
  // n = 4: (n-1)/n = 0.75.
  EXPECT_DOUBLE_EQ(boxingBytes1D(P, B, T, 4), 2 * T * 0.75);
  EXPECT_DOUBLE_EQ(boxingBytes1D(P, S0, T, 4), T * 0.75);
  EXPECT_DOUBLE_EQ(boxingBytes1D(S0, B, T, 4), T * 0.75);
  EXPECT_DOUBLE_EQ(boxingBytes1D(S0, S1, T, 4), T * 3 / 16);
  EXPECT_DOUBLE_EQ(boxingBytes1D(B, S0, T, 4), 0);
  EXPECT_DOUBLE_EQ(boxingBytes1D(B, P, T, 4), 0);
  EXPECT_DOUBLE_EQ(boxingBytes1D(S0, S0, T, 4), 0);
}

TEST(BoxingCost, OneDeviceMovesNothing) {
  EXPECT_DOUBLE_EQ(boxingBytes1D(P, B, 1024, 1), 0);
}

TEST(BoxingCost, NdConvertsAxisByAxisOnTheRemainingPiece) {
  const double T = 1024;
  // [S0, P] -> [S0, B] on 2x2: axis 1 all-reduces the half that axis 0 left.
  EXPECT_DOUBLE_EQ(boxingBytesND({S0, P}, {S0, B}, T, {2, 2}),
                   2 * (T / 2) * 0.5);
  // [P, P] -> [B, S1]: the reduce-scatter on axis 1 goes first, so the
  // all-reduce on axis 0 only moves the quarter... of the scattered half.
  EXPECT_DOUBLE_EQ(boxingBytesND({P, P}, {B, S1}, T, {2, 2}),
                   T * 0.5 + 2 * (T / 2) * 0.5);
  // Nothing to do.
  EXPECT_DOUBLE_EQ(boxingBytesND({S0, B}, {S0, B}, T, {2, 2}), 0);
}

TEST(BoxingCost, StepsND) {
  const double T = 1024;
  // [P, P] -> [B, S1] on 2x4: the reduce-scatter on axis 1 (the whole
  // tensor, 4 devices) runs first, then the all-reduce on axis 0 of the
  // quarter each axis-0 group holds.
  auto steps = boxingStepsND({P, P}, {B, S1}, T, {2, 4});
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].axis, 1u);
  EXPECT_EQ(steps[0].kind, BoxingKind::ReduceScatter);
  EXPECT_DOUBLE_EQ(steps[0].groupBytes, T);
  EXPECT_DOUBLE_EQ(steps[0].bytesSent, T * 0.75);
  EXPECT_EQ(steps[1].axis, 0u);
  EXPECT_EQ(steps[1].kind, BoxingKind::AllReduce);
  EXPECT_DOUBLE_EQ(steps[1].groupBytes, T / 4);
  EXPECT_DOUBLE_EQ(steps[1].bytesSent, 2 * (T / 4) * 0.5);
  EXPECT_TRUE(boxingStepsND({S0, B}, {S0, B}, T, {2, 2}).empty());
}

TEST(BoxingCost, StepsNDGatherInnerSplitsOfTheSameDimensionFirst) {
  const double T = 1024;
  // [P, S0] -> [S0, S0] on 2x4, as sbp-localize lowers it: the
  // reduce-scatter along dim 0 on axis 0 needs axis 1's split of dim 0
  // gathered first, so it moves the whole tensor, not axis 1's quarter.
  auto steps = boxingStepsND({P, S0}, {S0, S0}, T, {2, 4});
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].axis, 1u);
  EXPECT_EQ(steps[0].kind, BoxingKind::AllGather);
  EXPECT_DOUBLE_EQ(steps[0].bytesSent, T * 0.75);
  EXPECT_EQ(steps[1].axis, 0u);
  EXPECT_EQ(steps[1].kind, BoxingKind::ReduceScatter);
  EXPECT_DOUBLE_EQ(steps[1].groupBytes, T);
  EXPECT_EQ(steps[2].axis, 1u);
  EXPECT_EQ(steps[2].kind, BoxingKind::LocalSlice);
  // The all-reduce that keeps axis 1's split moves only its quarter.
  EXPECT_DOUBLE_EQ(boxingBytesND({P, S0}, {B, S0}, T, {2, 4}),
                   2 * (T / 4) * 0.5);
}

} // namespace
