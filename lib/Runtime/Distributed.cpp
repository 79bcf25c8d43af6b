//===- Distributed.cpp - The ranks of a multi-rank run --------------------===//

#include "oneflow/Runtime/Distributed.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <sched.h>
#include <unistd.h>

namespace oneflow {
namespace runtime {

bool launchedByMpi() {
  for (const char *variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (const char *value = std::getenv(variable); value && *value)
      return true;
  return false;
}

namespace {

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, size_t(length));
}

/// All-gather of one string per rank.
std::vector<std::string> allGather(const std::string &data, int size) {
  int length = int(data.size());
  std::vector<int> lengths(size), offsets(size);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT,
                MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(size_t(total), '\0');
  MPI_Allgatherv(data.data(), length, MPI_CHAR, all.data(), lengths.data(),
                 offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> result(size);
  for (int r = 0; r < size; ++r)
    result[r] = all.substr(size_t(offsets[r]), size_t(lengths[r]));
  return result;
}

std::string prefixLines(const std::string &prefix, const std::string &text) {
  std::string result;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    result +=
        (result.empty() ? "" : "\n") + prefix + text.substr(start, end - start);
    start = end + 1;
  }
  return result;
}

} // namespace

/// The watchdogs' communicator and their sends in flight.
struct World::Messages {
  MPI_Comm comm = MPI_COMM_NULL;
  std::mutex mutex;
  std::list<std::pair<MPI_Request, std::string>> sending;

  /// Forgets the sends that completed (their buffers must live until then).
  void reap() {
    for (auto it = sending.begin(); it != sending.end();) {
      int done = 0;
      MPI_Test(&it->first, &done, MPI_STATUS_IGNORE);
      it = done ? sending.erase(it) : std::next(it);
    }
  }
};

World::World() : messages(std::make_unique<Messages>()) {}

Expected<std::unique_ptr<World>> World::init() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return makeError("MPI is initialized already");
  int provided = 0;
  // MPI_THREAD_MULTIPLE lets the watchdog talk while the comm thread is
  // blocked in a collective; the engine itself needs only SERIALIZED.
  int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  if (rc != MPI_SUCCESS)
    return makeError("MPI_Init_thread failed: ", mpiError(rc));
  std::unique_ptr<World> world(new World());
  MPI_Comm_rank(MPI_COMM_WORLD, &world->worldRank);
  MPI_Comm_size(MPI_COMM_WORLD, &world->worldSize);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world->worldRank,
                      MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &world->nodeSize);
  MPI_Comm_free(&node);
  world->multiple = provided >= MPI_THREAD_MULTIPLE;
  if (world->multiple)
    MPI_Comm_dup(MPI_COMM_WORLD, &world->messages->comm);
  // Every rank sees the same level: agree on the error, if any.
  if (provided < MPI_THREAD_SERIALIZED)
    return makeError("MPI provides thread level ", provided,
                     ", the runtime needs MPI_THREAD_SERIALIZED (",
                     MPI_THREAD_SERIALIZED, ")");
  return world;
}

World::~World() {
  if (messages->comm != MPI_COMM_NULL) {
    for (auto &[request, text] : messages->sending)
      if (request != MPI_REQUEST_NULL)
        MPI_Request_free(&request);
    MPI_Comm_free(&messages->comm);
  }
  MPI_Finalize();
}

void World::postMessage(int rank, int tag, const std::string &text) {
  if (messages->comm == MPI_COMM_NULL)
    return;
  std::lock_guard<std::mutex> lock(messages->mutex);
  messages->reap();
  messages->sending.emplace_back(MPI_REQUEST_NULL, text);
  auto &[request, buffer] = messages->sending.back();
  MPI_Isend(buffer.data(), int(buffer.size()), MPI_CHAR, rank, tag,
            messages->comm, &request);
}

bool World::pollMessage(int &rank, int &tag, std::string &text) {
  if (messages->comm == MPI_COMM_NULL)
    return false;
  std::lock_guard<std::mutex> lock(messages->mutex);
  messages->reap();
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, messages->comm, &flag, &status);
  if (!flag)
    return false;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  text.assign(size_t(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG,
           messages->comm, MPI_STATUS_IGNORE);
  rank = status.MPI_SOURCE;
  tag = status.MPI_TAG;
  return true;
}

Status World::agree(const Status &local) {
  int failed = local.ok() ? 0 : 1, anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!anyFailed)
    return Status::success();
  std::vector<std::string> messages =
      allGather(local.ok() ? std::string() : local.message(), worldSize);
  std::vector<int> failing;
  for (int r = 0; r < worldSize; ++r)
    if (!messages[r].empty())
      failing.push_back(r);
  if (failing.size() == size_t(worldSize) &&
      std::all_of(messages.begin(), messages.end(),
                  [&](const std::string &m) { return m == messages[0]; }))
    return Status::error(messages[0]); // A problem of the plan or the inputs.
  // Ranks with the same message together, in the order of their first rank.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int r : failing) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto &g) {
      return g.first == messages[r];
    });
    if (it == groups.end())
      groups.push_back({messages[r], {r}});
    else
      it->second.push_back(r);
  }
  std::string text;
  for (const auto &[message, ranks] : groups) {
    std::string prefix = ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size(); ++i)
      prefix += (i ? ", " : "") + std::to_string(ranks[i]);
    text += (text.empty() ? "" : "\n") + prefixLines(prefix + ": ", message);
  }
  return Status::error(text);
}

void World::barrier() { MPI_Barrier(MPI_COMM_WORLD); }

std::vector<std::string> World::gather(const std::string &data) {
  // Sizes first, then each rank's bytes to rank 0 in chunks (MPI counts are
  // ints; traces may be large).
  constexpr int64_t kChunk = int64_t(1) << 30;
  int64_t length = int64_t(data.size());
  std::vector<int64_t> lengths(worldSize);
  MPI_Gather(&length, 1, MPI_INT64_T, lengths.data(), 1, MPI_INT64_T, 0,
             MPI_COMM_WORLD);
  std::vector<std::string> result;
  if (worldRank != 0) {
    for (int64_t done = 0; done < length; done += kChunk)
      MPI_Send(data.data() + done, int(std::min(kChunk, length - done)),
               MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    return result;
  }
  result.resize(worldSize);
  result[0] = data;
  for (int r = 1; r < worldSize; ++r) {
    result[r].resize(size_t(lengths[r]));
    for (int64_t done = 0; done < lengths[r]; done += kChunk)
      MPI_Recv(result[r].data() + done,
               int(std::min(kChunk, lengths[r] - done)), MPI_CHAR, r, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return result;
}

int64_t World::sum(int64_t value) {
  int64_t total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

void World::abort(const Status &status) const {
  std::string text =
      prefixLines("error: rank " + std::to_string(worldRank) + ": ",
                  status.message()) +
      "\n";
  std::fflush(stdout);
  std::fflush(stderr);
  // One write: the lines of one rank stay together.
  ssize_t written = ::write(STDERR_FILENO, text.data(), text.size());
  (void)written;
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1); // MPI_Abort does not return; in case it does.
}

void World::abortJob(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

int threadsPerRank(int cpus, int localRanks) {
  return std::max(1, cpus / std::max(localRanks, 1));
}

int availableCpus() {
  // A rank that oneflow-run's launch bound to one CPU (more ranks than
  // CPUs) counts the CPUs the job was started on, not its own.
  if (const char *job = std::getenv(kJobCpusVariable))
    if (int cpus = std::atoi(job); cpus > 0)
      return cpus;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int cpus = online > 0 ? int(online) : 1;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    cpus = std::min(cpus, std::max(1, CPU_COUNT(&set)));
  return cpus;
}

ThreadBudget applyThreadBudget(int localRanks) {
  ThreadBudget budget;
  budget.threads = threadsPerRank(availableCpus(), localRanks);
  std::string value = std::to_string(budget.threads);
  auto unset = [](const char *name) {
    const char *current = std::getenv(name);
    return !current || !*current;
  };
  if (unset("OMP_NUM_THREADS")) {
    setenv("OMP_NUM_THREADS", value.c_str(), 1);
    budget.ompSet = true;
  }
  if (unset("OPENBLAS_NUM_THREADS")) {
    setenv("OPENBLAS_NUM_THREADS", value.c_str(), 1);
    budget.blasSet = true;
  }
  return budget;
}

} // namespace runtime
} // namespace oneflow
