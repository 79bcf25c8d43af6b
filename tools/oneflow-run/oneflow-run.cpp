//===- oneflow-run.cpp - Runs a compiled plan -----------------------------===//
//
// oneflow-run OUT_DIR [--input NAME=FILE.npy|FILE.pb]... [--output-dir DIR]
//             [--steps N] [--trace FILE.json] [--np N] [--help]
//
// Every error is printed as "error: ..." and exits with 1. A multi-rank plan
// runs as one process per rank: this program re-launches itself under
// mpirun, or is started by mpirun directly; rank 0 prints and writes.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"
#include "Options.h"

#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/Executor.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/NpyIO.h"
#include "oneflow/Runtime/TensorProtoIO.h"

#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
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

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string inputList(const plan::Plan &plan) {
  std::string list;
  for (const plan::IOSpec &spec : plan.inputs())
    list += (list.empty() ? "'" : ", '") + spec.name() + "' " +
            describeTensor(spec.desc());
  return list.empty() ? "none" : list;
}

/// Reads every --input and checks it against the plan; all problems at once.
Expected<std::map<std::string, HostTensor>>
readInputs(const run::Options &options, const plan::Plan &plan) {
  std::map<std::string, const plan::IOSpec *> specs;
  for (const plan::IOSpec &spec : plan.inputs())
    specs[spec.name()] = &spec;
  std::map<std::string, HostTensor> inputs;
  std::vector<std::string> problems;
  for (const auto &[name, file] : options.inputs) {
    auto spec = specs.find(name);
    if (spec == specs.end()) {
      problems.push_back("unknown input '" + name +
                         "' (the plan's inputs: " + inputList(plan) + ")");
      continue;
    }
    if (inputs.count(name)) {
      problems.push_back("input '" + name + "' is given more than once");
      continue;
    }
    Expected<HostTensor> tensor =
        endsWith(file, ".npy")  ? readNpyFile(file)
        : endsWith(file, ".pb") ? readTensorProtoFile(file)
                                : Expected<HostTensor>(makeError(
                                      "'", file, "' is neither .npy nor .pb"));
    if (!tensor.ok()) {
      problems.push_back("input '" + name + "': " + tensor.error().message());
      continue;
    }
    Status fits = checkInputTensor(name, spec->second->desc(), *tensor, file);
    if (!fits.ok()) {
      problems.push_back(fits.message());
      continue;
    }
    inputs.emplace(name, tensor.take());
  }
  std::set<std::string> given;
  for (const auto &input : options.inputs)
    given.insert(input.first);
  for (const plan::IOSpec &spec : plan.inputs())
    if (!given.count(spec.name()))
      problems.push_back("missing input '" + spec.name() + "' (expected " +
                         describeTensor(spec.desc()) +
                         "; give it with --input " + spec.name() +
                         "=FILE.npy)");
  if (problems.empty())
    return inputs;
  std::string text;
  for (const std::string &problem : problems)
    text += (text.empty() ? "" : "\n") + problem;
  return Status::error(text);
}

std::string formatMs(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f ms", seconds * 1e3);
  return text;
}

/// What the ranks of a run share: rank 0 prints and writes.
struct Context {
  World *world = nullptr; // set in a multi-process (MPI) run
  bool isRoot() const { return !world || world->rank() == 0; }
};

/// Collective in a multi-process run: every rank gets an error when any
/// rank has one.
Status agree(const Context &context, const Status &status) {
  return context.world ? context.world->agree(status) : status;
}

Status runTool(const run::Options &options, const Context &context) {
  World *world = context.world;
  if (world && options.numRanks != 0 && options.numRanks != world->size())
    return makeError("--np ", options.numRanks, ": but ", world->size(),
                     " processes were started");
  ThreadBudget budget;
  if (world)
    budget = applyThreadBudget(world->localSize()); // Before the kernels load.

  ExecutorOptions executorOptions;
  executorOptions.world = world;
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

  // Every rank reads the inputs (each INPUT task gets the full value).
  Expected<std::map<std::string, HostTensor>> inputs =
      readInputs(options, plan);
  Status ready = inputs.ok() ? Status::success() : inputs.error();
  // Fail on unwritable destinations before running, not after.
  if (ready.ok() && context.isRoot() && !options.outputDir.empty())
    ready = makeDirectories(options.outputDir);
  if (ready.ok() && context.isRoot() && !options.traceFile.empty()) {
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

  RunOptions run;
  run.steps = options.steps;
  run.trace = !options.traceFile.empty();
  if (context.isRoot())
    run.onStepDone = [&](int64_t step, double seconds) {
      std::cerr << "step " << step + 1 << "/" << options.steps << ": "
                << formatMs(seconds) << "\n";
    };
  // OUTPUT tasks run on rank 0: only it keeps outputs.
  std::optional<OutputCollector> outputs;
  if (context.isRoot())
    outputs.emplace(plan, options.steps, /*everyStep=*/false);
  Status status = executor.run(run, feedTensors({inputs.take()}),
                               outputs ? outputs->sink() : OutputSink());
  if (!status.ok())
    return status;

  Status written = Status::success();
  if (context.isRoot()) {
    const RunStats &stats = executor.stats();
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
      if (plan.num_ranks() > 1)
        std::cerr << ", over " << plan.num_ranks() << " ranks";
      std::cerr << "\n";
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
      for (const plan::IOSpec &spec : plan.outputs()) {
        std::string path =
            options.outputDir + "/" + sanitizeFileName(spec.name()) + ".npy";
        written = writeNpyFile(path, widenBF16(outputs->output(spec.name())));
        if (!written.ok())
          break;
      }
    }
    if (written.ok() && !options.traceFile.empty())
      written = writeTraceFile(options.traceFile, executor.trace());
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
