//===- CollectivesTest.cpp - Collectives without MPI ----------------------===//
//
// What can be checked in one process: the shape rules and the packing of
// every collective (simulating MPI's rank-major exchange on plain buffers
// and comparing with concatenations and splits along the axis), the f16 and
// bf16 conversions of the sums, the load-time validation of COLLECTIVE tasks
// (completeness, consistency, deadlock freedom), the memory planner's rule
// for SEND inputs and the thread budget. The real exchange over MPI is
// tested end to end by test/Runtime/multirank-*.test.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/MemoryPlanner.h"
#include "oneflow/Runtime/PlanGraph.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <numeric>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

using Kind = plan::Collective;

/// A dense f32 tensor for the reference computations.
struct Dense {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

int64_t count(const std::vector<int64_t> &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// Distinct values per member and element, so misplaced blocks show.
Dense filled(std::vector<int64_t> shape, int member) {
  Dense t{shape, std::vector<float>(count(shape))};
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = float(member * 1000 + int(i));
  return t;
}

/// Views `shape` as [outer][n][inner] around `axis`.
void around(const std::vector<int64_t> &shape, int axis, int64_t &outer,
            int64_t &inner) {
  outer = count({shape.begin(), shape.begin() + axis});
  inner = count({shape.begin() + axis + 1, shape.end()});
}

Dense concat(const std::vector<Dense> &parts, int axis) {
  Dense result{parts[0].shape, {}};
  result.shape[axis] = 0;
  for (const Dense &p : parts)
    result.shape[axis] += p.shape[axis];
  int64_t outer, inner;
  around(parts[0].shape, axis, outer, inner);
  for (int64_t o = 0; o < outer; ++o)
    for (const Dense &p : parts) {
      int64_t chunk = p.shape[axis] * inner;
      result.data.insert(result.data.end(), p.data.begin() + o * chunk,
                         p.data.begin() + (o + 1) * chunk);
    }
  return result;
}

Dense piece(const Dense &t, int parts, int index, int axis) {
  Dense result{t.shape, {}};
  result.shape[axis] /= parts;
  int64_t outer, inner;
  around(t.shape, axis, outer, inner);
  int64_t chunk = result.shape[axis] * inner;
  for (int64_t o = 0; o < outer; ++o) {
    auto begin = t.data.begin() + o * t.shape[axis] * inner + index * chunk;
    result.data.insert(result.data.end(), begin, begin + chunk);
  }
  return result;
}

Dense sum(const std::vector<Dense> &parts) {
  Dense result = parts[0];
  for (size_t p = 1; p < parts.size(); ++p)
    for (size_t i = 0; i < result.data.size(); ++i)
      result.data[i] += parts[p].data[i];
  return result;
}

plan::TensorDesc desc(const std::vector<int64_t> &shape) {
  plan::TensorDesc d;
  d.set_dtype(plan::F32);
  for (int64_t dim : shape)
    d.add_shape(dim);
  return d;
}

plan::Collective collective(Kind::Kind kind, int axis = 0, int concat = 0) {
  plan::Collective c;
  c.set_kind(kind);
  c.set_axis(axis);
  c.set_concat_axis(concat);
  return c;
}

CollectiveLayout mustLayout(const plan::Collective &c,
                            const std::vector<int64_t> &in,
                            const std::vector<int64_t> &out, int groupSize) {
  plan::TensorDesc inDesc = desc(in), outDesc = desc(out);
  Expected<CollectiveLayout> layout =
      layoutCollective(c, &inDesc, &outDesc, groupSize);
  EXPECT_TRUE(layout.ok()) << layout.error().message();
  return layout.ok() ? *layout : CollectiveLayout();
}

/// Bytes as MPI sees them: `packOuter` > 1 packs the input first.
std::vector<float> packed(const CollectiveLayout &layout, const Dense &in) {
  if (layout.packOuter == 1)
    return in.data;
  std::vector<float> out(in.data.size());
  transposeBlocks(in.data.data(), out.data(), layout.packOuter,
                  layout.groupSize, layout.packBytes);
  return out;
}

std::vector<float> unpacked(const CollectiveLayout &layout,
                            const std::vector<float> &received) {
  if (layout.unpackOuter == 1)
    return received;
  std::vector<float> out(received.size());
  transposeBlocks(received.data(), out.data(), layout.groupSize,
                  layout.unpackOuter, layout.unpackBytes);
  return out;
}

const std::vector<int64_t> kShape = {2, 3, 6};

TEST(CollectiveLayout, AllGatherAlongEveryAxis) {
  const int G = 3;
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<Dense> ins;
    for (int m = 0; m < G; ++m)
      ins.push_back(filled(kShape, m));
    Dense want = concat(ins, axis);
    CollectiveLayout layout =
        mustLayout(collective(Kind::ALL_GATHER, axis), kShape, want.shape, G);
    EXPECT_EQ(layout.blockElements, count(kShape));
    EXPECT_EQ(layout.unpackOuter == 1, axis == 0) << axis;
    // MPI_Allgather: member blocks one after the other.
    std::vector<float> received;
    for (const Dense &in : ins)
      received.insert(received.end(), in.data.begin(), in.data.end());
    EXPECT_EQ(unpacked(layout, received), want.data) << "axis " << axis;
  }
}

TEST(CollectiveLayout, ReduceScatterAlongEveryAxis) {
  const int G = 3;
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<int64_t> shape = kShape;
    shape[axis] = 6; // divisible by 3
    std::vector<Dense> ins;
    for (int m = 0; m < G; ++m)
      ins.push_back(filled(shape, m));
    Dense total = sum(ins);
    std::vector<int64_t> out = shape;
    out[axis] /= G;
    CollectiveLayout layout =
        mustLayout(collective(Kind::REDUCE_SCATTER, axis), shape, out, G);
    EXPECT_EQ(layout.blockElements, count(out));
    // MPI_Reduce_scatter_block: block g of the elementwise sum.
    std::vector<float> summed(count(shape), 0);
    for (const Dense &in : ins) {
      std::vector<float> p = packed(layout, in);
      for (size_t i = 0; i < p.size(); ++i)
        summed[i] += p[i];
    }
    for (int g = 0; g < G; ++g) {
      std::vector<float> block(summed.begin() + g * layout.blockElements,
                               summed.begin() + (g + 1) * layout.blockElements);
      EXPECT_EQ(block, piece(total, G, g, axis).data)
          << "axis " << axis << " member " << g;
    }
  }
}

TEST(CollectiveLayout, AllToAllForEveryPairOfAxes) {
  const int G = 3;
  for (int axis = 0; axis < 3; ++axis)
    for (int concatAxis = 0; concatAxis < 3; ++concatAxis) {
      std::vector<int64_t> shape = {3, 6, 2};
      shape[axis] = 6;
      std::vector<Dense> ins;
      for (int m = 0; m < G; ++m)
        ins.push_back(filled(shape, m));
      std::vector<int64_t> out = shape;
      out[axis] /= G;
      out[concatAxis] *= G;
      CollectiveLayout layout = mustLayout(
          collective(Kind::ALL_TO_ALL, axis, concatAxis), shape, out, G);
      std::vector<std::vector<float>> sent;
      for (const Dense &in : ins)
        sent.push_back(packed(layout, in));
      for (int g = 0; g < G; ++g) {
        // MPI_Alltoall: member g receives block g of every member, in order.
        std::vector<float> received;
        std::vector<Dense> pieces;
        for (int j = 0; j < G; ++j) {
          auto begin = sent[j].begin() + g * layout.blockElements;
          received.insert(received.end(), begin, begin + layout.blockElements);
          pieces.push_back(piece(ins[j], G, g, axis));
        }
        EXPECT_EQ(unpacked(layout, received), concat(pieces, concatAxis).data)
            << "axis " << axis << " concat " << concatAxis << " member " << g;
      }
    }
}

TEST(CollectiveLayout, ShapeErrors) {
  auto error = [](const plan::Collective &c, std::vector<int64_t> in,
                  std::vector<int64_t> out, int groupSize,
                  plan::DataType dtype = plan::F32) {
    plan::TensorDesc inDesc = desc(in), outDesc = desc(out);
    inDesc.set_dtype(dtype);
    outDesc.set_dtype(dtype);
    Expected<CollectiveLayout> layout =
        layoutCollective(c, &inDesc, &outDesc, groupSize);
    EXPECT_FALSE(layout.ok());
    return layout.ok() ? std::string() : layout.error().message();
  };
  EXPECT_EQ(error(collective(Kind::ALL_GATHER, 1), {2, 3}, {6, 3}, 3),
            "ALL_GATHER along axis 1 of f32[2,3] over 3 ranks makes "
            "f32[2,9], not f32[6,3]");
  EXPECT_EQ(error(collective(Kind::REDUCE_SCATTER, 0), {4, 3}, {1, 3}, 3),
            "REDUCE_SCATTER along axis 0 of f32[4,3] over 3 ranks: "
            "dimension 0 (4) is not divisible by 3");
  EXPECT_EQ(error(collective(Kind::ALL_TO_ALL, 0, 2), {6, 3}, {2, 9}, 3),
            "ALL_TO_ALL: concat_axis 2 is not an axis of f32[6,3]");
  EXPECT_EQ(error(collective(Kind::ALL_TO_ALL, 0, 1), {6, 3}, {6, 3}, 3),
            "ALL_TO_ALL along axis 0 of f32[6,3] over 3 ranks and "
            "concat_axis 1 makes f32[2,9], not f32[6,3]");
  EXPECT_EQ(error(collective(Kind::ALL_REDUCE), {4}, {5}, 2),
            "ALL_REDUCE of f32[4] makes f32[4], not f32[5]");
  EXPECT_EQ(error(collective(Kind::ALL_GATHER, -1), {4}, {8}, 2),
            "ALL_GATHER: axis -1 is not an axis of f32[4]");
  EXPECT_EQ(error(collective(Kind::ALL_GATHER, 0), {}, {}, 2),
            "ALL_GATHER: axis 0 is not an axis of f32[]");
  EXPECT_EQ(error(collective(Kind::ALL_REDUCE), {4}, {4}, 2, plan::BOOL),
            "ALL_REDUCE of bool[4]: sums of booleans are not supported "
            "(reduce i32)");
  plan::TensorDesc in = desc({4}), out = desc({4});
  out.set_dtype(plan::F64);
  Expected<CollectiveLayout> layout =
      layoutCollective(collective(Kind::ALL_REDUCE), &in, &out, 2);
  ASSERT_FALSE(layout.ok());
  EXPECT_EQ(layout.error().message(),
            "ALL_REDUCE changes the dtype: f32[4] in, f64[4] out");
  // Gathers of booleans and point-to-point transfers of anything are fine.
  plan::TensorDesc flags = desc({2});
  flags.set_dtype(plan::BOOL);
  plan::TensorDesc gathered = desc({4});
  gathered.set_dtype(plan::BOOL);
  EXPECT_TRUE(
      layoutCollective(collective(Kind::ALL_GATHER), &flags, &gathered, 2)
          .ok());
  EXPECT_TRUE(
      layoutCollective(collective(Kind::SEND), &flags, nullptr, 1).ok());
}

TEST(CollectiveLayout, HalfConversionsRoundTripAndRound) {
  // Every f16 and bf16 value survives f32 and back (NaNs stay NaNs).
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float h = halfToFloat(uint16_t(bits));
    if (std::isnan(h))
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(h)))) << bits;
    else
      EXPECT_EQ(floatToHalf(h), bits) << bits;
    float b = bfloat16ToFloat(uint16_t(bits));
    if (std::isnan(b))
      EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBfloat16(b)))) << bits;
    else
      EXPECT_EQ(floatToBfloat16(b), bits) << bits;
  }
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);              // largest finite
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);              // rounds to inf
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00); // tie: even
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // tie to even 0
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(floatToBfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80); // tie
  EXPECT_EQ(floatToBfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(bfloat16ToFloat(0xc040), -3.0f);
}

//===----------------------------------------------------------------------===//
// Load-time validation of COLLECTIVE tasks.
//===----------------------------------------------------------------------===//

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

#define EXPECT_VALID(plan)                                                     \
  do {                                                                         \
    Expected<PlanGraph> graph = PlanGraph::build(plan);                        \
    EXPECT_TRUE(graph.ok()) << graph.error().message();                        \
  } while (false)

/// A persistent f32 regst of `shape` on `rank`.
int64_t local(PlanBuilder &b, const std::string &name, int rank,
              std::vector<int64_t> shape) {
  int64_t id = b.persistent(name, -1, plan::F32, std::move(shape));
  b.regstById(id).set_rank(rank);
  return id;
}

/// An all-gather along axis 1 of f32[2,3] over ranks 0..2 (tag 7), rank 0's
/// result a graph output.
PlanBuilder gatherPlan() {
  PlanBuilder b;
  b.plan.set_num_ranks(3);
  int64_t out0 = -1;
  for (int r = 0; r < 3; ++r) {
    int64_t in = local(b, "in" + std::to_string(r), r, {2, 3});
    int64_t out = b.regst("out" + std::to_string(r), plan::F32, {2, 9});
    b.collective("gather" + std::to_string(r), Kind::ALL_GATHER, r, {in}, {out},
                 {0, 1, 2}, 7, /*axis=*/1);
    if (r == 0)
      out0 = out;
  }
  b.output("y", out0);
  return b;
}

TEST(CollectiveValidation, AValidGather) {
  PlanBuilder b = gatherPlan();
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  const CollectiveLayout &layout = graph->tasks()[0].collective;
  EXPECT_EQ(layout.kind, Kind::ALL_GATHER);
  EXPECT_EQ(layout.groupSize, 3);
  EXPECT_EQ(layout.unpackOuter, 2);
  EXPECT_EQ(layout.unpackBytes, 3 * 4);
}

TEST(CollectiveValidation, TaskShape) {
  PlanBuilder b = gatherPlan();
  b.taskById(0).set_stream("compute");
  EXPECT_PROBLEM(b.plan, "task 'gather0' (id 0): COLLECTIVE tasks run on the "
                         "'comm' stream, not 'compute'");
  b = gatherPlan();
  b.taskById(0).mutable_collective()->set_kind(static_cast<Kind::Kind>(9));
  EXPECT_PROBLEM(b.plan, "task 'gather0' (id 0): unknown collective kind 9");
  b = gatherPlan();
  b.taskById(0).add_out_regsts(b.regst("extra"));
  EXPECT_PROBLEM(b.plan, "task 'gather0' (id 0): ALL_GATHER tasks have 1 "
                         "in_regst and 1 out_regst, not 1 and 2");
  b = gatherPlan();
  b.taskById(1).mutable_collective()->set_axis(0);
  EXPECT_PROBLEM(b.plan, "task 'gather1' (id 1): ALL_GATHER along axis 0 of "
                         "f32[2,3] over 3 ranks makes f32[6,3], not f32[2,9]");
}

TEST(CollectiveValidation, Groups) {
  PlanBuilder b = gatherPlan();
  b.taskById(0).mutable_collective()->set_group(2, 5);
  EXPECT_PROBLEM(b.plan, "task 'gather0' (id 0): group [0, 1, 5] holds rank "
                         "5, outside [0, 3)");
  b = gatherPlan();
  b.taskById(0).mutable_collective()->set_group(2, 1);
  EXPECT_PROBLEM(b.plan, "task 'gather0' (id 0): group [0, 1, 1] holds rank "
                         "1 twice");
  b = gatherPlan();
  b.taskById(1).mutable_collective()->set_group(1, 2);
  EXPECT_PROBLEM(b.plan, "task 'gather1' (id 1): group [0, 2, 2] holds rank "
                         "2 twice");
  b = gatherPlan();
  b.taskById(0).mutable_collective()->clear_group();
  EXPECT_PROBLEM(b.plan, "task 'gather0' (id 0): ALL_GATHER with an empty "
                         "group");
  // Rank 2's task names a group without rank 2.
  b = gatherPlan();
  b.taskById(2).mutable_collective()->mutable_group()->RemoveLast();
  EXPECT_PROBLEM(b.plan, "task 'gather2' (id 2): group [0, 1] does not hold "
                         "the task's rank 2");
}

TEST(CollectiveValidation, MembersMustAgree) {
  PlanBuilder b = gatherPlan();
  b.taskById(1).mutable_collective()->set_kind(Kind::ALL_REDUCE);
  b.regstById(b.taskById(1).out_regsts(0)).mutable_desc()->set_shape(1, 3);
  b.regstById(b.taskById(1).out_regsts(0)).set_size_bytes(24);
  EXPECT_PROBLEM(b.plan, "collective tag 7: task 'gather1' (id 1) on rank 1 "
                         "disagrees with task 'gather0' (id 0) on rank 0: "
                         "ALL_REDUCE vs ALL_GATHER");
  // Same members in another order: a different group (and gather order).
  b = gatherPlan();
  b.taskById(2).mutable_collective()->mutable_group()->SwapElements(0, 1);
  EXPECT_PROBLEM(b.plan, "collective tag 7: task 'gather2' (id 2) on rank 2 "
                         "disagrees with task 'gather0' (id 0) on rank 0: "
                         "group [1, 0, 2] vs [0, 1, 2]");
  b = gatherPlan();
  // Rank 1 gathers f32[1,6] pieces into f32[1,18]: same bytes, other shape.
  plan::Regst &in1 = b.regstById(b.taskById(1).in_regsts(0));
  in1.mutable_desc()->set_shape(0, 1);
  in1.mutable_desc()->set_shape(1, 6);
  plan::Regst &out1 = b.regstById(b.taskById(1).out_regsts(0));
  out1.mutable_desc()->set_shape(0, 1);
  out1.mutable_desc()->set_shape(1, 18);
  EXPECT_PROBLEM(b.plan, "collective tag 7: task 'gather1' (id 1) on rank 1 "
                         "disagrees with task 'gather0' (id 0) on rank 0: "
                         "f32[1,6] -> f32[1,18] vs f32[2,3] -> f32[2,9]");
}

TEST(CollectiveValidation, EveryMemberExactlyOnce) {
  // Rank 2's task is missing.
  PlanBuilder b = gatherPlan();
  b.plan.mutable_tasks()->DeleteSubrange(2, 1);
  EXPECT_PROBLEM(b.plan, "collective tag 7 (ALL_GATHER over ranks [0, 1, "
                         "2]): rank 2 has 0 tasks of it (needs exactly one)");
  // Two on rank 1 (and none on rank 2).
  b = gatherPlan();
  b.onRank(2, 1);
  std::string message = problems(b.plan);
  EXPECT_NE(message.find("rank 1 has 2 tasks of it"), std::string::npos)
      << message;
  EXPECT_NE(message.find("rank 2 has 0 tasks of it"), std::string::npos)
      << message;
}

TEST(CollectiveValidation, TagsAreUniquePerCollective) {
  PlanBuilder b = gatherPlan();
  int64_t a = local(b, "a", 0, {4});
  b.collective("send", Kind::SEND, 0, {a}, {}, {}, 7, 0, 0, /*peer=*/1);
  EXPECT_PROBLEM(b.plan, "collective tag 7 is shared by a SEND/RECV and "
                         "another collective");
  // A second all-gather under the same tag: two tasks per rank.
  b = gatherPlan();
  for (int r = 0; r < 3; ++r) {
    int64_t in = local(b, "again in" + std::to_string(r), r, {2, 3});
    int64_t out = b.regst("again out" + std::to_string(r), plan::F32, {2, 9});
    b.collective("again" + std::to_string(r), Kind::ALL_GATHER, r, {in}, {out},
                 {0, 1, 2}, 7, 1);
  }
  EXPECT_PROBLEM(b.plan, "rank 0 has 2 tasks of it (needs exactly one)");
}

/// Rank 0 sends f32[4] to rank 1 (tag 3), which outputs... through rank 0:
/// rank 1 sends it back (tag 4).
PlanBuilder pingPong() {
  PlanBuilder b;
  b.plan.set_num_ranks(2);
  int64_t a = local(b, "a", 0, {4});
  int64_t got = b.regst("got");
  int64_t back = b.regst("back");
  b.collective("send", Kind::SEND, 0, {a}, {}, {}, 3, 0, 0, 1);
  b.collective("recv", Kind::RECV, 1, {}, {got}, {}, 3, 0, 0, 0);
  b.collective("send back", Kind::SEND, 1, {got}, {}, {}, 4, 0, 0, 0);
  b.collective("recv back", Kind::RECV, 0, {}, {back}, {}, 4, 0, 0, 1);
  b.output("y", back);
  return b;
}

TEST(CollectiveValidation, SendAndRecv) {
  EXPECT_VALID(pingPong().plan);
  PlanBuilder b = pingPong();
  b.taskById(1).mutable_collective()->set_peer(1);
  EXPECT_PROBLEM(b.plan, "task 'recv' (id 1): a RECV with its own rank 1 as "
                         "peer");
  b = pingPong();
  b.taskById(0).mutable_collective()->set_peer(2);
  EXPECT_PROBLEM(b.plan, "task 'send' (id 0): peer 2 is outside [0, 2)");
  b = pingPong();
  b.plan.set_num_ranks(3);
  b.taskById(0).mutable_collective()->set_peer(2);
  EXPECT_PROBLEM(b.plan, "collective tag 3: task 'send' (id 0) on rank 0 "
                         "sends to rank 2 but task 'recv' (id 1) on rank 1 "
                         "receives from rank 0");
  b = pingPong();
  b.regstById(b.taskById(1).out_regsts(0)).mutable_desc()->set_dtype(plan::I32);
  EXPECT_PROBLEM(b.plan, "collective tag 3: task 'send' (id 0) sends f32[4] "
                         "but task 'recv' (id 1) receives i32[4]");
  b = pingPong();
  b.taskById(1).mutable_collective()->set_tag(5);
  EXPECT_PROBLEM(b.plan, "collective tag 3 has 1 SEND and 0 RECV tasks");
  b = pingPong();
  b.taskById(0).mutable_collective()->add_group(0);
  EXPECT_PROBLEM(b.plan, "task 'send' (id 0): the group of a SEND is empty "
                         "or holds its two ranks, not [0]");
  b = pingPong();
  b.taskById(0).mutable_collective()->add_group(1);
  b.taskById(0).mutable_collective()->add_group(0);
  EXPECT_VALID(b.plan);
  b = pingPong();
  b.taskById(0).add_out_regsts(b.regst("x"));
  EXPECT_PROBLEM(b.plan, "task 'send' (id 0): SEND tasks have 1 in_regst and "
                         "0 out_regsts, not 1 and 1");
}

TEST(CollectiveValidation, ReductionsOfBooleansAreRejected) {
  PlanBuilder b;
  b.plan.set_num_ranks(2);
  for (int r = 0; r < 2; ++r) {
    int64_t in = b.persistent("in" + std::to_string(r), -1, plan::BOOL, {4});
    int64_t out = b.regst("out" + std::to_string(r), plan::BOOL, {4});
    b.collective("sum" + std::to_string(r), Kind::ALL_REDUCE, r, {in}, {out},
                 {0, 1}, 1);
  }
  EXPECT_PROBLEM(b.plan, "task 'sum0' (id 0): ALL_REDUCE of bool[4]: sums of "
                         "booleans are not supported");
}

TEST(CollectiveValidation, DeadlocksAreFound) {
  // Rank 0 enters collective 1 then 2; rank 1 enters 2 then 1.
  PlanBuilder b;
  b.plan.set_num_ranks(2);
  int64_t a0 = local(b, "a0", 0, {4}), a1 = local(b, "a1", 1, {4});
  auto allReduce = [&](const std::string &name, int rank, int64_t in,
                       int64_t tag) {
    int64_t out = b.regst(name);
    return b.collective(name, Kind::ALL_REDUCE, rank, {in}, {out}, {0, 1}, tag);
  };
  allReduce("first r0", 0, a0, 1);
  allReduce("second r0", 0, a0, 2);
  allReduce("second r1", 1, a1, 2);
  allReduce("first r1", 1, a1, 1);
  EXPECT_PROBLEM(b.plan,
                 "the schedule deadlocks: collective tag 1 (ALL_REDUCE over "
                 "ranks [0, 1]) waits for collective tag 2 (ALL_REDUCE over "
                 "ranks [0, 1]), which waits for collective tag 1");

  // Both ranks receive before they send: each RECV waits for the other's
  // SEND, behind it on the same thread.
  b = PlanBuilder();
  b.plan.set_num_ranks(2);
  a0 = local(b, "a0", 0, {4});
  a1 = local(b, "a1", 1, {4});
  int64_t g0 = b.regst("g0"), g1 = b.regst("g1");
  b.collective("recv r0", Kind::RECV, 0, {}, {g0}, {}, 1, 0, 0, 1);
  b.collective("recv r1", Kind::RECV, 1, {}, {g1}, {}, 2, 0, 0, 0);
  b.collective("send r0", Kind::SEND, 0, {a0}, {}, {}, 2, 0, 0, 1);
  b.collective("send r1", Kind::SEND, 1, {a1}, {}, {}, 1, 0, 0, 0);
  EXPECT_PROBLEM(b.plan, "the schedule deadlocks: ");
  // Sends first: fine (a SEND does not wait for its RECV).
  b.plan.mutable_tasks()->SwapElements(0, 2);
  b.plan.mutable_tasks()->SwapElements(1, 3);
  EXPECT_VALID(b.plan);

  // A cycle through data: rank 1's all-reduce input comes from a RECV
  // whose SEND on rank 0 comes after rank 0's part of the all-reduce.
  auto throughData = [&](bool sendFirst) {
    b = PlanBuilder();
    b.plan.set_num_ranks(2);
    a0 = local(b, "a0", 0, {4});
    int64_t r1 = b.regst("r1");
    if (sendFirst)
      b.collective("send r0", Kind::SEND, 0, {a0}, {}, {}, 9, 0, 0, 1);
    b.collective("recv r1", Kind::RECV, 1, {}, {r1}, {}, 9, 0, 0, 0);
    allReduce("sum r0", 0, a0, 1);
    allReduce("sum r1", 1, r1, 1);
    if (!sendFirst)
      b.collective("send r0", Kind::SEND, 0, {a0}, {}, {}, 9, 0, 0, 1);
    return b.plan;
  };
  EXPECT_PROBLEM(throughData(false),
                 "the schedule deadlocks: task 'recv r1' (id 0) on rank 1 "
                 "waits for task 'send r0' (id 3) on rank 0, which waits for "
                 "collective tag 1 (ALL_REDUCE over ranks [0, 1]), which "
                 "waits for task 'recv r1' (id 0) on rank 1");
  EXPECT_VALID(throughData(true));
}

TEST(MultiRankValidation, InputsOutputsAndRegstRanks) {
  // x is fed on both ranks (full value each); y is written by rank 0.
  PlanBuilder b;
  b.plan.set_num_ranks(2);
  int64_t x0 = b.regst("x0"), x1 = b.regst("x1");
  int64_t s0 = b.regst("s0"), s1 = b.regst("s1");
  b.input("x", x0);
  int64_t in1 = b.input("x1 feed", x1);
  b.taskById(in1).set_io_name("x");
  b.plan.mutable_inputs()->DeleteSubrange(1, 1);
  b.onRank(in1, 1);
  b.collective("sum0", Kind::ALL_REDUCE, 0, {x0}, {s0}, {0, 1}, 1);
  b.collective("sum1", Kind::ALL_REDUCE, 1, {x1}, {s1}, {0, 1}, 1);
  int64_t out = b.output("y", s0);
  EXPECT_VALID(b.plan);

  PlanBuilder c = b;
  c.onRank(out, 1);
  EXPECT_PROBLEM(c.plan, "task 'output y' (id 4): OUTPUT tasks run on rank 0 "
                         "(they receive the full graph output), not on rank "
                         "1");
  c = b;
  c.plan.mutable_inputs(0)->set_regst(s1);
  EXPECT_PROBLEM(c.plan, "graph input 'x': regst 3 is not the out regst of "
                         "any of its INPUT tasks");
  c = b;
  c.onRank(in1, 0);
  EXPECT_PROBLEM(c.plan, "graph input 'x' has two INPUT tasks on rank 0");
  c = b;
  c.regstById(x1).mutable_desc()->set_shape(0, 2);
  c.regstById(x1).set_size_bytes(8);
  c.regstById(s1).mutable_desc()->set_shape(0, 2);
  c.regstById(s1).set_size_bytes(8);
  EXPECT_PROBLEM(c.plan, "graph input 'x' is f32[4] but its regst 'x1' (id "
                         "1) is f32[2] (every rank receives the full input)");
  c = b;
  c.regstById(s1).set_rank(0);
  EXPECT_PROBLEM(c.plan, "regst 's1' (id 3) is on rank 0 but its tasks run on "
                         "rank 1");
  c = b;
  c.regstById(s1).set_rank(2);
  EXPECT_PROBLEM(c.plan, "regst 's1' (id 3): rank 2 is outside [0, 2)");
}

TEST(MultiRankValidation, ExecutorNeedsOneProcessPerRank) {
  PlanBuilder b = gatherPlan();
  PlanDir dir;
  dir.writePlan(b.plan);
  Expected<std::unique_ptr<Executor>> executor = Executor::load(dir.path());
  ASSERT_FALSE(executor.ok());
  EXPECT_EQ(executor.error().message(),
            "the plan has 3 ranks: run it with one process per rank "
            "(oneflow-run --np 3, or under mpirun)");
}

TEST(MultiRankMemory, SendInputsNeverShare) {
  // On rank 0's comm thread: a -> copy -> b -> SEND, then c -> copy -> d.
  // Without the SEND, b and d could share bytes (b is dead after the
  // SEND's position); with it, b is read until the send completes.
  PlanBuilder b;
  b.plan.set_num_ranks(2);
  int64_t a = local(b, "a", 0, {4});
  int64_t x = b.regst("b"), c = b.regst("c"), d = b.regst("d");
  b.kernel("copy b", "test_copy_f32", {a}, {x}, "comm");
  b.collective("send", Kind::SEND, 0, {x}, {}, {}, 1, 0, 0, 1);
  b.kernel("copy c", "test_copy_f32", {a}, {c}, "comm");
  b.kernel("copy d", "test_copy_f32", {c}, {d}, "comm");
  int64_t got = b.regst("got");
  b.collective("recv", Kind::RECV, 1, {}, {got}, {}, 1, 0, 0, 0);
  Expected<PlanGraph> graph = PlanGraph::build(b.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  MemoryPlan memory = planMemory(*graph);
  const RegstPlacement &sent = memory.placements[graph->regstIndex(x)];
  EXPECT_FALSE(sent.shareable);
  for (int64_t other : {c, d}) {
    const RegstPlacement &p = memory.placements[graph->regstIndex(other)];
    EXPECT_TRUE(p.offset + p.bytes() <= sent.offset ||
                sent.offset + sent.bytes() <= p.offset)
        << "regst " << other << " overlaps the SEND's input";
  }
  EXPECT_TRUE(memory.placements[graph->regstIndex(d)].shareable);
}

TEST(ThreadBudget, CpusPerRank) {
  EXPECT_EQ(threadsPerRank(16, 4), 4);
  EXPECT_EQ(threadsPerRank(16, 3), 5);
  EXPECT_EQ(threadsPerRank(2, 3), 1);
  EXPECT_EQ(threadsPerRank(8, 1), 8);
  EXPECT_EQ(threadsPerRank(8, 0), 8);
  EXPECT_GE(availableCpus(), 1);
}

} // namespace
