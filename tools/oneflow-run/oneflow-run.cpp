//===- oneflow-run.cpp - Runs a compiled plan -----------------------------===//
//
// oneflow-run OUT_DIR [--input NAME=FILE.npy|FILE.pb]... [--output-dir DIR]
//             [--steps N] [--trace FILE.json] [--np N] [--help]
//             [--data NAME=FILE.npy]... [--batch B] [--shuffle] [--seed S]
//             [--metrics FILE.jsonl] [--quiet] [--save DIR] [--save-every N]
//             [--load DIR] [--export-onnx FILE.onnx] [--timeout S]
//             [--startup-timeout S]
// oneflow-run --calibrate=FILE [--np N] [--calibrate-quick]
//
// Every error is printed as "error: ..." and exits with 1; a job the
// watchdog ended exits with 124. A multi-rank plan runs as one process per
// rank: this program re-launches itself under mpirun, or is started by
// mpirun directly; rank 0 prints and writes.
//
//===----------------------------------------------------------------------===//

#include "Calibration.h"
#include "Launch.h"
#include "Options.h"
#include "Training.h"

#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/Executor.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/NpyIO.h"
#include "oneflow/Runtime/TensorProtoIO.h"
#include "oneflow/Runtime/Variables.h"
#include "oneflow/Runtime/Watchdog.h"

#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sched.h>
#include <set>

using namespace oneflow;
using namespace oneflow::runtime;

namespace {

/// Protobuf logs parse problems of corrupt files itself ("[libprotobuf
/// ERROR ...] invalid UTF-8"); the runtime reports them as errors already,
/// so only protobuf's fatal messages get through, in our format.
void protobufLog(google::protobuf::LogLevel level, const char *filename,
                 int line, const std::string &message) {
  if (level == google::protobuf::LOGLEVEL_FATAL)
    std::cerr << "error: protobuf: " << message << "\n";
}

void printError(const Status &status) {
  // One "error:" per line, so that every problem of a plan stands out.
  std::string text = status.message();
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::cerr << "error: " << text.substr(start, end - start) << "\n";
    start = end + 1;
  }
}

std::string formatMs(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f ms", seconds * 1e3);
  return text;
}

/// What the ranks of a run share: rank 0 prints and writes.
struct Context {
  World *world = nullptr;       // set in a multi-process (MPI) run
  Watchdog *watchdog = nullptr; // --timeout
  bool isRoot() const { return !world || world->rank() == 0; }
  int rank() const { return world ? world->rank() : 0; }
};

/// Test hook: ONEFLOW_TEST_STOP=R:K stops rank R (SIGSTOP, as a debugger or
/// a frozen machine would) when its step K is about to start; the other
/// ranks then wait for it forever, until the watchdog ends the job. -1
/// when unset or for another rank.
int64_t testStopStep(int rank) {
  const char *value = std::getenv("ONEFLOW_TEST_STOP");
  int stopRank = -1;
  long long step = -1;
  if (!value || std::sscanf(value, "%d:%lld", &stopRank, &step) != 2 ||
      stopRank != rank)
    return -1;
  return step;
}

/// Collective in a multi-process run: every rank gets an error when any
/// rank has one.
Status agree(const Context &context, const Status &status) {
  return context.world ? context.world->agree(status) : status;
}

/// Runs the steps, in chunks that end where --save-every saves; the stats
/// and trace of all chunks together.
Status runSteps(Executor &executor, const run::Options &options,
                const Context &context, const std::vector<Variable> &variables,
                const InputFeed &feed, const OutputSink &sink,
                run::StepReport &report, int64_t firstStep, RunStats &total,
                std::vector<TraceEvent> &trace, bool &savedLastStep) {
  const int64_t lastStep = firstStep + options.steps;
  int64_t firstStartNs = 0;
  savedLastStep = false;
  for (int64_t step = firstStep; step < lastStep;) {
    int64_t chunk = lastStep - step;
    if (options.saveEvery)
      chunk = std::min(chunk, options.saveEvery - step % options.saveEvery);
    RunOptions run;
    run.steps = chunk;
    run.firstStep = step;
    run.trace = !options.traceFile.empty();
    const int64_t stopAt = testStopStep(context.rank());
    if (stopAt == step && step == firstStep)
      std::raise(SIGSTOP);
    run.onStepDone = [&, stopAt](int64_t done, double seconds) {
      report.stepDone(done, seconds);
      if (stopAt >= 0 && done + 1 == stopAt)
        std::raise(SIGSTOP);
    };
    Status status = executor.run(run, feed, sink);
    if (!status.ok())
      return status;
    const RunStats &stats = executor.stats();
    total.stepSeconds.insert(total.stepSeconds.end(), stats.stepSeconds.begin(),
                             stats.stepSeconds.end());
    total.totalSeconds += stats.totalSeconds;
    total.firings += stats.firings;
    if (step == firstStep)
      firstStartNs = executor.runStartNs();
    // Trace times are relative to each run's start: make them relative to
    // the first one's.
    int64_t shift = executor.runStartNs() - firstStartNs;
    for (TraceEvent event : executor.trace()) {
      event.startNs += shift;
      trace.push_back(std::move(event));
    }
    step += chunk;
    if (options.saveEvery && step % options.saveEvery == 0) {
      WatchdogPhase phase(context.watchdog,
                          "saving checkpoint '" + options.saveDir + "'");
      status = run::saveCheckpoint(executor, variables, options.saveDir, step,
                                   context.isRoot(), options.quiet);
      if (!status.ok())
        return status;
      savedLastStep = step == lastStep;
    }
  }
  return Status::success();
}

/// The CPU a single-process run whose kernels run one thread
/// (OMP_NUM_THREADS=1) binds its stream threads to: the one it started on.
/// Its streams then pass each step on between threads of one CPU instead of
/// waking one on an idle CPU, which costs a virtual machine tens of
/// microseconds each time (mnasnet0_5, batch 1: 0.76 -> 0.54 ms a step on
/// this project's 2-core VM). -1 (unbound) for every other run, and where
/// ONEFLOW_BIND_STREAMS=0.
static int streamCpuOfSingleThreadRun(World *world) {
  if (world && world->size() > 1)
    return -1;
  const char *threads = std::getenv("OMP_NUM_THREADS");
  const char *bind = std::getenv("ONEFLOW_BIND_STREAMS");
  if (!threads || std::string(threads) != "1" ||
      (bind && std::string(bind) == "0"))
    return -1;
  return sched_getcpu();
}

Status runTool(const run::Options &options, Context context) {
  World *world = context.world;
  if (world && options.numRanks != 0 && options.numRanks != world->size())
    return makeError("--np ", options.numRanks, ": but ", world->size(),
                     " processes were started");
  ThreadBudget budget;
  if (world)
    budget = applyThreadBudget(world->localSize()); // Before the kernels load.

  // The watchdog watches everything from here on; it ends the job itself
  // (exit status 124) when this rank stops making progress.
  WatchdogOptions watch;
  watch.timeoutSeconds = options.timeout;
  watch.startupSeconds = options.startupTimeout >= 0
                             ? options.startupTimeout
                             : Watchdog::kStartupFactor * options.timeout;
  Watchdog watchdog(watch, world);
  context.watchdog = &watchdog;
  std::optional<WatchdogPhase> phase;
  phase.emplace(&watchdog, "loading the plan");

  ExecutorOptions executorOptions;
  executorOptions.world = world;
  executorOptions.watchdog = &watchdog;
  executorOptions.streamCpu = streamCpuOfSingleThreadRun(world);
  Expected<std::unique_ptr<Executor>> loaded =
      Executor::load(options.planDir, executorOptions);
  if (!loaded.ok())
    return loaded.error();
  Executor &executor = **loaded;
  const plan::Plan &plan = executor.plan();
  if (!world && options.numRanks != 0 && options.numRanks != plan.num_ranks())
    return makeError("--np ", options.numRanks, ": the plan has ",
                     plan.num_ranks(), " rank",
                     plan.num_ranks() == 1 ? "" : "s");
  const bool root = context.isRoot();

  // Every rank reads the inputs and the training data (each INPUT task
  // gets the full value).
  phase.emplace(&watchdog, "reading the inputs");
  Expected<run::Feeds> feeds = run::readFeeds(options, plan);
  Status ready = feeds.ok() ? Status::success() : feeds.error();
  if (ready.ok())
    ready = run::checkTrainingOptions(options, plan, options.planDir);
  // Fail on unwritable destinations before running, not after.
  if (ready.ok() && root && !options.outputDir.empty())
    ready = makeDirectories(options.outputDir);
  if (ready.ok() && root && !options.traceFile.empty()) {
    std::filesystem::path dir =
        std::filesystem::path(options.traceFile).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
      ready = makeError("cannot write trace '", options.traceFile,
                        "': directory '", dir.string(), "' does not exist");
  }
  ready = agree(context, ready);
  if (!ready.ok())
    return ready;

  const std::vector<Variable> variables = planVariables(executor.graph());
  int64_t firstStep = 0;
  if (!options.loadDir.empty()) {
    phase.emplace(&watchdog, "loading checkpoint '" + options.loadDir + "'");
    Expected<int64_t> step = run::loadCheckpoint(
        executor, variables, options.loadDir, root, options.quiet);
    if (!step.ok())
      return step.error();
    firstStep = *step;
  }
  const int64_t lastStep = firstStep + options.steps;
  Expected<std::unique_ptr<run::StepReport>> report = run::StepReport::create(
      options, plan, root, lastStep, feeds->samplesPerStep);
  ready = agree(context, report.ok() ? Status::success() : report.error());
  if (!ready.ok())
    return ready;

  // OUTPUT tasks run on rank 0: only it keeps outputs (of the last step).
  std::optional<OutputCollector> outputs;
  if (root)
    outputs.emplace(plan, lastStep, /*everyStep=*/false);
  OutputSink sink = (*report)->wrap(outputs ? outputs->sink() : OutputSink());
  RunStats stats;
  std::vector<TraceEvent> trace;
  bool savedLastStep = false;
  phase.emplace(&watchdog, "between runs");
  Status status =
      runSteps(executor, options, context, variables, feeds->feed, sink,
               **report, firstStep, stats, trace, savedLastStep);
  if (!status.ok())
    return status;

  // Checkpoint and export: the variables are gathered once for both.
  const bool save = !options.saveDir.empty() && !savedLastStep;
  const bool exportOnnx = !options.exportOnnx.empty();
  run::VariableValues gathered;
  phase.emplace(&watchdog, save ? "saving checkpoint '" + options.saveDir + "'"
                                : "exporting the ONNX model");
  if (save && exportOnnx)
    gathered = gatherVariables(executor, variables);
  if (save)
    status = run::saveCheckpoint(executor, variables, options.saveDir, lastStep,
                                 root, options.quiet,
                                 exportOnnx ? &gathered : nullptr);
  if (status.ok() && exportOnnx)
    status = run::exportTrainedOnnx(executor, variables, options.planDir,
                                    options.exportOnnx, root, options.quiet,
                                    save ? &gathered : nullptr);
  if (!status.ok())
    return status;

  phase.emplace(&watchdog, "writing the outputs and the trace");
  Status written = Status::success();
  if (root) {
    if (!stats.stepSeconds.empty()) {
      auto [min, max] = std::minmax_element(stats.stepSeconds.begin(),
                                            stats.stepSeconds.end());
      std::cerr << "ran " << stats.stepSeconds.size() << " step"
                << (stats.stepSeconds.size() == 1 ? "" : "s") << " in "
                << formatMs(stats.totalSeconds) << ": "
                << formatMs(stats.totalSeconds / stats.stepSeconds.size())
                << "/step (min " << formatMs(*min) << ", max " << formatMs(*max)
                << "), " << stats.firings << " actor firings\n";
      const MemoryPlan &memory = executor.memoryPlan();
      int64_t persistent = 0;
      for (int64_t bytes : memory.persistentBytes)
        persistent += bytes;
      std::cerr << "memory: " << memory.totalArenaBytes()
                << " bytes of regsts (" << memory.totalUnsharedBytes()
                << " without reuse), " << persistent << " bytes persistent";
      if (plan.num_ranks() > 1) {
        std::cerr << ", over " << plan.num_ranks() << " ranks\n";
        std::cerr << "memory per rank (regsts):";
        for (size_t rank = 0; rank < memory.arenaBytes.size(); ++rank)
          std::cerr << " " << rank << ":" << memory.arenaBytes[rank];
      }
      std::cerr << "\n";
      if (executorOptions.streamCpu >= 0 && plan.device() != "cuda")
        std::cerr << "streams: bound to CPU " << executorOptions.streamCpu
                  << " (kernels on one thread)\n";
      if (world && world->size() > 1) {
        auto env = [](const char *name) {
          const char *value = std::getenv(name);
          return std::string(value ? value : "unset");
        };
        std::cerr << "ranks: " << world->size() << " (" << world->localSize()
                  << " on rank 0's machine), threads per rank: OpenMP "
                  << env("OMP_NUM_THREADS")
                  << (budget.ompSet ? "" : " (user's)") << ", OpenBLAS "
                  << env("OPENBLAS_NUM_THREADS")
                  << (budget.blasSet ? "" : " (user's)") << "\n";
      }
    }
    if (!options.outputDir.empty()) {
      // An output of data-dependent length is written cut to its extent,
      // a hidden output.
      std::map<std::string, const plan::IOSpec *> extentOf;
      for (const plan::IOSpec &spec : plan.outputs())
        if (!spec.extent_of().empty())
          extentOf[spec.extent_of()] = &spec;
      for (const plan::IOSpec &spec : plan.outputs()) {
        if (!spec.extent_of().empty())
          continue;
        HostTensor value = widenBF16(outputs->output(spec.name()));
        auto extent = extentOf.find(spec.name());
        if (extent != extentOf.end()) {
          const HostTensor &count = outputs->output(extent->second->name());
          value = leadingEntries(value, extent->second->extent_axis(),
                                 count.dtype == plan::I64 &&
                                         count.numElements() == 1
                                     ? count.as<int64_t>()[0]
                                     : 0);
        }
        std::string path =
            options.outputDir + "/" + sanitizeFileName(spec.name()) + ".npy";
        written = writeNpyFile(path, value);
        if (!written.ok())
          break;
      }
    }
    if (written.ok() && !options.traceFile.empty())
      written = writeTraceFile(options.traceFile, trace);
  }
  return agree(context, written);
}

/// The plan's rank count, when its plan.pb reads; 0 otherwise (the run
/// reports the problem).
int planRanks(const std::string &planDir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(planDir, ec))
    return 0;
  Expected<plan::Plan> plan = readPlanFile(planDir + "/plan.pb");
  return plan.ok() ? plan->num_ranks() : 0;
}

} // namespace

int main(int argc, char **argv) {
  google::protobuf::SetLogHandler(protobufLog);
  // Under an MPI launcher (mpirun -n N oneflow-run ..., or our own launch
  // below): one rank of the run.
  std::unique_ptr<World> world;
  if (launchedByMpi()) {
    Expected<std::unique_ptr<World>> init = World::init();
    if (!init.ok()) {
      printError(init.error());
      return 1;
    }
    world = init.take();
  } else if (std::getenv(run::kLaunchedVariable)) {
    printError(makeError("started by oneflow-run through mpirun, but no MPI "
                         "launcher environment was found (oneflow-run "
                         "needs OpenMPI's mpirun)"));
    return 1;
  }
  Context context;
  context.world = world.get();
  // Ranks other than 0 stay quiet: every error reaches rank 0 (agree), or
  // aborts the job with its rank named (World::abort).
  auto report = [&](const Status &status) {
    if (context.isRoot())
      printError(status);
  };
  int code = 1;
  try {
    Expected<run::Options> options = run::parseCommandLine(argc, argv);
    if (!options.ok()) {
      report(options.error());
    } else if (options->help) {
      if (context.isRoot())
        std::cout << run::helpText();
      code = 0;
    } else if (!options->calibrateFile.empty()) {
      // Measuring the machine: on N ranks started like a plan's.
      if (!world && options->numRanks > 1) {
        code = run::launchRanks(options->numRanks, argc, argv);
      } else {
        Status status = run::runCalibration(*options, world.get());
        if (status.ok())
          code = 0;
        else
          report(status);
      }
    } else if (int planned = world ? 0 : planRanks(options->planDir);
               planned > 0 && options->numRanks != 0 &&
               options->numRanks != planned) {
      report(makeError("--np ", options->numRanks, ": the plan has ", planned,
                       " rank", planned == 1 ? "" : "s"));
    } else if (planned > 1) {
      // A multi-rank plan: start its ranks (this program again) under
      // mpirun; each finds itself launched by MPI and runs its rank. An
      // invalid plan is reported here, without starting anything.
      Expected<plan::Plan> plan = readPlanFile(options->planDir + "/plan.pb");
      Expected<PlanGraph> graph = PlanGraph::build(*plan);
      if (!graph.ok())
        report(graph.error());
      else
        code = run::launchRanks(planned, argc, argv);
    } else {
      Status status = runTool(*options, context);
      if (status.ok())
        code = 0;
      else
        report(status);
    }
  } catch (const std::bad_alloc &) {
    Status error = Status::error("out of memory");
    if (world && world->size() > 1)
      world->abort(error);
    printError(error);
  } catch (const std::exception &e) {
    Status error = Status::error(e.what());
    if (world && world->size() > 1)
      world->abort(error);
    printError(error);
  }
  std::cout.flush();
  std::cerr.flush();
  world.reset(); // MPI_Finalize
  return code;
}
