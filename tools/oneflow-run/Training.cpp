//===- Training.cpp - oneflow-run's training options ----------------------===//

#include "Training.h"

#include "oneflow/Runtime/Checkpoint.h"
#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/DataFeeder.h"
#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Json.h"
#include "oneflow/Runtime/NpyIO.h"
#include "oneflow/Runtime/OnnxExport.h"
#include "oneflow/Runtime/TensorProtoIO.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <unistd.h>

namespace oneflow {
namespace run {

using namespace runtime;

namespace {

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status agree(Executor &executor, const Status &status) {
  World *world = executor.world();
  return world ? world->agree(status) : status;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string formatBytes(int64_t bytes) {
  if (bytes < 1000000)
    return std::to_string(bytes) + " bytes";
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MB", double(bytes) / 1e6);
  return text;
}

std::string formatMs(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f ms", seconds * 1e3);
  return text;
}

double toDouble(plan::DataType dtype, const void *data) {
  switch (dtype) {
  case plan::F64: {
    double value;
    std::memcpy(&value, data, sizeof(value));
    return value;
  }
  case plan::F16:
  case plan::BF16: {
    uint16_t bits;
    std::memcpy(&bits, data, sizeof(bits));
    return dtype == plan::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
  }
  default: {
    float value;
    std::memcpy(&value, data, sizeof(value));
    return value;
  }
  }
}

/// The test hook of the checkpoint tests: ONEFLOW_TEST_CHECKPOINT_FAIL=N
/// fails a save after its N-th file, =crash:N ends the process (status 86)
/// there, as a crash would.
CheckpointWriteOptions checkpointTestHook() {
  CheckpointWriteOptions options;
  const char *hook = std::getenv("ONEFLOW_TEST_CHECKPOINT_FAIL");
  if (!hook || !*hook)
    return options;
  std::string text = hook;
  bool crash = text.rfind("crash:", 0) == 0;
  int after = std::atoi(text.c_str() + (crash ? 6 : 0));
  options.afterFile = [crash, after](int written) -> Status {
    if (written < after)
      return Status::success();
    if (crash) {
      std::fflush(nullptr);
      _exit(86);
    }
    return Status::error("simulated failure (ONEFLOW_TEST_CHECKPOINT_FAIL)");
  };
  return options;
}

} // namespace

Expected<Feeds> readFeeds(const Options &options, const plan::Plan &plan) {
  std::map<std::string, const plan::IOSpec *> specs;
  for (const plan::IOSpec &spec : plan.inputs())
    specs[spec.name()] = &spec;
  std::vector<std::string> problems;

  // Constant inputs.
  std::map<std::string, HostTensor> inputs;
  for (const auto &[name, file] : options.inputs) {
    auto spec = specs.find(name);
    if (spec == specs.end()) {
      problems.push_back("unknown input '" + name + "' (the plan's inputs: " +
                         describePlanInputs(plan) + ")");
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

  // Training data.
  std::map<std::string, DataFile> data;
  std::set<std::string> dataNames;
  for (const auto &[name, file] : options.data) {
    if (!dataNames.insert(name).second) {
      problems.push_back("--data " + name + " is given more than once");
      continue;
    }
    if (std::any_of(options.inputs.begin(), options.inputs.end(),
                    [&](const auto &input) { return input.first == name; }))
      problems.push_back("input '" + name +
                         "' is given by both --input and --data");
    if (!endsWith(file, ".npy")) {
      problems.push_back("--data " + name + "=" + file +
                         ": training data are .npy files");
      continue;
    }
    Expected<HostTensor> tensor = readNpyFile(file);
    if (!tensor.ok()) {
      problems.push_back("--data " + name + ": " + tensor.error().message());
      continue;
    }
    data[name] = {file, tensor.take()};
  }
  int64_t batch = options.batch;
  if (!data.empty()) {
    Status checked = checkTrainingData(plan, data, batch);
    if (!checked.ok())
      problems.push_back(checked.message());
  }

  std::set<std::string> given = dataNames;
  for (const auto &input : options.inputs)
    given.insert(input.first);
  const bool training = !plan.loss_output().empty() || plan.batch_size() > 0;
  for (const plan::IOSpec &spec : plan.inputs())
    if (!given.count(spec.name()))
      problems.push_back(
          "missing input '" + spec.name() + "' (expected " +
          describeTensor(spec.desc()) + "; give it with " +
          (training ? "--data " + spec.name() + "=FILE.npy (training data) or "
                    : std::string()) +
          "--input " + spec.name() + "=FILE.npy)");
  if (!problems.empty())
    return joinProblems(problems);

  Feeds feeds;
  std::shared_ptr<DataFeeder> feeder;
  if (!data.empty()) {
    std::map<std::string, HostTensor> tensors;
    for (auto &[name, file] : data)
      tensors.emplace(name, std::move(file.tensor));
    Expected<std::shared_ptr<DataFeeder>> created = DataFeeder::create(
        std::move(tensors), batch, options.shuffle, options.seed);
    if (!created.ok())
      return created.error();
    feeder = created.take();
    feeds.samplesPerStep = batch;
  } else if (plan.batch_size() > 0) {
    feeds.samplesPerStep = plan.batch_size();
  } else if (plan.inputs_size() > 0 && plan.inputs(0).desc().shape_size() > 0) {
    feeds.samplesPerStep = std::max<int64_t>(plan.inputs(0).desc().shape(0), 1);
  }
  feeds.feed = DataFeeder::feed(feeder, std::move(inputs));
  return feeds;
}

Status checkTrainingOptions(const Options &options, const plan::Plan &plan,
                            const std::string &planDir) {
  std::vector<std::string> problems;
  if (!options.metricsFile.empty() && plan.loss_output().empty())
    problems.push_back("--metrics: the plan has no loss output (compile it "
                       "with oneflow-opt --train)");
  if (!options.exportOnnx.empty()) {
    std::error_code ec;
    if (plan.source_model().empty()) {
      problems.push_back("--export-onnx: the plan has no source model (it "
                         "was not compiled from an ONNX file)");
    } else {
      std::string model =
          (std::filesystem::path(planDir) / plan.source_model()).string();
      if (!std::filesystem::is_regular_file(model, ec))
        problems.push_back("--export-onnx: the plan's source model '" + model +
                           "' does not exist");
    }
  }
  // Destinations must be writable before the run, not after it.
  for (const std::string *file : {&options.exportOnnx, &options.metricsFile}) {
    if (file->empty())
      continue;
    std::filesystem::path dir = std::filesystem::path(*file).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
      problems.push_back("cannot write '" + *file + "': directory '" +
                         dir.string() + "' does not exist");
  }
  return joinProblems(problems);
}

Expected<std::unique_ptr<StepReport>>
StepReport::create(const Options &options, const plan::Plan &plan, bool root,
                   int64_t lastStep, int64_t samplesPerStep) {
  std::unique_ptr<StepReport> report(new StepReport());
  report->root = root;
  report->quiet = options.quiet;
  report->logEvery = options.logEvery;
  report->lastStep = lastStep;
  report->samplesPerStep = samplesPerStep;
  report->lossName = plan.loss_output();
  for (const plan::IOSpec &spec : plan.outputs())
    if (spec.name() == report->lossName)
      report->lossType = spec.desc().dtype();
  if (root && !options.metricsFile.empty()) {
    report->metrics = std::fopen(options.metricsFile.c_str(), "w");
    if (!report->metrics)
      return makeError("cannot write '", options.metricsFile,
                       "': ", std::strerror(errno));
  }
  return report;
}

StepReport::~StepReport() {
  if (metrics)
    std::fclose(metrics);
}

OutputSink StepReport::wrap(OutputSink sink) {
  if (lossName.empty())
    return sink;
  return [this, sink](const std::string &name, int64_t step, const void *src,
                      int64_t bytes) -> Status {
    if (name == lossName && bytes == elementSize(lossType)) {
      std::lock_guard<std::mutex> lock(mutex);
      losses[step] = toDouble(lossType, src);
    }
    return sink ? sink(name, step, src, bytes) : Status::success();
  };
}

void StepReport::stepDone(int64_t step, double seconds) {
  if (!root)
    return;
  double samplesPerSecond = seconds > 0 ? double(samplesPerStep) / seconds : 0;
  char text[160];
  if (lossName.empty()) {
    if (!quiet && ((step + 1) % logEvery == 0 || step + 1 == lastStep))
      std::cerr << "step " << step + 1 << "/" << lastStep << ": "
                << (std::snprintf(text, sizeof(text), "%.3f ms", seconds * 1e3),
                    text)
                << "\n";
    return;
  }
  double loss = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = losses.find(step);
    if (it != losses.end()) {
      loss = it->second;
      losses.erase(it);
    }
  }
  if (!quiet && ((step + 1) % logEvery == 0 || step + 1 == lastStep)) {
    std::snprintf(text, sizeof(text),
                  "step %lld/%lld  loss %.4f  %.1f samples/s",
                  static_cast<long long>(step + 1),
                  static_cast<long long>(lastStep), loss, samplesPerSecond);
    std::cerr << text << "\n";
  }
  if (metrics) {
    std::string line = "{\"step\":" + std::to_string(step) +
                       ",\"loss\":" + jsonNumber(loss, lossType != plan::F64) +
                       ",\"samples_per_s\":";
    std::snprintf(text, sizeof(text), "%.1f", samplesPerSecond);
    line += text;
    line += "}\n";
    std::fputs(line.c_str(), metrics);
    std::fflush(metrics);
  }
}

Expected<int64_t> loadCheckpoint(Executor &executor,
                                 const std::vector<Variable> &variables,
                                 const std::string &path, bool root,
                                 bool quiet) {
  auto start = std::chrono::steady_clock::now();
  World *world = executor.world();
  const int rank = world ? world->rank() : 0;
  int64_t step = 0;
  Status status = [&]() -> Status {
    Expected<CheckpointManifest> manifest = readCheckpointManifest(path);
    if (!manifest.ok())
      return manifest.error();
    Status matches = checkCheckpoint(path, *manifest, variables);
    if (!matches.ok())
      return matches;
    step = manifest->step;
    // Only the variables this rank holds a piece of.
    std::set<std::string> needed;
    for (const Variable &variable : variables)
      for (const VariablePiece &piece : variable.pieces)
        if (piece.rank == rank)
          needed.insert(variable.name);
    if (needed.empty())
      return Status::success();
    Expected<std::map<std::string, HostTensor>> tensors =
        readCheckpointTensors(path, *manifest, needed);
    if (!tensors.ok())
      return tensors.error();
    std::vector<Variable> mine;
    for (const Variable &variable : variables)
      if (needed.count(variable.name))
        mine.push_back(variable);
    return scatterVariables(executor, mine, *tensors);
  }();
  status = agree(executor, status);
  if (!status.ok())
    return status;
  if (root && !quiet)
    std::cerr << "loaded checkpoint '" << path << "' (step " << step << ", "
              << variables.size() << " variable"
              << (variables.size() == 1 ? "" : "s") << ") in "
              << formatMs(secondsSince(start)) << "\n";
  return step;
}

Status saveCheckpoint(Executor &executor,
                      const std::vector<Variable> &variables,
                      const std::string &path, int64_t step, bool root,
                      bool quiet, const VariableValues *gathered) {
  auto start = std::chrono::steady_clock::now();
  VariableValues own;
  if (!gathered)
    own = gatherVariables(executor, variables);
  const VariableValues &tensors = gathered ? *gathered : own;
  Status status = Status::success();
  if (root)
    status =
        writeCheckpoint(path, step, variables, tensors, checkpointTestHook());
  status = agree(executor, status);
  if (status.ok() && root && !quiet) {
    int64_t bytes = 0;
    for (const auto &[name, tensor] : tensors)
      bytes += int64_t(tensor.data.size());
    std::cerr << "saved checkpoint '" << path << "' (step " << step << ", "
              << variables.size() << " variable"
              << (variables.size() == 1 ? "" : "s") << ", "
              << formatBytes(bytes) << ") in " << formatMs(secondsSince(start))
              << "\n";
  }
  return status;
}

Status exportTrainedOnnx(Executor &executor,
                         const std::vector<Variable> &variables,
                         const std::string &planDir, const std::string &path,
                         bool root, bool quiet,
                         const VariableValues *gathered) {
  VariableValues own;
  if (!gathered)
    own = gatherVariables(executor, variables);
  const VariableValues &tensors = gathered ? *gathered : own;
  Status status = Status::success();
  if (root) {
    std::string model =
        (std::filesystem::path(planDir) / executor.plan().source_model())
            .string();
    Expected<OnnxExportSummary> summary =
        exportOnnx(model, path, variables, tensors);
    if (!summary.ok())
      status = summary.error();
    else if (!quiet)
      std::cerr << "exported '" << path << "': " << summary->replaced.size()
                << " trained initializer"
                << (summary->replaced.size() == 1 ? "" : "s") << "\n";
  }
  return agree(executor, status);
}

} // namespace run
} // namespace oneflow
