//===- CudaBackend.cpp - Runs CUDA plans' firings on a GPU ----------------===//

#include "CudaBackend.h"

#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/Json.h"
#include "oneflow/Runtime/PlanGraph.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>

namespace oneflow {
namespace runtime {

namespace {

/// This rank's GPU: ONEFLOW_CUDA_DEVICE, else the rank's index on its node
/// as the MPI launcher tells it, else 0.
int deviceOrdinal() {
  for (const char *name : {"ONEFLOW_CUDA_DEVICE", "OMPI_COMM_WORLD_LOCAL_RANK",
                           "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char *value = std::getenv(name))
      return std::atoi(value);
  return 0;
}

} // namespace

/// The device side of NCCL collectives: scratch and rearranging copies on
/// the collective's stream.
class CudaBackend::CollectiveOps final : public cuda::CollectiveDeviceOps {
public:
  explicit CollectiveOps(const cuda::Device &device) : device(device) {}
  Expected<cuda::DevicePtr> allocate(int64_t bytes,
                                     cuda::StreamHandle stream) override {
    return device.allocateAsync(size_t(bytes), cuda::Stream(stream));
  }
  void free(cuda::DevicePtr pointer, cuda::StreamHandle stream) override {
    (void)device.freeAsync(pointer, cuda::Stream(stream));
  }
  Status copy2D(cuda::DevicePtr dst, int64_t dstPitch, cuda::DevicePtr src,
                int64_t srcPitch, int64_t widthBytes, int64_t height,
                cuda::StreamHandle stream) override {
    return device.copy2D(dst, size_t(dstPitch), src, size_t(srcPitch),
                         size_t(widthBytes), size_t(height),
                         cuda::Stream(stream));
  }
  Status convert(cuda::DevicePtr, plan::DataType, cuda::DevicePtr,
                 plan::DataType, int64_t, cuda::StreamHandle) override {
    return makeError("f16/bf16 sums of CUDA plans need a conversion kernel, "
                     "which this version does not have");
  }

private:
  const cuda::Device &device;
};

/// GPU times of firings (ONEFLOW_CUDA_GPU_TIMES=FILE): the host-side trace
/// only sees enqueue times. Timing events are recorded on the thread's
/// stream around each KERNEL firing ("kernel") and each cuBLASLt product
/// ("matmul", with its shape); once a step's work is done (finishStep) they
/// are read and written as JSON lines:
///   {"step": 0, "stream": "compute", "task": "...", "call": "matmul",
///    "shape": "dtype=f32 m=16 n=192 k=64 ...", "gpu_ms": 0.0123}
/// The events add a little work between firings: time steps without it.
class CudaBackend::GpuTimer {
public:
  GpuTimer(const cuda::Device &gpu, std::FILE *file, size_t threads)
      : gpu(gpu), file(file), perThread(threads) {
    for (PerThread &thread : perThread)
      thread.timer = this;
  }
  ~GpuTimer() {
    for (PerThread &thread : perThread) {
      for (const Span &span : thread.spans)
        thread.recycle(span);
      for (cuda::Event event : thread.pool)
        (void)gpu.destroyEvent(event);
    }
    std::fclose(file);
  }

  cuda::MatmulObserver *observer(int thread) { return &perThread[thread]; }

  /// Around a KERNEL firing of `task` at `step` on `stream`.
  void beginKernel(int thread, cuda::Stream stream, std::string streamName,
                   std::string task, int64_t step) {
    PerThread &state = perThread[thread];
    state.stream = stream;
    state.streamName = std::move(streamName);
    state.task = std::move(task);
    state.step = step;
    state.begin("kernel", "");
  }
  void endKernel(int thread) { perThread[thread].end(); }

  /// Writes the thread's spans (its stream's work must be done).
  Status flush(int thread) {
    PerThread &state = perThread[thread];
    Status status = state.failure;
    state.failure = Status::success();
    state.open.clear();
    std::string lines;
    for (Span &span : state.spans) {
      if (status.ok()) {
        Expected<float> ms = gpu.elapsedMs(span.start, span.end);
        if (!ms.ok())
          status = ms.error();
        else
          lines += span.json + std::to_string(*ms) + "}\n";
      }
      state.recycle(span);
    }
    state.spans.clear();
    std::lock_guard<std::mutex> lock(fileMutex);
    std::fputs(lines.c_str(), file);
    std::fflush(file);
    return status;
  }

private:
  struct Span {
    std::string json; // the record up to "gpu_ms":
    cuda::Event start = nullptr, end = nullptr;
  };
  struct PerThread final : cuda::MatmulObserver {
    GpuTimer *timer = nullptr;
    cuda::Stream stream = nullptr;
    std::string streamName, task;
    int64_t step = 0;
    std::vector<Span> spans;
    std::vector<size_t> open; // indices of spans not yet ended
    std::vector<cuda::Event> pool;
    Status failure;

    cuda::Event event() {
      if (!pool.empty()) {
        cuda::Event event = pool.back();
        pool.pop_back();
        return event;
      }
      Expected<cuda::Event> created = timer->gpu.createEvent(/*timing=*/true);
      if (!created.ok()) {
        fail(created.error());
        return nullptr;
      }
      return *created;
    }
    void fail(const Status &status) {
      if (failure.ok())
        failure = status;
    }
    void begin(const char *call, const std::string &shape) {
      Span span;
      span.json = "{\"step\": " + std::to_string(step) + ", \"stream\": ";
      appendJsonString(span.json, streamName);
      span.json += ", \"task\": ";
      appendJsonString(span.json, task);
      span.json += std::string(", \"call\": \"") + call + "\"";
      if (!shape.empty())
        span.json += ", \"shape\": \"" + shape + "\"";
      span.json += ", \"gpu_ms\": ";
      span.start = event();
      span.end = event();
      if (span.start && span.end) {
        Status recorded = timer->gpu.record(span.start, stream);
        if (!recorded.ok())
          fail(recorded);
      }
      open.push_back(spans.size());
      spans.push_back(std::move(span));
    }
    void end() {
      if (open.empty())
        return;
      Span &span = spans[open.back()];
      open.pop_back();
      if (span.start && span.end) {
        Status recorded = timer->gpu.record(span.end, stream);
        if (!recorded.ok())
          fail(recorded);
      }
    }
    /// Puts a span's events back for reuse.
    void recycle(const Span &span) {
      for (cuda::Event event : {span.start, span.end})
        if (event)
          pool.push_back(event);
    }
    void beforeMatmul(const cuda::MatmulShape &s) override {
      std::ostringstream shape;
      shape << "dtype=" << cuda::dtypeName(s.dtype) << " m=" << s.m
            << " n=" << s.n << " k=" << s.k << " transposeA=" << s.transposeA
            << " transposeB=" << s.transposeB << " batch=" << s.batch
            << " strideA=" << s.strideA << " strideB=" << s.strideB
            << " epilogue=" << cuda::epilogueName(s.epilogue)
            << " accumulate=" << s.accumulate;
      begin("matmul", shape.str());
    }
    void afterMatmul(const cuda::MatmulShape &) override { end(); }
  };

  const cuda::Device &gpu;
  std::FILE *file;
  std::mutex fileMutex;
  std::vector<PerThread> perThread;
};

CudaBackend::~CudaBackend() {
  if (!gpu)
    return;
  (void)gpu->makeCurrent();
  // Work in flight finishes before its memory and streams go.
  for (ThreadState &thread : threads)
    if (thread.stream)
      (void)gpu->synchronize(thread.stream);
  timer.reset();
  for (ThreadState &thread : threads) {
    for (const DeviceSpan &span : thread.pending)
      for (cuda::Event event : {span.start, span.end})
        (void)gpu->destroyEvent(event);
    for (cuda::Event event : thread.eventPool)
      (void)gpu->destroyEvent(event);
  }
  if (runStart)
    (void)gpu->destroyEvent(runStart);
  for (ActorState &actor : actors) {
    if (actor.ownStream) {
      (void)gpu->synchronize(actor.ownStream);
      (void)gpu->destroyStream(actor.ownStream);
    }
    if (actor.done)
      (void)gpu->destroyEvent(actor.done);
  }
  communicators.reset();
  for (ThreadState &thread : threads) {
    thread.context.reset();
    if (thread.stream)
      (void)gpu->destroyStream(thread.stream);
  }
  if (arenaMemory)
    (void)gpu->free(arenaMemory);
  if (persistentMemory)
    (void)gpu->free(persistentMemory);
  module.reset();
}

Expected<std::unique_ptr<CudaBackend>>
CudaBackend::open(const plan::Plan &plan, const std::string &planDir,
                  int rank) {
  std::unique_ptr<CudaBackend> backend(new CudaBackend());
  Expected<std::unique_ptr<cuda::Device>> device =
      cuda::Device::open(deviceOrdinal());
  if (!device.ok())
    return makeError("rank ", rank, ": ", device.error().message());
  backend->gpu = device.take();
  if (plan.gpu_kernels_size() == 0)
    return backend; // every kernel is a library call
  if (plan.gpu_binary().empty())
    return makeError("the CUDA plan names GPU kernels but no GPU binary");
  std::string path =
      (std::filesystem::path(planDir) / plan.gpu_binary()).string();
  Expected<std::unique_ptr<cuda::Module>> module =
      backend->gpu->loadModule(path);
  if (!module.ok())
    return module.error();
  backend->module = module.take();
  std::vector<std::string> names(plan.gpu_kernels().begin(),
                                 plan.gpu_kernels().end());
  Expected<std::vector<cuda::GpuFunction>> functions =
      backend->module->functions(names);
  if (!functions.ok())
    return functions.error();
  backend->functions = functions.take();
  return backend;
}

Status CudaBackend::allocate(int64_t arenaBytes, int64_t persistentBytes) {
  for (auto [bytes, memory] :
       {std::pair<int64_t, cuda::DevicePtr *>{arenaBytes, &arenaMemory},
        {persistentBytes, &persistentMemory}}) {
    Expected<cuda::DevicePtr> allocated = gpu->allocate(size_t(bytes));
    if (!allocated.ok())
      return makeError("cannot allocate ", bytes, " bytes on ", gpu->name(),
                       " for the plan's regsts: ", allocated.error().message());
    *memory = *allocated;
    Status zeroed = gpu->zero(*memory, size_t(bytes), nullptr);
    if (!zeroed.ok())
      return zeroed;
  }
  return gpu->synchronize(cuda::Stream(nullptr));
}

Status CudaBackend::upload(const char *host, int64_t bytes) {
  Status status = gpu->makeCurrent();
  if (status.ok())
    status = gpu->copyToDevice(persistentMemory, host, size_t(bytes), nullptr);
  return status.ok() ? gpu->synchronize(cuda::Stream(nullptr)) : status;
}

Status CudaBackend::download(char *host, int64_t bytes) {
  Status status = gpu->makeCurrent();
  if (status.ok())
    status = gpu->copyToHost(host, persistentMemory, size_t(bytes), nullptr);
  return status.ok() ? gpu->synchronize(cuda::Stream(nullptr)) : status;
}

Status CudaBackend::connect(const PlanGraph &graph, int rank, World &world) {
  const plan::Plan &plan = graph.plan();
  std::vector<cuda::NcclGroup> groups = cuda::ncclGroupsOf(plan);
  if (groups.empty())
    return Status::success();
  Status ready = cuda::validateNcclPlan(graph);
  Expected<std::shared_ptr<const cuda::Nccl>> library = cuda::Nccl::load();
  if (ready.ok() && !library.ok())
    ready = library.error();
  // Every rank enters the communicators' creation (collective over MPI)
  // only if all of them can.
  ready = world.agree(ready);
  if (!ready.ok())
    return ready;
  Expected<std::unique_ptr<cuda::NcclCommunicators>> comms =
      cuda::NcclCommunicators::create(library.take(), groups, rank);
  if (!comms.ok())
    return comms.error();
  communicators = comms.take();
  collectiveOps = std::make_unique<CollectiveOps>(*gpu);
  return Status::success();
}

Status CudaBackend::attach(const Engine &engineRef) {
  engine = &engineRef;
  const std::vector<Actor> &all = engine->allActors();
  const auto &engineThreads = engine->allThreads();
  Status status = gpu->makeCurrent();
  if (!status.ok())
    return status;
  threads.resize(engineThreads.size());
  for (ThreadState &thread : threads) {
    Expected<cuda::Stream> stream = gpu->createStream();
    if (!stream.ok())
      return stream.error();
    thread.stream = *stream;
    thread.context =
        std::make_unique<cuda::TaskContext>(*gpu, thread.stream, &functions);
  }
  if (const char *path = std::getenv("ONEFLOW_CUDA_GPU_TIMES"); path && *path) {
    std::FILE *file = std::fopen(path, "w");
    if (!file)
      return makeError("cannot write GPU times to '", path, "'");
    timer = std::make_unique<GpuTimer>(*gpu, file, threads.size());
    for (size_t t = 0; t < threads.size(); ++t)
      threads[t].context->setMatmulObserver(timer->observer(int(t)));
  }
  actors.resize(all.size());
  for (size_t a = 0; a < all.size(); ++a) {
    ActorState &state = actors[a];
    Expected<cuda::Event> event = gpu->createEvent();
    if (!event.ok())
      return event.error();
    state.done = *event;
    const plan::Task &task = *all[a].task;
    if (task.kind() != plan::COLLECTIVE)
      continue;
    if (!communicators || !(state.comm = communicators->find(task)))
      return makeError(PlanGraph::describe(task),
                       ": no NCCL communicator for its group");
    if (state.comm->wantsOwnStream()) {
      Expected<cuda::Stream> stream = gpu->createStream();
      if (!stream.ok())
        return stream.error();
      state.ownStream = *stream;
    }
  }
  // Device-side order mirrors the engine's messages across streams: a
  // firing waits for its producers (data), for the consumers of the slots
  // it overwrites (reuse) and for the tasks it waits for (control), where
  // they ran on another stream; on one stream the order is the stream's.
  auto otherStream = [&](int a, int b) {
    return all[a].thread != all[b].thread || actors[a].ownStream ||
           actors[b].ownStream;
  };
  for (size_t a = 0; a < all.size(); ++a) {
    std::set<int> waits;
    for (const Actor::InPort &port : all[a].inPorts)
      if (!port.regst->persistent && port.regst->producer >= 0 &&
          otherStream(int(a), port.regst->producer))
        waits.insert(port.regst->producer);
    for (const Regst *out : all[a].outs)
      if (!out->persistent)
        for (const auto &[consumer, inPort] : out->consumers)
          if (otherStream(int(a), consumer))
            waits.insert(consumer);
    actors[a].waitOn.assign(waits.begin(), waits.end());
  }
  for (size_t d = 0; d < all.size(); ++d)
    for (const auto &[waiter, port] : all[d].waiters)
      if (otherStream(waiter, int(d)))
        actors[waiter].waitOn.push_back(int(d));
  return Status::success();
}

cuda::Stream CudaBackend::streamOf(int actor) const {
  return actors[actor].ownStream
             ? actors[actor].ownStream
             : threads[engine->allActors()[actor].thread].stream;
}

Status CudaBackend::startRun(bool trace) {
  tracing = trace;
  for (ThreadState &thread : threads)
    thread.done.clear();
  if (!trace)
    return Status::success();
  Status status = gpu->makeCurrent();
  if (status.ok() && !runStart) {
    Expected<cuda::Event> event = gpu->createEvent(/*timing=*/true);
    if (!event.ok())
      return event.error();
    runStart = *event;
  }
  // The device is idle between runs: the event marks the run's start.
  if (status.ok())
    status =
        gpu->record(runStart, threads.empty() ? nullptr : threads[0].stream);
  if (status.ok() && !threads.empty())
    status = gpu->synchronize(threads[0].stream);
  return status;
}

Expected<cuda::Event> CudaBackend::timingEvent(ThreadState &thread) {
  if (!thread.eventPool.empty()) {
    cuda::Event event = thread.eventPool.back();
    thread.eventPool.pop_back();
    return event;
  }
  return gpu->createEvent(/*timing=*/true);
}

void CudaBackend::collectTrace(std::vector<TraceEvent> &trace,
                               int64_t firstStep) {
  const std::vector<Actor> &all = engine->allActors();
  for (size_t t = 0; t < threads.size(); ++t)
    for (const DeviceSpan &span : threads[t].done) {
      const plan::Task &task = *all[span.actor].task;
      trace.push_back(
          {task.name().empty() ? PlanGraph::describe(task) : task.name(),
           task.rank(), engine->allThreads()[t]->stream + " (gpu)", task.id(),
           firstStep + span.step, span.startNs, span.durationNs});
    }
}

int CudaBackend::unfinishedActor(const StreamThread &thread,
                                 int running) const {
  // Called from the watchdog's thread: the context must be current there.
  if (!gpu->makeCurrent().ok())
    return -1;
  auto unfinished = [&](int actor) {
    if (!actors[actor].done)
      return false;
    Expected<bool> complete = gpu->query(actors[actor].done);
    return complete.ok() && !*complete;
  };
  // Each actor's event was last recorded after its latest firing, and a
  // thread enqueues a step only once its streams finished the previous
  // one: its first unfinished actor is where its device work stands.
  auto firstOn = [&](const StreamThread &on) {
    for (int actor : on.order)
      if (unfinished(actor))
        return actor;
    return -1;
  };
  if (int actor = firstOn(thread); actor >= 0)
    return actor;
  // Blocked before its own work (an OUTPUT copy waiting for its producer):
  // where the stream it waits for stands.
  if (running >= 0)
    for (int dependency : actors[running].waitOn)
      if (unfinished(dependency)) {
        int root = firstOn(
            *engine->allThreads()[engine->allActors()[dependency].thread]);
        return root >= 0 ? root : dependency;
      }
  return -1;
}

void CudaBackend::abortCommunicators() {
  if (communicators)
    communicators->abort();
}

Status CudaBackend::startThread(const StreamThread &) {
  return gpu->makeCurrent();
}

Status CudaBackend::fire(int actorIndex, int64_t globalStep,
                         const InputFeed &feed, const OutputSink &sink) {
  const Actor &actor = engine->allActors()[actorIndex];
  ActorState &state = actors[actorIndex];
  const plan::Task &task = *actor.task;
  cuda::Stream stream = streamOf(actorIndex);
  for (int dependency : state.waitOn) {
    Status status = gpu->streamWaitEvent(stream, actors[dependency].done);
    if (!status.ok())
      return status;
  }
  auto address = [&](size_t arg) {
    return cuda::DevicePtr(reinterpret_cast<uintptr_t>(actor.args[arg]));
  };
  // --trace: the firing's device span, between two timing events.
  DeviceSpan span{actorIndex, globalStep, nullptr, nullptr};
  ThreadState &threadState = threads[actor.thread];
  if (tracing) {
    Expected<cuda::Event> start = timingEvent(threadState);
    Expected<cuda::Event> end = timingEvent(threadState);
    if (!start.ok())
      return start.error();
    if (!end.ok())
      return end.error();
    span.start = *start;
    span.end = *end;
    Status recorded = gpu->record(span.start, stream);
    if (!recorded.ok())
      return recorded;
  }
  Status status;
  switch (task.kind()) {
  case plan::KERNEL: {
    cuda::TaskContext &context = *threads[actor.thread].context;
    context.setTaskName(task.name().empty() ? task.kernel_symbol()
                                            : task.name());
    if (timer)
      timer->beginKernel(actor.thread, stream,
                         engine->allThreads()[actor.thread]->stream,
                         context.taskName(), globalStep);
    cuda::setTaskContext(&context);
    actor.kernel(const_cast<void **>(actor.args.data()));
    cuda::setTaskContext(nullptr);
    if (timer)
      timer->endKernel(actor.thread);
    status = context.takeError();
    break;
  }
  case plan::INPUT: {
    // Filled on the host, copied once; the copy must finish before the
    // staging buffer is filled again.
    size_t bytes = size_t(actor.outs[0]->desc->size_bytes());
    state.staging.resize(bytes);
    if (!feed)
      return makeError("input '", task.io_name(), "' has no feed");
    status =
        feed(task.io_name(), globalStep, state.staging.data(), int64_t(bytes));
    if (status.ok())
      status =
          gpu->copyToDevice(address(0), state.staging.data(), bytes, stream);
    if (status.ok())
      status = gpu->synchronize(stream);
    break;
  }
  case plan::OUTPUT: {
    size_t bytes = size_t(actor.inPorts[0].regst->desc->size_bytes());
    state.staging.resize(bytes);
    status = gpu->copyToHost(state.staging.data(), address(0), bytes, stream);
    if (status.ok())
      status = gpu->synchronize(stream);
    if (status.ok() && sink)
      status = sink(task.io_name(), globalStep, state.staging.data(),
                    int64_t(bytes));
    break;
  }
  case plan::ASSIGN:
    if (actor.args[1] != actor.args[0])
      status =
          gpu->copyOnDevice(address(1), address(0),
                            size_t(actor.outs[0]->desc->size_bytes()), stream);
    break;
  case plan::COLLECTIVE: {
    bool hasIn = !actor.argPorts.empty(), hasOut = !actor.outs.empty();
    const plan::TensorDesc *inDesc =
        hasIn ? &actor.inPorts[actor.argPorts[0]].regst->desc->desc() : nullptr;
    const plan::TensorDesc *outDesc =
        hasOut ? &actor.outs[0]->desc->desc() : nullptr;
    status = cuda::runCollective(task.collective(), inDesc, outDesc,
                                 hasIn ? address(0) : 0,
                                 hasOut ? address(actor.argPorts.size()) : 0,
                                 *state.comm, stream, *collectiveOps);
    break;
  }
  default:
    break;
  }
  if (!status.ok())
    return status;
  if (tracing) {
    status = gpu->record(span.end, stream);
    if (!status.ok())
      return status;
    threadState.pending.push_back(span);
  }
  return gpu->record(state.done, stream);
}

Status CudaBackend::finishStep(const StreamThread &thread) {
  Status status = gpu->synchronize(threads[thread.index].stream);
  const std::vector<Actor> &all = engine->allActors();
  for (size_t a = 0; a < all.size() && status.ok(); ++a)
    if (all[a].thread == thread.index && actors[a].ownStream)
      status = gpu->synchronize(actors[a].ownStream);
  if (status.ok() && communicators)
    status = communicators->asyncErrors();
  if (status.ok() && timer)
    status = timer->flush(thread.index);
  // --trace: the step's spans are done; read their times.
  ThreadState &state = threads[thread.index];
  for (DeviceSpan &span : state.pending) {
    if (status.ok()) {
      Expected<float> start = gpu->elapsedMs(runStart, span.start);
      Expected<float> length = gpu->elapsedMs(span.start, span.end);
      if (!start.ok())
        status = start.error();
      else if (!length.ok())
        status = length.error();
      else {
        span.startNs = int64_t(double(*start) * 1e6);
        span.durationNs = int64_t(double(*length) * 1e6);
        state.done.push_back(span);
      }
    }
    state.eventPool.push_back(span.start);
    state.eventPool.push_back(span.end);
  }
  state.pending.clear();
  return status;
}

} // namespace runtime
} // namespace oneflow
