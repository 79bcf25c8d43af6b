//===- Trace.h - Chrome traces of actor firings -----------------*- C++ -*-===//
//
// A JSON array of complete events, one per firing, loadable in
// chrome://tracing and Perfetto:
//   {"name": "matmul_0", "ph": "X", "ts": 12.345, "dur": 3.5,
//    "pid": 0, "tid": "compute", "args": {"task": 7, "step": 2}}
// ts and dur are microseconds (ts from the start of the run), pid is the
// rank and tid the stream.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_TRACE_H
#define ONEFLOW_RUNTIME_TRACE_H

#include "oneflow/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

struct TraceEvent {
  std::string name;
  int rank = 0;
  std::string stream;
  int64_t taskId = 0;
  int64_t step = 0;
  int64_t startNs = 0; // since the start of the run
  int64_t durationNs = 0;
};

/// The events as a Chrome trace (JSON array), sorted by start time.
std::string traceToJson(std::vector<TraceEvent> events);

/// Writes the trace to `path` atomically.
Status writeTraceFile(const std::string &path,
                      const std::vector<TraceEvent> &events);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_TRACE_H
