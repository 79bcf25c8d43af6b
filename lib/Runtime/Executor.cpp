//===- Executor.cpp - Runs a plan -----------------------------------------===//

#include "oneflow/Runtime/Executor.h"

#include "Engine.h"

#include "oneflow/Runtime/KernelLibrary.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace oneflow {
namespace runtime {

namespace {

/// Zero-filled, 64-byte aligned memory that is never null (kernels may get
/// pointers into empty arenas for zero-sized tensors).
struct AlignedBuffer {
  struct Free {
    void operator()(char *p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> memory;

  explicit AlignedBuffer(int64_t bytes = 0) {
    size_t size = size_t(std::max<int64_t>(bytes, 64) + 63) / 64 * 64;
    memory.reset(static_cast<char *>(std::aligned_alloc(64, size)));
    if (!memory)
      throw std::bad_alloc();
    std::memset(memory.get(), 0, size);
  }
  char *data() const { return memory.get(); }
};

std::string resolve(const std::string &planDir, const std::string &path) {
  return (std::filesystem::path(planDir) / path).string();
}

} // namespace

struct Executor::Impl {
  std::unique_ptr<plan::Plan> plan;
  std::optional<PlanGraph> graph;
  ExecutorOptions options;
  std::unique_ptr<KernelLibrary> kernels;
  MemoryPlan memory;
  AlignedBuffer arena, persistent;
  std::unique_ptr<Engine> engine;
  RunStats stats;
  std::vector<TraceEvent> trace;

  Status loadWeights(const std::string &planDir);
  Status loadKernels(const std::string &planDir,
                     std::vector<KernelFn> &kernelOfTask);
  void buildEngine(const std::vector<KernelFn> &kernelOfTask);
};

Executor::Executor(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Executor::~Executor() = default;

Expected<std::unique_ptr<Executor>>
Executor::load(const std::string &planDir, const ExecutorOptions &options) {
  std::error_code ec;
  if (!std::filesystem::exists(planDir, ec))
    return makeError("plan directory '", planDir, "' does not exist");
  if (!std::filesystem::is_directory(planDir, ec))
    return makeError("'", planDir, "' is not a plan directory");
  Expected<plan::Plan> plan = readPlanFile(resolve(planDir, "plan.pb"));
  if (!plan.ok())
    return plan.error();
  return create(plan.take(), planDir, options);
}

Expected<std::unique_ptr<Executor>>
Executor::create(plan::Plan planProto, const std::string &planDir,
                 const ExecutorOptions &options) {
  auto impl = std::make_unique<Impl>();
  impl->plan = std::make_unique<plan::Plan>(std::move(planProto));
  impl->options = options;
  const plan::Plan &plan = *impl->plan;

  Expected<PlanGraph> graph = PlanGraph::build(plan);
  if (!graph.ok())
    return graph.error();
  impl->graph.emplace(graph.take());
  // Multi-rank plans need the MPI launcher and comm actors (a later step);
  // everything below already works per rank.
  if (plan.num_ranks() != 1)
    return makeError("the plan has ", plan.num_ranks(),
                     " ranks: multi-rank execution (MPI) is not supported "
                     "yet, only 1-rank plans run");
  if (options.rank < 0 || options.rank >= plan.num_ranks())
    return makeError("rank ", options.rank, " is not in the plan (",
                     plan.num_ranks(), " ranks)");

  std::vector<KernelFn> kernelOfTask;
  Status status = impl->loadKernels(planDir, kernelOfTask);
  if (!status.ok())
    return status;

  impl->memory = planMemory(*impl->graph, options.memory);
  int64_t needed = impl->memory.arenaBytes[options.rank] +
                   impl->memory.persistentBytes[options.rank];
  if (needed > (int64_t(1) << 52))
    return makeError("the plan needs ", needed, " bytes of memory on rank ",
                     options.rank);
  try {
    impl->arena = AlignedBuffer(impl->memory.arenaBytes[options.rank]);
    impl->persistent =
        AlignedBuffer(impl->memory.persistentBytes[options.rank]);
  } catch (const std::bad_alloc &) {
    return makeError("out of memory allocating ", needed,
                     " bytes for the plan's regsts");
  }
  status = impl->loadWeights(planDir);
  if (!status.ok())
    return status;
  impl->buildEngine(kernelOfTask);
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

Status Executor::Impl::loadKernels(const std::string &planDir,
                                   std::vector<KernelFn> &kernelOfTask) {
  std::vector<std::string> symbols;
  std::vector<int> tasks;
  for (int t = 0; t < plan->tasks_size(); ++t) {
    const plan::Task &task = plan->tasks(t);
    if (task.rank() == options.rank && task.kind() == plan::KERNEL) {
      symbols.push_back(task.kernel_symbol());
      tasks.push_back(t);
    }
  }
  kernelOfTask.assign(plan->tasks_size(), nullptr);
  if (symbols.empty())
    return Status::success(); // Nothing to load (e.g. an identity graph).
  Expected<std::unique_ptr<KernelLibrary>> library =
      KernelLibrary::open(resolve(planDir, plan->kernel_library()));
  if (!library.ok())
    return library.error();
  kernels = library.take();
  Expected<std::vector<KernelFn>> found = kernels->lookupAll(symbols);
  if (!found.ok())
    return found.error();
  for (size_t i = 0; i < tasks.size(); ++i)
    kernelOfTask[tasks[i]] = (*found)[i];
  return Status::success();
}

Status Executor::Impl::loadWeights(const std::string &planDir) {
  const auto &regsts = graph->regsts();
  bool needed = false;
  for (size_t r = 0; r < regsts.size(); ++r)
    needed |= memory.placements[r].rank == options.rank &&
              regsts[r].regst->persistent() &&
              regsts[r].regst->weights_offset() >= 0;
  if (!needed)
    return Status::success();

  std::string path = resolve(planDir, plan->weights_file());
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return makeError("cannot read weights file '", path,
                     "': ", std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return makeError("weights file '", path, "' is not a regular file");
  }
  int64_t fileSize = info.st_size;
  Status status;
  for (size_t r = 0; r < regsts.size() && status.ok(); ++r) {
    const plan::Regst &regst = *regsts[r].regst;
    const RegstPlacement &placement = memory.placements[r];
    if (placement.rank != options.rank || !regst.persistent() ||
        regst.weights_offset() < 0)
      continue;
    int64_t begin = regst.weights_offset(), size = regst.size_bytes();
    if (begin > fileSize || size > fileSize - begin) {
      status = makeError("weights file '", path,
                         "' is too short: ", PlanGraph::describe(regst),
                         " needs bytes [", begin, ", ", begin + size,
                         "), the file has ", fileSize);
      break;
    }
    char *dst = persistent.data() + placement.offset;
    for (int64_t done = 0; done < size;) {
      ssize_t n = ::pread(fd, dst + done, size_t(size - done), begin + done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        status = makeError("cannot read weights file '", path,
                           "': ", n < 0 ? std::strerror(errno) : "short read");
        break;
      }
      done += n;
    }
  }
  ::close(fd);
  return status;
}

void Executor::Impl::buildEngine(const std::vector<KernelFn> &kernelOfTask) {
  const auto &regstNodes = graph->regsts();
  std::vector<std::unique_ptr<Regst>> regsts(regstNodes.size());
  for (size_t r = 0; r < regstNodes.size(); ++r) {
    const RegstPlacement &placement = memory.placements[r];
    if (placement.rank != options.rank)
      continue;
    auto regst = std::make_unique<Regst>();
    regst->desc = regstNodes[r].regst;
    regst->persistent = placement.persistent;
    regst->base =
        (placement.persistent ? persistent : arena).data() + placement.offset;
    regst->slotStride = placement.slotStride;
    regst->numSlots = placement.numSlots;
    regsts[r] = std::move(regst);
  }

  // Actors in schedule order; one thread per stream that has tasks.
  std::vector<Actor> actors;
  std::vector<std::unique_ptr<StreamThread>> threads;
  std::map<std::string, int> threadOfStream;
  std::vector<int> actorOfTask(plan->tasks_size(), -1);
  for (int t = 0; t < plan->tasks_size(); ++t) {
    const plan::Task &task = plan->tasks(t);
    if (task.rank() != options.rank)
      continue;
    auto [it, inserted] =
        threadOfStream.emplace(task.stream(), int(threads.size()));
    if (inserted) {
      threads.push_back(std::make_unique<StreamThread>());
      threads.back()->rank = options.rank;
      threads.back()->stream = task.stream();
    }
    actorOfTask[t] = int(actors.size());
    threads[it->second]->order.push_back(int(actors.size()));
    Actor actor;
    actor.task = &task;
    actor.thread = it->second;
    actor.kernel = kernelOfTask[t];
    actors.push_back(std::move(actor));
  }
  for (int t = 0; t < plan->tasks_size(); ++t) {
    if (actorOfTask[t] < 0)
      continue;
    int a = actorOfTask[t];
    Actor &actor = actors[a];
    const PlanGraph::TaskNode &node = graph->tasks()[t];
    for (int r : node.inRegsts) {
      Regst *regst = regsts[r].get();
      int port = 0;
      while (port < int(actor.inPorts.size()) &&
             actor.inPorts[port].regst != regst)
        ++port;
      if (port == int(actor.inPorts.size())) {
        actor.inPorts.push_back({regst, 0});
        regst->consumers.push_back({a, port});
      }
      actor.argPorts.push_back(port);
    }
    for (int r : node.outRegsts) {
      Regst *regst = regsts[r].get();
      regst->producer = a;
      regst->producerPort = int(actor.outs.size());
      actor.outs.push_back(regst);
    }
    actor.args.assign(actor.argPorts.size() + actor.outs.size(), nullptr);
  }
  engine = std::make_unique<Engine>(std::move(regsts), std::move(actors),
                                    std::move(threads));
}

Status Executor::run(const RunOptions &options, const InputFeed &feed,
                     const OutputSink &sink) {
  return impl->engine->run(options, feed, sink, impl->stats, impl->trace);
}

const plan::Plan &Executor::plan() const { return *impl->plan; }
const PlanGraph &Executor::graph() const { return *impl->graph; }
const MemoryPlan &Executor::memoryPlan() const { return impl->memory; }
const RunStats &Executor::stats() const { return impl->stats; }
const std::vector<TraceEvent> &Executor::trace() const { return impl->trace; }

void *Executor::persistentData(int64_t regstId) {
  int r = impl->graph->regstIndex(regstId);
  if (r < 0)
    return nullptr;
  const RegstPlacement &placement = impl->memory.placements[r];
  if (!placement.persistent || placement.rank != impl->options.rank)
    return nullptr;
  return impl->persistent.data() + placement.offset;
}

InputFeed feedTensors(std::vector<std::map<std::string, HostTensor>> perStep) {
  auto steps = std::make_shared<std::vector<std::map<std::string, HostTensor>>>(
      std::move(perStep));
  return [steps](const std::string &name, int64_t step, void *dst,
                 int64_t bytes) -> Status {
    if (steps->empty())
      return makeError("no value for input '", name, "'");
    const auto &inputs = (*steps)[std::min<size_t>(step, steps->size() - 1)];
    auto it = inputs.find(name);
    if (it == inputs.end())
      return makeError("no value for input '", name, "'");
    const HostTensor &tensor = it->second;
    if (int64_t(tensor.data.size()) != bytes)
      return makeError("input '", name, "' is ", tensor.describe(), " (",
                       tensor.data.size(), " bytes), the plan needs ", bytes,
                       " bytes");
    std::memcpy(dst, tensor.data.data(), size_t(bytes));
    return Status::success();
  };
}

OutputCollector::OutputCollector(const plan::Plan &plan, int64_t steps,
                                 bool everyStep)
    : steps(steps), everyStep(everyStep) {
  for (const plan::IOSpec &spec : plan.outputs())
    tensors[spec.name()].assign(
        everyStep ? size_t(std::max<int64_t>(steps, 0)) : 1,
        HostTensor(spec.desc().dtype(), shapeOf(spec.desc())));
}

OutputSink OutputCollector::sink() {
  return [this](const std::string &name, int64_t step, const void *src,
                int64_t bytes) -> Status {
    auto it = tensors.find(name);
    if (it == tensors.end())
      return makeError("unknown output '", name, "'");
    if (!everyStep && step != steps - 1)
      return Status::success();
    if (everyStep && (step < 0 || step >= int64_t(it->second.size())))
      return makeError("output '", name, "': step ", step,
                       " is beyond the collector's ", it->second.size());
    HostTensor &tensor = it->second[everyStep ? step : 0];
    if (int64_t(tensor.data.size()) != bytes)
      return makeError("output '", name, "' has ", bytes, " bytes, expected ",
                       tensor.data.size());
    std::memcpy(tensor.data.data(), src, size_t(bytes));
    return Status::success();
  };
}

const HostTensor &OutputCollector::output(const std::string &name,
                                          int64_t step) const {
  const std::vector<HostTensor> &perStep = tensors.at(name);
  if (!everyStep || step < 0)
    return perStep.back();
  return perStep.at(size_t(step));
}

} // namespace runtime
} // namespace oneflow
