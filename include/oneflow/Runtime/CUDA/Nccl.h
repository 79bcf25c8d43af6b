//===- Nccl.h - COLLECTIVE tasks of CUDA plans on NCCL ----------*- C++ -*-===//
//
// The NCCL layer of the CUDA runtime: it loads libnccl.so.2 at run time
// (no build or link dependency on NCCL or CUDA), creates one NCCL
// communicator per group of the plan, and enqueues each COLLECTIVE task as
// NCCL calls on a stream, with the semantics of the MPI implementation
// (MpiCollectives.cpp, Collectives.h): the same piece order, axes, f16/bf16
// sums in f32. What it needs from the device (scratch memory, strided
// copies, dtype conversion) it asks through CollectiveDeviceOps, which the
// CUDA device layer implements.
//
// Streams. NCCL work blocks its stream until every member (for SEND/RECV:
// the peer) has posted the matching call. Group collectives are entered in
// the same relative order by every member (the plan validator's deadlock
// check), so they all share one stream per rank, like the MPI comm thread.
// A SEND, though, must not hold back the rank's other work the way a
// blocking send would: in a pipeline's 1F1B schedule rank 0 sends
// activations while rank 1 sends gradients, and two SENDs on single streams
// would wait for each other's RECV forever. Hence each direction of a pair
// (sender -> receiver) has its own 2-rank communicator, and the executor
// gives each such communicator its own stream: a direction's stream then
// holds only SENDs (on the sender) or only RECVs (on the receiver), matched
// in order (validateNcclPlan checks that the orders agree, as NCCL matches
// by order, not by tag).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CUDA_NCCL_H
#define ONEFLOW_RUNTIME_CUDA_NCCL_H

#include "oneflow/Runtime/PlanGraph.h"
#include "oneflow/Runtime/Status.h"
#include "oneflow/plan.pb.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace oneflow {
namespace runtime {
namespace cuda {

using DevicePtr = uint64_t;
using StreamHandle = void *; // a cudaStream_t

/// What the collectives need from the device (implemented by the device
/// layer). Everything is asynchronous and ordered on `stream`.
class CollectiveDeviceOps {
public:
  virtual ~CollectiveDeviceOps();
  /// Scratch memory, usable by work enqueued on `stream` after this call
  /// (cudaMallocAsync semantics; oneflow_cuda_alloc's).
  virtual Expected<DevicePtr> allocate(int64_t bytes, StreamHandle stream) = 0;
  /// Releases scratch once the work enqueued on `stream` so far is done
  /// (cudaFreeAsync semantics).
  virtual void free(DevicePtr pointer, StreamHandle stream) = 0;
  /// `height` rows of `widthBytes` from src (row pitch srcPitch) to dst
  /// (row pitch dstPitch) (cudaMemcpy2DAsync, device to device).
  virtual Status copy2D(DevicePtr dst, int64_t dstPitch, DevicePtr src,
                        int64_t srcPitch, int64_t widthBytes, int64_t height,
                        StreamHandle stream) = 0;
  /// `count` elements from src to dst, converted: F16 or BF16 to F32 and
  /// F32 to F16 or BF16 (rounding to nearest even, as floatToHalf and
  /// floatToBfloat16 do). f16/bf16 sums run in f32 through it: NCCL would
  /// round after every step of its ring, the plan says "rounded once".
  virtual Status convert(DevicePtr dst, plan::DataType dstType, DevicePtr src,
                         plan::DataType srcType, int64_t count,
                         StreamHandle stream) = 0;
};

namespace nccl {
struct Api;
} // namespace nccl

/// The NCCL library, loaded once per process and shared.
class Nccl {
public:
  /// The oldest NCCL accepted: 2.18 (grouped communicator creation, the
  /// error strings and ncclGetLastError we report).
  static constexpr int kMinVersion = 21800;

  /// Loads $ONEFLOW_NCCL_LIBRARY, or libnccl.so.2 from the loader's path.
  /// Errors: "no NCCL library (libnccl.so.2: <dlerror>)", "NCCL library
  /// '<path>' lacks ncclAllGather", "NCCL 2.17.1 at '<path>' is too old
  /// (need 2.18 or newer)".
  static Expected<std::shared_ptr<const Nccl>> load();
  static Expected<std::shared_ptr<const Nccl>> load(const std::string &path);
  ~Nccl();
  Nccl(const Nccl &) = delete;
  Nccl &operator=(const Nccl &) = delete;

  /// As ncclGetVersion reports it: 22809 for 2.28.9.
  int version() const { return versionCode; }
  /// "2.28.9".
  std::string versionString() const;
  const std::string &path() const { return libraryPath; }
  const nccl::Api &api() const { return *table; }

  /// "<what> failed: <ncclGetErrorString>" plus ncclGetLastError's text
  /// when there is one (`comm` may be null); for any result but success.
  Status error(int result, const std::string &what, void *comm = nullptr) const;

private:
  Nccl() = default;
  void *handle = nullptr;
  std::unique_ptr<nccl::Api> table;
  std::string libraryPath;
  int versionCode = 0;
};

/// The members of one NCCL communicator. Group collectives: the plan's
/// `group`, in order (the communicator's ranks are positions in it). SEND
/// and RECV: one direction of a pair, {sender, receiver}.
struct NcclGroup {
  bool pointToPoint = false;
  std::vector<int> ranks;

  bool operator<(const NcclGroup &other) const {
    return std::tie(pointToPoint, ranks) <
           std::tie(other.pointToPoint, other.ranks);
  }
  bool operator==(const NcclGroup &other) const {
    return pointToPoint == other.pointToPoint && ranks == other.ranks;
  }
  /// "ranks [0, 1, 2]", "send 0 -> 1".
  std::string describe() const;
};

/// The group of a COLLECTIVE task (SEND/RECV: by its rank and peer).
NcclGroup ncclGroupOf(const plan::Task &task);
/// The distinct groups of the plan's COLLECTIVE tasks (every rank's),
/// sorted: the same list on every rank.
std::vector<NcclGroup> ncclGroupsOf(const plan::Plan &plan);

/// One NCCL communicator of this rank.
class NcclCommunicator {
public:
  const NcclGroup &group() const { return members; }
  /// This rank's position in the group, and the group's size.
  int rank() const { return position; }
  int size() const { return int(members.ranks.size()); }
  /// Point-to-point directions want a stream of their own (see above).
  bool wantsOwnStream() const { return members.pointToPoint; }
  const Nccl &library() const { return *lib; }
  void *handle() const { return comm; }

private:
  friend class NcclCommunicators;
  NcclGroup members;
  int position = 0;
  const Nccl *lib = nullptr;
  void *comm = nullptr; // ncclComm_t
};

/// This rank's communicators.
class NcclCommunicators {
public:
  /// Collective over MPI_COMM_WORLD (MPI initialized; every rank passes the
  /// same `groups`, e.g. ncclGroupsOf(plan)): for each group in order, its
  /// first member makes a unique id (ncclGetUniqueId) and broadcasts it to
  /// every rank (MPI_Bcast, root = that member); then this rank creates its
  /// communicators (ncclCommInitRank, all inside one ncclGroupStart/End, as
  /// NCCL requires for several communicators from one thread). A root
  /// whose ncclGetUniqueId fails makes every rank fail, none wait.
  static Expected<std::unique_ptr<NcclCommunicators>>
  create(std::shared_ptr<const Nccl> library,
         const std::vector<NcclGroup> &groups, int rank);
  /// ncclCommDestroy of each (unless aborted); the streams using them must
  /// be idle.
  ~NcclCommunicators();

  /// This rank's communicator of `group`, or nullptr when not a member.
  const NcclCommunicator *find(const NcclGroup &group) const;
  const NcclCommunicator *find(const plan::Task &task) const {
    return find(ncclGroupOf(task));
  }
  size_t size() const { return comms.size(); }

  /// Errors NCCL found asynchronously (a peer failed or vanished): poll
  /// this while waiting on a stream with NCCL work, which would otherwise
  /// wait forever.
  Status asyncErrors() const;

  /// ncclCommAbort of every communicator, from any thread, even while
  /// other threads are inside NCCL calls or wait for its work: NCCL's
  /// kernels and proxy threads stop waiting for peers (the watchdog, before
  /// it ends the job). The communicators are unusable afterwards.
  void abort();

private:
  NcclCommunicators() = default;
  std::shared_ptr<const Nccl> lib;
  std::map<NcclGroup, NcclCommunicator> comms;
  std::atomic<bool> aborted{false};
};

/// NCCL's checks of one collective (for a group of `groupSize`), on top of
/// layoutCollective's: a dtype NCCL moves, sums of a dtype NCCL can sum
/// (BOOL cannot: "ALL_REDUCE of bool[4]: sums of booleans are not
/// supported (reduce i32)").
Expected<CollectiveLayout> validateNcclCollective(const plan::Collective &c,
                                                  const plan::TensorDesc *in,
                                                  const plan::TensorDesc *out,
                                                  int groupSize);
/// Plan-level checks for running the (already validated) plan on NCCL:
/// every collective as above, and for each direction sender -> receiver
/// the SENDs in the sender's schedule order match the RECVs in the
/// receiver's (NCCL pairs them by order; MPI by tag). Every problem, one a
/// line.
Status validateNcclPlan(const PlanGraph &graph);

/// Enqueues one member's COLLECTIVE task on `stream`: `in` is null for
/// RECV, `out` for SEND (and their descs nullptr); `in == out` is fine.
/// `comm` is this rank's communicator of the task's group. Returns once
/// enqueued; scratch is released stream-ordered. Errors name the
/// collective and the failed call.
Status runCollective(const plan::Collective &collective,
                     const plan::TensorDesc *inDesc,
                     const plan::TensorDesc *outDesc, DevicePtr in,
                     DevicePtr out, const NcclCommunicator &comm,
                     StreamHandle stream, CollectiveDeviceOps &ops);

} // namespace cuda
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_CUDA_NCCL_H
