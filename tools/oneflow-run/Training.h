//===- Training.h - oneflow-run's training options --------------*- C++ -*-===//
//
// Inputs and training data (--input, --data), the per-step report
// (progress lines, --metrics), checkpoints (--save, --save-every, --load)
// and --export-onnx. In a multi-rank run every function here is called by
// every rank; those that say "collective" agree on errors, so that all
// ranks fail together.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_ONEFLOW_RUN_TRAINING_H
#define ONEFLOW_TOOLS_ONEFLOW_RUN_TRAINING_H

#include "Options.h"

#include "oneflow/Runtime/Executor.h"
#include "oneflow/Runtime/Variables.h"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

namespace oneflow {
namespace run {

/// What feeds the graph inputs of every step.
struct Feeds {
  runtime::InputFeed feed;
  /// Samples per step (for samples/s): the batch of the training data, the
  /// plan's batch size, or axis 0 of its first input (1 for scalars).
  int64_t samplesPerStep = 1;
};

/// Reads every --input and --data file and checks them against the plan,
/// reporting all problems at once (unknown, missing or doubly given inputs,
/// shapes, dtypes, sample counts, the batch size).
runtime::Expected<Feeds> readFeeds(const Options &options,
                                   const plan::Plan &plan);

/// Checks that the plan supports what the options ask for (a loss output
/// for --metrics, a source model for --export-onnx); run on every rank.
runtime::Status checkTrainingOptions(const Options &options,
                                     const plan::Plan &plan,
                                     const std::string &planDir);

/// The per-step report on rank 0: a progress line on stderr (unless
/// --quiet; with the loss when the plan has one), a --metrics line.
class StepReport {
public:
  static runtime::Expected<std::unique_ptr<StepReport>>
  create(const Options &options, const plan::Plan &plan, bool root,
         int64_t lastStep, int64_t samplesPerStep);
  ~StepReport();

  /// Captures the loss output of every step, then passes every output on.
  runtime::OutputSink wrap(runtime::OutputSink sink);
  /// Called once per finished step, in order (RunOptions::onStepDone).
  void stepDone(int64_t step, double seconds);

private:
  StepReport() = default;
  bool root = false, quiet = false;
  int64_t logEvery = 1;
  int64_t lastStep = 0, samplesPerStep = 1;
  std::string lossName;
  plan::DataType lossType = plan::F32;
  std::FILE *metrics = nullptr;
  std::mutex mutex;
  std::map<int64_t, double> losses; // steps not reported yet
};

/// --load: restores every variable and returns the checkpoint's step
/// count. Collective.
runtime::Expected<int64_t>
loadCheckpoint(runtime::Executor &executor,
               const std::vector<runtime::Variable> &variables,
               const std::string &path, bool root, bool quiet);

/// The full tensor of every variable, by name, on rank 0 (empty on the
/// others). Collective.
using VariableValues = std::map<std::string, runtime::HostTensor>;

/// Gathers every variable (unless `gathered` holds them already) and rank
/// 0 writes checkpoint `path` at `step`. Collective: every rank returns
/// rank 0's result.
runtime::Status saveCheckpoint(runtime::Executor &executor,
                               const std::vector<runtime::Variable> &variables,
                               const std::string &path, int64_t step, bool root,
                               bool quiet,
                               const VariableValues *gathered = nullptr);

/// --export-onnx: as saveCheckpoint, rank 0 writing the plan's source model
/// with the trained values to `path`.
runtime::Status
exportTrainedOnnx(runtime::Executor &executor,
                  const std::vector<runtime::Variable> &variables,
                  const std::string &planDir, const std::string &path,
                  bool root, bool quiet,
                  const VariableValues *gathered = nullptr);

} // namespace run
} // namespace oneflow

#endif // ONEFLOW_TOOLS_ONEFLOW_RUN_TRAINING_H
