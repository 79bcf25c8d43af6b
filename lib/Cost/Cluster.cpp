//===- Cluster.cpp - Cluster descriptions (clusters/*.json) ---------------===//

#include "oneflow/Cost/Cluster.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace oneflow;
using namespace oneflow::cost;
namespace json = llvm::json;

namespace {

/// Reads one JSON object: every key is consumed once, and whatever is left
/// at the end is an unknown key. The first error wins; later reads return
/// nothing.
class Reader {
public:
  explicit Reader(std::string fileName) : fileName(std::move(fileName)) {}

  bool failed() const { return !error.empty(); }
  llvm::Error takeError() {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   fileName + ": " + error);
  }
  void fail(const std::string &path, const std::string &message) {
    if (error.empty())
      error = (path.empty() ? "" : path + ": ") + message;
  }

  /// `object` as an object, its keys to check off with `done`.
  const json::Object *object(const json::Value *value,
                             const std::string &path) {
    const json::Object *object = value ? value->getAsObject() : nullptr;
    if (!object)
      fail(path, "expected an object");
    return object;
  }
  /// The value of a required key.
  const json::Value *get(const json::Object &object, llvm::StringRef key,
                         const std::string &path) {
    const json::Value *value = object.get(key);
    if (!value)
      fail(join(path, key), "missing");
    return value;
  }
  /// A number (> 0 when `positive`, >= 0 otherwise).
  double number(const json::Value *value, const std::string &path,
                bool positive) {
    if (!value || failed())
      return 0;
    std::optional<double> number = value->getAsNumber();
    if (!number || !std::isfinite(*number))
      fail(path, "expected a number");
    else if (positive ? *number <= 0 : *number < 0)
      fail(path,
           positive ? "expected a positive number" : "expected a number >= 0");
    return number.value_or(0);
  }
  /// A whole number >= 0 (written as an integer or as 8.5e10).
  int64_t count(const json::Value *value, const std::string &path) {
    double value64 = number(value, path, /*positive=*/false);
    if (!failed() && (value64 != std::floor(value64) || value64 > 9e18))
      fail(path, "expected a whole number");
    return failed() ? 0 : int64_t(value64);
  }
  std::string string(const json::Value *value, const std::string &path) {
    if (!value || failed())
      return "";
    std::optional<llvm::StringRef> text = value->getAsString();
    if (!text)
      fail(path, "expected a string");
    return text.value_or("").str();
  }
  /// Fails on the keys of `object` not in `known`.
  void noOtherKeys(const json::Object &object,
                   llvm::ArrayRef<llvm::StringRef> known,
                   const std::string &path) {
    // Sorted, so that the message does not depend on hashing.
    std::vector<std::string> unknown;
    for (const auto &entry : object)
      if (!llvm::is_contained(known, llvm::StringRef(entry.first)))
        unknown.push_back(llvm::StringRef(entry.first).str());
    llvm::sort(unknown);
    if (!unknown.empty())
      fail(join(path, unknown.front()),
           "unknown key (expected one of " + llvm::join(known, ", ") + ")");
  }

  static std::string join(const std::string &path, llvm::StringRef key) {
    return path.empty() ? key.str() : path + "." + key.str();
  }

private:
  std::string fileName;
  std::string error;
};

const llvm::StringRef kConvKernels[] = {"conv2d", "conv_transpose2d",
                                        "conv2d_grad_filter"};

/// A curve of [flops, fraction] points, flops increasing.
void readCurve(Reader &in, const json::Value &curve, const std::string &path,
               std::vector<std::pair<double, double>> &into) {
  const json::Array *points = curve.getAsArray();
  if (!points || points->empty())
    in.fail(path, "expected a non-empty array of [flops, fraction]");
  for (size_t i = 0; points && i < points->size() && !in.failed(); ++i) {
    std::string at = path + "[" + std::to_string(i) + "]";
    const json::Array *point = (*points)[i].getAsArray();
    std::optional<double> flops, fraction;
    if (point && point->size() == 2) {
      flops = (*point)[0].getAsNumber();
      fraction = (*point)[1].getAsNumber();
    }
    if (!flops || !fraction) {
      in.fail(at, "expected [flops, fraction]");
      break;
    }
    if (!(*flops > 0) || !std::isfinite(*flops))
      in.fail(at, "flops must be a positive number");
    else if (!(*fraction > 0 && *fraction <= 1))
      in.fail(at, "fraction must be in (0, 1]");
    else if (!into.empty() && *flops <= into.back().first)
      in.fail(at, "flops must increase from point to point");
    into.push_back({*flops, *fraction});
  }
}

void readDevice(Reader &in, const json::Object &device, Cluster &cluster) {
  const std::string path = "device";
  in.noOtherKeys(device,
                 {"kind", "peak_flops", "gemm_efficiency", "conv_efficiency",
                  "concurrent_ranks", "vector_flops", "memory_bandwidth",
                  "memory_capacity", "kernel_overhead", "stream_handoff",
                  "shared_cpu_switch"},
                 path);
  cluster.kind = in.string(in.get(device, "kind", path), "device.kind");
  if (!in.failed() && cluster.kind != "gpu" && cluster.kind != "cpu")
    in.fail("device.kind", "expected \"gpu\" or \"cpu\"");

  if (const json::Object *peaks =
          in.object(in.get(device, "peak_flops", path), "device.peak_flops");
      peaks && !in.failed()) {
    in.noOtherKeys(*peaks, {"f32", "tf32", "bf16", "f16", "f64"},
                   "device.peak_flops");
    for (const auto &[key, value] : *peaks) {
      std::string name = llvm::StringRef(key).str();
      cluster.peakFlops[name] =
          in.number(&value, "device.peak_flops." + name, true);
    }
    if (!in.failed() && !cluster.peakFlops.count("f32"))
      in.fail("device.peak_flops.f32", "missing");
  }

  if (const json::Value *curve = in.get(device, "gemm_efficiency", path);
      curve && !in.failed())
    readCurve(in, *curve, "device.gemm_efficiency", cluster.gemmEfficiency);
  if (const json::Value *convs = device.get("conv_efficiency");
      convs && !in.failed()) {
    const std::string convPath = "device.conv_efficiency";
    if (const json::Object *curves = in.object(convs, convPath)) {
      in.noOtherKeys(*curves, kConvKernels, convPath);
      for (int kind = 0; kind < 3 && !in.failed(); ++kind)
        if (const json::Value *curve = curves->get(kConvKernels[kind]))
          readCurve(in, *curve, convPath + "." + kConvKernels[kind].str(),
                    cluster.convEfficiency[kind]);
    }
  }
  if (const json::Value *ranks = device.get("concurrent_ranks");
      ranks && !in.failed()) {
    cluster.concurrentRanks = in.count(ranks, "device.concurrent_ranks");
    if (!in.failed() && cluster.concurrentRanks == 0)
      in.fail("device.concurrent_ranks", "expected a positive number");
  }
  cluster.vectorFlops = in.number(in.get(device, "vector_flops", path),
                                  "device.vector_flops", true);
  cluster.memoryBandwidth = in.number(in.get(device, "memory_bandwidth", path),
                                      "device.memory_bandwidth", true);
  cluster.memoryCapacity = in.count(in.get(device, "memory_capacity", path),
                                    "device.memory_capacity");
  if (!in.failed() && cluster.memoryCapacity == 0)
    in.fail("device.memory_capacity", "expected a positive number");
  cluster.kernelOverhead = in.number(in.get(device, "kernel_overhead", path),
                                     "device.kernel_overhead", false);
  if (const json::Value *handoff = device.get("stream_handoff");
      handoff && !in.failed())
    cluster.streamHandoff = in.number(handoff, "device.stream_handoff", false);
  if (const json::Value *shared = device.get("shared_cpu_switch");
      shared && !in.failed())
    cluster.sharedCpuSwitch =
        in.number(shared, "device.shared_cpu_switch", false);
}

void readLinks(Reader &in, const json::Value &value, Cluster &cluster) {
  const json::Array *links = value.getAsArray();
  if (!links || links->empty())
    return in.fail("links", "expected a non-empty array of link levels");
  for (size_t i = 0; i < links->size() && !in.failed(); ++i) {
    std::string at = "links[" + std::to_string(i) + "]";
    const json::Object *object = in.object(&(*links)[i], at);
    if (!object)
      return;
    in.noOtherKeys(*object, {"name", "devices", "latency", "bandwidth"}, at);
    Link link;
    link.name = in.string(in.get(*object, "name", at), at + ".name");
    link.devices = in.count(in.get(*object, "devices", at), at + ".devices");
    link.latency =
        in.number(in.get(*object, "latency", at), at + ".latency", false);
    link.bandwidth =
        in.number(in.get(*object, "bandwidth", at), at + ".bandwidth", true);
    if (in.failed())
      return;
    bool last = i + 1 == links->size();
    if (last && link.devices != 0)
      return in.fail(at + ".devices",
                     "the outermost level must connect every rank (0)");
    if (!last && link.devices == 0)
      return in.fail(at + ".devices",
                     "only the outermost level may connect every rank (0)");
    // Levels nest: a level's groups are unions of the inner level's.
    if (!last && !cluster.links.empty() &&
        (link.devices <= cluster.links.back().devices ||
         link.devices % cluster.links.back().devices != 0))
      return in.fail(at + ".devices",
                     "expected a multiple of links[" + std::to_string(i - 1) +
                         "].devices (" +
                         std::to_string(cluster.links.back().devices) +
                         ") larger than it");
    cluster.links.push_back(std::move(link));
  }
}

} // namespace

llvm::Expected<Cluster> oneflow::cost::parseCluster(llvm::StringRef text,
                                                    llvm::StringRef fileName) {
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        fileName + ": invalid JSON: " + llvm::toString(parsed.takeError()));
  Reader in(fileName.str());
  Cluster cluster;
  const json::Object *root = in.object(&*parsed, "");
  if (root) {
    in.noOtherKeys(*root, {"version", "name", "device", "links", "sources"},
                   "");
    int64_t version = in.count(in.get(*root, "version", ""), "version");
    if (!in.failed() && version != 1)
      in.fail("version", "expected 1, the only version");
    cluster.name = in.string(in.get(*root, "name", ""), "name");
    if (const json::Object *device =
            in.object(in.get(*root, "device", ""), "device");
        device && !in.failed())
      readDevice(in, *device, cluster);
    if (const json::Value *links = in.get(*root, "links", "");
        links && !in.failed())
      readLinks(in, *links, cluster);
    if (const json::Value *sources = root->get("sources"))
      cluster.sources = in.string(sources, "sources");
  }
  if (in.failed())
    return in.takeError();
  return cluster;
}

llvm::Expected<Cluster> oneflow::cost::readClusterFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        path + ": cannot read: " + file.getError().message());
  return parseCluster((*file)->getBuffer(), path);
}

double Cluster::peak(plan::DataType dtype, bool allowTf32) const {
  auto find = [&](const char *key) {
    auto it = peakFlops.find(key);
    return it == peakFlops.end() ? 0.0 : it->second;
  };
  double peak = 0;
  switch (dtype) {
  case plan::F32:
    peak = allowTf32 ? find("tf32") : 0;
    break;
  case plan::F64:
    peak = find("f64");
    break;
  case plan::F16:
    peak = find("f16");
    break;
  case plan::BF16:
    peak = find("bf16");
    break;
  default:
    break;
  }
  return peak > 0 ? peak : find("f32");
}

/// `curve` at `flops`: interpolated linearly in log10(flops), clamped.
static double interpolate(const std::vector<std::pair<double, double>> &curve,
                          double flops) {
  if (curve.empty())
    return 1;
  if (!(flops > curve.front().first))
    return curve.front().second;
  if (flops >= curve.back().first)
    return curve.back().second;
  size_t hi = 1;
  while (curve[hi].first < flops)
    ++hi;
  auto [x0, y0] = curve[hi - 1];
  auto [x1, y1] = curve[hi];
  double t =
      (std::log10(flops) - std::log10(x0)) / (std::log10(x1) - std::log10(x0));
  return y0 + t * (y1 - y0);
}

double Cluster::efficiency(double flops) const {
  return interpolate(gemmEfficiency, flops);
}

double Cluster::convEfficiencyOf(int conv, double flops) const {
  return convEfficiency[conv].empty()
             ? efficiency(flops)
             : interpolate(convEfficiency[conv], flops);
}

double Cluster::sharingFactor(int64_t numRanks) const {
  if (concurrentRanks <= 0 || links.empty())
    return 1;
  int64_t onNode = links.front().devices == 0
                       ? numRanks
                       : std::min(numRanks, links.front().devices);
  return std::max(1.0, double(onNode) / double(concurrentRanks));
}

const Link &Cluster::linkFor(llvm::ArrayRef<int32_t> ranks) const {
  for (const Link &link : links) {
    if (link.devices == 0 || ranks.empty())
      return link;
    int64_t group = ranks.front() / link.devices;
    if (llvm::all_of(
            ranks, [&](int32_t rank) { return rank / link.devices == group; }))
      return link;
  }
  return links.back();
}
