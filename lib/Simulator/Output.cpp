//===- Output.cpp - The simulator's report, JSON and trace ----------------===//

#include "oneflow/Simulator/Simulator.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <cstdio>

using namespace oneflow;
using namespace oneflow::simulator;
namespace json = llvm::json;

int64_t Report::peakMemoryBytes() const {
  int64_t peak = 0;
  for (const RoleMemory &role : roles)
    peak = std::max(peak, role.total());
  return peak;
}

bool Report::fits() const {
  return llvm::all_of(roles,
                      [](const RoleMemory &role) { return role.fits(); });
}

std::string oneflow::simulator::reportToJson(const Report &report) {
  // Keys in the documented order (json::Object would sort them).
  std::string text;
  llvm::raw_string_ostream os(text);
  json::OStream out(os, /*IndentSize=*/2);
  out.object([&] {
    out.attribute("cluster", report.cluster);
    out.attribute("num_ranks", report.numRanks);
    out.attribute("simulated_ranks", report.simulatedRanks);
    out.attribute("step_seconds", report.stepSeconds);
    out.attribute("compute_seconds", report.computeSeconds);
    out.attribute("exposed_communication_seconds",
                  report.exposedCommunicationSeconds);
    out.attribute("bubble_seconds", report.bubbleSeconds);
    out.attribute("last_rank", report.lastRank);
    out.attribute("tflops_per_device", report.tflopsPerDevice);
    out.attribute("peak_memory_bytes", report.peakMemoryBytes());
    out.attribute("memory_capacity_bytes", report.roles.empty()
                                               ? int64_t(0)
                                               : report.roles.front().capacity);
    out.attribute("fits", report.fits());
    out.attributeArray("roles", [&] {
      for (const RoleMemory &role : report.roles)
        out.object([&] {
          out.attribute("members", role.members);
          out.attribute("representative", role.representative);
          out.attribute("peak_memory_bytes", role.total());
          out.attribute("parameters_bytes", role.parameters);
          out.attribute("gradients_bytes", role.gradients);
          out.attribute("optimizer_state_bytes", role.optimizerState);
          out.attribute("buffers_bytes", role.buffers);
          out.attribute("activations_bytes", role.activations);
          out.attribute("fits", role.fits());
        });
    });
  });
  os << "\n";
  return text;
}

/// `text` as a JSON string literal.
static void appendJsonString(std::string &out, llvm::StringRef text) {
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  out += '"';
}

std::string oneflow::simulator::traceToJson(const Report &report,
                                            const plan::Plan &plan) {
  const plan::Plan &replayed =
      report.expandedPlan ? *report.expandedPlan : plan;
  std::vector<TraceEvent> events = report.trace;
  std::stable_sort(events.begin(), events.end(),
                   [](const TraceEvent &a, const TraceEvent &b) {
                     return a.start < b.start;
                   });
  std::string out = "[";
  char number[64];
  for (size_t i = 0; i < events.size(); ++i) {
    const plan::Task &task = replayed.tasks(events[i].taskIndex);
    out += i ? ",\n{\"name\": " : "\n{\"name\": ";
    appendJsonString(out, task.name());
    // Microseconds with three decimals, as oneflow-run writes them.
    std::snprintf(number, sizeof(number), ", \"ph\": \"X\", \"ts\": %.3f",
                  events[i].start * 1e6);
    out += number;
    std::snprintf(number, sizeof(number), ", \"dur\": %.3f, \"pid\": %d",
                  events[i].duration * 1e6, task.rank());
    out += number;
    out += ", \"tid\": ";
    appendJsonString(out, report.streams[events[i].stream]);
    out += ", \"args\": {\"task\": " + std::to_string(task.id()) +
           ", \"step\": 0}}";
  }
  out += "\n]\n";
  return out;
}

/// Seconds in the unit that shows them best: "1.234 s", "12.345 ms",
/// "3.500 us".
static std::string seconds(double value) {
  if (std::fabs(value) >= 1 || value == 0)
    return llvm::formatv("{0:f3} s", value).str();
  if (std::fabs(value) >= 1e-3)
    return llvm::formatv("{0:f3} ms", value * 1e3).str();
  return llvm::formatv("{0:f3} us", value * 1e6).str();
}

/// Bytes in the binary unit that shows them best: "1.50 GiB", "12 bytes".
static std::string formatBytes(int64_t bytes) {
  static const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + " bytes";
  double value = double(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  return llvm::formatv("{0:f2} {1}", value, units[unit]).str();
}

/// "123.4", or three significant digits below 1 ("0.00123").
static std::string tflops(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), value >= 1 ? "%.1f" : "%.3g", value);
  return text;
}

void oneflow::simulator::printReport(llvm::raw_ostream &os,
                                     const Report &report) {
  os << "simulate: " << report.cluster << ", " << report.numRanks
     << (report.numRanks == 1 ? " rank" : " ranks");
  if (report.simulatedRanks != report.numRanks)
    os << " (" << report.simulatedRanks << " replayed, one per role)";
  os << ": step " << seconds(report.stepSeconds) << " = compute "
     << seconds(report.computeSeconds) << " + exposed communication "
     << seconds(report.exposedCommunicationSeconds) << " + pipeline bubble "
     << seconds(report.bubbleSeconds) << " (rank " << report.lastRank << "); "
     << tflops(report.tflopsPerDevice) << " TFLOP/s per device\n";
  for (const RoleMemory &role : report.roles) {
    os << "simulate: rank " << role.representative;
    if (role.members > 1)
      os << " (role of " << role.members << " ranks)";
    os << " memory: parameters " << formatBytes(role.parameters)
       << " + gradients " << formatBytes(role.gradients)
       << " + optimizer state " << formatBytes(role.optimizerState)
       << " + buffers " << formatBytes(role.buffers) << " + activations "
       << formatBytes(role.activations) << " = " << formatBytes(role.total())
       << ": ";
    if (role.fits())
      os << "fits in " << formatBytes(role.capacity) << "\n";
    else
      os << "does not fit (needs " << formatBytes(role.total()) << " of "
         << formatBytes(role.capacity) << ")\n";
  }
}
