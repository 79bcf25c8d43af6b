//===- NcclCommunicatorsTest.cpp - Unique ids and communicator creation ---===//
//
// Under mpirun, on the stand-in NCCL, whose log (ONEFLOW_CUDA_STANDIN_LOG,
// shared by the ranks) shows every ncclGetUniqueId and ncclCommInitRank:
// each group's root makes one id, every member inits with that id and its
// position, and different groups get different ids.
//
//===----------------------------------------------------------------------===//

#include "NcclTestSupport.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace oneflow {
namespace runtime {
namespace cuda {
namespace {

/// A log file every rank appends to: rank 0 names it, the others learn the
/// name; removed at the end.
class SharedLog {
public:
  SharedLog() {
    char name[256] = "/tmp/oneflow-nccl-log-XXXXXX";
    if (worldRank() == 0)
      close(mkstemp(name));
    MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
    path = name;
    env = std::make_unique<ScopedEnv>("ONEFLOW_CUDA_STANDIN_LOG", path.c_str());
  }
  ~SharedLog() {
    env.reset();
    MPI_Barrier(MPI_COMM_WORLD);
    if (worldRank() == 0)
      unlink(path.c_str());
  }
  std::vector<std::string> lines() const {
    MPI_Barrier(MPI_COMM_WORLD); // every rank wrote its lines
    std::ifstream in(path);
    std::vector<std::string> result;
    for (std::string line; std::getline(in, line);)
      result.push_back(line);
    return result;
  }

private:
  std::string path;
  std::unique_ptr<ScopedEnv> env;
};

/// "rank 1 nccl ncclCommInitRank id=ab nranks=2 rank=0" -> its fields.
struct LogLine {
  int worldRank = -1;
  std::string call;
  std::map<std::string, std::string> fields;
};

LogLine parse(const std::string &line) {
  std::istringstream in(line);
  LogLine result;
  std::string word, nccl;
  in >> word >> result.worldRank >> nccl >> result.call;
  while (in >> word) {
    size_t eq = word.find('=');
    if (eq != std::string::npos)
      result.fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return result;
}

TEST(NcclCommunicators, EveryMemberOfAGroupGetsItsRootsId) {
  const int n = worldSize(), rank = worldRank();
  std::vector<NcclGroup> groups;
  NcclGroup all, reversed;
  for (int r = 0; r < n; ++r) {
    all.ranks.push_back(r);
    reversed.ranks.push_back(n - 1 - r);
  }
  groups = {all, reversed, NcclGroup{true, {0, 1}}, NcclGroup{true, {1, 0}},
            NcclGroup{false, {1}}};
  if (n >= 3)
    groups.push_back(NcclGroup{false, {2, 0}});
  std::sort(groups.begin(), groups.end());

  SharedLog log;
  Expected<std::unique_ptr<NcclCommunicators>> comms =
      NcclCommunicators::create(standInNccl(), groups, rank);
  ASSERT_TRUE(comms.ok()) << comms.error().message();
  std::vector<std::string> lines = log.lines();

  // This rank's view: a communicator per group it belongs to, at its
  // position.
  for (const NcclGroup &group : groups) {
    auto it = std::find(group.ranks.begin(), group.ranks.end(), rank);
    const NcclCommunicator *comm = (*comms)->find(group);
    if (it == group.ranks.end()) {
      EXPECT_EQ(comm, nullptr) << group.describe();
      continue;
    }
    ASSERT_NE(comm, nullptr) << group.describe();
    EXPECT_EQ(comm->rank(), int(it - group.ranks.begin()));
    EXPECT_EQ(comm->size(), int(group.ranks.size()));
    EXPECT_EQ(comm->group(), group);
  }

  // The log: who made each id, and who joined it at which position.
  std::map<std::string, int> madeBy;
  std::map<std::string, std::map<int, int>> joined; // id -> rank -> world
  std::map<std::string, int> sizes;
  std::vector<std::string> myCalls;
  for (const std::string &line : lines) {
    LogLine l = parse(line);
    if (l.worldRank == rank)
      myCalls.push_back(l.call);
    if (l.call == "ncclGetUniqueId") {
      EXPECT_EQ(madeBy.count(l.fields["id"]), 0u) << "an id made twice";
      madeBy[l.fields["id"]] = l.worldRank;
    }
    if (l.call == "ncclCommInitRank") {
      const std::string &id = l.fields["id"];
      int position = std::stoi(l.fields["rank"]);
      EXPECT_EQ(joined[id].count(position), 0u) << line;
      joined[id][position] = l.worldRank;
      sizes[id] = std::stoi(l.fields["nranks"]);
    }
  }
  // One id per group, made by its first member, joined by its members in
  // order.
  EXPECT_EQ(madeBy.size(), groups.size());
  EXPECT_EQ(joined.size(), groups.size());
  std::multiset<std::vector<int>> expected, seen;
  for (const NcclGroup &group : groups)
    expected.insert(group.ranks);
  for (const auto &[id, members] : joined) {
    std::vector<int> ranks;
    for (const auto &[position, world] : members) {
      EXPECT_EQ(position, int(ranks.size())) << "id " << id;
      ranks.push_back(world);
    }
    EXPECT_EQ(sizes[id], int(ranks.size())) << "id " << id;
    ASSERT_TRUE(madeBy.count(id)) << "id " << id << " never made";
    EXPECT_EQ(madeBy[id], ranks.front()) << "id " << id;
    seen.insert(ranks);
  }
  EXPECT_EQ(seen, expected);

  // This rank created its communicators inside one NCCL group.
  auto first = std::find(myCalls.begin(), myCalls.end(), "ncclCommInitRank");
  ASSERT_NE(first, myCalls.end());
  EXPECT_EQ(std::count(myCalls.begin(), first, "ncclGroupStart"), 1);
  EXPECT_EQ(std::count(first, myCalls.end(), "ncclGroupEnd"), 1);
  EXPECT_EQ(myCalls.back(), "ncclGroupEnd");
}

/// Rank 0 cannot make the id of its group: every rank fails, members or
/// not, instead of waiting for a communicator that never comes.
TEST(NcclCommunicators, AFailedIdFailsEveryRank) {
  NcclGroup all, last{false, {worldSize() - 1}};
  for (int r = 0; r < worldSize(); ++r)
    all.ranks.push_back(r);
  Expected<std::unique_ptr<NcclCommunicators>> comms = [&] {
    ScopedEnv failing("ONEFLOW_NCCL_STANDIN_FAIL",
                      worldRank() == 0 ? "ncclGetUniqueId" : nullptr);
    return NcclCommunicators::create(standInNccl(), {all, last}, worldRank());
  }();
  ASSERT_FALSE(comms.ok());
  if (worldRank() == 0)
    EXPECT_EQ(comms.error().message(),
              "ncclGetUniqueId for " + all.describe() +
                  " failed: internal error (injected failure of "
                  "ncclGetUniqueId)");
  else
    EXPECT_EQ(comms.error().message(),
              "rank 0 could not make the NCCL id of " + all.describe());
}

TEST(NcclCommunicators, NoGroupsNoCommunicators) {
  Expected<std::unique_ptr<NcclCommunicators>> comms =
      NcclCommunicators::create(standInNccl(), {}, worldRank());
  ASSERT_TRUE(comms.ok()) << comms.error().message();
  EXPECT_EQ((*comms)->size(), 0u);
  EXPECT_TRUE((*comms)->asyncErrors().ok());
}

TEST(NcclCommunicators, AsyncErrorsOfHealthyCommunicators) {
  NcclGroup all;
  for (int r = 0; r < worldSize(); ++r)
    all.ranks.push_back(r);
  Expected<std::unique_ptr<NcclCommunicators>> comms =
      NcclCommunicators::create(standInNccl(), {all}, worldRank());
  ASSERT_TRUE(comms.ok()) << comms.error().message();
  EXPECT_EQ((*comms)->size(), 1u);
  EXPECT_TRUE((*comms)->asyncErrors().ok());
}

} // namespace
} // namespace cuda
} // namespace runtime
} // namespace oneflow
