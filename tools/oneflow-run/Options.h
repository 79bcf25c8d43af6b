//===- Options.h - oneflow-run's command line -------------------*- C++ -*-===//

#ifndef ONEFLOW_TOOLS_ONEFLOW_RUN_OPTIONS_H
#define ONEFLOW_TOOLS_ONEFLOW_RUN_OPTIONS_H

#include "oneflow/Runtime/Status.h"

#include <string>
#include <utility>
#include <vector>

namespace oneflow {
namespace run {

struct Options {
  std::string planDir;
  std::vector<std::pair<std::string, std::string>> inputs; // NAME, FILE
  std::string outputDir;
  std::string traceFile;
  int64_t steps = 1;
  int numRanks = 0; // --np; 0: the plan's
  bool help = false;
  // The watchdog: seconds without progress in steps (0: none), and before
  // the first step / outside runs (-1: kStartupFactor x timeout; 0: none).
  double timeout = 600;
  double startupTimeout = -1;

  // Training.
  std::vector<std::pair<std::string, std::string>> data; // --data NAME, FILE
  int64_t batch = 0; // --batch; 0: the plan's (or the inputs' axis 0)
  bool shuffle = false;
  uint64_t seed = 0;
  std::string metricsFile;
  bool quiet = false;
  int64_t logEvery = 1; // progress lines every N steps
  std::string saveDir, loadDir;
  int64_t saveEvery = 0; // 0: only after the last step
  std::string exportOnnx;

  // --calibrate=FILE: measure this machine instead of running a plan.
  std::string calibrateFile;
  std::string calibrateTimings; // every raw timing, JSON lines
  bool calibrateQuick = false;
};

/// Parses argv; `--opt value` and `--opt=value` are both accepted.
runtime::Expected<Options> parseCommandLine(int argc, char **argv);

const char *helpText();

} // namespace run
} // namespace oneflow

#endif // ONEFLOW_TOOLS_ONEFLOW_RUN_OPTIONS_H
