//===- Watchdog.h - Ends a job whose ranks stop making progress -*- C++ -*-===//
//
// `oneflow-run --timeout S`. Each rank runs one watchdog thread. The engine's
// threads publish where they are in their schedule with one relaxed atomic
// store per firing (ThreadPlace); outside runs the program names what it is
// doing (setPhase). The watchdog samples these a few times per timeout and,
// when nothing changed for the limit, prints one line naming the rank, the
// step and what each stream is blocked on (the task, its collective and
// peers), and ends the whole job with exit status 124 (kWatchdogExitCode):
// MPI_Abort, which makes mpirun kill every rank, even stopped ones. It never
// relies on the blocked threads: they may sit inside MPI, NCCL or a kernel.
//
// In a multi-rank run (MPI_THREAD_MULTIPLE) the watchdogs also talk to each
// other on a communicator of their own: a rank that fires reports to rank 0,
// which asks every rank where it is and prints one summary, grouping ranks
// that wait in the same place and naming the ranks that did not answer
// (stopped, hung or dead), so the culprit shows in rank 0's log.
//
// Limits: `timeout` applies while steps run once this process finished a
// step; `startup` before that (loading, connecting, the first step, which
// waits for the slowest rank to load) and outside runs (checkpoints,
// outputs), where the runtime does not see progress.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_WATCHDOG_H
#define ONEFLOW_RUNTIME_WATCHDOG_H

#include "oneflow/Runtime/Status.h"
#include "oneflow/plan.pb.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace oneflow {
namespace runtime {

class World;

/// The exit status of a job the watchdog ended (as timeout(1)'s), distinct
/// from errors (1).
constexpr int kWatchdogExitCode = 124;

/// Where an engine thread is in its schedule, as one number that grows as
/// the thread goes: step, position in the thread's task order (0 .. n, n
/// after the last task) and activity. Written by the thread with a relaxed
/// store; a changed number is progress.
struct ThreadPlace {
  enum Activity : int {
    StepBarrier = 0, // waits for the rank's other threads (step by step)
    Waiting = 1,     // waits until task `task` may fire
    Running = 2,     // runs task `task` (kernel, collective, copy, feed)
    Finishing = 3,   // waits for its device work of the step (task = n)
    Sending = 4,     // waits for its sends of the step to complete (task = n)
    Done = 5,        // finished its steps (task = n)
  };
  static constexpr int kActivities = 6;

  int64_t step = 0;
  int task = 0;
  Activity activity = StepBarrier;

  /// `tasks`: the thread's task count n. (A thread that has not started
  /// yet publishes -1.)
  static int64_t encode(int64_t step, int task, Activity activity, int tasks) {
    return ((step * (int64_t(tasks) + 1) + task) * kActivities) + activity;
  }
  static ThreadPlace decode(int64_t place, int tasks);
};

/// What a stalled source is blocked on.
struct StallReport {
  int64_t step = -1;   // the earliest step not finished (-1: unknown)
  std::string detail;  // per stream: "stream 'comm' is in task ..."
  std::string summary; // the main blocker, alike on every rank that waits
                       // in the same place: "in ALL_REDUCE tag 1 over ranks
                       // [0-2] at step 3"
};

/// Something the watchdog watches while a run goes (the engine).
class ProgressSource {
public:
  virtual ~ProgressSource();
  /// Appends numbers that change whenever it makes progress (atomic loads
  /// only: called from the watchdog thread while the run goes).
  virtual void sample(std::vector<int64_t> &words) const = 0;
  /// Once stalled, from another thread: what it is blocked on.
  virtual StallReport describe() const = 0;
};

/// The watchdog's decision, apart from its thread and clock.
class StallDetector {
public:
  /// A sample taken at `now` (seconds, any origin). True once the words
  /// did not change for `limit` seconds (never when `limit` <= 0).
  bool observe(const std::vector<int64_t> &words, double now, double limit);
  /// Seconds since the words last changed.
  double idleSeconds(double now) const { return now - lastChange; }
  /// Something else changed (a new phase): restart the clock.
  void reset(double now) {
    started = false;
    lastChange = now;
  }

private:
  bool started = false;
  std::vector<int64_t> last;
  double lastChange = 0;
};

/// "0-2, 5, 7-8" (runs of consecutive ascending ranks; the order kept).
std::string formatRanks(const std::vector<int> &ranks);

/// "task 'sum r0' (id 7, ALL_REDUCE tag 1 over ranks [0-2])", "task 'recv'
/// (id 3, RECV from rank 1, tag 2)", "task 'f' (id 2, KERNEL f_sym)".
std::string describeBlockingTask(const plan::Task &task);

/// Rank 0's summary of every rank's answer (`answers`: rank -> its
/// StallReport::summary; missing ranks did not answer), one line per group
/// of ranks with the same answer, those without an answer first; at most
/// `maxLines` lines (the rest counted in the last).
std::vector<std::string>
summarizeAnswers(int worldSize, const std::map<int, std::string> &answers,
                 size_t maxLines = 16);

struct WatchdogOptions {
  /// Seconds without progress while steps run; 0 disables the watchdog.
  double timeoutSeconds = 600;
  /// Seconds without progress before this process finished its first
  /// step, and outside runs; 0: no limit there.
  double startupSeconds = 1800;
  /// Tests: receives the lines instead of stderr.
  std::function<void(const std::string &)> print;
  /// Tests: called instead of ending the job (MPI_Abort, or _exit outside
  /// MPI, with kWatchdogExitCode).
  std::function<void()> terminate;
  /// How often to sample; 0: the shorter limit / 8, between 10 ms and 1 s.
  double pollSeconds = 0;
};

class Watchdog {
public:
  /// The default --timeout and the default --startup-timeout's factor.
  static constexpr double kDefaultTimeout = 600;
  static constexpr double kStartupFactor = 3;

  /// Starts the thread (none when options.timeoutSeconds is 0). `world`:
  /// the job's ranks, or nullptr for this process alone; it must outlive
  /// the watchdog.
  Watchdog(WatchdogOptions options, World *world);
  /// Stops the thread.
  ~Watchdog();
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

  bool enabled() const { return options.timeoutSeconds > 0; }
  const WatchdogOptions &settings() const { return options; }

  /// What the process does now, outside runs ("loading the plan"): counts
  /// as progress; the startup limit applies. Returns the previous phase.
  std::string setPhase(std::string what);
  /// While a run goes: its progress source (nullptr when it ended). The
  /// source stays valid until detached.
  void attach(const ProgressSource *source);
  /// A step finished: from now on `timeout` applies to runs.
  void stepFinished() { steady.store(true, std::memory_order_relaxed); }
  /// Called before the job ends (at most a few seconds): e.g.
  /// ncclCommAbort of the rank's communicators.
  void addTeardown(std::function<void()> teardown);
  void clearTeardowns();
  /// Whether it fired (tests).
  bool fired() const { return hasFired.load(); }

private:
  void loop();
  /// The limit now, and its name for the message.
  double limit(std::string &name) const;
  void sample(std::vector<int64_t> &words);
  /// This rank's report: its line's text and its summary.
  StallReport describe(double idle, const std::string &limitName);
  void fire(double idle, const std::string &limitName);
  /// Rank 0: asks every rank and prints the summary.
  void collectAnswers(const std::string &ownSummary);
  void answerQueries(const std::string &summary);
  /// Handles the other ranks' messages (`idle`: seconds since progress).
  void pollMessages(bool &roundRequested, double idle);
  void print(const std::string &line) const;
  void terminateJob();
  void runTeardowns();

  WatchdogOptions options;
  World *world = nullptr;
  bool exchange = false; // the watchdogs of the ranks talk (MPI)
  std::mutex mutex;      // phase, source, teardowns
  std::condition_variable wake;
  bool stopping = false;
  std::string phase = "starting";
  int64_t phaseCount = 0;
  const ProgressSource *source = nullptr;
  std::vector<std::function<void()>> teardowns;
  std::atomic<bool> steady{false};
  std::atomic<bool> hasFired{false};
  std::map<int, std::string> answers; // rank 0: summaries received
  std::thread thread;
};

/// Names a phase for its scope and restores the previous one.
class WatchdogPhase {
public:
  WatchdogPhase(Watchdog *watchdog, std::string what);
  ~WatchdogPhase();

private:
  Watchdog *watchdog;
  std::string previous;
};

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_WATCHDOG_H
