//===- Watchdog.cpp - Ends a job whose ranks stop making progress ---------===//

#include "oneflow/Runtime/Watchdog.h"

#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/PlanGraph.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace oneflow {
namespace runtime {

namespace {

// The watchdogs' messages (World::postMessage tags).
constexpr int kReportTag = 1; // to rank 0: "I stalled", or an answer
constexpr int kQueryTag = 2;  // from rank 0: "where are you?"

double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string formatSeconds(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), value < 10 ? "%.1f" : "%.0f", value);
  return text;
}

/// How long rank 0 gathers the ranks' answers.
double reportWindow(double timeout) {
  return std::clamp(timeout / 4, 0.5, 5.0);
}

/// Runs `work` on a thread of its own and waits for it at most `limit`
/// seconds: describing a stall or tearing down may itself hang (a wedged
/// driver); the job must end regardless. The thread is left behind then.
bool runBounded(std::function<void()> work, double limit) {
  struct Shared {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, work = std::move(work)] {
    work();
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->finished = true;
    shared->done.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(shared->mutex);
  return shared->done.wait_for(lock, std::chrono::duration<double>(limit),
                               [&] { return shared->finished; });
}

} // namespace

ThreadPlace ThreadPlace::decode(int64_t place, int tasks) {
  ThreadPlace result;
  if (place < 0)
    return result;
  result.activity = Activity(place % kActivities);
  int64_t rest = place / kActivities;
  result.task = int(rest % (int64_t(tasks) + 1));
  result.step = rest / (int64_t(tasks) + 1);
  return result;
}

ProgressSource::~ProgressSource() = default;

bool StallDetector::observe(const std::vector<int64_t> &words, double now,
                            double limit) {
  if (!started || words != last) {
    started = true;
    last = words;
    lastChange = now;
    return false;
  }
  return limit > 0 && now - lastChange >= limit;
}

std::string formatRanks(const std::vector<int> &ranks) {
  std::string text;
  for (size_t i = 0; i < ranks.size();) {
    size_t end = i + 1;
    while (end < ranks.size() && ranks[end] == ranks[end - 1] + 1)
      ++end;
    if (!text.empty())
      text += ", ";
    if (end - i >= 3) {
      text += std::to_string(ranks[i]) + "-" + std::to_string(ranks[end - 1]);
    } else {
      for (size_t j = i; j < end; ++j)
        text += (j > i ? ", " : "") + std::to_string(ranks[j]);
    }
    i = end;
  }
  return text;
}

std::string describeBlockingTask(const plan::Task &task) {
  std::string what;
  switch (task.kind()) {
  case plan::KERNEL:
    what = "KERNEL " + task.kernel_symbol();
    break;
  case plan::INPUT:
  case plan::OUTPUT:
    what = std::string(task.kind() == plan::INPUT ? "INPUT" : "OUTPUT") + " '" +
           task.io_name() + "'";
    break;
  case plan::ASSIGN:
    what = "ASSIGN";
    break;
  case plan::COLLECTIVE: {
    const plan::Collective &c = task.collective();
    std::string tag = "tag " + std::to_string(c.tag());
    if (c.kind() == plan::Collective::SEND)
      what = "SEND to rank " + std::to_string(c.peer()) + ", " + tag;
    else if (c.kind() == plan::Collective::RECV)
      what = "RECV from rank " + std::to_string(c.peer()) + ", " + tag;
    else
      what = plan::Collective::Kind_Name(c.kind()) + " " + tag +
             " over ranks [" +
             formatRanks(std::vector<int>(c.group().begin(), c.group().end())) +
             "]";
    break;
  }
  default:
    what = "kind " + std::to_string(int(task.kind()));
    break;
  }
  std::string name =
      task.name().empty() ? std::string() : "'" + task.name() + "' ";
  return "task " + name + "(id " + std::to_string(task.id()) + ", " + what +
         ")";
}

std::vector<std::string>
summarizeAnswers(int worldSize, const std::map<int, std::string> &answers,
                 size_t maxLines) {
  // Groups in the order of their first rank; the silent ones first: they
  // are the likely culprits.
  std::vector<int> silent;
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int rank = 0; rank < worldSize; ++rank) {
    auto it = answers.find(rank);
    if (it == answers.end()) {
      silent.push_back(rank);
      continue;
    }
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](auto &g) { return g.first == it->second; });
    if (group == groups.end())
      groups.push_back({it->second, {rank}});
    else
      group->second.push_back(rank);
  }
  auto ranks = [](const std::vector<int> &members) {
    return std::string(members.size() == 1 ? "rank " : "ranks ") +
           formatRanks(members);
  };
  std::vector<std::string> lines;
  if (!silent.empty())
    lines.push_back(ranks(silent) + ": no answer (stopped, hung or dead)");
  for (size_t g = 0; g < groups.size(); ++g) {
    if (lines.size() + 1 == maxLines && g + 1 < groups.size()) {
      size_t rest = 0;
      for (size_t h = g; h < groups.size(); ++h)
        rest += groups[h].second.size();
      lines.push_back("and " + std::to_string(rest) + " more ranks in " +
                      std::to_string(groups.size() - g) + " other places");
      break;
    }
    lines.push_back(ranks(groups[g].second) + ": " + groups[g].first);
  }
  return lines;
}

Watchdog::Watchdog(WatchdogOptions settings, World *world)
    : options(std::move(settings)), world(world) {
  if (!enabled())
    return;
  // A few samples per limit: detection within limit + limit / 8.
  double shortest = options.timeoutSeconds;
  if (options.startupSeconds > 0)
    shortest = std::min(shortest, options.startupSeconds);
  if (options.pollSeconds <= 0)
    options.pollSeconds = std::clamp(shortest / 8, 0.01, 1.0);
  exchange = world && world->size() > 1 && world->threadMultiple();
  thread = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  if (thread.joinable())
    thread.join();
}

std::string Watchdog::setPhase(std::string what) {
  std::lock_guard<std::mutex> lock(mutex);
  std::swap(phase, what);
  ++phaseCount;
  return what;
}

void Watchdog::attach(const ProgressSource *progress) {
  std::lock_guard<std::mutex> lock(mutex);
  source = progress;
  ++phaseCount;
}

void Watchdog::addTeardown(std::function<void()> teardown) {
  std::lock_guard<std::mutex> lock(mutex);
  teardowns.push_back(std::move(teardown));
}

void Watchdog::clearTeardowns() {
  std::lock_guard<std::mutex> lock(mutex);
  teardowns.clear();
}

double Watchdog::limit(std::string &name) const {
  // Called with `mutex` held.
  if (source && steady.load(std::memory_order_relaxed)) {
    name = "timeout " + formatSeconds(options.timeoutSeconds) + " s";
    return options.timeoutSeconds;
  }
  name = "startup timeout " + formatSeconds(options.startupSeconds) + " s";
  return options.startupSeconds;
}

void Watchdog::sample(std::vector<int64_t> &words) {
  // Called with `mutex` held.
  words.clear();
  words.push_back(phaseCount);
  words.push_back(steady.load(std::memory_order_relaxed));
  if (source)
    source->sample(words);
}

void Watchdog::loop() {
  StallDetector detector;
  std::vector<int64_t> words;
  bool roundRequested = false;
  std::unique_lock<std::mutex> lock(mutex);
  while (!stopping) {
    wake.wait_for(lock, std::chrono::duration<double>(options.pollSeconds),
                  [&] { return stopping; });
    if (stopping)
      break;
    double now = seconds();
    sample(words);
    std::string limitName;
    double allowed = limit(limitName);
    bool stalled = detector.observe(words, now, allowed);
    if (exchange) {
      lock.unlock();
      pollMessages(roundRequested, detector.idleSeconds(now));
      lock.lock();
    }
    if (!stalled && !roundRequested)
      continue;
    lock.unlock();
    if (stalled) {
      fire(detector.idleSeconds(now), limitName);
    } else {
      // Another rank stalled: rank 0 asks every rank and ends the job.
      hasFired = true;
      collectAnswers(describe(detector.idleSeconds(now), limitName).summary);
      runTeardowns();
      terminateJob();
    }
    return; // Fired (tests: terminate returned).
  }
}

StallReport Watchdog::describe(double idle, const std::string &limitName) {
  // The run's source reads the engine's atomics and may ask the device:
  // bounded, and holding `mutex` so that the run cannot detach (and free)
  // the source meanwhile.
  auto report = std::make_shared<StallReport>();
  auto phaseText = std::make_shared<std::string>();
  bool described = runBounded(
      [this, report, phaseText] {
        std::lock_guard<std::mutex> lock(mutex);
        if (source)
          *report = source->describe();
        else
          *phaseText = phase.empty() ? "starting" : phase;
      },
      5.0);
  StallReport result;
  std::string who = world && world->size() > 1
                        ? "rank " + std::to_string(world->rank()) + ": "
                        : std::string();
  std::string head = "watchdog: " + who + "no progress for " +
                     formatSeconds(idle) + " s (" + limitName + ")";
  if (!described) {
    result.detail = head + "; describing the stall did not finish";
    result.summary = "stalled (not described)";
    return result;
  }
  if (!phaseText->empty()) {
    result.detail = head + " while " + *phaseText;
    result.summary = *phaseText;
    return result;
  }
  result = *report;
  result.detail = head +
                  (result.step >= 0 ? " at step " + std::to_string(result.step)
                                    : std::string()) +
                  ": " + result.detail;
  return result;
}

void Watchdog::fire(double idle, const std::string &limitName) {
  hasFired = true;
  StallReport report = describe(idle, limitName);
  print("error: " + report.detail + "\n");
  if (exchange) {
    if (world->rank() == 0) {
      collectAnswers(report.summary);
    } else {
      // Tell rank 0, answer its question, and wait for it to end the job;
      // if it does not (it may be the stalled one), end it from here.
      world->postMessage(0, kReportTag, report.summary);
      answerQueries(report.summary);
    }
  }
  runTeardowns();
  terminateJob();
}

void Watchdog::collectAnswers(const std::string &ownSummary) {
  for (int rank = 1; rank < world->size(); ++rank)
    world->postMessage(rank, kQueryTag, std::string());
  answers[0] = ownSummary;
  double deadline = seconds() + reportWindow(options.timeoutSeconds);
  while (int(answers.size()) < world->size() && seconds() < deadline) {
    int from = 0, tag = 0;
    std::string text;
    if (world->pollMessage(from, tag, text)) {
      if (tag == kReportTag)
        answers[from] = text;
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string lines;
  for (const std::string &line : summarizeAnswers(world->size(), answers))
    lines += "error: watchdog: " + line + "\n";
  print(lines);
}

void Watchdog::answerQueries(const std::string &summary) {
  // Rank 0 gathers for one window; after two it is not coming.
  double window = reportWindow(options.timeoutSeconds);
  double deadline = seconds() + 2 * window + 1;
  while (seconds() < deadline) {
    int from = 0, tag = 0;
    std::string text;
    if (world->pollMessage(from, tag, text)) {
      if (tag == kQueryTag)
        world->postMessage(0, kReportTag, summary);
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  print("error: watchdog: rank " + std::to_string(world->rank()) +
        ": no summary from rank 0 within " + formatSeconds(2 * window + 1) +
        " s (rank 0 may be the rank that stalled)\n");
}

void Watchdog::pollMessages(bool &roundRequested, double idle) {
  int from = 0, tag = 0;
  std::string text;
  while (world->pollMessage(from, tag, text)) {
    if (world->rank() == 0 && tag == kReportTag) {
      // Another rank stalled: rank 0 asks every rank.
      answers[from] = text;
      roundRequested = true;
    } else if (tag == kQueryTag) {
      // Rank 0 asks: this rank has not (yet) fired.
      std::string summary;
      if (idle < std::max(2 * options.pollSeconds, 0.5)) {
        summary = "making progress";
      } else {
        std::lock_guard<std::mutex> lock(mutex);
        summary = source ? source->describe().summary
                         : (phase.empty() ? "starting" : phase);
      }
      world->postMessage(0, kReportTag, summary);
    }
  }
}

void Watchdog::print(const std::string &text) const {
  if (options.print) {
    options.print(text);
    return;
  }
  // One write: the lines of one rank stay together in mpirun's output.
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0)
      break;
    done += size_t(n);
  }
}

void Watchdog::runTeardowns() {
  std::vector<std::function<void()>> work;
  {
    std::lock_guard<std::mutex> lock(mutex);
    work = teardowns;
  }
  if (work.empty())
    return;
  runBounded(
      [work] {
        for (const auto &teardown : work)
          teardown();
      },
      5.0);
}

void Watchdog::terminateJob() {
  if (options.terminate) {
    options.terminate();
    return;
  }
  if (world && world->size() > 1) {
    // Should MPI_Abort itself hang, leave anyway: mpirun then ends the
    // job for a rank that exited without MPI_Finalize.
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::seconds(10));
      ::_exit(kWatchdogExitCode);
    }).detach();
    world->abortJob(kWatchdogExitCode);
  }
  ::_exit(kWatchdogExitCode);
}

WatchdogPhase::WatchdogPhase(Watchdog *watchdog, std::string what)
    : watchdog(watchdog) {
  if (watchdog)
    previous = watchdog->setPhase(std::move(what));
}

WatchdogPhase::~WatchdogPhase() {
  if (watchdog)
    watchdog->setPhase(std::move(previous));
}

} // namespace runtime
} // namespace oneflow
