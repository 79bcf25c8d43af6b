//===- Engine.cpp - Actors, regsts and stream threads ---------------------===//

#include "Engine.h"

#include "oneflow/Runtime/PlanGraph.h"

#include <algorithm>
#include <chrono>
#include <pthread.h>

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

  std::vector<std::thread> workers;
  workers.reserve(threads.size());
  for (size_t t = 0; t < threads.size(); ++t)
    workers.emplace_back([this, t] { threadMain(int(t)); });
  for (std::thread &worker : workers)
    worker.join();

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
  for (int64_t step = 0; step < options->steps; ++step) {
    // Step by step: the previous step's writes (ASSIGN) are all done.
    while (stepByStep && thread.stepsDone < step)
      if (!waitForMessages(thread, inbox))
        return;
    for (int actor : thread.order) {
      while (!canFire(actors[actor], step))
        if (!waitForMessages(thread, inbox))
          return;
      if (stopping.load(std::memory_order_relaxed))
        return;
      Status status = fire(actor, step, thread);
      if (!status.ok()) {
        fail(status);
        return;
      }
      if (!thread.sends.empty())
        progressSends(thread, /*wait=*/false);
    }
    if (device) {
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
      progressSends(thread, /*wait=*/true);
      if (stopping.load(std::memory_order_relaxed))
        return;
    }
    finishStep(thread, step);
  }
  // The last sends: their RECVs are on their way (the plan cannot
  // deadlock); wait so that nothing is in flight when the run returns.
  if (!stopping.load(std::memory_order_relaxed))
    progressSends(thread, /*wait=*/true);
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
