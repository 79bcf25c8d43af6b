//===- CudaBackend.cpp - Runs CUDA plans' firings on a GPU ----------------===//

#include "CudaBackend.h"

#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/PlanGraph.h"

#include <cstdlib>
#include <filesystem>
#include <set>

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

CudaBackend::~CudaBackend() {
  if (!gpu)
    return;
  (void)gpu->makeCurrent();
  // Work in flight finishes before its memory and streams go.
  for (ThreadState &thread : threads)
    if (thread.stream)
      (void)gpu->synchronize(thread.stream);
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
  Status status;
  switch (task.kind()) {
  case plan::KERNEL: {
    cuda::TaskContext &context = *threads[actor.thread].context;
    context.setTaskName(task.name().empty() ? task.kernel_symbol()
                                            : task.name());
    cuda::setTaskContext(&context);
    actor.kernel(const_cast<void **>(actor.args.data()));
    cuda::setTaskContext(nullptr);
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
  return status;
}

} // namespace runtime
} // namespace oneflow
