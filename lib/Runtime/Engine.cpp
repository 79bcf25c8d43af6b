//===- Engine.cpp - Actors, regsts and stream threads ---------------------===//

#include "Engine.h"

#include "oneflow/Runtime/PlanGraph.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <pthread.h>
#include <sched.h>

namespace oneflow {
namespace runtime {

Engine::Engine(std::vector<std::unique_ptr<Regst>> regsts,
               std::vector<Actor> actors,
               std::vector<std::unique_ptr<StreamThread>> threads,
               bool stepByStep)
    : regsts(std::move(regsts)), actors(std::move(actors)),
      threads(std::move(threads)), stepByStep(stepByStep) {
  for (size_t t = 0; t < this->threads.size(); ++t)
    this->threads[t]->index = int(t);
}

int64_t Engine::nowNs() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

/// Where a rank waits, in words that are the same on every rank waiting
/// there (collectives name no rank-specific task), for rank 0's summary.
std::string whereSummary(const plan::Task &task) {
  if (task.kind() != plan::COLLECTIVE)
    return "in " + describeBlockingTask(task);
  const plan::Collective &c = task.collective();
  std::string tag = "tag " + std::to_string(c.tag());
  if (c.kind() == plan::Collective::RECV)
    return "receiving from rank " + std::to_string(c.peer()) + " (" + tag + ")";
  if (c.kind() == plan::Collective::SEND)
    return "sending to rank " + std::to_string(c.peer()) + " (" + tag + ")";
  return "in " + plan::Collective::Kind_Name(c.kind()) + " " + tag +
         " over ranks [" +
         formatRanks(std::vector<int>(c.group().begin(), c.group().end())) +
         "]";
}

} // namespace

/// The engine as the watchdog sees it: the threads' places and completed
/// sends (atomics), described with the plan's tasks once stalled.
class Engine::Progress final : public ProgressSource {
public:
  explicit Progress(const Engine &engine) : engine(engine) {}

  void sample(std::vector<int64_t> &words) const override {
    for (const auto &thread : engine.threads) {
      words.push_back(thread->place.load(std::memory_order_relaxed));
      words.push_back(thread->sendsDone.load(std::memory_order_relaxed));
    }
  }

  StallReport describe() const override {
    struct Place {
      const StreamThread *thread;
      ThreadPlace at;
      int64_t step;
    };
    const int64_t first = engine.options ? engine.options->firstStep : 0;
    std::vector<Place> places;
    int64_t minStep = INT64_MAX;
    for (const auto &thread : engine.threads) {
      int64_t raw = thread->place.load(std::memory_order_relaxed);
      ThreadPlace at = ThreadPlace::decode(raw, int(thread->order.size()));
      if (raw < 0 || at.activity == ThreadPlace::Done)
        continue;
      places.push_back({thread.get(), at, first + at.step});
      minStep = std::min(minStep, first + at.step);
    }
    StallReport report;
    report.step = places.empty() ? -1 : minStep;
    int best = -1;
    auto consider = [&](int priority, std::string summary, int64_t step) {
      if (priority > best) {
        best = priority;
        report.summary =
            std::move(summary) + " at step " + std::to_string(step);
      }
    };
    for (const Place &place : places) {
      const StreamThread &thread = *place.thread;
      const int tasks = int(thread.order.size());
      const plan::Task *task =
          place.at.task < tasks
              ? engine.actors[thread.order[place.at.task]].task
              : nullptr;
      // Host threads that wait for the device: where the device is.
      const plan::Task *late = nullptr;
      if (engine.device &&
          (place.at.activity == ThreadPlace::Finishing ||
           (place.at.activity == ThreadPlace::Running &&
            (task->kind() == plan::INPUT || task->kind() == plan::OUTPUT)))) {
        int running = place.at.activity == ThreadPlace::Running
                          ? thread.order[place.at.task]
                          : -1;
        int unfinished = engine.device->unfinishedActor(thread, running);
        if (unfinished >= 0)
          late = engine.actors[unfinished].task;
      }
      std::string clause = "stream '" + thread.stream + "' ";
      switch (place.at.activity) {
      case ThreadPlace::StepBarrier:
        clause += "waits for the rank's other streams to finish step " +
                  std::to_string(place.step - 1);
        consider(0, "waiting for its other streams", place.step);
        break;
      case ThreadPlace::Waiting:
        clause += "waits to fire " + describeBlockingTask(*task);
        consider(1, "waiting to fire " + describeBlockingTask(*task),
                 place.step);
        break;
      case ThreadPlace::Running:
        if (task->kind() == plan::COLLECTIVE) {
          clause += "is in " + describeBlockingTask(*task);
          consider(5, whereSummary(*task), place.step);
        } else {
          clause += "is running " + describeBlockingTask(*task);
          if (!late)
            consider(4, "running " + describeBlockingTask(*task), place.step);
        }
        break;
      case ThreadPlace::Finishing:
        clause += "waits for its GPU work";
        if (!late)
          consider(3, "waiting for the GPU", place.step);
        break;
      case ThreadPlace::Sending:
        clause += "waits for its sends to complete";
        consider(2, "waiting for its sends", place.step);
        break;
      case ThreadPlace::Done:
        break;
      }
      if (place.step != minStep)
        clause += " at step " + std::to_string(place.step);
      if (late) {
        clause +=
            " (the GPU has not finished " + describeBlockingTask(*late) + ")";
        consider(4, "waiting for the GPU " + whereSummary(*late), place.step);
      }
      // SENDs in flight (MPI): their receivers have not taken them yet.
      int send = thread.sendActor.load(std::memory_order_relaxed);
      if (send >= 0 && (place.at.activity == ThreadPlace::Waiting ||
                        place.at.activity == ThreadPlace::Sending)) {
        const plan::Task &sendTask = *engine.actors[send].task;
        int64_t sendStep =
            first + thread.sendStep.load(std::memory_order_relaxed);
        clause += ", with " + describeBlockingTask(sendTask) + " of step " +
                  std::to_string(sendStep) + " in flight";
        consider(2, whereSummary(sendTask), sendStep);
      }
      report.detail += (report.detail.empty() ? "" : "; ") + clause;
    }
    if (places.empty()) {
      report.detail = "every stream finished its steps";
      report.summary = "finishing the run";
    }
    return report;
  }

private:
  const Engine &engine;
};

void Engine::reset(const RunOptions &runOptions) {
  for (auto &regst : regsts)
    if (regst) // Null: on another rank, or read by nobody.
      regst->pending.assign(regst->numSlots, 0);
  for (Actor &actor : actors) {
    for (Actor::InPort &port : actor.inPorts)
      port.readable = 0;
    std::fill(actor.controls.begin(), actor.controls.end(), 0);
  }
  for (auto &thread : threads) {
    thread->queue.clear();
    thread->firings.clear();
    thread->fired = 0;
    thread->sends.clear();
    thread->stepsDone = 0;
    thread->place.store(-1, std::memory_order_relaxed);
    thread->sendsDone.store(0, std::memory_order_relaxed);
    thread->sendActor.store(-1, std::memory_order_relaxed);
  }
  options = &runOptions;
  stopping = false;
  firstError = Status::success();
  threadsDone.reset(new std::atomic<int>[runOptions.steps]);
  for (int64_t s = 0; s < runOptions.steps; ++s)
    threadsDone[s] = 0;
  stepEndNs.assign(runOptions.steps, 0);
  stepDone.assign(runOptions.steps, 0);
  nextReport = 0;
}

Status Engine::run(const RunOptions &runOptions, const InputFeed &inputFeed,
                   const OutputSink &outputSink, RunStats &stats,
                   std::vector<TraceEvent> &trace) {
  stats = RunStats();
  trace.clear();
  if (runOptions.steps < 0)
    return makeError("the number of steps is ", runOptions.steps,
                     " (must be >= 0)");
  reset(runOptions);
  feed = &inputFeed;
  sink = &outputSink;
  if (device) {
    Status status = device->startRun(runOptions.trace);
    if (!status.ok())
      return status;
  }
  startNs = nowNs();

  Progress progress(*this);
  if (watchdog)
    watchdog->attach(&progress);
  std::vector<std::thread> workers;
  workers.reserve(threads.size());
  for (size_t t = 0; t < threads.size(); ++t)
    workers.emplace_back([this, t] { threadMain(int(t)); });
  for (std::thread &worker : workers)
    worker.join();
  if (watchdog)
    watchdog->attach(nullptr);

  int64_t endNs = nowNs();
  stats.totalSeconds = double(endNs - startNs) * 1e-9;
  int64_t previous = startNs;
  for (int64_t s = 0; s < runOptions.steps && stepDone[s]; ++s) {
    stats.stepSeconds.push_back(double(stepEndNs[s] - previous) * 1e-9);
    previous = stepEndNs[s];
  }
  for (auto &thread : threads) {
    stats.firings += thread->fired;
    for (const StreamThread::Firing &firing : thread->firings) {
      const plan::Task &task = *actors[firing.actor].task;
      trace.push_back(
          {task.name().empty() ? PlanGraph::describe(task) : task.name(),
           thread->rank, thread->stream, task.id(),
           runOptions.firstStep + firing.step, firing.startNs,
           firing.durationNs});
    }
  }
  if (device && runOptions.trace)
    device->collectTrace(trace, runOptions.firstStep);
  options = nullptr;
  feed = nullptr;
  sink = nullptr;
  return firstError;
}

void Engine::threadMain(int index) {
  StreamThread &thread = *threads[index];
  // Visible in debuggers and top: "of0-compute" (15 characters at most).
  std::string name = "of" + std::to_string(thread.rank) + "-" + thread.stream;
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
  if (streamCpu >= 0 && streamCpu < CPU_SETSIZE) {
    // A hint: where the CPU is not allowed, the thread stays unbound.
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(streamCpu, &cpus);
    pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
  }
  try {
    runThread(thread);
  } catch (const std::exception &e) {
    fail(makeError("stream '", thread.stream, "' of rank ", thread.rank,
                   " failed: ", e.what()));
  } catch (...) {
    fail(makeError("stream '", thread.stream, "' of rank ", thread.rank,
                   " failed with an unknown exception"));
  }
}

void Engine::runThread(StreamThread &thread) {
  std::vector<Message> inbox;
  if (device) {
    Status status = device->startThread(thread);
    if (!status.ok()) {
      fail(status);
      return;
    }
  }
  // Where the thread is, for the watchdog: one relaxed store per firing.
  const int tasks = int(thread.order.size());
  auto mark = [&](int64_t step, int task, ThreadPlace::Activity activity) {
    thread.place.store(ThreadPlace::encode(step, task, activity, tasks),
                       std::memory_order_relaxed);
  };
  for (int64_t step = 0; step < options->steps; ++step) {
    // Step by step: the previous step's writes (ASSIGN) are all done.
    if (stepByStep && thread.stepsDone < step) {
      mark(step, 0, ThreadPlace::StepBarrier);
      while (thread.stepsDone < step)
        if (!waitForMessages(thread, inbox))
          return;
    }
    for (int position = 0; position < tasks; ++position) {
      int actor = thread.order[position];
      if (!canFire(actors[actor], step)) {
        mark(step, position, ThreadPlace::Waiting);
        while (!canFire(actors[actor], step))
          if (!waitForMessages(thread, inbox))
            return;
      }
      if (stopping.load(std::memory_order_relaxed))
        return;
      mark(step, position, ThreadPlace::Running);
      Status status = fire(actor, step, thread);
      if (!status.ok()) {
        fail(status);
        return;
      }
      if (!thread.sends.empty())
        progressSends(thread, /*wait=*/false);
    }
    if (device) {
      mark(step, tasks, ThreadPlace::Finishing);
      Status status = device->finishStep(thread);
      if (!status.ok()) {
        fail(makeError("stream '", thread.stream, "' of rank ", thread.rank,
                       " at step ", options->firstStep + step, ": ",
                       status.message()));
        return;
      }
    }
    // Step by step: a SEND has finished its step once its send completed.
    if (stepByStep && !thread.sends.empty()) {
      mark(step, tasks, ThreadPlace::Sending);
      progressSends(thread, /*wait=*/true);
      if (stopping.load(std::memory_order_relaxed))
        return;
    }
    finishStep(thread, step);
  }
  // The last sends: their RECVs are on their way (the plan cannot
  // deadlock); wait so that nothing is in flight when the run returns.
  const int64_t last = std::max<int64_t>(options->steps - 1, 0);
  if (!stopping.load(std::memory_order_relaxed) && !thread.sends.empty()) {
    mark(last, tasks, ThreadPlace::Sending);
    progressSends(thread, /*wait=*/true);
  }
  mark(last, tasks, ThreadPlace::Done);
}

int Engine::progressSends(StreamThread &thread, bool wait) {
  int completed = 0;
  auto &sends = thread.sends;
  // A SEND's sends complete in step order as far as its waiters can tell:
  // one that finished before an earlier one of the same SEND waits.
  std::vector<int> unfinished;
  for (size_t i = 0; i < sends.size();) {
    StreamThread::PendingSend &pending = sends[i];
    if (std::find(unfinished.begin(), unfinished.end(), pending.actor) !=
        unfinished.end()) {
      ++i;
      continue;
    }
    bool done = false;
    Status status = testRequests(pending.requests, wait, done);
    if (!status.ok()) {
      fail(makeError(PlanGraph::describe(*actors[pending.actor].task),
                     " at step ", pending.step, ": ", status.message()));
      return completed;
    }
    if (!done) {
      unfinished.push_back(pending.actor);
      ++i;
      continue;
    }
    releaseInput(thread, pending.actor, 0, pending.step);
    notifyWaiters(thread, pending.actor, pending.step);
    sends.erase(sends.begin() + i);
    ++completed;
  }
  if (completed) {
    thread.sendsDone.store(thread.sendsDone.load(std::memory_order_relaxed) +
                               completed,
                           std::memory_order_relaxed);
    thread.sendStep.store(sends.empty() ? 0 : sends.front().step,
                          std::memory_order_relaxed);
    thread.sendActor.store(sends.empty() ? -1 : sends.front().actor,
                           std::memory_order_relaxed);
  }
  return completed;
}

void Engine::releaseInput(StreamThread &thread, int actorIndex, int port,
                          int64_t step) {
  const Regst *regst = actors[actorIndex].inPorts[port].regst;
  if (!regst->persistent)
    send(thread,
         {Message::Release, regst->producer, regst->producerPort, step});
}

void Engine::notifyWaiters(StreamThread &thread, int actorIndex, int64_t step) {
  for (const auto &[waiter, port] : actors[actorIndex].waiters)
    send(thread, {Message::Control, waiter, port, step});
}

bool Engine::canFire(const Actor &actor, int64_t step) const {
  for (int64_t received : actor.controls)
    if (received == 0)
      return false;
  for (const Actor::InPort &port : actor.inPorts)
    if (!port.regst->persistent && port.readable == 0)
      return false;
  for (const Regst *regst : actor.outs)
    if (!regst->persistent && regst->pending[step % regst->numSlots] != 0)
      return false;
  return true;
}

Status Engine::fire(int actorIndex, int64_t step, StreamThread &thread) {
  Actor &actor = actors[actorIndex];
  const plan::Task &task = *actor.task;
  size_t arg = 0;
  for (int port : actor.argPorts)
    actor.args[arg++] = actor.inPorts[port].regst->slot(step);
  for (Regst *regst : actor.outs)
    actor.args[arg++] = regst->slot(step);

  int64_t begin = options->trace ? nowNs() : 0;
  // Feeds, sinks and messages count steps from the run's first step.
  const int64_t globalStep = options->firstStep + step;
  Status status;
  if (device)
    status = device->fire(actorIndex, globalStep, *feed, *sink);
  else
    switch (task.kind()) {
    case plan::KERNEL:
      actor.kernel(actor.args.data());
      break;
    case plan::INPUT:
      if (!*feed)
        status = makeError("input '", task.io_name(), "' has no feed");
      else
        status = (*feed)(task.io_name(), globalStep, actor.args[0],
                         actor.outs[0]->desc->size_bytes());
      break;
    case plan::OUTPUT:
      if (*sink)
        status = (*sink)(task.io_name(), globalStep, actor.args[0],
                         actor.inPorts[0].regst->desc->size_bytes());
      break;
    case plan::COLLECTIVE: {
      if (!actor.collective) {
        status = makeError("no communicator for a COLLECTIVE task");
        break;
      }
      void *in = actor.argPorts.empty() ? nullptr : actor.args[0];
      void *out =
          actor.outs.empty() ? nullptr : actor.args[actor.argPorts.size()];
      if (actor.isSend) {
        if (thread.sends.empty()) {
          thread.sendStep.store(step, std::memory_order_relaxed);
          thread.sendActor.store(actorIndex, std::memory_order_relaxed);
        }
        thread.sends.push_back({actorIndex, step, {}});
        status = actor.collective->startSend(in, thread.sends.back().requests);
      } else {
        status = actor.collective->run(in, out);
      }
      break;
    }
    case plan::ASSIGN:
      // The variable update: readers of this step fired before (wait_for),
      // readers of the next step come after it (step by step).
      if (actor.args[1] != actor.args[0])
        std::memcpy(actor.args[1], actor.args[0],
                    size_t(actor.outs[0]->desc->size_bytes()));
      break;
    default:
      break;
    }
  if (!status.ok())
    return makeError(PlanGraph::describe(task), " at step ", globalStep, ": ",
                     status.message());
  if (options->trace)
    thread.firings.push_back(
        {actorIndex, step, begin - startNs, nowNs() - begin});
  ++thread.fired;

  // Done reading: hand input slots back; then publish the new pieces.
  for (int port = 0, e = int(actor.inPorts.size()); port < e; ++port) {
    Actor::InPort &in = actor.inPorts[port];
    if (in.regst->persistent)
      continue;
    --in.readable;
    if (!actor.isSend) // A SEND releases its slot once the send completed.
      send(thread, {Message::Release, in.regst->producer,
                    in.regst->producerPort, step});
  }
  for (int port = 0, e = int(actor.outs.size()); port < e; ++port) {
    Regst *out = actor.outs[port];
    if (out->persistent)
      continue;
    out->pending[step % out->numSlots] = int(out->consumers.size());
    for (const auto &[consumer, inPort] : out->consumers)
      send(thread, {Message::Ready, consumer, inPort, step});
  }
  for (int64_t &received : actor.controls)
    --received;
  if (!actor.isSend) // A SEND has fired once its send completed.
    notifyWaiters(thread, actorIndex, step);
  return Status::success();
}

void Engine::send(const StreamThread &from, const Message &message) {
  int target = actors[message.actor].thread;
  if (threads[target].get() == &from)
    apply(message);
  else
    threads[target]->queue.push(message);
}

void Engine::apply(const Message &message) {
  Actor &actor = actors[message.actor];
  if (message.kind == Message::Ready) {
    ++actor.inPorts[message.port].readable;
  } else if (message.kind == Message::Release) {
    Regst *regst = actor.outs[message.port];
    --regst->pending[message.step % regst->numSlots];
  } else if (message.kind == Message::Control) {
    ++actor.controls[message.port];
  }
}

bool Engine::waitForMessages(StreamThread &thread,
                             std::vector<Message> &inbox) {
  if (thread.sends.empty()) {
    thread.queue.popAll(inbox);
  } else {
    // Sends in flight need MPI's progress (and complete into releases that
    // may be what this thread waits for): poll them between short waits.
    while (true) {
      if (progressSends(thread, /*wait=*/false) > 0 ||
          stopping.load(std::memory_order_relaxed)) {
        thread.queue.popAllFor(inbox, std::chrono::seconds(0));
        break;
      }
      if (thread.queue.popAllFor(inbox, std::chrono::microseconds(50)))
        break;
    }
  }
  for (const Message &message : inbox) {
    if (message.kind == Message::Stop)
      return false;
    if (message.kind == Message::StepDone)
      thread.stepsDone = std::max(thread.stepsDone, message.step + 1);
    else
      apply(message);
  }
  return !stopping.load(std::memory_order_relaxed);
}

void Engine::finishStep(StreamThread &thread, int64_t step) {
  if (threadsDone[step].fetch_add(1, std::memory_order_acq_rel) + 1 !=
      int(threads.size()))
    return;
  reportSteps(step);
  // The last thread to finish a step lets the others start the next one
  // (after the report: a step-by-step step is quiet while it is reported).
  if (stepByStep) {
    thread.stepsDone = step + 1;
    for (auto &other : threads)
      if (other.get() != &thread)
        other->queue.push({Message::StepDone, 0, 0, step});
  }
}

void Engine::reportSteps(int64_t step) {
  // Threads may finish steps s and s+1 in either order of these calls:
  // report in step order.
  std::lock_guard<std::mutex> lock(stepMutex);
  stepEndNs[step] = nowNs();
  stepDone[step] = 1;
  if (watchdog)
    watchdog->stepFinished();
  while (nextReport < options->steps && stepDone[nextReport]) {
    // Steps finish in order, but their clock reads may race: keep them
    // monotonic.
    int64_t previous = nextReport ? stepEndNs[nextReport - 1] : startNs;
    stepEndNs[nextReport] = std::max(stepEndNs[nextReport], previous);
    if (options->onStepDone)
      options->onStepDone(options->firstStep + nextReport,
                          double(stepEndNs[nextReport] - previous) * 1e-9);
    ++nextReport;
  }
}

void Engine::fail(const Status &status) {
  if (fatal)
    fatal(status); // Does not return.
  {
    std::lock_guard<std::mutex> lock(errorMutex);
    if (!firstError.ok())
      return;
    firstError = status;
    stopping = true;
  }
  for (auto &thread : threads)
    thread->queue.push({Message::Stop, 0, 0, 0});
}

} // namespace runtime
} // namespace oneflow
