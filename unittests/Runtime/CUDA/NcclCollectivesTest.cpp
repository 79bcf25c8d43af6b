//===- NcclCollectivesTest.cpp - NCCL results against MPI's ---------------===//
//
// Under mpirun (2 and 3 ranks), on the stand-in NCCL: every collective kind,
// dtype and axis runs through runCollective and through the MPI
// implementation (CollectiveOp) on the same inputs, and the outputs must be
// byte for byte the same. Inputs are small integers, so every sum is exact
// whatever the order. Also: sends and receives in both directions at once
// (as in a 1F1B pipeline), errors of NCCL calls and of the communicator.
//
//===----------------------------------------------------------------------===//

#include "MpiCollectives.h"
#include "NcclTestSupport.h"

#include "oneflow/Runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

namespace oneflow {
namespace runtime {
namespace cuda {
namespace {

using Kind = plan::Collective::Kind;

plan::TensorDesc makeDesc(plan::DataType dtype,
                          const std::vector<int64_t> &shape) {
  plan::TensorDesc desc;
  desc.set_dtype(dtype);
  for (int64_t d : shape)
    desc.add_shape(d);
  return desc;
}

/// Small integers (exact in every dtype, and so are their sums) that differ
/// per rank, element and case.
std::vector<char> makeInput(plan::DataType dtype, int64_t n, int rank,
                            int seed) {
  std::vector<char> bytes(size_t(n * elementSize(dtype)));
  for (int64_t i = 0; i < n; ++i) {
    int value = int((i * 7 + rank * 13 + seed * 5) % 9) - 4;
    char *p = bytes.data() + i * elementSize(dtype);
    auto put = [&](auto v) { std::memcpy(p, &v, sizeof(v)); };
    switch (dtype) {
    case plan::F32:
      put(float(value) * 0.5f);
      break;
    case plan::F64:
      put(double(value) * 0.25);
      break;
    case plan::F16:
      put(floatToHalf(float(value)));
      break;
    case plan::BF16:
      put(floatToBfloat16(float(value)));
      break;
    case plan::I32:
      put(int32_t(value * 1000));
      break;
    case plan::I64:
      put(int64_t(value) * 10000000000LL);
      break;
    default:
      put(uint8_t(value > 0));
      break;
    }
  }
  return bytes;
}

/// The groups of these tests: everybody in order and reversed, [2, 0] on
/// 3 ranks, and both directions between ranks 0 and 1.
std::vector<NcclGroup> testGroups() {
  const int n = worldSize();
  NcclGroup all, reversed, pair, forward, backward;
  for (int r = 0; r < n; ++r) {
    all.ranks.push_back(r);
    reversed.ranks.push_back(n - 1 - r);
  }
  std::vector<NcclGroup> groups = {all, reversed};
  if (n >= 3)
    groups.push_back(NcclGroup{false, {2, 0}});
  if (n >= 2) {
    groups.push_back(NcclGroup{true, {0, 1}});
    groups.push_back(NcclGroup{true, {1, 0}});
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

class NcclCollectives : public testing::Test {
protected:
  static void SetUpTestSuite() {
    Expected<std::unique_ptr<NcclCommunicators>> created =
        NcclCommunicators::create(standInNccl(), testGroups(), worldRank());
    ASSERT_TRUE(created.ok()) << created.error().message();
    comms = created.take().release();
    // The MPI implementation's communicators, split in the same order.
    for (const NcclGroup &group : testGroups()) {
      if (group.pointToPoint)
        continue;
      auto it = std::find(group.ranks.begin(), group.ranks.end(), worldRank());
      MPI_Comm comm = MPI_COMM_NULL;
      MPI_Comm_split(MPI_COMM_WORLD,
                     it == group.ranks.end() ? MPI_UNDEFINED : 0,
                     int(it - group.ranks.begin()), &comm);
      if (comm != MPI_COMM_NULL)
        (*mpiComms)[group.ranks] = comm;
    }
  }
  static void TearDownTestSuite() {
    delete comms;
    comms = nullptr;
    for (auto &[group, comm] : *mpiComms)
      MPI_Comm_free(&comm);
    mpiComms->clear();
  }

  /// Runs one collective both ways on every member of `group` and
  /// compares the outputs.
  void compare(Kind kind, plan::DataType dtype, std::vector<int64_t> inShape,
               std::vector<int> group, int axis = 0, int concat = 0,
               bool inPlace = false) {
    const int rank = worldRank();
    auto it = std::find(group.begin(), group.end(), rank);
    const int g = int(group.size());
    plan::Collective c;
    c.set_kind(kind);
    for (int r : group)
      c.add_group(r);
    c.set_axis(axis);
    c.set_concat_axis(concat);
    std::vector<int64_t> outShape = inShape;
    if (kind == plan::Collective::ALL_GATHER)
      outShape[axis] *= g;
    if (kind == plan::Collective::REDUCE_SCATTER)
      outShape[axis] /= g;
    if (kind == plan::Collective::ALL_TO_ALL) {
      outShape[axis] /= g;
      outShape[concat] *= g;
    }
    plan::TensorDesc in = makeDesc(dtype, inShape);
    plan::TensorDesc out = makeDesc(dtype, outShape);
    std::string what =
        collectiveKindName(kind) + " of " + describeTensor(in) + " axis " +
        std::to_string(axis) + " concat " + std::to_string(concat) + " over " +
        NcclGroup{false, group}.describe() + (inPlace ? " in place" : "");
    SCOPED_TRACE(what);
    if (it == group.end())
      return; // Not a member: neither implementation involves this rank.

    Expected<CollectiveLayout> layout = validateNcclCollective(c, &in, &out, g);
    ASSERT_TRUE(layout.ok()) << layout.error().message();
    std::vector<char> input =
        makeInput(dtype, numElements(inShape), rank, ++seed);
    const size_t outBytes = size_t(layout->outBytes);

    // MPI: the reference.
    plan::Task task;
    task.set_name("mpi " + what);
    *task.mutable_collective() = c;
    CollectiveOp op(task, *layout, mpiComms->at(group), 0, 0);
    std::vector<char> mpiIn = input, mpiOut(outBytes, 'x');
    Status s = inPlace ? op.run(mpiIn.data(), mpiIn.data())
                       : op.run(mpiIn.data(), mpiOut.data());
    ASSERT_TRUE(s.ok()) << s.message();
    if (inPlace)
      mpiOut.assign(mpiIn.begin(), mpiIn.begin() + outBytes);

    // NCCL on the stand-in.
    const NcclCommunicator *comm = comms->find(NcclGroup{false, group});
    ASSERT_NE(comm, nullptr);
    HostDeviceOps ops;
    std::vector<char> ncclIn = input, ncclOut(outBytes, 'y');
    char *outPtr = inPlace ? ncclIn.data() : ncclOut.data();
    s = runCollective(c, &in, &out, devicePtr(ncclIn.data()), devicePtr(outPtr),
                      *comm, &ops, ops);
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<char> ncclResult(outPtr, outPtr + outBytes);
    EXPECT_EQ(ncclResult, mpiOut);
    EXPECT_EQ(ops.live, 0) << "scratch not released";
    // Along axis 0 (and with nothing to widen) NCCL works on the regsts
    // themselves.
    bool direct = layout->packOuter == 1 && layout->unpackOuter == 1 &&
                  !inPlace && dtype != plan::F16 && dtype != plan::BF16;
    if (direct) {
      EXPECT_EQ(ops.allocations, 0);
    }
  }

  std::vector<std::vector<int>> collectiveGroups() const {
    std::vector<std::vector<int>> groups;
    for (const NcclGroup &group : testGroups())
      if (!group.pointToPoint)
        groups.push_back(group.ranks);
    return groups;
  }

  static NcclCommunicators *comms;
  static std::map<std::vector<int>, MPI_Comm> *mpiComms;
  int seed = 0;
};

NcclCommunicators *NcclCollectives::comms = nullptr;
std::map<std::vector<int>, MPI_Comm> *NcclCollectives::mpiComms =
    new std::map<std::vector<int>, MPI_Comm>();

const plan::DataType kSummable[] = {plan::F32,  plan::F64, plan::F16,
                                    plan::BF16, plan::I32, plan::I64};
const plan::DataType kAll[] = {plan::F32, plan::F64, plan::F16, plan::BF16,
                               plan::I32, plan::I64, plan::BOOL};

TEST_F(NcclCollectives, AllReduce) {
  for (const std::vector<int> &group : collectiveGroups())
    for (plan::DataType dtype : kSummable) {
      compare(plan::Collective::ALL_REDUCE, dtype, {3, 5}, group);
      compare(plan::Collective::ALL_REDUCE, dtype, {7}, group, 0, 0,
              /*inPlace=*/true);
    }
}

/// f16 sums run in f32 and are rounded once: on 3 ranks 2048 + 1 + 1 is
/// 2050 (exact in f16), where rounding after each step would give 2048.
TEST_F(NcclCollectives, HalfSumsAreRoundedOnce) {
  std::vector<int> all;
  for (int r = 0; r < worldSize(); ++r)
    all.push_back(r);
  plan::Collective c;
  c.set_kind(plan::Collective::ALL_REDUCE);
  for (int r : all)
    c.add_group(r);
  plan::TensorDesc desc = makeDesc(plan::F16, {2});
  std::vector<uint16_t> in(2, floatToHalf(worldRank() == 0 ? 2048.0f : 1.0f));
  std::vector<uint16_t> out(2);
  HostDeviceOps ops;
  Status s = runCollective(c, &desc, &desc, devicePtr(in.data()),
                           devicePtr(out.data()),
                           *comms->find(NcclGroup{false, all}), nullptr, ops);
  ASSERT_TRUE(s.ok()) << s.message();
  // The exact sum 2047 + ranks, rounded once (2 ranks: 2049 -> 2048).
  EXPECT_EQ(halfToFloat(out[0]),
            halfToFloat(floatToHalf(2047.0f + worldSize())));
  if (worldSize() == 3) {
    EXPECT_EQ(halfToFloat(out[1]), 2050.0f);
  }
  EXPECT_EQ(ops.conversions, 2);
}

TEST_F(NcclCollectives, AllGatherAlongEveryAxis) {
  for (const std::vector<int> &group : collectiveGroups())
    for (plan::DataType dtype : kAll)
      for (int axis = 0; axis < 3; ++axis)
        compare(plan::Collective::ALL_GATHER, dtype, {2, 3, 4}, group, axis);
}

TEST_F(NcclCollectives, ReduceScatterAlongEveryAxis) {
  for (const std::vector<int> &group : collectiveGroups()) {
    int64_t g = int64_t(group.size());
    for (plan::DataType dtype : kSummable)
      for (int axis = 0; axis < 3; ++axis)
        compare(plan::Collective::REDUCE_SCATTER, dtype, {2 * g, g, 3 * g},
                group, axis);
  }
}

TEST_F(NcclCollectives, AllToAllEveryAxisPair) {
  for (const std::vector<int> &group : collectiveGroups()) {
    int64_t g = int64_t(group.size());
    for (plan::DataType dtype : kAll)
      for (int axis = 0; axis < 3; ++axis)
        for (int concat = 0; concat < 3; ++concat)
          compare(plan::Collective::ALL_TO_ALL, dtype, {2 * g, g, 3 * g}, group,
                  axis, concat);
    // The same regst in and out (only possible when axis == concat_axis).
    compare(plan::Collective::ALL_TO_ALL, plan::F32, {2 * g, 3}, group, 0, 0,
            /*inPlace=*/true);
    compare(plan::Collective::ALL_TO_ALL, plan::F32, {2, 3 * g}, group, 1, 1,
            /*inPlace=*/true);
  }
}

TEST_F(NcclCollectives, EmptyTensorsCallNothing) {
  plan::Collective c;
  c.set_kind(plan::Collective::ALL_GATHER);
  for (int r = 0; r < worldSize(); ++r)
    c.add_group(r);
  plan::TensorDesc in = makeDesc(plan::F32, {2, 0});
  plan::TensorDesc out = makeDesc(plan::F32, {2 * int64_t(worldSize()), 0});
  HostDeviceOps ops;
  // Any pointer: nothing may touch it, and no member waits for another.
  Status s = runCollective(
      c, &in, &out, 16, 32,
      *comms->find(NcclGroup{false, {c.group().begin(), c.group().end()}}),
      nullptr, ops);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(ops.allocations + ops.copies, 0);
}

/// Rank 0 sends "activations" to rank 1 while rank 1 sends "gradients" to
/// rank 0, several of each, as a 1F1B pipeline does. Each direction's work
/// runs on its own thread (its stream): the stand-in's sends, like NCCL's,
/// wait for the matching receive, so one thread per rank doing send then
/// receive would deadlock.
TEST_F(NcclCollectives, SendAndReceiveBothDirectionsAtOnce) {
  const int rank = worldRank();
  if (rank > 1)
    return;
  const int peer = 1 - rank;
  const NcclCommunicator *out = comms->find(NcclGroup{true, {rank, peer}});
  const NcclCommunicator *in = comms->find(NcclGroup{true, {peer, rank}});
  ASSERT_NE(out, nullptr);
  ASSERT_NE(in, nullptr);
  EXPECT_TRUE(out->wantsOwnStream());
  struct Message {
    plan::DataType dtype;
    std::vector<int64_t> shape;
  };
  const std::vector<Message> messages = {{plan::F32, {4, 3}},
                                         {plan::BF16, {5}},
                                         {plan::I64, {2, 2}},
                                         {plan::BOOL, {3}}};
  Status sendStatus, recvStatus;
  std::vector<std::vector<char>> received(messages.size());
  std::thread sender([&] {
    HostDeviceOps ops;
    for (size_t m = 0; m < messages.size() && sendStatus.ok(); ++m) {
      plan::Collective c;
      c.set_kind(plan::Collective::SEND);
      c.set_peer(peer);
      plan::TensorDesc desc = makeDesc(messages[m].dtype, messages[m].shape);
      std::vector<char> data = makeInput(
          messages[m].dtype, numElements(messages[m].shape), rank, int(m));
      sendStatus = runCollective(c, &desc, nullptr, devicePtr(data.data()), 0,
                                 *out, reinterpret_cast<void *>(0x5e0d), ops);
    }
  });
  std::thread receiver([&] {
    HostDeviceOps ops;
    for (size_t m = 0; m < messages.size() && recvStatus.ok(); ++m) {
      plan::Collective c;
      c.set_kind(plan::Collective::RECV);
      c.set_peer(peer);
      plan::TensorDesc desc = makeDesc(messages[m].dtype, messages[m].shape);
      received[m].assign(size_t(tensorBytes(desc.dtype(), shapeOf(desc))), 0);
      recvStatus =
          runCollective(c, nullptr, &desc, 0, devicePtr(received[m].data()),
                        *in, reinterpret_cast<void *>(0x4ec0), ops);
    }
  });
  sender.join();
  receiver.join();
  ASSERT_TRUE(sendStatus.ok()) << sendStatus.message();
  ASSERT_TRUE(recvStatus.ok()) << recvStatus.message();
  for (size_t m = 0; m < messages.size(); ++m)
    EXPECT_EQ(received[m],
              makeInput(messages[m].dtype, numElements(messages[m].shape), peer,
                        int(m)))
        << "message " << m;
}

TEST_F(NcclCollectives, NcclErrorsBecomeStatuses) {
  ScopedEnv failing("ONEFLOW_NCCL_STANDIN_FAIL", "ncclAllGather");
  plan::Collective c;
  c.set_kind(plan::Collective::ALL_GATHER);
  std::vector<int> group;
  for (int r = 0; r < worldSize(); ++r) {
    c.add_group(r);
    group.push_back(r);
  }
  c.set_axis(1);
  plan::TensorDesc in = makeDesc(plan::F32, {2, 3});
  plan::TensorDesc out = makeDesc(plan::F32, {2, 3 * int64_t(worldSize())});
  std::vector<float> a(6), b(size_t(6 * worldSize()));
  HostDeviceOps ops;
  Status s =
      runCollective(c, &in, &out, devicePtr(a.data()), devicePtr(b.data()),
                    *comms->find(NcclGroup{false, group}), nullptr, ops);
  ASSERT_FALSE(s.ok());
  const std::string over = NcclGroup{false, group}.describe();
  EXPECT_EQ(s.message(), "ALL_GATHER over " + over +
                             ": ncclAllGather failed: internal error "
                             "(injected failure of ncclAllGather)");
  EXPECT_EQ(ops.live, 0) << "scratch released after the failure too";
}

TEST_F(NcclCollectives, TheTaskNeedsItsGroupsCommunicator) {
  plan::Collective c;
  c.set_kind(plan::Collective::ALL_REDUCE);
  c.add_group(0);
  plan::TensorDesc desc = makeDesc(plan::F32, {4});
  NcclGroup all;
  for (int r = 0; r < worldSize(); ++r)
    all.ranks.push_back(r);
  HostDeviceOps ops;
  Status s =
      runCollective(c, &desc, &desc, 16, 16, *comms->find(all), nullptr, ops);
  EXPECT_EQ(s.message(),
            "ALL_REDUCE given the NCCL communicator of " + all.describe());
  // A SEND on a group communicator.
  c.set_kind(plan::Collective::SEND);
  c.set_peer(worldRank() == 0 ? 1 : 0);
  s = runCollective(c, &desc, nullptr, 16, 0, *comms->find(all), nullptr, ops);
  EXPECT_EQ(s.message(),
            "SEND given the NCCL communicator of " + all.describe());
  // A SEND on the communicator of the other direction.
  if (worldRank() > 1)
    return;
  const int peer = 1 - worldRank();
  NcclGroup reverse{true, {peer, worldRank()}};
  s = runCollective(c, &desc, nullptr, 16, 0, *comms->find(reverse), nullptr,
                    ops);
  EXPECT_EQ(s.message(), "SEND with peer " + std::to_string(peer) +
                             " given the NCCL communicator of " +
                             reverse.describe());
  // A RECV on the communicator of its own direction's opposite.
  c.set_kind(plan::Collective::RECV);
  NcclGroup forward{true, {worldRank(), peer}};
  s = runCollective(c, nullptr, &desc, 0, 16, *comms->find(forward), nullptr,
                    ops);
  EXPECT_EQ(s.message(), "RECV with peer " + std::to_string(peer) +
                             " given the NCCL communicator of " +
                             forward.describe());
}

} // namespace
} // namespace cuda
} // namespace runtime
} // namespace oneflow
