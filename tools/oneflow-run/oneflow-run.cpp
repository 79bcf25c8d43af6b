//===- oneflow-run.cpp - Runs a compiled plan -----------------------------===//
//
// oneflow-run OUT_DIR [--input NAME=FILE.npy|FILE.pb]... [--output-dir DIR]
//             [--steps N] [--trace FILE.json] [--np N] [--help]
//
// Every error is printed as "error: ..." and exits with 1.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "oneflow/Runtime/Executor.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/NpyIO.h"
#include "oneflow/Runtime/TensorProtoIO.h"

#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
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

Status runTool(const run::Options &options) {
  Expected<std::unique_ptr<Executor>> loaded = Executor::load(options.planDir);
  if (!loaded.ok())
    return loaded.error();
  Executor &executor = **loaded;
  const plan::Plan &plan = executor.plan();
  if (options.numRanks != 0 && options.numRanks != plan.num_ranks())
    return makeError("--np ", options.numRanks, ": the plan has ",
                     plan.num_ranks(), " rank",
                     plan.num_ranks() == 1 ? "" : "s");

  Expected<std::map<std::string, HostTensor>> inputs =
      readInputs(options, plan);
  if (!inputs.ok())
    return inputs.error();
  // Fail on unwritable destinations before running, not after.
  if (!options.outputDir.empty()) {
    Status made = makeDirectories(options.outputDir);
    if (!made.ok())
      return made;
  }
  if (!options.traceFile.empty()) {
    std::filesystem::path dir =
        std::filesystem::path(options.traceFile).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
      return makeError("cannot write trace '", options.traceFile,
                       "': directory '", dir.string(), "' does not exist");
  }

  RunOptions run;
  run.steps = options.steps;
  run.trace = !options.traceFile.empty();
  run.onStepDone = [&](int64_t step, double seconds) {
    std::cerr << "step " << step + 1 << "/" << options.steps << ": "
              << formatMs(seconds) << "\n";
  };
  OutputCollector outputs(plan, options.steps, /*everyStep=*/false);
  Status status =
      executor.run(run, feedTensors({inputs.take()}), outputs.sink());
  if (!status.ok())
    return status;

  const RunStats &stats = executor.stats();
  if (!stats.stepSeconds.empty()) {
    auto [min, max] =
        std::minmax_element(stats.stepSeconds.begin(), stats.stepSeconds.end());
    std::cerr << "ran " << stats.stepSeconds.size() << " step"
              << (stats.stepSeconds.size() == 1 ? "" : "s") << " in "
              << formatMs(stats.totalSeconds) << ": "
              << formatMs(stats.totalSeconds / stats.stepSeconds.size())
              << "/step (min " << formatMs(*min) << ", max " << formatMs(*max)
              << "), " << stats.firings << " actor firings\n";
    const MemoryPlan &memory = executor.memoryPlan();
    std::cerr << "memory: " << memory.totalArenaBytes() << " bytes of regsts ("
              << memory.totalUnsharedBytes() << " without reuse), "
              << memory.persistentBytes[0] << " bytes persistent\n";
  }

  if (!options.outputDir.empty()) {
    for (const plan::IOSpec &spec : plan.outputs()) {
      std::string path =
          options.outputDir + "/" + sanitizeFileName(spec.name()) + ".npy";
      Status written =
          writeNpyFile(path, widenBF16(outputs.output(spec.name())));
      if (!written.ok())
        return written;
    }
  }
  if (!options.traceFile.empty())
    return writeTraceFile(options.traceFile, executor.trace());
  return Status::success();
}

} // namespace

int main(int argc, char **argv) {
  google::protobuf::SetLogHandler(protobufLog);
  try {
    Expected<run::Options> options = run::parseCommandLine(argc, argv);
    if (!options.ok()) {
      printError(options.error());
      return 1;
    }
    if (options->help) {
      std::cout << run::helpText();
      return 0;
    }
    Status status = runTool(*options);
    if (!status.ok()) {
      printError(status);
      return 1;
    }
    return 0;
  } catch (const std::bad_alloc &) {
    printError(Status::error("out of memory"));
  } catch (const std::exception &e) {
    printError(Status::error(e.what()));
  }
  return 1;
}
