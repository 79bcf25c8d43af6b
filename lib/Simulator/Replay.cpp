//===- Replay.cpp - One step of a plan, task by task ----------------------===//
//
// A dataflow replay, not a time-ordered event queue: with no contention
// beyond the streams' own order, a task's times follow from its stream's
// previous task and its dependencies alone, so each (rank, stream) advances
// as far as its dependencies allow and wakes up when they finish. What is
// left unfinished when nothing can advance is a deadlock, and its cycle of
// waits is read off the blocked tasks.
//
// Ranks that share CPUs (more on a node than it runs at full speed) are the
// exception: there the order in time decides which thread a CPU runs, so
// that replay is an event queue (runOnSharedCpus).
//
//===----------------------------------------------------------------------===//

#include "oneflow/Simulator/Simulator.h"

#include "oneflow/Cost/CostModel.h"
#include "oneflow/Runtime/PlanRoles.h"

#include <algorithm>
#include <deque>
#include <map>
#include <queue>
#include <unordered_map>

using namespace oneflow;
using namespace oneflow::simulator;

namespace {

enum class Kind {
  Local,      // KERNEL, ASSIGN, INPUT, OUTPUT, or a collective run alone
  Send,       // posts its transfer (CUDA plans: blocks until it ended)
  Recv,       // blocks its stream until the transfer ends
  Collective, // blocks its stream until every member joined and it ended
};

struct TaskState {
  Kind kind = Kind::Local;
  int stream = -1;
  double cost = 0;
  std::vector<int> deps;       // producers of its inputs, wait_for tasks
  std::vector<int> dependents; // the converse
  int depsLeft = 0;
  double depsEnd = 0; // the latest end of the finished dependencies
  int depsCause = -1; // which one that was
  // When it reached the head of its stream with its dependencies met (-1:
  // not yet), and which task decided that time.
  double ready = -1;
  int cause = -1;
  // Its work (a transfer's or a collective's, for those).
  double start = 0, end = 0;
  bool done = false;
  int partner = -1; // SEND <-> RECV
  int group = -1;   // matched collectives: index into Replay::groups
  // Shared CPUs: posted by its thread (a SEND, RECV or collective); a
  // RECV's copy or a collective member's share of the work is pending.
  bool posted = false;
  bool partPending = false;
  // Shared CPUs: its thread's switch onto the CPU runs before its post.
  bool posting = false;
};

struct Stream {
  int32_t rank = 0;
  std::string name;
  std::vector<int> tasks;
  size_t next = 0;
  double free = 0;
  int last = -1; // the task that last freed it
};

struct Group {
  std::vector<int> members;
  size_t expected = 0;
  size_t arrived = 0;
  // Shared CPUs: when the last member posted it, the members' shares of
  // the work still running, and when the last one ended.
  double start = 0;
  size_t partsLeft = 0;
  double partsEnd = 0;
};

/// A CPU that ranks share: it runs one thread's work at a time, and a
/// thread keeps it until it blocks (what bound ranks at real-time priority
/// do: a woken thread does not preempt a running one of equal priority).
struct Cpu {
  int owner = -1;          // the stream whose thread runs, -1: idle
  std::deque<int> waiting; // streams whose threads want it, in order
};

/// Shared CPUs' event queue: a thread asks for its CPU, or its work ends.
struct Event {
  double time;
  bool asks; // ends sort first at equal times: a running thread goes on
  uint64_t sequence;
  int stream;
  bool operator>(const Event &other) const {
    return std::tie(time, asks, sequence) >
           std::tie(other.time, other.asks, other.sequence);
  }
};

llvm::Error planError(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "plan: " + message);
}

class Replay {
public:
  Replay(const plan::Plan &plan, const cost::Cluster &cluster)
      : plan(plan), cluster(cluster), cudaTransfers(plan.device() == "cuda"),
        cpus(sharedCpus(plan, cluster)), tasks(plan.tasks_size()) {}

  /// How many CPUs the plan's ranks share (rank r bound to CPU r mod
  /// that, as oneflow-run binds them), or 0: a rank runs at full speed.
  static int sharedCpus(const plan::Plan &plan, const cost::Cluster &cluster);

  llvm::Error index();
  llvm::Error run();
  void fill(Report &report, bool trace) const;

private:
  std::string describe(int t) const {
    const plan::Task &task = plan.tasks(t);
    return "rank " + std::to_string(task.rank()) + " '" + task.name() + "'";
  }
  double regstBytes(int64_t id) const {
    auto it = regstOf.find(id);
    return it == regstOf.end() ? 0
                               : double(plan.regsts(it->second).size_bytes());
  }
  double costOf(const plan::Task &task) const;
  double unsharedCostOf(const plan::Task &task) const;
  /// Where `task` runs: its stream, except CUDA plans' sends and receives,
  /// which the runtime puts on a stream per direction (its NCCL calls block
  /// that stream, not the comm thread).
  std::string streamOf(const plan::Task &task) const {
    if (!cudaTransfers || task.kind() != plan::COLLECTIVE)
      return task.stream();
    const plan::Collective &spec = task.collective();
    if (spec.kind() == plan::Collective::SEND)
      return task.stream() + " (sends to rank " + std::to_string(spec.peer()) +
             ")";
    if (spec.kind() == plan::Collective::RECV)
      return task.stream() + " (receives from rank " +
             std::to_string(spec.peer()) + ")";
    return task.stream();
  }
  void push(int stream) {
    if (cpus > 0)
      return wake(stream);
    if (!queued[stream]) {
      queued[stream] = true;
      work.push_back(stream);
    }
  }
  llvm::Error runOnSharedCpus();
  bool makeReady(int stream);
  void wake(int stream);
  void ask(int stream, double time);
  void grant(int stream, double time, bool switchIn = true);
  void post(int stream, double time);
  void finishWork(int stream, double time);
  void release(int stream, double time);
  void postTransfer(int send, int recv, bool receiverRuns);
  Cpu &cpuOf(int stream) { return cpuState[streams[stream].rank % cpus]; }
  void setReady(TaskState &state, const Stream &stream) const;
  void advance(int stream);
  void arrive(int t);
  void settle(int t, double start, double end);
  void transfer(int send, int recv);
  std::string deadlock() const;

  const plan::Plan &plan;
  const cost::Cluster &cluster;
  /// CUDA plans: a send blocks its direction's stream until it is received
  /// (ncclSend); MPI sends only post (MPI_Isend).
  bool cudaTransfers = false;
  /// Ranks sharing CPUs: how many (rank r runs on CPU r mod cpus), else 0.
  int cpus = 0;
  std::vector<TaskState> tasks;
  std::vector<Stream> streams;
  std::vector<Group> groups;
  std::unordered_map<int64_t, int> regstOf;
  std::vector<int> work;
  std::vector<char> queued;
  size_t finished = 0;
  std::vector<Cpu> cpuState;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  uint64_t nextEvent = 0;
};

int Replay::sharedCpus(const plan::Plan &plan, const cost::Cluster &cluster) {
  // A CUDA plan's ranks each have a GPU.
  if (plan.device() == "cuda" || cluster.sharingFactor(plan.num_ranks()) <= 1)
    return 0;
  // Ranks of several nodes share each node's CPUs: only one node is
  // modelled as CPUs.
  if (cluster.links.front().devices != 0 &&
      plan.num_ranks() > cluster.links.front().devices)
    return 0;
  return int(cluster.concurrentRanks);
}

double Replay::costOf(const plan::Task &task) const {
  // Ranks beyond what a node runs at full speed share its cores: on shared
  // CPUs the replay runs them in turn, else each task takes longer.
  if (cpus > 0)
    return unsharedCostOf(task);
  return cluster.sharingFactor(plan.num_ranks()) * unsharedCostOf(task);
}

double Replay::unsharedCostOf(const plan::Task &task) const {
  double in = 0, out = 0;
  for (int64_t id : task.in_regsts())
    in += regstBytes(id);
  for (int64_t id : task.out_regsts())
    out += regstBytes(id);
  switch (task.kind()) {
  case plan::KERNEL:
    // A plan without costs (an older compiler's): its regsts at memory
    // bandwidth.
    return task.has_cost() ? cost::kernelSeconds(task.cost(), cluster,
                                                 plan.device() == "cuda")
                           : cost::copySeconds(in + out, cluster);
  case plan::COLLECTIVE: {
    const plan::Collective &spec = task.collective();
    double bytes = spec.kind() == plan::Collective::ALL_GATHER ||
                           spec.kind() == plan::Collective::RECV
                       ? out
                       : in;
    return cost::collectiveSeconds(
        spec.kind(), bytes,
        llvm::ArrayRef<int32_t>(spec.group().data(), spec.group_size()),
        cluster);
  }
  default:
    return cost::copySeconds(in + out, cluster);
  }
}

llvm::Error Replay::index() {
  bool roles = plan.roles_size() > 0;
  regstOf.reserve(plan.regsts_size());
  for (int r = 0; r < plan.regsts_size(); ++r)
    regstOf[plan.regsts(r).id()] = r;
  std::unordered_map<int64_t, int> taskOf;
  std::unordered_map<int64_t, int> producerOf; // regst id -> task
  taskOf.reserve(plan.tasks_size());
  producerOf.reserve(plan.regsts_size());
  std::map<std::pair<int32_t, std::string>, int> streamIndex;
  std::unordered_map<int64_t, int> sendOf, recvOf, groupOf;
  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    if (!taskOf.emplace(task.id(), t).second)
      return planError("two tasks have id " + std::to_string(task.id()));
    for (int64_t id : task.out_regsts())
      if (auto it = regstOf.find(id);
          it != regstOf.end() && !plan.regsts(it->second).persistent())
        producerOf[id] = t;
    std::string stream = streamOf(task);
    auto [it, added] =
        streamIndex.try_emplace({task.rank(), stream}, int(streams.size()));
    if (added)
      streams.push_back({task.rank(), stream, {}, 0, 0, -1});
    TaskState &state = tasks[t];
    state.stream = it->second;
    streams[it->second].tasks.push_back(t);
    state.cost = costOf(task);
    if (task.kind() != plan::COLLECTIVE)
      continue;
    const plan::Collective &spec = task.collective();
    if (spec.kind() == plan::Collective::SEND ||
        spec.kind() == plan::Collective::RECV) {
      bool isSend = spec.kind() == plan::Collective::SEND;
      state.kind = isSend ? Kind::Send : Kind::Recv;
      if (!(isSend ? sendOf : recvOf).emplace(spec.tag(), t).second)
        return planError("two " + std::string(isSend ? "sends" : "receives") +
                         " have tag " + std::to_string(spec.tag()));
      continue;
    }
    // Members of a role's collective act alike: the representative's alone
    // stands for them all.
    if (roles || spec.group_size() <= 1)
      continue;
    state.kind = Kind::Collective;
    auto [group, fresh] = groupOf.try_emplace(spec.tag(), int(groups.size()));
    if (fresh)
      groups.push_back({{}, size_t(spec.group_size()), 0});
    state.group = group->second;
    groups[group->second].members.push_back(t);
  }
  for (const Group &group : groups)
    if (group.members.size() != group.expected) {
      const plan::Task &task = plan.tasks(group.members.front());
      return planError("collective '" + task.name() + "' (tag " +
                       std::to_string(task.collective().tag()) + ") has " +
                       std::to_string(group.members.size()) + " of its " +
                       std::to_string(group.expected) + " members in the plan");
    }
  for (auto [tag, send] : sendOf) {
    auto recv = recvOf.find(tag);
    if (recv == recvOf.end())
      return planError("'" + plan.tasks(send).name() +
                       "' has no receive with tag " + std::to_string(tag));
    tasks[send].partner = recv->second;
    tasks[recv->second].partner = send;
  }
  for (auto [tag, recv] : recvOf)
    if (tasks[recv].partner < 0)
      return planError("'" + plan.tasks(recv).name() +
                       "' has no send with tag " + std::to_string(tag));

  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    TaskState &state = tasks[t];
    for (int64_t id : task.in_regsts()) {
      auto regst = regstOf.find(id);
      if (regst == regstOf.end())
        return planError("task '" + task.name() + "' reads regst " +
                         std::to_string(id) + ", which the plan lacks");
      // Persistent regsts hold last step's value: nothing to wait for.
      if (plan.regsts(regst->second).persistent())
        continue;
      auto producer = producerOf.find(id);
      if (producer == producerOf.end())
        return planError("task '" + task.name() + "' reads regst '" +
                         plan.regsts(regst->second).name() +
                         "', which no task writes");
      state.deps.push_back(producer->second);
    }
    for (int64_t id : task.wait_for()) {
      auto waited = taskOf.find(id);
      if (waited == taskOf.end())
        return planError("task '" + task.name() + "' waits for task " +
                         std::to_string(id) + ", which the plan lacks");
      state.deps.push_back(waited->second);
    }
    llvm::sort(state.deps);
    state.deps.erase(std::unique(state.deps.begin(), state.deps.end()),
                     state.deps.end());
    state.depsLeft = int(state.deps.size());
    for (int dep : state.deps)
      tasks[dep].dependents.push_back(t);
  }
  return llvm::Error::success();
}

/// A task can start when its stream is free and its dependencies ended;
/// when the last of them ran on another stream (thread) of the rank, that
/// thread must first wake this one up.
/// On shared CPUs every switch of a CPU to a thread costs CPU time
/// instead (grant).
void Replay::setReady(TaskState &state, const Stream &stream) const {
  bool handoff =
      state.depsCause >= 0 && tasks[state.depsCause].stream != state.stream;
  double depsReady =
      state.depsEnd + (handoff && cpus == 0 ? cluster.streamHandoff : 0);
  bool byDeps = state.depsCause >= 0 && depsReady > stream.free;
  state.ready = byDeps ? depsReady : stream.free;
  state.cause = byDeps ? state.depsCause : stream.last;
}

void Replay::settle(int t, double start, double end) {
  TaskState &state = tasks[t];
  state.start = start;
  state.end = end;
  state.done = true;
  ++finished;
  for (int d : state.dependents) {
    TaskState &dependent = tasks[d];
    if (dependent.depsCause < 0 || end > dependent.depsEnd) {
      dependent.depsEnd = end;
      dependent.depsCause = t;
    }
    if (--dependent.depsLeft == 0)
      push(dependent.stream);
  }
}

void Replay::transfer(int send, int recv) {
  double start = std::max(tasks[send].ready, tasks[recv].ready);
  double end = start + tasks[send].cost;
  settle(send, start, end);
  settle(recv, start, end);
  // Whichever of the two waited for the other goes on.
  push(tasks[send].stream);
  push(tasks[recv].stream);
}

void Replay::arrive(int t) {
  TaskState &state = tasks[t];
  switch (state.kind) {
  case Kind::Local:
    settle(t, state.ready, state.ready + state.cost);
    break;
  case Kind::Send:
    if (tasks[state.partner].ready >= 0)
      transfer(t, state.partner);
    break;
  case Kind::Recv:
    if (tasks[state.partner].ready >= 0)
      transfer(state.partner, t);
    break;
  case Kind::Collective: {
    Group &group = groups[state.group];
    if (++group.arrived < group.expected)
      break;
    double start = 0, cost = 0;
    for (int member : group.members) {
      start = std::max(start, tasks[member].ready);
      cost = std::max(cost, tasks[member].cost);
    }
    for (int member : group.members) {
      settle(member, start, start + cost);
      push(tasks[member].stream);
    }
    break;
  }
  }
}

void Replay::advance(int s) {
  Stream &stream = streams[s];
  while (stream.next < stream.tasks.size()) {
    int t = stream.tasks[stream.next];
    TaskState &state = tasks[t];
    if (state.depsLeft > 0)
      return;
    if (state.ready < 0) {
      setReady(state, stream);
      arrive(t);
    }
    // An MPI send frees its stream once posted; the rest once they ended.
    if (state.kind == Kind::Send && !cudaTransfers) {
      stream.free = state.ready;
    } else if (state.done) {
      stream.free = state.end;
    } else {
      return;
    }
    stream.last = t;
    ++stream.next;
  }
}

llvm::Error Replay::run() {
  if (cpus > 0)
    return runOnSharedCpus();
  queued.assign(streams.size(), false);
  for (size_t s = streams.size(); s-- > 0;)
    push(int(s));
  while (!work.empty()) {
    int s = work.back();
    work.pop_back();
    queued[s] = false;
    advance(s);
  }
  if (finished == tasks.size())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), deadlock());
}

//===----------------------------------------------------------------------===//
// Shared CPUs
//===----------------------------------------------------------------------===//
//
// Each stream is a thread of its rank, and the rank's threads run on its
// CPU. A thread asks for the CPU when its next task is ready; the CPU runs
// one thread at a time, first come first served, and the running thread
// keeps it while it has work ready when its task ends. A KERNEL (any local
// task) runs on the CPU for its cost. A SEND, RECV or collective is posted
// by its thread on the CPU (taking no time), after which the thread blocks
// and gives the CPU up: a SEND's stream goes on at once (MPI_Isend), the
// others wait for their peers. The copies are CPU work too: once both
// sides of a transfer posted it, the receiver's thread copies (its CPU for
// the transfer's cost); once every member posted a collective, each one's
// thread does its share (its CPU for its cost), and the collective ends
// for all when the last share ends. Every switch of a CPU to a thread
// that did not hold it costs shared_cpu_switch of CPU time. A rank whose
// partner's CPU runs another rank's long chain of kernels thus waits for
// it, as it does on the machine.

/// Sets when `s`'s next task is ready, if its dependencies are met and it
/// was not set yet; says whether it did.
bool Replay::makeReady(int s) {
  Stream &stream = streams[s];
  if (stream.next >= stream.tasks.size())
    return false;
  TaskState &state = tasks[stream.tasks[stream.next]];
  if (state.depsLeft > 0 || state.ready >= 0)
    return false;
  setReady(state, stream);
  return true;
}

void Replay::wake(int s) {
  if (makeReady(s))
    ask(s, tasks[streams[s].tasks[streams[s].next]].ready);
}

void Replay::ask(int s, double time) {
  events.push({time, true, nextEvent++, s});
}

/// Gives `s`'s thread its CPU at `time` and starts what it asked for; a
/// thread that did not hold the CPU (`switchIn`) first spends the switch.
void Replay::grant(int s, double time, bool switchIn) {
  cpuOf(s).owner = s;
  TaskState &state = tasks[streams[s].tasks[streams[s].next]];
  double wake = !switchIn                     ? 0
                : cluster.sharedCpuSwitch > 0 ? cluster.sharedCpuSwitch
                                              : cluster.streamHandoff;
  if (state.partPending || state.kind == Kind::Local) {
    if (!state.partPending)
      state.start = time + wake;
    events.push({time + wake + state.cost, false, nextEvent++, s});
  } else if (wake > 0) {
    state.posting = true;
    events.push({time + wake, false, nextEvent++, s});
  } else {
    post(s, time);
  }
}

/// `s`'s thread posts its transfer or collective at `time`.
void Replay::post(int s, double time) {
  Stream &stream = streams[s];
  int t = stream.tasks[stream.next];
  TaskState &state = tasks[t];
  state.posting = false;
  state.posted = true;
  state.ready = time;
  switch (state.kind) {
  case Kind::Send:
    if (tasks[state.partner].posted)
      postTransfer(t, state.partner, /*receiverRuns=*/false);
    // MPI_Isend: the thread goes on.
    stream.free = time;
    stream.last = t;
    ++stream.next;
    break;
  case Kind::Recv:
    if (tasks[state.partner].posted)
      postTransfer(state.partner, t, /*receiverRuns=*/true);
    break;
  case Kind::Collective: {
    Group &group = groups[state.group];
    if (++group.arrived == group.expected) {
      group.start = time;
      group.partsLeft = group.members.size();
      for (int member : group.members) {
        tasks[member].partPending = true;
        if (member != t)
          ask(tasks[member].stream, time);
      }
    }
    break;
  }
  case Kind::Local:
    break;
  }
  // The thread that completed a transfer or a collective by posting it
  // does its share at once.
  if (state.partPending)
    events.push({time + state.cost, false, nextEvent++, s});
  else
    release(s, time);
}

/// Both sides posted: the receiver's thread copies (it asks for its CPU
/// unless it is the one running).
void Replay::postTransfer(int send, int recv, bool receiverRuns) {
  double start = std::max(tasks[send].ready, tasks[recv].ready);
  tasks[recv].start = start;
  tasks[recv].partPending = true;
  if (!receiverRuns)
    ask(tasks[recv].stream, start);
}

/// The work `s`'s thread ran ends at `time`.
void Replay::finishWork(int s, double time) {
  Stream &stream = streams[s];
  int t = stream.tasks[stream.next];
  TaskState &state = tasks[t];
  auto moveOn = [&](int task, double end) {
    Stream &its = streams[tasks[task].stream];
    its.free = end;
    its.last = task;
    ++its.next;
  };
  if (state.posting)
    return post(s, time);
  if (!state.partPending) {
    settle(t, state.start, time);
    moveOn(t, time);
  } else if (state.kind == Kind::Recv) {
    state.partPending = false;
    settle(state.partner, state.start, time);
    settle(t, state.start, time);
    moveOn(t, time);
  } else {
    state.partPending = false;
    Group &group = groups[state.group];
    group.partsEnd = std::max(group.partsEnd, time);
    if (--group.partsLeft == 0) {
      for (int member : group.members)
        settle(member, group.start, group.partsEnd);
      for (int member : group.members) {
        moveOn(member, group.partsEnd);
        if (tasks[member].stream != s)
          wake(tasks[member].stream);
      }
    }
  }
  release(s, time);
}

/// `s`'s thread goes on if its next task is ready now; else it gives its
/// CPU to the thread that asked first.
void Replay::release(int s, double time) {
  Cpu &cpu = cpuOf(s);
  if (makeReady(s)) {
    double ready = tasks[streams[s].tasks[streams[s].next]].ready;
    if (ready <= time)
      return grant(s, time, /*switchIn=*/false);
    ask(s, ready);
  }
  cpu.owner = -1;
  if (!cpu.waiting.empty()) {
    int next = cpu.waiting.front();
    cpu.waiting.pop_front();
    grant(next, time);
  }
}

llvm::Error Replay::runOnSharedCpus() {
  cpuState.assign(cpus, Cpu());
  for (size_t s = 0; s < streams.size(); ++s)
    wake(int(s));
  while (!events.empty()) {
    Event event = events.top();
    events.pop();
    if (!event.asks) {
      finishWork(event.stream, event.time);
      continue;
    }
    Cpu &cpu = cpuOf(event.stream);
    if (cpu.owner < 0)
      grant(event.stream, event.time);
    else
      cpu.waiting.push_back(event.stream);
  }
  if (finished == tasks.size())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), deadlock());
}

/// Follows what blocked tasks wait for until one repeats: that cycle is
/// the deadlock.
std::string Replay::deadlock() const {
  auto head = [&](int t) {
    const Stream &stream = streams[tasks[t].stream];
    return stream.next < stream.tasks.size() ? stream.tasks[stream.next] : -1;
  };
  // What `t` waits for, and the line that says so.
  auto next = [&](int t, std::string &line) {
    const TaskState &state = tasks[t];
    int waited = -1;
    std::string verb = " waits for ", where;
    if (state.ready >= 0 && state.partner >= 0) {
      waited = state.partner;
      verb = " waits for its peer ";
    } else if (state.ready >= 0 && state.group >= 0) {
      verb = " waits for the member ";
      for (int member : groups[state.group].members)
        if (waited < 0 && tasks[member].ready < 0)
          waited = member;
    } else if (head(t) != t) {
      waited = head(t);
      verb = " is queued behind ";
      where = " on its " + streams[state.stream].name + " stream";
    } else {
      for (int dep : state.deps)
        if (waited < 0 && !tasks[dep].done)
          waited = dep;
    }
    if (waited >= 0)
      line = describe(t) + verb + describe(waited) + where;
    return waited;
  };
  int t = -1;
  for (size_t i = 0; i < tasks.size() && t < 0; ++i)
    if (!tasks[i].done)
      t = int(i);
  std::unordered_map<int, size_t> seen;
  std::vector<std::string> lines;
  while (t >= 0 && !seen.count(t)) {
    seen[t] = lines.size();
    std::string line;
    t = next(t, line);
    lines.push_back(line);
  }
  std::string message = "the plan deadlocks, a cycle of waits:";
  if (t < 0)
    return message + " none found";
  for (size_t i = seen[t]; i < lines.size(); ++i)
    message += "\n  " + lines[i];
  return message;
}

/// Splits the idle time [a, b) of the analyzed compute stream by walking
/// back along what decided each start: transfers and collectives are
/// exposed communication, a RECV waiting for its SEND is pipeline bubble.
struct Split {
  double communication = 0, bubble = 0;
};

} // namespace

void Replay::fill(Report &report, bool trace) const {
  report.numRanks = plan.num_ranks();
  std::unordered_map<int32_t, int64_t> membersOf;
  for (const plan::Role &role : plan.roles())
    if (role.members_size() > 0)
      membersOf[role.members(0)] = role.members_size();
  std::vector<int32_t> ranks;
  double flops = 0;
  int lastTask = -1;
  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    ranks.push_back(task.rank());
    auto members = membersOf.find(task.rank());
    flops += (task.cost().gemm_flops() + task.cost().vector_flops()) *
             double(members == membersOf.end() ? 1 : members->second);
    if (lastTask < 0 || tasks[t].end > tasks[lastTask].end ||
        (tasks[t].end == tasks[lastTask].end &&
         task.rank() < plan.tasks(lastTask).rank()))
      lastTask = t;
    if (!trace)
      continue;
    const TaskState &state = tasks[t];
    // Blocking tasks show their wait, as the runtime's firings do.
    double start = state.kind == Kind::Recv || state.kind == Kind::Collective
                       ? state.ready
                       : state.start;
    report.trace.push_back({t, state.stream, start, state.end - start});
  }
  if (trace)
    for (const Stream &stream : streams)
      report.streams.push_back(stream.name);
  llvm::sort(ranks);
  report.simulatedRanks =
      int32_t(std::unique(ranks.begin(), ranks.end()) - ranks.begin());
  if (lastTask < 0)
    return;
  report.stepSeconds = tasks[lastTask].end;
  report.lastRank = plan.tasks(lastTask).rank();
  if (report.stepSeconds > 0 && plan.num_ranks() > 0)
    report.tflopsPerDevice =
        flops / (double(plan.num_ranks()) * report.stepSeconds) / 1e12;

  int compute = -1;
  for (size_t s = 0; s < streams.size(); ++s)
    if (streams[s].rank == report.lastRank && streams[s].name == "compute")
      compute = int(s);
  Split split;
  auto overlap = [](double a, double b, double from, double to) {
    return std::max(0.0, std::min(b, to) - std::max(a, from));
  };
  auto explain = [&](int d, double a, double b) {
    while (d >= 0 && a < b) {
      const TaskState &state = tasks[d];
      // A thread's wake-up after its input's task ended on another stream.
      if (state.end < b) {
        split.communication += overlap(a, b, state.end, b);
        b = std::max(a, state.end);
      }
      switch (state.kind) {
      case Kind::Recv:
        split.communication += overlap(a, b, state.start, state.end);
        split.bubble += overlap(a, b, state.ready, state.start);
        b = std::min(b, state.ready);
        break;
      case Kind::Send:
      case Kind::Collective:
        split.communication += overlap(a, b, state.ready, state.end);
        b = std::min(b, state.ready);
        break;
      case Kind::Local:
        if (state.stream != compute)
          split.communication += overlap(a, b, state.start, state.end);
        b = std::min(b, state.start);
        break;
      }
      d = state.cause;
    }
    // Nothing decided it (cannot happen: every start has a cause).
    if (a < b)
      split.communication += b - a;
  };
  double busy = 0, free = 0;
  if (compute >= 0) {
    for (int t : streams[compute].tasks) {
      const TaskState &task = tasks[t];
      // On shared CPUs a ready task may wait for its CPU, which meanwhile
      // computes for another rank: compute too.
      double from = task.kind == Kind::Local ? task.ready : task.start;
      explain(task.cause, free, from);
      busy += task.end - from;
      free = task.end;
    }
  }
  explain(lastTask, free, report.stepSeconds);
  report.computeSeconds = busy;
  report.exposedCommunicationSeconds = split.communication;
  report.bubbleSeconds = split.bubble;
}

llvm::Expected<Report>
oneflow::simulator::simulate(const plan::Plan &plan,
                             const cost::Cluster &cluster,
                             const Options &options) {
  Report report;
  const plan::Plan *replayed = &plan;
  // The members of a role that share CPUs do not run alike: each waits for
  // the CPU the others hold. They are replayed rank by rank.
  if (plan.roles_size() > 0 && Replay::sharedCpus(plan, cluster) > 0) {
    auto expanded = std::make_shared<plan::Plan>(plan);
    if (runtime::Status status = runtime::expandRoles(*expanded); !status.ok())
      return planError(status.message());
    report.expandedPlan = expanded;
    replayed = expanded.get();
  }
  Replay replay(*replayed, cluster);
  if (llvm::Error error = replay.index())
    return error;
  if (llvm::Error error = replay.run())
    return error;
  report.cluster = cluster.name;
  replay.fill(report, options.trace);
  report.roles = roleMemory(plan, cluster);
  return report;
}
