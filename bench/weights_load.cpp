//===- weights_load.cpp - The cost of verifying weights.bin ---------------===//
//
// oneflow-weights-load-bench [MIB [REPEATS]]   (default 512 5)
//
// Prints CRC-32C throughput (the SSE4.2 instruction and the table), then
// loads a plan whose weights.bin holds MIB MiB of f32 parameters (16 MiB
// tensors) with the plan's checksums and without them (unverified), from the
// page cache, and prints the load times. The best of REPEATS runs counts.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "oneflow/Runtime/Crc32c.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <unistd.h>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <typename F> double best(int repeats, F f) {
  double fastest = 1e30;
  for (int r = 0; r < repeats; ++r) {
    double start = seconds();
    f();
    fastest = std::min(fastest, seconds() - start);
  }
  return fastest;
}

} // namespace

int main(int argc, char **argv) {
  int64_t mib = argc > 1 ? std::atoll(argv[1]) : 512;
  int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const int64_t tensorBytes = 16 << 20,
                tensors = std::max<int64_t>(1, mib / 16);
  std::string weights(size_t(tensors * tensorBytes), '\0');
  std::mt19937 random(1);
  for (size_t i = 0; i < weights.size(); i += 4096)
    weights[i] = char(random());

  double gb = double(weights.size()) / 1e9;
  volatile uint32_t sink = 0;
  double hw =
      best(repeats, [&] { sink = crc32c(weights.data(), weights.size()); });
  double table =
      best(1, [&] { sink = crc32cPortable(weights.data(), weights.size()); });
  std::printf("crc32c over %.2f GB: %s %.2f GB/s, table %.2f GB/s\n", gb,
              crc32cUsesHardware() ? "SSE4.2" : "(no SSE4.2: table)", gb / hw,
              gb / table);

  PlanBuilder b;
  int64_t x = b.regst("x");
  std::vector<int64_t> ins{x};
  for (int64_t t = 0; t < tensors; ++t) {
    int64_t w = b.persistent("w" + std::to_string(t), t * tensorBytes,
                             plan::F32, {tensorBytes / 4});
    ins.push_back(w);
    plan::WeightsChecksum *checksum = b.plan.add_weights_checksums();
    checksum->set_offset(t * tensorBytes);
    checksum->set_size(tensorBytes);
    checksum->set_crc32c(
        crc32c(weights.data() + t * tensorBytes, size_t(tensorBytes)));
  }
  int64_t y = b.regst("y");
  b.input("x", x);
  b.kernel("noop", "test_noop", ins, {y});
  b.output("y", y);
  PlanDir dir;
  dir.write("weights.bin", weights);

  auto load = [&](const plan::Plan &plan) {
    dir.writePlan(plan);
    double time = best(repeats, [&] {
      Expected<std::unique_ptr<Executor>> executor = Executor::load(dir.path());
      if (!executor.ok()) {
        std::fprintf(stderr, "error: %s\n", executor.error().message().c_str());
        std::exit(1);
      }
    });
    return time;
  };
  double verified = load(b.plan);
  plan::Plan unverified = b.plan;
  unverified.clear_weights_checksums();
  // The warning about the missing checksums, once per load: not measured.
  std::fflush(stderr);
  int saved = dup(2);
  if (!freopen("/dev/null", "w", stderr))
    return 1;
  double plain = load(unverified);
  std::fflush(stderr);
  dup2(saved, 2);
  std::printf("load of %.2f GB of weights: %.1f ms verified (%.2f GB/s), "
              "%.1f ms unverified (%.2f GB/s): +%.0f%%\n",
              gb, verified * 1e3, gb / verified, plain * 1e3, gb / plain,
              (verified / plain - 1) * 100);
  return 0;
}
