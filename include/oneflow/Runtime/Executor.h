//===- Executor.h - Runs a plan ---------------------------------*- C++ -*-===//
//
// Loads a plan directory (plan.pb, the kernel library, the weights file),
// lays out memory and runs steps on the actor engine: one thread per stream
// of this process's rank, each running its tasks in schedule order, each
// firing gated by its regsts (inputs readable, outputs writable).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_EXECUTOR_H
#define ONEFLOW_RUNTIME_EXECUTOR_H

#include "oneflow/Runtime/MemoryPlanner.h"
#include "oneflow/Runtime/PlanGraph.h"
#include "oneflow/Runtime/Tensor.h"
#include "oneflow/Runtime/Trace.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

/// Fills `dst` (`bytes` bytes) with graph input `name` for `step`. Called by
/// INPUT actors, from engine threads (concurrently for different inputs).
using InputFeed = std::function<Status(const std::string &name, int64_t step,
                                       void *dst, int64_t bytes)>;
/// Receives graph output `name` of `step`. Called by OUTPUT actors, from
/// engine threads (concurrently for different outputs).
using OutputSink = std::function<Status(const std::string &name, int64_t step,
                                        const void *src, int64_t bytes)>;

class Watchdog;
class World;

struct ExecutorOptions {
  /// The rank this process runs (tasks of other ranks are someone else's);
  /// the world's rank when `world` is set.
  int rank = 0;
  MemoryPlanOptions memory;
  /// The MPI world of a multi-rank run (one process per rank; must outlive
  /// the executor). Loading and running are then collective: every rank
  /// calls them, and a failure on one rank fails every rank.
  World *world = nullptr;
  /// Watches the runs (oneflow-run --timeout; must outlive the executor):
  /// the engine's threads tell it where they are, a CUDA plan's NCCL
  /// communicators are aborted when it fires.
  Watchdog *watchdog = nullptr;
  /// Binds every stream thread of this rank to this CPU (-1: no binding;
  /// ignored by device plans). For a rank whose kernels run on one thread:
  /// its streams hand each other the step (input, kernels, output) on one
  /// CPU, a context switch, instead of waking a thread that sleeps on
  /// another, idle CPU (on a virtual machine an inter-processor interrupt
  /// of tens of microseconds).
  int streamCpu = -1;
};

struct RunOptions {
  int64_t steps = 1;
  /// The number of the run's first step: feeds, sinks, onStepDone and the
  /// trace see steps firstStep .. firstStep + steps - 1 (a run that
  /// continues an earlier one, e.g. from a checkpoint).
  int64_t firstStep = 0;
  /// Record a TraceEvent per firing (see Executor::trace()).
  bool trace = false;
  /// Called once per finished step, in step order, with the time since the
  /// previous step finished (the run's start for step 0). A step is
  /// finished when every task fired for it.
  std::function<void(int64_t step, double seconds)> onStepDone;
};

struct RunStats {
  std::vector<double> stepSeconds; // per finished step (on this rank)
  double totalSeconds = 0;
  int64_t firings = 0; // of every rank
};

class Executor {
public:
  /// Reads `planDir`/plan.pb and prepares it (see create).
  static Expected<std::unique_ptr<Executor>>
  load(const std::string &planDir, const ExecutorOptions &options = {});

  /// Validates `plan`, loads the kernel library and weights named in it
  /// (relative to `planDir`), plans and allocates memory, builds actors;
  /// with a world, then agrees with the other ranks (every rank fails when
  /// one does, with a message naming it) and creates the communicators.
  static Expected<std::unique_ptr<Executor>>
  create(plan::Plan plan, const std::string &planDir,
         const ExecutorOptions &options = {});

  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  /// Runs `options.steps` steps. Stops every thread at the first error (a
  /// feed or sink failing) and returns it; in a multi-rank run such an error
  /// aborts the job instead (other ranks may be waiting for this one in a
  /// collective): "error: rank R: ..." on stderr, exit status 1. Persistent
  /// regsts keep their contents from run to run. Multi-rank runs start with
  /// a barrier; afterwards rank 0's trace() holds every rank's firings.
  Status run(const RunOptions &options, const InputFeed &feed,
             const OutputSink &sink);

  const plan::Plan &plan() const;
  const PlanGraph &graph() const;
  const MemoryPlan &memoryPlan() const;
  /// Of the last run.
  const RunStats &stats() const;
  const std::vector<TraceEvent> &trace() const;

  /// The buffer of persistent regst `regstId` on this rank, or nullptr.
  /// Read and write it only between runs.
  void *persistentData(int64_t regstId);

  /// Whether runs go step by step (the plan has ASSIGN tasks): a rank
  /// starts step k+1 only once all its tasks finished step k.
  bool stepByStep() const;

  /// steady_clock time (ns) at which the last run started on this rank
  /// (trace times are relative to it).
  int64_t runStartNs() const;

  /// The MPI world of a multi-rank run, or nullptr.
  World *world() const;

private:
  struct Impl;
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// A feed serving step i from perStep[i] (the last entry for later steps),
/// checking that each tensor has the byte size the plan expects.
InputFeed feedTensors(std::vector<std::map<std::string, HostTensor>> perStep);

/// Keeps the outputs of a run: of every step or only of the last one.
class OutputCollector {
public:
  OutputCollector(const plan::Plan &plan, int64_t steps, bool everyStep);
  /// Valid while the collector lives. Writes only into tensors allocated
  /// here, so concurrent OUTPUT actors never race.
  OutputSink sink();
  /// The output of `step` (of the last step when only that was kept).
  const HostTensor &output(const std::string &name, int64_t step = -1) const;
  const std::map<std::string, std::vector<HostTensor>> &outputs() const {
    return tensors;
  }

private:
  int64_t steps;
  bool everyStep;
  std::map<std::string, std::vector<HostTensor>> tensors;
};

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_EXECUTOR_H
