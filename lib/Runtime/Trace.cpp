//===- Trace.cpp - Chrome traces of actor firings -------------------------===//

#include "oneflow/Runtime/Trace.h"

#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Json.h"

#include <algorithm>
#include <cstdio>

namespace oneflow {
namespace runtime {

namespace {

/// Nanoseconds as microseconds with three decimals ("12.345").
void appendMicros(std::string &out, int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%lld.%03lld",
                static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  out += text;
}

} // namespace

std::string traceToJson(std::vector<TraceEvent> events) {
  std::stable_sort(events.begin(), events.end(),
                   [](const TraceEvent &a, const TraceEvent &b) {
                     return a.startNs < b.startNs;
                   });
  std::string out = "[";
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent &event = events[i];
    out += i ? ",\n" : "\n";
    out += "{\"name\": ";
    appendJsonString(out, event.name);
    out += ", \"ph\": \"X\", \"ts\": ";
    appendMicros(out, event.startNs);
    out += ", \"dur\": ";
    appendMicros(out, event.durationNs);
    out += ", \"pid\": " + std::to_string(event.rank) + ", \"tid\": ";
    appendJsonString(out, event.stream);
    out += ", \"args\": {\"task\": " + std::to_string(event.taskId) +
           ", \"step\": " + std::to_string(event.step) + "}}";
  }
  out += "\n]\n";
  return out;
}

Status writeTraceFile(const std::string &path,
                      const std::vector<TraceEvent> &events) {
  return writeFileAtomic(path, traceToJson(events));
}

} // namespace runtime
} // namespace oneflow
