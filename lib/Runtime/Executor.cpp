//===- Executor.cpp - Runs a plan -----------------------------------------===//

#include "oneflow/Runtime/Executor.h"

#include "CudaBackend.h"
#include "Engine.h"

#include "oneflow/Runtime/Crc32c.h"
#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Initializer.h"
#include "oneflow/Runtime/KernelLibrary.h"
#include "oneflow/Runtime/Watchdog.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace oneflow {
namespace runtime {

namespace {

/// Zero-filled, 64-byte aligned memory that is never null (kernels may get
/// pointers into empty arenas for zero-sized tensors). Arenas of a few
/// megabytes and more sit on transparent huge pages where the kernel allows
/// them: kernels stream through megabyte tensors, and with 4 KiB pages every
/// 4 KiB of that is a TLB miss (GPT training step: -4 ms of 180).
struct AlignedBuffer {
  static constexpr size_t kHugePage = size_t(2) << 20;
  struct Free {
    void operator()(char *p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> memory;

  explicit AlignedBuffer(int64_t bytes = 0) {
    size_t size = size_t(std::max<int64_t>(bytes, 64) + 63) / 64 * 64;
    bool huge = size >= kHugePage;
    if (huge)
      size = (size + kHugePage - 1) / kHugePage * kHugePage;
    memory.reset(
        static_cast<char *>(std::aligned_alloc(huge ? kHugePage : 64, size)));
    if (!memory)
      throw std::bad_alloc();
    // Advice only: without THP support the memory is simply 4 KiB pages.
    if (huge)
      (void)::madvise(memory.get(), size, MADV_HUGEPAGE);
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
  std::unique_ptr<MpiCollectives> collectives;
  /// CUDA plans: the GPU side; `persistent` is then the host image of the
  /// persistent regsts, which live on the device.
  std::unique_ptr<CudaBackend> cuda;
  bool hostImageStale = false, hostImageChanged = false;
  std::unique_ptr<Engine> engine;
  RunStats stats;
  std::vector<TraceEvent> trace;

  /// Validation, kernels, memory and weights: everything local to the rank.
  Status prepare(const std::string &planDir,
                 std::vector<KernelFn> &kernelOfTask);
  /// Rank 0 gets every rank's firings in `trace`, on one clock.
  void gatherTrace();
  Status loadWeights(const std::string &planDir);
  Status loadKernels(const std::string &planDir,
                     std::vector<KernelFn> &kernelOfTask);
  void buildEngine(const std::vector<KernelFn> &kernelOfTask);
};

Executor::Executor(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Executor::~Executor() {
  // The watchdog outlives the executor: it must not abort freed
  // communicators.
  if (impl->cuda && impl->options.watchdog)
    impl->options.watchdog->clearTeardowns();
}

Expected<std::unique_ptr<Executor>>
Executor::load(const std::string &planDir, const ExecutorOptions &options) {
  auto readPlan = [&]() -> Expected<plan::Plan> {
    std::error_code ec;
    if (!std::filesystem::exists(planDir, ec))
      return makeError("plan directory '", planDir, "' does not exist");
    if (!std::filesystem::is_directory(planDir, ec))
      return makeError("'", planDir, "' is not a plan directory");
    return readPlanFile(resolve(planDir, "plan.pb"));
  };
  Expected<plan::Plan> plan = readPlan();
  if (!plan.ok()) {
    // The other ranks wait in create's agreement for this one.
    if (options.world)
      return options.world->agree(plan.error());
    return plan.error();
  }
  return create(plan.take(), planDir, options);
}

Expected<std::unique_ptr<Executor>>
Executor::create(plan::Plan planProto, const std::string &planDir,
                 const ExecutorOptions &options) {
  auto impl = std::make_unique<Impl>();
  impl->plan = std::make_unique<plan::Plan>(std::move(planProto));
  impl->options = options;
  World *world = options.world;
  if (world)
    impl->options.rank = world->rank();

  std::vector<KernelFn> kernelOfTask;
  Status status = impl->prepare(planDir, kernelOfTask);
  // Every rank learns whether every rank is ready: a failure on one rank
  // (a missing kernel, a short weights file) stops all of them here.
  if (world)
    status = world->agree(status);
  if (!status.ok())
    return status;
  if (world && impl->cuda) {
    status = world->agree(
        impl->cuda->connect(*impl->graph, impl->options.rank, *world));
    if (!status.ok())
      return status;
  } else if (world) {
    Expected<std::unique_ptr<MpiCollectives>> collectives =
        MpiCollectives::create(*impl->graph, impl->options.rank);
    if (!collectives.ok())
      return collectives.error();
    impl->collectives = collectives.take();
  }
  impl->buildEngine(kernelOfTask);
  if (impl->cuda) {
    status = impl->cuda->attach(*impl->engine);
    if (world)
      status = world->agree(status);
    if (!status.ok())
      return status;
    impl->engine->setDeviceBackend(impl->cuda.get());
  }
  if (!impl->cuda)
    impl->engine->setStreamCpu(options.streamCpu);
  Watchdog *watchdog = options.watchdog;
  if (watchdog && watchdog->enabled()) {
    impl->engine->setWatchdog(watchdog);
    if (CudaBackend *cuda = impl->cuda.get())
      watchdog->addTeardown([cuda] { cuda->abortCommunicators(); });
  }
  if (world && world->size() > 1)
    impl->engine->setFatalHandler([world, watchdog](const Status &error) {
      // Once the watchdog fired, it ends the job (with its exit status):
      // errors it causes (aborted communicators) must not end it first.
      while (watchdog && watchdog->fired())
        std::this_thread::sleep_for(std::chrono::seconds(1));
      world->abort(error);
    });
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

Status Executor::Impl::prepare(const std::string &planDir,
                               std::vector<KernelFn> &kernelOfTask) {
  Expected<PlanGraph> built = PlanGraph::build(*plan);
  if (!built.ok())
    return built.error();
  graph.emplace(built.take());
  const int rank = options.rank;
  if (options.world && options.world->size() != plan->num_ranks())
    return makeError(
        "the plan has ", plan->num_ranks(), " rank",
        plan->num_ranks() == 1 ? "" : "s", " but ", options.world->size(),
        " processes were started (run it "
        "with oneflow-run --np ",
        plan->num_ranks(), " or mpirun -n ", plan->num_ranks(), ")");
  if (!options.world && plan->num_ranks() != 1)
    return makeError("the plan has ", plan->num_ranks(),
                     " ranks: run it with one process per rank (oneflow-run "
                     "--np ",
                     plan->num_ranks(), ", or under mpirun)");
  if (rank < 0 || rank >= plan->num_ranks())
    return makeError("rank ", rank, " is not in the plan (", plan->num_ranks(),
                     " ranks)");

  if (plan->device() == "cuda") {
    Expected<std::unique_ptr<CudaBackend>> backend =
        CudaBackend::open(*plan, planDir, rank);
    if (!backend.ok())
      return backend.error();
    cuda = backend.take();
  } else if (!plan->device().empty() && plan->device() != "cpu") {
    return makeError("the plan's device '", plan->device(),
                     "' is not one this runtime runs (cpu, cuda)");
  }

  Status status = loadKernels(planDir, kernelOfTask);
  if (!status.ok())
    return status;

  memory = planMemory(*graph, options.memory);
  int64_t needed = memory.arenaBytes[rank] + memory.persistentBytes[rank];
  if (needed > (int64_t(1) << 52))
    return makeError("the plan needs ", needed, " bytes of memory on rank ",
                     rank);
  try {
    if (!cuda)
      arena = AlignedBuffer(memory.arenaBytes[rank]);
    persistent = AlignedBuffer(memory.persistentBytes[rank]);
  } catch (const std::bad_alloc &) {
    return makeError("out of memory allocating ", needed,
                     " bytes for the plan's regsts");
  }
  if (cuda) {
    status =
        cuda->allocate(memory.arenaBytes[rank], memory.persistentBytes[rank]);
    if (!status.ok())
      return status;
  }
  status = loadWeights(planDir);
  if (status.ok() && cuda)
    status = cuda->upload(persistent.data(), memory.persistentBytes[rank]);
  return status;
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
  // Variables drawn from an initializer: this rank computes its pieces.
  for (size_t r = 0; r < regsts.size(); ++r) {
    const plan::Regst &regst = *regsts[r].regst;
    if (memory.placements[r].rank != options.rank || !regst.persistent() ||
        !regst.has_initializer())
      continue;
    std::vector<int64_t> shape = shapeOf(regst.desc()), global = shape,
                         offsets(shape.size(), 0);
    if (regst.has_variable()) {
      global.assign(regst.variable().global_shape().begin(),
                    regst.variable().global_shape().end());
      offsets.assign(regst.variable().offsets().begin(),
                     regst.variable().offsets().end());
    }
    fillInitializer(regst.initializer(), regst.desc().dtype(),
                    persistent.data() + memory.placements[r].offset, shape,
                    global, offsets);
  }
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
  // The checksummed ranges by offset; each is verified once per process.
  std::map<int64_t, const plan::WeightsChecksum *> checksumAt;
  for (const plan::WeightsChecksum &checksum : plan->weights_checksums())
    checksumAt.emplace(checksum.offset(), &checksum);
  std::set<int64_t> verified;
  if (checksumAt.empty() && options.rank == 0)
    std::cerr << "warning: the plan records no checksums of its weights "
                 "file '"
              << path
              << "' (compiled before they were, or written by hand): its "
                 "data is loaded unverified; recompile the plan to have "
                 "them\n";
  Status status;
  for (size_t r = 0; r < regsts.size() && status.ok(); ++r) {
    const plan::Regst &regst = *regsts[r].regst;
    const RegstPlacement &placement = memory.placements[r];
    if (placement.rank != options.rank || !regst.persistent() ||
        regst.weights_offset() < 0)
      continue;
    int64_t begin = regst.weights_offset(), size = regst.size_bytes();
    // A piece of a whole tensor (a program shared by ranks): the whole must
    // be in the file, the piece is read run by contiguous run.
    std::vector<int64_t> shape = shapeOf(regst.desc());
    std::vector<int64_t> whole(regst.weights_shape().begin(),
                               regst.weights_shape().end());
    std::vector<int64_t> offsets(regst.weights_piece_offsets().begin(),
                                 regst.weights_piece_offsets().end());
    int64_t element = numElements(shape) ? size / numElements(shape) : 0;
    int64_t extent = whole.empty() ? size : numElements(whole) * element;
    if (begin > fileSize || extent > fileSize - begin) {
      status = makeError("weights file '", path,
                         "' is too short: ", PlanGraph::describe(regst),
                         " needs bytes [", begin, ", ", begin + extent,
                         "), the file has ", fileSize);
      break;
    }
    char *dst = persistent.data() + placement.offset;
    auto readAt = [&](char *to, int64_t bytes, int64_t from) {
      for (int64_t done = 0; done < bytes;) {
        ssize_t n = ::pread(fd, to + done, size_t(bytes - done), from + done);
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0)
          return makeError("cannot read weights file '", path,
                           "': ", n < 0 ? std::strerror(errno) : "short read");
        done += n;
      }
      return Status::success();
    };
    const plan::WeightsChecksum *checksum = nullptr;
    if (!checksumAt.empty()) {
      auto it = checksumAt.find(begin);
      if (it == checksumAt.end() || it->second->size() < extent ||
          it->second->size() > fileSize - begin) {
        status = makeError("plan's weights_checksums have no entry for bytes [",
                           begin, ", ", begin + extent, ") of '", path,
                           "', the data of ", PlanGraph::describe(regst));
        break;
      }
      if (!verified.count(begin))
        checksum = it->second;
    }
    auto mismatch = [&](uint32_t actual) {
      return makeError("weights file '", path, "' is damaged: the data of ",
                       PlanGraph::describe(regst), " (bytes [", begin, ", ",
                       begin + checksum->size(), ")) has CRC-32C ",
                       formatCrc32c(actual), ", the plan recorded ",
                       formatCrc32c(checksum->crc32c()));
    };
    // The CRC of the checksummed bytes from `from` on, continuing `crc`.
    auto crcOfFile = [&](int64_t from, uint32_t crc) -> Expected<uint32_t> {
      int64_t end = begin + checksum->size();
      std::vector<char> chunk(size_t(std::min<int64_t>(end - from, 1 << 22)));
      for (int64_t at = from; at < end;) {
        int64_t n = std::min<int64_t>(end - at, int64_t(chunk.size()));
        Status read = readAt(chunk.data(), n, at);
        if (!read.ok())
          return read;
        crc = crc32c(chunk.data(), size_t(n), crc);
        at += n;
      }
      return crc;
    };
    if (whole.empty() && !checksum) {
      status = readAt(dst, size, begin);
      continue;
    }
    if (whole.empty()) {
      // Each chunk is checksummed as soon as it is read, while in cache.
      uint32_t crc = 0;
      for (int64_t done = 0; done < size && status.ok();) {
        int64_t n = std::min<int64_t>(size - done, 1 << 20);
        status = readAt(dst + done, n, begin + done);
        crc = crc32c(dst + done, size_t(n), crc);
        done += n;
      }
      if (status.ok()) {
        // The data as loaded, then the padding after it in the file.
        Expected<uint32_t> actual = crcOfFile(begin + size, crc);
        if (!actual.ok())
          status = actual.error();
        else if (*actual != checksum->crc32c())
          status = mismatch(*actual);
        verified.insert(begin);
      }
      continue;
    }
    // A piece: the checksum covers the whole tensor, read in chunks.
    if (checksum) {
      Expected<uint32_t> actual = crcOfFile(begin, 0);
      if (!actual.ok())
        status = actual.error();
      else if (*actual != checksum->crc32c())
        status = mismatch(*actual);
      if (!status.ok())
        break;
      verified.insert(begin);
    }
    // Dimensions from `inner` on are whole: each run is contiguous.
    size_t rank = shape.size(), inner = rank;
    while (inner > 0 && shape[inner - 1] == whole[inner - 1])
      --inner;
    size_t runDim = inner > 0 ? inner - 1 : 0;
    int64_t run = element;
    for (size_t d = runDim; d < rank; ++d)
      run *= shape[d];
    int64_t runs = rank ? numElements(shape) * element / run : 1;
    std::vector<int64_t> index(rank, 0);
    for (int64_t r = 0; r < runs && status.ok(); ++r) {
      int64_t linear = 0;
      for (size_t d = 0; d < rank; ++d)
        linear = linear * whole[d] + offsets[d] + index[d];
      status = readAt(dst + r * run, run, begin + linear * element);
      for (size_t d = runDim; d-- > 0;) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
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
    if (cuda)
      regst->base =
          (placement.persistent ? cuda->persistent() : cuda->arena()) +
          placement.offset;
    else
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
    // CUDA plans' collectives are NCCL calls (CudaBackend), a SEND's slot
    // free once it is enqueued (reuse waits for it on the device).
    if (task.kind() == plan::COLLECTIVE && !cuda) {
      actor.collective = collectives ? collectives->op(t) : nullptr;
      actor.isSend = task.collective().kind() == plan::Collective::SEND;
    }
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
    // Control dependencies (validated: tasks of this rank).
    for (int64_t id : node.task->wait_for()) {
      int dependency = actorOfTask[graph->taskIndex(id)];
      actors[dependency].waiters.push_back({a, int(actor.controls.size())});
      actor.controls.push_back(0);
    }
  }
  engine =
      std::make_unique<Engine>(std::move(regsts), std::move(actors),
                               std::move(threads), graph->hasVariableWrites());
}

Status Executor::run(const RunOptions &options, const InputFeed &feed,
                     const OutputSink &sink) {
  World *world = impl->options.world;
  if (impl->cuda) {
    // Persistent regsts written on the host since the last run go to the
    // device; afterwards the host image is out of date.
    if (impl->hostImageChanged) {
      Status status =
          impl->cuda->upload(impl->persistent.data(),
                             impl->memory.persistentBytes[impl->options.rank]);
      if (!status.ok())
        return status;
      impl->hostImageChanged = false;
    }
    impl->hostImageStale = true;
  }
  if (!world || world->size() == 1)
    return impl->engine->run(options, feed, sink, impl->stats, impl->trace);
  // Start together: step times and traces line up across ranks.
  {
    WatchdogPhase phase(impl->options.watchdog,
                        "in the barrier before step " +
                            std::to_string(options.firstStep));
    world->barrier();
  }
  Status status =
      impl->engine->run(options, feed, sink, impl->stats, impl->trace);
  // A failure in the middle of a run aborts the job; what is left here
  // (a bad step count) is the same on every rank.
  if (!status.ok())
    return status;
  WatchdogPhase phase(impl->options.watchdog,
                      "gathering the run's statistics and trace");
  impl->stats.firings = world->sum(impl->stats.firings);
  if (options.trace)
    impl->gatherTrace();
  return status;
}

namespace {

/// Identifies the machine's boot: ranks that read the same one share the
/// steady clock (CLOCK_MONOTONIC).
std::string bootId() {
  Expected<std::string> id = readFile("/proc/sys/kernel/random/boot_id");
  return id.ok() ? *id : std::string();
}

template <typename T> void put(std::string &out, const T &value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof(value));
}

template <typename T> T take(const std::string &in, size_t &at) {
  T value{};
  if (at + sizeof(T) <= in.size())
    std::memcpy(&value, in.data() + at, sizeof(T));
  at += sizeof(T);
  return value;
}

} // namespace

void Executor::Impl::gatherTrace() {
  World &world = *options.world;
  // Header: the absolute start of the run and the boot id; then per event
  // the schedule position of its task, step, start and duration.
  std::map<int64_t, int> positionOfTask;
  for (int t = 0; t < plan->tasks_size(); ++t)
    positionOfTask.emplace(plan->tasks(t).id(), t);
  std::string data;
  put<int64_t>(data, engine->runStartNs());
  std::string boot = bootId();
  put<uint32_t>(data, uint32_t(boot.size()));
  data += boot;
  for (const TraceEvent &event : trace) {
    put<int32_t>(data, positionOfTask.at(event.taskId));
    put<int64_t>(data, event.step);
    put<int64_t>(data, event.startNs);
    put<int64_t>(data, event.durationNs);
  }
  std::vector<std::string> all = world.gather(data);
  if (world.rank() != 0)
    return;

  struct Header {
    int64_t start;
    std::string boot;
    size_t eventsAt;
  };
  std::vector<Header> headers;
  bool oneClock = true;
  for (const std::string &rankData : all) {
    size_t at = 0;
    Header header;
    header.start = take<int64_t>(rankData, at);
    uint32_t length = take<uint32_t>(rankData, at);
    header.boot = rankData.substr(std::min(at, rankData.size()), length);
    header.eventsAt = at + length;
    headers.push_back(header);
    oneClock &= !header.boot.empty() && header.boot == headers[0].boot;
  }
  // On one machine the ranks share the clock: place every firing at its
  // true time from the earliest start. Otherwise the barrier before the run
  // is the common origin.
  int64_t origin = headers[0].start;
  for (const Header &header : headers)
    origin = std::min(origin, header.start);
  std::vector<TraceEvent> merged;
  for (size_t r = 0; r < all.size(); ++r) {
    const std::string &rankData = all[r];
    int64_t shift = oneClock ? headers[r].start - origin : 0;
    size_t at = headers[r].eventsAt;
    constexpr size_t kRecord = sizeof(int32_t) + 3 * sizeof(int64_t);
    while (at + kRecord <= rankData.size()) {
      int32_t position = take<int32_t>(rankData, at);
      int64_t step = take<int64_t>(rankData, at);
      int64_t start = take<int64_t>(rankData, at);
      int64_t duration = take<int64_t>(rankData, at);
      if (position < 0 || position >= plan->tasks_size())
        continue;
      const plan::Task &task = plan->tasks(position);
      merged.push_back(
          {task.name().empty() ? PlanGraph::describe(task) : task.name(),
           task.rank(), task.stream(), task.id(), step, start + shift,
           duration});
    }
  }
  trace = std::move(merged);
}

bool Executor::stepByStep() const { return impl->graph->hasVariableWrites(); }
int64_t Executor::runStartNs() const { return impl->engine->runStartNs(); }
World *Executor::world() const { return impl->options.world; }

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
  if (impl->cuda) {
    // The host image of the device's persistent regsts: brought up to
    // date, and sent back before the next run (the caller may write it).
    if (impl->hostImageStale) {
      Status status = impl->cuda->download(
          impl->persistent.data(),
          impl->memory.persistentBytes[impl->options.rank]);
      if (!status.ok())
        return nullptr;
      impl->hostImageStale = false;
    }
    impl->hostImageChanged = true;
  }
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
