//===- Engine.h - Actors, regsts and stream threads -------------*- C++ -*-===//
//
// The actor engine of one rank. Every task is an Actor; every regst a Regst
// with num_slots buffers. A thread per stream runs its actors in schedule
// order, step after step: the next actor fires once each of its input regsts
// has a readable piece and each output regst a free slot, waiting on the
// thread's message queue otherwise. Firing tells consumers "ready" and
// producers "released"; messages within a thread are applied directly,
// others go through the receiving thread's queue. State is never shared
// between threads: a regst's slot counts belong to its producer's thread,
// the readable counts of an input to its consumer's thread.
//
// Control dependencies (Task.wait_for) work like inputs without data: a
// task that fired tells its waiters (a SEND once its send completed); a
// waiter fires for a step once every task it waits for did. In step-by-step
// runs (plans with ASSIGN tasks) a thread starts step k+1 only once every
// thread of the rank finished step k: the last one to finish tells the
// others.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_ENGINE_H
#define ONEFLOW_LIB_RUNTIME_ENGINE_H

#include "MessageQueue.h"
#include "MpiCollectives.h"

#include "oneflow/Runtime/Executor.h"
#include "oneflow/Runtime/KernelLibrary.h"
#include "oneflow/Runtime/Watchdog.h"

#include <atomic>
#include <memory>
#include <thread>

namespace oneflow {
namespace runtime {

struct Regst {
  const plan::Regst *desc = nullptr;
  char *base = nullptr;
  int64_t slotStride = 0;
  int numSlots = 1;
  bool persistent = false;
  int producer = -1;     // actor index; -1: none on this rank
  int producerPort = -1; // index in the producer's outs
  std::vector<std::pair<int, int>> consumers; // (actor, in port)
  // Producer's thread only: consumers that still read each slot.
  std::vector<int> pending;

  char *slot(int64_t step) const {
    return base + (step % numSlots) * slotStride;
  }
};

struct Actor {
  struct InPort {
    Regst *regst = nullptr;
    // Consumer's thread only: pieces received and not yet consumed.
    int64_t readable = 0;
  };

  const plan::Task *task = nullptr;
  int thread = -1;
  KernelFn kernel = nullptr;
  CollectiveOp *collective = nullptr; // COLLECTIVE tasks
  bool isSend = false;                // a SEND: releases its input late
  std::vector<InPort> inPorts;        // one per distinct in regst
  std::vector<int> argPorts;          // per Task.in_regsts entry: its in port
  std::vector<Regst *> outs;          // per Task.out_regsts entry
  std::vector<void *> args;           // scratch for the kernel call
  // Control dependencies: per task in wait_for, firings received and not
  // yet consumed (this actor's thread only); and the (actor, control port)
  // pairs that wait for this one.
  std::vector<int64_t> controls;
  std::vector<std::pair<int, int>> waiters;
};

struct StreamThread {
  int index = 0; // in the engine's threads
  int rank = 0;
  std::string stream;
  std::vector<int> order; // actor indices, in schedule order
  MessageQueue queue;
  // Firings recorded when tracing: (actor, step, start, duration).
  struct Firing {
    int actor;
    int64_t step, startNs, durationNs;
  };
  std::vector<Firing> firings;
  int64_t fired = 0;
  // SENDs in flight: their input slot is released once the send completed.
  struct PendingSend {
    int actor;
    int64_t step;
    std::vector<MPI_Request> requests;
  };
  std::vector<PendingSend> sends;
  // Step-by-step runs: steps every thread of the rank has finished (as this
  // thread has learnt).
  int64_t stepsDone = 0;
  // The watchdog's view, written by this thread only (relaxed stores), on a
  // cache line of its own: other threads push into `queue`. `place` is a
  // ThreadPlace (-1 before the run); the SEND in flight longest and its
  // step (-1: none); completed sends count as progress.
  alignas(64) std::atomic<int64_t> place{-1};
  std::atomic<int64_t> sendsDone{0};
  std::atomic<int32_t> sendActor{-1};
  std::atomic<int64_t> sendStep{0};
};

/// Where a device plan's work goes (CUDA): instead of running a firing's
/// kernel, copy or collective on the host, the engine hands it to the
/// backend, which enqueues it on the firing thread's device stream after
/// the device work it depends on. The engine's bookkeeping (regst slots,
/// messages, steps) is the same for every device.
class DeviceBackend {
public:
  virtual ~DeviceBackend() = default;
  /// Before a run's threads start (`trace`: record device spans).
  virtual Status startRun(bool trace) = 0;
  /// On each engine thread before its first firing of a run.
  virtual Status startThread(const StreamThread &thread) = 0;
  /// The work of one firing; `args` are the actor's buffers.
  virtual Status fire(int actor, int64_t globalStep, const InputFeed &feed,
                      const OutputSink &sink) = 0;
  /// Once a thread fired every task of a step: waits for its device work
  /// (step times are real; the next step of a step-by-step run sees it).
  virtual Status finishStep(const StreamThread &thread) = 0;
  /// After a traced run: the device's spans of the firings (times since
  /// the run's start), added to `trace`.
  virtual void collectTrace(std::vector<TraceEvent> &trace,
                            int64_t firstStep) = 0;
  /// The watchdog, from its own thread while `thread` waits for the
  /// device (in `running`, or -1 at the step's end): the first of the
  /// thread's actors whose work the device has not finished, else the
  /// first unfinished one on the stream of an actor `running` waits for;
  /// -1 if none.
  virtual int unfinishedActor(const StreamThread &thread,
                              int running) const = 0;
};

class Engine {
public:
  /// `stepByStep`: a thread starts step k+1 only once every thread
  /// finished step k (plans with ASSIGN tasks).
  Engine(std::vector<std::unique_ptr<Regst>> regsts, std::vector<Actor> actors,
         std::vector<std::unique_ptr<StreamThread>> threads, bool stepByStep);

  /// Called with the first error of a run instead of stopping the threads
  /// (multi-rank runs: other ranks may wait for this one, so the job is
  /// aborted; it does not return).
  void setFatalHandler(std::function<void(const Status &)> handler) {
    fatal = std::move(handler);
  }
  /// steady_clock time (ns) at which the last run started.
  int64_t runStartNs() const { return startNs; }
  /// A device plan's backend (must outlive the engine's runs).
  void setDeviceBackend(DeviceBackend *backend) { device = backend; }
  /// Watches the runs (must outlive them).
  void setWatchdog(Watchdog *dog) { watchdog = dog; }
  /// Binds the stream threads of later runs to `cpu` (-1: unbound).
  void setStreamCpu(int cpu) { streamCpu = cpu; }
  const std::vector<Actor> &allActors() const { return actors; }
  const std::vector<std::unique_ptr<StreamThread>> &allThreads() const {
    return threads;
  }
  Status run(const RunOptions &options, const InputFeed &feed,
             const OutputSink &sink, RunStats &stats,
             std::vector<TraceEvent> &trace);

private:
  class Progress;
  void reset(const RunOptions &options);
  void threadMain(int thread);
  void runThread(StreamThread &thread);
  bool canFire(const Actor &actor, int64_t step) const;
  Status fire(int actorIndex, int64_t step, StreamThread &thread);
  void send(const StreamThread &from, const Message &message);
  /// Releases the inputs of completed SENDs (all of them when `wait`);
  /// returns how many completed.
  int progressSends(StreamThread &thread, bool wait);
  void releaseInput(StreamThread &thread, int actor, int port, int64_t step);
  /// Tells the actors that wait for `actor` that it fired for `step`.
  void notifyWaiters(StreamThread &thread, int actor, int64_t step);
  void apply(const Message &message);
  /// Blocks for messages and applies them; false when told to stop.
  bool waitForMessages(StreamThread &thread, std::vector<Message> &inbox);
  void finishStep(StreamThread &thread, int64_t step);
  void reportSteps(int64_t step);
  void fail(const Status &status);
  int64_t nowNs() const;

  std::vector<std::unique_ptr<Regst>> regsts;
  std::vector<Actor> actors;
  std::vector<std::unique_ptr<StreamThread>> threads;
  bool stepByStep = false;
  std::function<void(const Status &)> fatal;
  DeviceBackend *device = nullptr;
  Watchdog *watchdog = nullptr;
  int streamCpu = -1;

  // Per run.
  const RunOptions *options = nullptr;
  const InputFeed *feed = nullptr;
  const OutputSink *sink = nullptr;
  int64_t startNs = 0;
  std::atomic<bool> stopping{false};
  std::mutex errorMutex;
  Status firstError;
  std::unique_ptr<std::atomic<int>[]> threadsDone; // per step
  std::mutex stepMutex;
  std::vector<int64_t> stepEndNs;
  std::vector<char> stepDone;
  int64_t nextReport = 0;
};

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_LIB_RUNTIME_ENGINE_H
