//===- Options.cpp - oneflow-run's command line ---------------------------===//

#include "Options.h"

#include <cerrno>
#include <cstdlib>

namespace oneflow {
namespace run {

using runtime::Expected;
using runtime::makeError;
using runtime::Status;

const char *helpText() {
  return R"(USAGE: oneflow-run OUT_DIR [options]
       oneflow-run --calibrate=FILE [--np N] [--calibrate-quick]

Runs the plan that `oneflow-opt --emit=plan -o OUT_DIR` wrote (plan.pb, the
kernel library and the weights file in OUT_DIR). With --calibrate, measures
this machine instead and writes its cluster description (docs/simulator.md).

OPTIONS:
  --input NAME=FILE   The value of graph input NAME, used for every step. FILE
                      is a .npy file (C order, little-endian <f4 <f8 <f2 <i4
                      <i8 or |b1) or an ONNX TensorProto .pb file (the only
                      way to give bf16). Every graph input must be given
                      exactly once, with the plan's dtype and shape.
  --output-dir DIR    After the last step, write DIR/NAME.npy for every graph
                      output (created atomically; DIR is created if needed).
                      NAME is escaped into a safe file name: every byte other
                      than A-Z a-z 0-9 _ - . becomes %XX (its hex code), and
                      so does a leading '.'; e.g. output "dense/add:0" is
                      written to "dense%2Fadd%3A0.npy". bf16 outputs are
                      written as f32 (exact; .npy has no bf16).
  --steps N           Run N steps (default 1). Prints each step's time and a
                      summary to stderr.
  --trace FILE        Write a Chrome trace (JSON array of "ph":"X" events; pid
                      = rank, tid = stream, ts/dur in microseconds, args: task
                      id and step) of every actor firing. Open it in
                      chrome://tracing or ui.perfetto.dev.
  --data NAME=FILE    Training data for graph input NAME: a .npy file whose
                      axis 0 indexes samples (repeatable, one per input).
                      Step i feeds the next B samples, wrapping around at
                      the end of the file (a batch may span two epochs).
                      Every file must hold the same number of samples, each
                      with the dtype and shape of the input without axis 0.
                      Inputs without --data come from --input (the same
                      value every step).
  --batch B           Samples per step: must be the inputs' axis 0 (and the
                      plan's batch size); the default.
  --shuffle           A new order of the samples every epoch: a Fisher-Yates
                      shuffle driven by SplitMix64 from --seed and the epoch
                      (see docs/runtime.md), the same on every run and rank.
  --seed S            The shuffling seed (default 0).
  --metrics FILE      Write one JSON line per step, {"step": i, "loss": x,
                      "samples_per_s": y} (i counts from 0, including steps
                      run before a --load'ed checkpoint); needs a plan with a
                      loss output.
  --quiet             No per-step lines on stderr (the summary stays).
  --log-every N       A progress line every N steps (and after the last);
                      default 1.
  --save DIR          After the last step, write every variable of the plan
                      (full logical tensors, gathered from the ranks) and the
                      step count as the checkpoint directory DIR: one
                      NAME.npy per variable (NAME escaped as for
                      --output-dir) and manifest.json. Written atomically: a
                      crash leaves the old checkpoint or the new one.
  --save-every N      Also save after every N-th step (N, 2N, ... counted as
                      in --metrics). Needs --save.
  --load DIR          Before the first step, restore every variable and the
                      step count from checkpoint DIR (every variable of the
                      plan, same dtype and shape, nothing else).
  --export-onnx FILE  After the run, write the ONNX model the plan was
                      compiled from with every initializer that is a
                      variable replaced by its trained value.
  --np N              Number of ranks: must be the plan's (the default). A
                      multi-rank plan runs as one process per rank, which
                      oneflow-run starts through OpenMPI's mpirun (mpirun -n
                      N --oversubscribe); `mpirun -n N oneflow-run OUT_DIR`
                      works too. Rank 0 prints the steps and writes outputs
                      and the trace (of every rank). Each rank gets
                      max(1, CPUs / ranks on its machine) OpenMP and
                      OpenBLAS threads unless OMP_NUM_THREADS or
                      OPENBLAS_NUM_THREADS are set.
  --timeout S         The watchdog (default 600 seconds; 0 disables it): a
                      rank whose steps make no progress for S seconds (no
                      task fires, no collective, receive or send completes)
                      prints one line naming itself, the step and what each
                      stream waits for (the task, the collective and its
                      ranks, the peer of a receive), and ends the whole job
                      with exit status 124; in a multi-rank run rank 0 also
                      prints a summary of where every rank is and which
                      ranks did not answer. A single kernel or a CUDA step
                      running longer than S counts as a stall.
  --startup-timeout S The watchdog's limit before this process finished its
                      first step (loading, connecting, the first step, which
                      waits for the slowest rank) and outside runs
                      (checkpoints, outputs). Default: 3 x --timeout; 0: no
                      limit there.
  --calibrate FILE    Measure this machine on N ranks (--np, default 1) and
                      write its cluster description FILE (JSON, the format
                      of docs/simulator.md, atomically): f32/f64 products
                      through the kernel library (peak and efficiency per
                      product size), vector arithmetic, memory bandwidth
                      and capacity per rank, the cost of a firing and, with
                      2 ranks or more, the latency and bandwidth of the
                      runtime's collectives (one rank writes a default
                      link, said so in "sources"). Every rank measures at
                      once with the threads a plan's ranks get; a summary
                      goes to stderr. Takes 10-60 s; no plan directory,
                      no plan options.
  --calibrate-quick   With --calibrate: fewer, smaller measurements (a few
                      seconds; rougher figures, for tests).
  --calibrate-timings FILE
                      With --calibrate: also write every timing behind the
                      figures (each product shape, each collective and
                      size with its fitted time), one JSON object a line.
  --help              Print this text.

Exit status: 0 on success, 1 on any error (printed as "error: ..."), 124
when the watchdog ended the job.
)";
}

namespace {

Expected<int64_t> parsePositive(const std::string &flag,
                                const std::string &text) {
  errno = 0;
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < 1 ||
      text[0] == '+' || text[0] == ' ')
    return makeError(flag, " '", text, "': expected a positive integer");
  return int64_t(value);
}

/// Seconds: a non-negative decimal number, at most a year.
Expected<double> parseSeconds(const std::string &flag,
                              const std::string &text) {
  errno = 0;
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE ||
      !(text[0] >= '0' && text[0] <= '9') || !(value >= 0) ||
      value > 366.0 * 24 * 3600)
    return makeError(flag, " '", text,
                     "': expected seconds (a number >= 0; 0 disables)");
  return value;
}

} // namespace

Expected<Options> parseCommandLine(int argc, char **argv) {
  Options options;
  std::vector<std::string> positional;
  std::vector<std::string> planFlags; // the options of a plan's run
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--help" || arg == "-help" || arg == "-h") {
      options.help = true;
      continue;
    }
    if (arg == "--calibrate-quick") {
      options.calibrateQuick = true;
      continue;
    }
    if (arg == "--shuffle" || arg == "--quiet") {
      (arg == "--shuffle" ? options.shuffle : options.quiet) = true;
      planFlags.push_back(arg);
      continue;
    }
    // "--flag=value" or "--flag value".
    std::string flag = arg, value;
    bool inlineValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    const bool takesValue =
        flag == "--input" || flag == "--output-dir" || flag == "--steps" ||
        flag == "--trace" || flag == "--np" || flag == "--data" ||
        flag == "--batch" || flag == "--seed" || flag == "--metrics" ||
        flag == "--save" || flag == "--save-every" || flag == "--load" ||
        flag == "--export-onnx" || flag == "--log-every" ||
        flag == "--timeout" || flag == "--startup-timeout" ||
        flag == "--calibrate" || flag == "--calibrate-timings";
    if (!takesValue)
      return makeError("unknown option '", arg, "' (see --help)");
    if (!inlineValue) {
      if (i + 1 >= argc)
        return makeError(flag, " needs a value (see --help)");
      value = argv[++i];
    }
    if (flag != "--np" && flag != "--calibrate" &&
        flag != "--calibrate-timings")
      planFlags.push_back(flag);

    if (flag == "--input" || flag == "--data") {
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
        return makeError(flag, " '", value, "': expected NAME=FILE");
      (flag == "--input" ? options.inputs : options.data)
          .emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (flag == "--output-dir" || flag == "--trace" ||
               flag == "--metrics" || flag == "--save" || flag == "--load" ||
               flag == "--export-onnx" || flag == "--calibrate" ||
               flag == "--calibrate-timings") {
      if (value.empty())
        return makeError(flag, " needs a non-empty value");
      std::string &target = flag == "--calibrate" ? options.calibrateFile
                            : flag == "--calibrate-timings"
                                ? options.calibrateTimings
                            : flag == "--trace"       ? options.traceFile
                            : flag == "--metrics"     ? options.metricsFile
                            : flag == "--save"        ? options.saveDir
                            : flag == "--load"        ? options.loadDir
                            : flag == "--export-onnx" ? options.exportOnnx
                                                      : options.outputDir;
      target = value;
    } else if (flag == "--batch" || flag == "--save-every" ||
               flag == "--log-every") {
      Expected<int64_t> count = parsePositive(flag, value);
      if (!count.ok())
        return count.error();
      (flag == "--batch"        ? options.batch
       : flag == "--save-every" ? options.saveEvery
                                : options.logEvery) = *count;
    } else if (flag == "--seed") {
      errno = 0;
      char *end = nullptr;
      unsigned long long seed = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno == ERANGE ||
          !(value[0] >= '0' && value[0] <= '9'))
        return makeError("--seed '", value,
                         "': expected an integer in [0, 2^64)");
      options.seed = seed;
    } else if (flag == "--steps") {
      Expected<int64_t> steps = parsePositive(flag, value);
      if (!steps.ok())
        return steps.error();
      options.steps = *steps;
    } else if (flag == "--timeout" || flag == "--startup-timeout") {
      Expected<double> limit = parseSeconds(flag, value);
      if (!limit.ok())
        return limit.error();
      (flag == "--timeout" ? options.timeout : options.startupTimeout) = *limit;
    } else if (flag == "--np") {
      Expected<int64_t> np = parsePositive(flag, value);
      if (!np.ok())
        return np.error();
      if (*np > 1 << 20)
        return makeError("--np '", value, "': too many ranks");
      options.numRanks = int(*np);
    }
  }
  if (options.help)
    return options;
  if ((options.calibrateQuick || !options.calibrateTimings.empty()) &&
      options.calibrateFile.empty())
    return makeError(options.calibrateQuick ? "--calibrate-quick"
                                            : "--calibrate-timings",
                     " needs --calibrate FILE");
  if (!options.calibrateFile.empty()) {
    // Calibration measures the machine: it runs no plan.
    if (!positional.empty())
      return makeError("--calibrate measures this machine and runs no plan: "
                       "unexpected argument '",
                       positional[0], "'");
    if (!planFlags.empty())
      return makeError("--calibrate takes only --np, --calibrate-quick and "
                       "--calibrate-timings, not ",
                       planFlags[0]);
    return options;
  }
  if (options.data.empty() && (options.batch || options.shuffle))
    return makeError(options.batch ? "--batch" : "--shuffle",
                     " needs training data (--data NAME=FILE.npy)");
  if (options.saveEvery && options.saveDir.empty())
    return makeError("--save-every needs --save DIR");
  if (options.timeout == 0 && options.startupTimeout > 0)
    return makeError("--startup-timeout needs the watchdog, which --timeout "
                     "0 disables");
  if (positional.empty())
    return makeError("missing the plan directory (usage: oneflow-run OUT_DIR "
                     "[options]; see --help)");
  if (positional.size() > 1)
    return makeError("unexpected argument '", positional[1],
                     "' (one plan directory only)");
  options.planDir = positional[0];
  return options;
}

} // namespace run
} // namespace oneflow
