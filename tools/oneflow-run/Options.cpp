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

Runs the plan that `oneflow-opt --emit=plan -o OUT_DIR` wrote (plan.pb, the
kernel library and the weights file in OUT_DIR).

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
  --np N              Number of ranks: must be the plan's (the default). A
                      multi-rank plan runs as one process per rank, which
                      oneflow-run starts through OpenMPI's mpirun (mpirun -n
                      N --oversubscribe); `mpirun -n N oneflow-run OUT_DIR`
                      works too. Rank 0 prints the steps and writes outputs
                      and the trace (of every rank). Each rank gets
                      max(1, CPUs / ranks on its machine) OpenMP and
                      OpenBLAS threads unless OMP_NUM_THREADS or
                      OPENBLAS_NUM_THREADS are set.
  --help              Print this text.

Exit status: 0 on success, 1 on any error (printed as "error: ...").
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

} // namespace

Expected<Options> parseCommandLine(int argc, char **argv) {
  Options options;
  std::vector<std::string> positional;
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
    // "--flag=value" or "--flag value".
    std::string flag = arg, value;
    bool inlineValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    const bool takesValue = flag == "--input" || flag == "--output-dir" ||
                            flag == "--steps" || flag == "--trace" ||
                            flag == "--np";
    if (!takesValue)
      return makeError("unknown option '", arg, "' (see --help)");
    if (!inlineValue) {
      if (i + 1 >= argc)
        return makeError(flag, " needs a value (see --help)");
      value = argv[++i];
    }

    if (flag == "--input") {
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
        return makeError("--input '", value, "': expected NAME=FILE");
      options.inputs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (flag == "--output-dir" || flag == "--trace") {
      if (value.empty())
        return makeError(flag, " needs a non-empty value");
      (flag == "--trace" ? options.traceFile : options.outputDir) = value;
    } else if (flag == "--steps") {
      Expected<int64_t> steps = parsePositive(flag, value);
      if (!steps.ok())
        return steps.error();
      options.steps = *steps;
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
