//===- Distributed.h - The ranks of a multi-rank run ------------*- C++ -*-===//
//
// One process per rank, started by an MPI launcher (OpenMPI's mpirun; the
// oneflow-run tool starts it itself for --np N). World wraps MPI's world
// communicator for what the executor and the tool do between runs: agreeing
// on errors (so that a failure on one rank makes every rank stop, never
// hang), gathering traces to rank 0, aborting the job. During a run only the
// comm stream's thread calls MPI, except the abort of a failing rank and the
// watchdog (with MPI_THREAD_MULTIPLE: its messages on a communicator of
// their own).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_DISTRIBUTED_H
#define ONEFLOW_RUNTIME_DISTRIBUTED_H

#include "oneflow/Runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

/// Whether an MPI launcher started this process (OpenMPI's mpirun sets
/// OMPI_COMM_WORLD_SIZE; PMIx and PMI launchers PMIX_RANK, PMI_SIZE).
bool launchedByMpi();

class World {
public:
  /// MPI_Init_thread, once per process: MPI_THREAD_MULTIPLE if the library
  /// has it (the watchdog's messages), at least MPI_THREAD_SERIALIZED.
  static Expected<std::unique_ptr<World>> init();
  /// MPI_Finalize. Destroy every Executor that uses the world first.
  ~World();
  World(const World &) = delete;
  World &operator=(const World &) = delete;

  int rank() const { return worldRank; }
  int size() const { return worldSize; }
  /// Ranks on this node (this one included).
  int localSize() const { return nodeSize; }

  /// Collective: every rank passes its own status; every rank gets success
  /// if all succeeded, otherwise the same error on every rank, naming the
  /// failing ranks: "rank 1: kernel 'f' not found in ...". A message that
  /// every rank reported alike is kept as it is.
  Status agree(const Status &local);

  void barrier();

  /// Collective: rank 0 gets every rank's `data`, in rank order; the others
  /// an empty vector.
  std::vector<std::string> gather(const std::string &data);

  /// Collective: the sum over ranks, on every rank.
  int64_t sum(int64_t value);

  /// Prints `status` as "error: rank R: ..." lines to stderr and aborts the
  /// whole job (MPI_Abort with exit status 1): for errors in the middle of
  /// a run, where other ranks may wait in a collective for this one.
  [[noreturn]] void abort(const Status &status) const;
  /// Ends the whole job with exit status `code` (MPI_Abort), printing
  /// nothing; callable from any thread.
  [[noreturn]] void abortJob(int code) const;

  /// Whether any thread may call MPI while another is inside it
  /// (MPI_THREAD_MULTIPLE was granted): the watchdogs' messages need it.
  bool threadMultiple() const { return multiple; }
  /// The watchdogs' messages, on a communicator of their own (only with
  /// threadMultiple()). Neither call blocks: a message to a stopped rank
  /// stays in flight.
  void postMessage(int rank, int tag, const std::string &text);
  /// The next message that arrived, if any.
  bool pollMessage(int &rank, int &tag, std::string &text);

private:
  struct Messages;
  World();
  int worldRank = 0, worldSize = 1, nodeSize = 1;
  bool multiple = false;
  std::unique_ptr<Messages> messages;
};

/// How many OpenMP/OpenBLAS threads each of `localRanks` ranks sharing a
/// machine of `cpus` CPUs gets: max(1, cpus / localRanks).
int threadsPerRank(int cpus, int localRanks);

/// Set by oneflow-run's launch when it binds each rank to one CPU: the CPUs
/// the job was started on.
inline constexpr const char *kJobCpusVariable = "ONEFLOW_JOB_CPUS";

/// The CPUs this process may run on (online CPUs, capped by its affinity),
/// or its job's (kJobCpusVariable) where the launch bound it to one.
int availableCpus();

struct ThreadBudget {
  int threads = 0;      // per rank, as computed
  bool ompSet = false;  // OMP_NUM_THREADS was set by us (not the user)
  bool blasSet = false; // OPENBLAS_NUM_THREADS was set by us
};

/// Sets OMP_NUM_THREADS and OPENBLAS_NUM_THREADS to
/// threadsPerRank(availableCpus(), localRanks), each unless the user set it.
/// Call before the kernel library (and the OpenMP and BLAS libraries it
/// pulls in) is loaded.
ThreadBudget applyThreadBudget(int localRanks);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_DISTRIBUTED_H
