//===- NcclLibraryTest.cpp - Loading NCCL, validation ---------------------===//

#include "NcclTestSupport.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <unistd.h>

namespace oneflow {
namespace runtime {
namespace cuda {
namespace {

using test::PlanBuilder;

bool startsWith(const std::string &text, const std::string &prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

TEST(NcclLibrary, LoadsTheStandIn) {
  std::shared_ptr<const Nccl> lib = standInNccl();
  EXPECT_EQ(lib->version(), 22809);
  EXPECT_EQ(lib->versionString(), "2.28.9");
  EXPECT_EQ(lib->path(), "libnccl.so.2");
}

TEST(NcclLibrary, MissingLibrary) {
  ScopedEnv env("ONEFLOW_NCCL_LIBRARY", "/nonexistent/libnccl.so.2");
  Expected<std::shared_ptr<const Nccl>> lib = Nccl::load();
  ASSERT_FALSE(lib.ok());
  EXPECT_TRUE(startsWith(lib.error().message(),
                         "no NCCL library (/nonexistent/libnccl.so.2: cannot "
                         "open shared object file"))
      << lib.error().message();
  // The default name, where the loader cannot find it.
  lib = Nccl::load("libnccl-missing.so.2");
  ASSERT_FALSE(lib.ok());
  EXPECT_TRUE(startsWith(lib.error().message(),
                         "no NCCL library (libnccl-missing.so.2: "))
      << lib.error().message();
}

TEST(NcclLibrary, NotNccl) {
  Expected<std::shared_ptr<const Nccl>> lib = Nccl::load("libm.so.6");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.error().message(),
            "NCCL library 'libm.so.6' lacks ncclGetVersion");
}

TEST(NcclLibrary, TooOld) {
  ScopedEnv version("ONEFLOW_NCCL_STANDIN_VERSION", "21703");
  Expected<std::shared_ptr<const Nccl>> lib = Nccl::load();
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.error().message(),
            "NCCL 2.17.3 at 'libnccl.so.2' is too old (need 2.18 or newer)");
  ScopedEnv oldest("ONEFLOW_NCCL_STANDIN_VERSION", "21800");
  EXPECT_TRUE(Nccl::load().ok());
}

TEST(NcclLibrary, ErrorStrings) {
  std::shared_ptr<const Nccl> lib = standInNccl();
  EXPECT_TRUE(lib->error(0, "ncclSend").ok());
  Status s = lib->error(4, "ncclSend");
  EXPECT_TRUE(startsWith(s.message(), "ncclSend failed: invalid argument"))
      << s.message();
}

/// The real NCCL, where installed (no GPU needed to load it): every
/// symbol resolves and the version is read through our ABI declarations.
TEST(NcclLibrary, RealNcclWhereInstalled) {
  const char *candidates[] = {"/usr/local/cuda/lib/libnccl.so.2",
                              "/usr/local/cuda/lib64/libnccl.so.2",
                              "/usr/lib/x86_64-linux-gnu/libnccl.so.2"};
  for (const char *path : candidates) {
    if (access(path, R_OK) != 0)
      continue;
    Expected<std::shared_ptr<const Nccl>> lib = Nccl::load(path);
    ASSERT_TRUE(lib.ok()) << lib.error().message();
    EXPECT_GE((*lib)->version(), Nccl::kMinVersion);
    EXPECT_TRUE(startsWith((*lib)->error(4, "ncclSend").message(),
                           "ncclSend failed: invalid argument"));
    return;
  }
  GTEST_SKIP() << "no libnccl.so.2 installed";
}

plan::Collective collective(plan::Collective::Kind kind,
                            std::vector<int> group) {
  plan::Collective c;
  c.set_kind(kind);
  for (int r : group)
    c.add_group(r);
  return c;
}

plan::TensorDesc desc(plan::DataType dtype, std::vector<int64_t> shape) {
  plan::TensorDesc d;
  d.set_dtype(dtype);
  for (int64_t s : shape)
    d.add_shape(s);
  return d;
}

TEST(NcclValidation, BooleansAreMovedNotSummed) {
  plan::TensorDesc flags = desc(plan::BOOL, {4});
  Expected<CollectiveLayout> layout = validateNcclCollective(
      collective(plan::Collective::ALL_REDUCE, {0, 1}), &flags, &flags, 2);
  ASSERT_FALSE(layout.ok());
  EXPECT_EQ(layout.error().message(),
            "ALL_REDUCE of bool[4]: sums of booleans are not supported "
            "(reduce i32)");
  plan::TensorDesc half = desc(plan::BOOL, {2});
  layout = validateNcclCollective(
      collective(plan::Collective::REDUCE_SCATTER, {0, 1}), &flags, &half, 2);
  EXPECT_FALSE(layout.ok());
  plan::TensorDesc gathered = desc(plan::BOOL, {8});
  layout = validateNcclCollective(
      collective(plan::Collective::ALL_GATHER, {0, 1}), &flags, &gathered, 2);
  EXPECT_TRUE(layout.ok()) << layout.error().message();
}

TEST(NcclValidation, ShapeErrorsAreThePlans) {
  plan::TensorDesc in = desc(plan::F32, {2, 3}), out = desc(plan::F32, {6, 3});
  plan::Collective c = collective(plan::Collective::ALL_GATHER, {0, 1, 2});
  c.set_axis(1);
  Expected<CollectiveLayout> layout = validateNcclCollective(c, &in, &out, 3);
  ASSERT_FALSE(layout.ok());
  EXPECT_EQ(layout.error().message(), "ALL_GATHER along axis 1 of f32[2,3] "
                                      "over 3 ranks makes f32[2,9], not "
                                      "f32[6,3]");
}

/// Rank 0 sends a and b to rank 1 (tags 1, 2); rank 1 receives them in
/// `order`; rank 1 sends c back (tag 3) before it receives.
PlanBuilder transfers(std::vector<int64_t> order) {
  PlanBuilder b;
  b.plan.set_num_ranks(2);
  auto local = [&](const std::string &name, int rank) {
    int64_t id = b.persistent(name);
    b.regstById(id).set_rank(rank);
    return id;
  };
  int64_t a = local("a", 0), bb = local("b", 0), c = local("c", 1);
  b.collective("send a", plan::Collective::SEND, 0, {a}, {}, {}, 1, 0, 0, 1);
  b.collective("send b", plan::Collective::SEND, 0, {bb}, {}, {}, 2, 0, 0, 1);
  b.collective("send c", plan::Collective::SEND, 1, {c}, {}, {}, 3, 0, 0, 0);
  for (int64_t tag : order)
    b.collective("recv " + std::to_string(tag), plan::Collective::RECV, 1, {},
                 {b.regst("got " + std::to_string(tag))}, {}, tag, 0, 0, 0);
  int64_t back = b.regst("back");
  b.collective("recv c", plan::Collective::RECV, 0, {}, {back}, {}, 3, 0, 0, 1);
  b.output("y", back);
  return b;
}

TEST(NcclValidation, SendsAndReceivesPairUpInOrder) {
  PlanBuilder good = transfers({1, 2});
  Expected<PlanGraph> graph = PlanGraph::build(good.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  Status s = validateNcclPlan(*graph);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<NcclGroup> groups = ncclGroupsOf(good.plan);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].describe(), "send 0 -> 1");
  EXPECT_EQ(groups[1].describe(), "send 1 -> 0");

  // MPI matches by tag, so the plan is valid; NCCL matches by order.
  PlanBuilder swapped = transfers({2, 1});
  graph = PlanGraph::build(swapped.plan);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  s = validateNcclPlan(*graph);
  EXPECT_EQ(s.message(),
            "rank 0 sends tags [1, 2] to rank 1, which receives tags [2, 1] "
            "in this order: NCCL pairs sends and receives by order");
}

TEST(NcclValidation, GroupsOfTasks) {
  plan::Task task;
  task.set_rank(2);
  *task.mutable_collective() =
      collective(plan::Collective::ALL_TO_ALL, {2, 0, 1});
  EXPECT_EQ(ncclGroupOf(task).describe(), "ranks [2, 0, 1]");
  EXPECT_FALSE(ncclGroupOf(task).pointToPoint);
  task.mutable_collective()->set_kind(plan::Collective::RECV);
  task.mutable_collective()->set_peer(0);
  EXPECT_EQ(ncclGroupOf(task), (NcclGroup{true, {0, 2}}));
  task.mutable_collective()->set_kind(plan::Collective::SEND);
  EXPECT_EQ(ncclGroupOf(task), (NcclGroup{true, {2, 0}}));
}

} // namespace
} // namespace cuda
} // namespace runtime
} // namespace oneflow
