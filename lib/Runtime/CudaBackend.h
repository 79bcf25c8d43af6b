//===- CudaBackend.h - Runs CUDA plans' firings on a GPU --------*- C++ -*-===//
//
// The device side of a CUDA plan on one rank: the GPU (one per rank, the
// rank's local index unless ONEFLOW_CUDA_DEVICE says otherwise), the plan's
// fatbin, device memory for the regsts (the same memory plan as on the
// CPU), a stream and a task context per engine thread, an event per actor
// and NCCL communicators for the collectives. Each firing is enqueued on its
// thread's stream after a wait on the events of the actors it depends on
// across threads (its producers, the consumers of the slots it overwrites,
// the tasks it waits for), so kernels on one device follow each other with
// no host round trip; the host waits for the device only at inputs,
// outputs and the end of a step.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_CUDABACKEND_H
#define ONEFLOW_LIB_RUNTIME_CUDABACKEND_H

#include "Engine.h"

#include "oneflow/Runtime/CUDA/Device.h"
#include "oneflow/Runtime/CUDA/Nccl.h"
#include "oneflow/Runtime/CUDA/TaskContext.h"

#include <memory>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

class World;

class CudaBackend final : public DeviceBackend {
public:
  /// Opens this rank's GPU ("no CUDA driver" / "no CUDA device" errors),
  /// loads the plan's fatbin and its GPU functions.
  static Expected<std::unique_ptr<CudaBackend>>
  open(const plan::Plan &plan, const std::string &planDir, int rank);
  ~CudaBackend() override;

  /// Device memory for the regsts (zero-filled).
  Status allocate(int64_t arenaBytes, int64_t persistentBytes);
  char *arena() const { return reinterpret_cast<char *>(arenaMemory); }
  char *persistent() const {
    return reinterpret_cast<char *>(persistentMemory);
  }
  /// Copies the host image of the persistent regsts to the device, or back.
  Status upload(const char *host, int64_t bytes);
  Status download(char *host, int64_t bytes);

  /// Multi-rank plans: NCCL communicators for the plan's collectives
  /// (collective over MPI: every rank calls it).
  Status connect(const PlanGraph &graph, int rank, World &world);

  /// Streams, task contexts and events for the engine's threads and actors.
  Status attach(const Engine &engine);

  Status startRun(bool trace) override;
  Status startThread(const StreamThread &thread) override;
  Status fire(int actor, int64_t globalStep, const InputFeed &feed,
              const OutputSink &sink) override;
  Status finishStep(const StreamThread &thread) override;
  void collectTrace(std::vector<TraceEvent> &trace, int64_t firstStep) override;
  int unfinishedActor(const StreamThread &thread, int running) const override;

  /// The watchdog, before it ends the job: ncclCommAbort of every
  /// communicator, so that NCCL's kernels and proxy threads on this rank
  /// give up instead of waiting for a peer that will not come.
  void abortCommunicators();

  const cuda::Device &device() const { return *gpu; }

private:
  /// A traced firing's timing events, and once its step is done, its
  /// span on the device.
  struct DeviceSpan {
    int actor;
    int64_t step;
    cuda::Event start, end;
    int64_t startNs = 0, durationNs = 0;
  };
  struct ThreadState {
    cuda::Stream stream = nullptr;
    std::unique_ptr<cuda::TaskContext> context;
    std::vector<DeviceSpan> pending, done; // --trace
    std::vector<cuda::Event> eventPool;
  };
  struct ActorState {
    cuda::Event done = nullptr;
    /// Actors whose `done` this one's work waits for.
    std::vector<int> waitOn;
    /// A point-to-point transfer's own stream (NCCL blocks it until the
    /// peer is there: it must not hold up the thread's other work).
    cuda::Stream ownStream = nullptr;
    const cuda::NcclCommunicator *comm = nullptr;
    std::vector<char> staging; // INPUT / OUTPUT host buffer
  };
  class CollectiveOps;
  /// ONEFLOW_CUDA_GPU_TIMES=FILE: timing events around each KERNEL firing
  /// and each cuBLASLt product, written to FILE (JSON lines) per step.
  class GpuTimer;

  CudaBackend() = default;
  cuda::Stream streamOf(int actor) const;

  std::unique_ptr<cuda::Device> gpu;
  std::unique_ptr<cuda::Module> module;
  std::vector<cuda::GpuFunction> functions;
  cuda::DevicePtr arenaMemory = 0, persistentMemory = 0;
  std::unique_ptr<cuda::NcclCommunicators> communicators;
  std::unique_ptr<CollectiveOps> collectiveOps;
  std::unique_ptr<GpuTimer> timer;
  const Engine *engine = nullptr;
  std::vector<ThreadState> threads;
  std::vector<ActorState> actors;
  /// --trace: the device's spans are timed from this event, recorded when
  /// the run starts.
  bool tracing = false;
  cuda::Event runStart = nullptr;
  Expected<cuda::Event> timingEvent(ThreadState &thread);
};

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_LIB_RUNTIME_CUDABACKEND_H
