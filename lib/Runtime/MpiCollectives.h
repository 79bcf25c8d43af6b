//===- MpiCollectives.h - COLLECTIVE tasks on MPI ---------------*- C++ -*-===//
//
// One MPI communicator per distinct group of the plan (created once, in the
// same order on every rank: the groups sorted), one for point-to-point
// transfers (a duplicate of the world), and per COLLECTIVE task of this rank
// an op that runs it on them, packing and unpacking as Collectives.h
// describes. Called from the comm stream's thread only.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_MPICOLLECTIVES_H
#define ONEFLOW_LIB_RUNTIME_MPICOLLECTIVES_H

#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/PlanGraph.h"

#include <mpi.h>

#include <map>
#include <memory>
#include <vector>

namespace oneflow {
namespace runtime {

class CollectiveOp {
public:
  CollectiveOp(const plan::Task &task, const CollectiveLayout &layout,
               MPI_Comm comm, int peer, int mpiTag);

  /// Runs the task to completion: every kind but SEND. `in` is nullptr for
  /// RECV; `in == out` (an in-place update of a persistent regst) is fine.
  Status run(const void *in, void *out);
  /// SEND: starts sending `in`, which must stay untouched until the
  /// requests completed (see testRequests).
  Status startSend(const void *in, std::vector<MPI_Request> &requests);

  const plan::Task &task() const { return *taskPtr; }

private:
  Status check(int rc, const char *call) const;

  const plan::Task *taskPtr;
  CollectiveLayout layout;
  MPI_Comm comm;
  int peer, mpiTag;
  MPI_Datatype unit; // one element, for data movement
  std::vector<char> packed, received, alias;
  std::vector<float> wideIn, wideOut; // f16/bf16 sums
};

class MpiCollectives {
public:
  /// Collective over the world (every rank calls it with the same plan):
  /// creates the communicators and the ops of `rank`'s COLLECTIVE tasks.
  /// Fails alike on every rank (before creating anything) when the plan
  /// needs more than MPI offers (tags, counts).
  static Expected<std::unique_ptr<MpiCollectives>>
  create(const PlanGraph &graph, int rank);
  ~MpiCollectives();

  /// The op of the task at schedule position `task`, or nullptr.
  CollectiveOp *op(int task) const {
    return task < int(ops.size()) ? ops[task].get() : nullptr;
  }
  size_t numCommunicators() const { return groups.size() + 1; }

private:
  MpiCollectives() = default;
  std::map<std::vector<int>, MPI_Comm> groups;
  MPI_Comm pointToPoint = MPI_COMM_NULL;
  std::vector<std::unique_ptr<CollectiveOp>> ops;
};

/// Tests (`wait`: waits for) send requests; `done` when all completed.
Status testRequests(std::vector<MPI_Request> &requests, bool wait, bool &done);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_LIB_RUNTIME_MPICOLLECTIVES_H
