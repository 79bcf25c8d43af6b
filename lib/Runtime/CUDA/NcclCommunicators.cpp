//===- NcclCommunicators.cpp - One NCCL communicator per group ------------===//

#include "NcclApi.h"
#include "oneflow/Runtime/CUDA/Nccl.h"
#include "oneflow/Runtime/Collectives.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <set>

namespace oneflow {
namespace runtime {
namespace cuda {

std::string NcclGroup::describe() const {
  if (pointToPoint && ranks.size() == 2)
    return "send " + std::to_string(ranks[0]) + " -> " +
           std::to_string(ranks[1]);
  std::string text = "ranks [";
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

NcclGroup ncclGroupOf(const plan::Task &task) {
  const plan::Collective &c = task.collective();
  NcclGroup group;
  if (c.kind() == plan::Collective::SEND) {
    group.pointToPoint = true;
    group.ranks = {task.rank(), c.peer()};
  } else if (c.kind() == plan::Collective::RECV) {
    group.pointToPoint = true;
    group.ranks = {c.peer(), task.rank()};
  } else {
    group.ranks.assign(c.group().begin(), c.group().end());
  }
  return group;
}

std::vector<NcclGroup> ncclGroupsOf(const plan::Plan &plan) {
  std::set<NcclGroup> groups;
  for (const plan::Task &task : plan.tasks())
    if (task.kind() == plan::COLLECTIVE)
      groups.insert(ncclGroupOf(task));
  return std::vector<NcclGroup>(groups.begin(), groups.end());
}

namespace {

/// What a group's root broadcasts: a flag (the id is valid) and the id, so
/// that a failed ncclGetUniqueId fails every member instead of hanging it.
struct IdMessage {
  char ok = 0;
  nccl::UniqueId id{};
};

} // namespace

Expected<std::unique_ptr<NcclCommunicators>>
NcclCommunicators::create(std::shared_ptr<const Nccl> library,
                          const std::vector<NcclGroup> &groups, int rank) {
  const nccl::Api &api = library->api();
  std::unique_ptr<NcclCommunicators> result(new NcclCommunicators());
  result->lib = library;

  // Every rank takes part in every broadcast (in the same order, that of
  // `groups`), members or not: MPI_Bcast is collective over the world.
  struct Pending {
    const NcclGroup *group;
    int position;
    nccl::UniqueId id;
  };
  std::vector<Pending> mine;
  Status failure;
  for (const NcclGroup &group : groups) {
    if (group.ranks.empty())
      return makeError("NCCL communicator of an empty group");
    IdMessage message;
    const int root = group.ranks.front();
    if (rank == root) {
      nccl::Result rc = api.getUniqueId(&message.id);
      message.ok = rc == nccl::Success;
      if (!message.ok && failure.ok())
        failure = library->error(rc, "ncclGetUniqueId for " + group.describe());
    }
    int rc = MPI_Bcast(&message, int(sizeof(message)), MPI_BYTE, root,
                       MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
      return makeError("broadcasting the NCCL id of ", group.describe(),
                       " failed (MPI error ", rc, ")");
    // Every rank sees every flag: all fail alike, so nobody is left
    // waiting in ncclCommInitRank for a rank that gave up.
    if (!message.ok && failure.ok())
      failure = makeError("rank ", root, " could not make the NCCL id of ",
                          group.describe());
    auto it = std::find(group.ranks.begin(), group.ranks.end(), rank);
    if (it == group.ranks.end())
      continue;
    mine.push_back({&group, int(it - group.ranks.begin()), message.id});
  }
  if (!failure.ok())
    return failure;

  // Several communicators from one thread: ncclCommInitRank blocks until
  // all members joined, so without a group a rank would wait in its first
  // communicator while its peer waits in another one.
  if (Status s = library->error(api.groupStart(), "ncclGroupStart"); !s.ok())
    return s;
  for (const Pending &p : mine) {
    NcclCommunicator &comm = result->comms[*p.group];
    comm.members = *p.group;
    comm.position = p.position;
    comm.lib = library.get();
    nccl::CommHandle handle = nullptr;
    nccl::Result rc =
        api.commInitRank(&handle, int(p.group->ranks.size()), p.id, p.position);
    comm.comm = handle;
    if (rc != nccl::Success && failure.ok())
      failure = library->error(
          rc, "ncclCommInitRank for " + p.group->describe(), handle);
  }
  // Always close the group, even after a failed init, so that NCCL's
  // group state is clean for later calls.
  Status end = library->error(api.groupEnd(), "creating NCCL communicators");
  if (!failure.ok())
    return failure;
  if (!end.ok())
    return end;
  return result;
}

NcclCommunicators::~NcclCommunicators() {
  if (aborted)
    return; // ncclCommAbort freed them.
  for (auto &[group, comm] : comms)
    if (comm.comm)
      lib->api().commDestroy(static_cast<nccl::CommHandle>(comm.comm));
}

void NcclCommunicators::abort() {
  if (aborted.exchange(true))
    return;
  for (auto &[group, comm] : comms)
    if (comm.comm)
      lib->api().commAbort(static_cast<nccl::CommHandle>(comm.comm));
}

const NcclCommunicator *NcclCommunicators::find(const NcclGroup &group) const {
  auto it = comms.find(group);
  return it == comms.end() ? nullptr : &it->second;
}

Status NcclCommunicators::asyncErrors() const {
  for (const auto &[group, comm] : comms) {
    nccl::Result async = nccl::Success;
    auto handle = static_cast<nccl::CommHandle>(comm.comm);
    if (Status s = lib->error(lib->api().commGetAsyncError(handle, &async),
                              "ncclCommGetAsyncError", handle);
        !s.ok())
      return s;
    if (async != nccl::Success && async != nccl::InProgress)
      return lib->error(async, "NCCL communicator of " + group.describe(),
                        handle);
  }
  return Status::success();
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
