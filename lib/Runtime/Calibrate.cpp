//===- Calibrate.cpp - Measuring this rank's device -----------------------===//
//
// The device part of `oneflow-run --calibrate` (see Calibrate.h): products,
// vector arithmetic, memory bandwidth and the cost of a firing, each timed
// as the median of several batches (the machine may be shared: a median
// ignores the batches another process slowed down).
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/Calibrate.h"

#include "oneflow/Runtime/Executor.h"
#include "oneflow/Runtime/KernelLibrary.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>

#include <sched.h>

namespace oneflow {
namespace runtime {

std::string calibrationKernelsPath() {
  if (const char *path = std::getenv("ONEFLOW_CALIBRATION_KERNELS");
      path && *path)
    return path;
  std::error_code ec;
  if (std::filesystem::exists(ONEFLOW_CALIBRATION_KERNELS, ec))
    return ONEFLOW_CALIBRATION_KERNELS;
  // An installed toolchain: lib/ next to the executable's bin/.
  std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", ec);
  return (exe.parent_path().parent_path() / "lib" /
          std::filesystem::path(ONEFLOW_CALIBRATION_KERNELS).filename())
      .string();
}

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// Wall and CPU time. Figures come from the CPU time this process spent,
/// divided by the threads that work: on a shared machine wall time would
/// also count the slices other processes held the cores (a product longer
/// than a time slice then measured at half speed, a short one at full
/// speed), which describes the load, not the machine. The wall time is
/// kept to tell how much of their cores the ranks had.
struct Clocks {
  double wall, cpu;
  static Clocks now() {
    timespec cpu;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    return {std::chrono::duration<double>(
                std::chrono::steady_clock::now().time_since_epoch())
                .count(),
            double(cpu.tv_sec) + 1e-9 * double(cpu.tv_nsec)};
  }
};

/// Wall and CPU seconds of the timed batches, summed.
struct Share {
  double wall = 0, cpu = 0;
};

/// The seconds of one `call` on `threads` threads: warmed up once, then
/// `batches` batches of as many calls as fill `target` seconds; the median
/// batch's CPU time per call and thread.
template <typename Call>
double timePerCall(Call &&call, double target, int batches, int threads,
                   Share &share) {
  Clocks start = Clocks::now();
  call();
  double once = std::max((Clocks::now().cpu - start.cpu) / threads, 1e-9);
  int64_t calls = std::clamp<int64_t>(int64_t(std::ceil(target / once)), 1,
                                      int64_t(1) << 24);
  std::vector<double> perCall;
  for (int b = 0; b < batches; ++b) {
    start = Clocks::now();
    for (int64_t i = 0; i < calls; ++i)
      call();
    Clocks end = Clocks::now();
    perCall.push_back((end.cpu - start.cpu) / threads / double(calls));
    share.wall += end.wall - start.wall;
    share.cpu += (end.cpu - start.cpu) / threads;
  }
  return median(perCall);
}

/// A 64-byte aligned buffer (as plan regsts are), filled with small values
/// (no denormals, no overflow in products of any size).
template <typename T> class Buffer {
public:
  explicit Buffer(int64_t count)
      : data(static_cast<T *>(std::aligned_alloc(
                 64, size_t((count * int64_t(sizeof(T)) + 63) / 64 * 64))),
             std::free) {
    if (!data)
      throw std::bad_alloc();
    for (int64_t i = 0; i < count; ++i)
      data.get()[i] = T((i % 17) - 8) / T(64);
  }
  T *get() const { return data.get(); }

private:
  std::unique_ptr<T, decltype(&std::free)> data;
};

/// m, n, k, transpose a, transpose b.
struct Shape {
  int64_t m, n, k, ta, tb;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  std::string label() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(k) + (ta ? "T" : "N") + (tb ? "T" : "N");
  }
};

/// Square products and a transformer layer's (projections, MLP, their
/// gradients' transposed forms, one attention head's), within the flops
/// range the efficiency curve covers.
std::vector<Shape> gemmShapes(bool quick) {
  // From the per-head products of small models (a few thousand flops,
  // where the call costs more than the arithmetic) to 1e10.
  const double lowest = 1e3, highest = quick ? 3e8 : 1.1e10;
  std::vector<Shape> shapes;
  auto add = [&](Shape shape) {
    if (shape.flops() >= lowest && shape.flops() <= highest)
      shapes.push_back(shape);
  };
  for (int64_t n : {8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768,
                    1024, 1448, 1720})
    add({n, n, n, 0, 0});
  std::vector<int64_t> widths = quick ? std::vector<int64_t>{64, 256}
                                      : std::vector<int64_t>{64, 256, 1024};
  std::vector<int64_t> tokens = quick ? std::vector<int64_t>{128, 512}
                                      : std::vector<int64_t>{128, 1024, 4096};
  for (int64_t d : widths)
    for (int64_t t : tokens) {
      add({t, 3 * d, d, 0, 0}); // QKV projection
      add({t, d, d, 0, 0});     // output projection
      add({t, 4 * d, d, 0, 0}); // MLP up
      add({t, d, 4 * d, 0, 0}); // MLP down
      add({t, d, 4 * d, 0, 1}); // input gradient: dy w^T
      add({d, 4 * d, t, 1, 0}); // weight gradient: x^T dy
    }
  for (int64_t s : quick ? std::vector<int64_t>{16, 64, 256}
                         : std::vector<int64_t>{16, 32, 64, 128, 256, 512})
    for (int64_t head : {8, 16, 32, 64, 128})
      if (head <= s) {
        add({s, s, head, 0, 1}); // q k^T
        add({s, head, s, 0, 0}); // a v
      }
  return shapes;
}

double gemmSeconds(KernelFn gemm, const Shape &shape, size_t elementSize,
                   double target, int batches, int threads, Share &share) {
  int64_t params[5] = {shape.m, shape.n, shape.k, shape.ta, shape.tb};
  auto run = [&](auto zero) {
    using T = decltype(zero);
    Buffer<T> a(shape.m * shape.k), b(shape.k * shape.n), c(shape.m * shape.n);
    void *args[4] = {params, a.get(), b.get(), c.get()};
    return timePerCall([&] { gemm(args); }, target, batches, threads, share);
  };
  return elementSize == 4 ? run(float()) : run(double());
}

/// The chain of `tasks` empty kernels that measures a firing: on one
/// stream, or alternating between the compute and comm streams (each
/// firing then wakes the other thread).
plan::Plan firingPlan(const std::string &library, int tasks, bool alternate) {
  plan::Plan plan;
  plan.set_version(1);
  plan.set_num_ranks(1);
  plan.set_kernel_library(library);
  for (int t = 0; t < tasks; ++t) {
    plan::Regst *regst = plan.add_regsts();
    regst->set_id(t);
    regst->set_name("v" + std::to_string(t));
    regst->mutable_desc()->set_dtype(plan::F32);
    regst->mutable_desc()->add_shape(1);
    regst->set_size_bytes(4);
    regst->set_num_slots(1);
    regst->set_weights_offset(-1);
    plan::Task *task = plan.add_tasks();
    task->set_id(t);
    task->set_kind(plan::KERNEL);
    task->set_name("noop " + std::to_string(t));
    task->set_stream(alternate && t % 2 ? "comm" : "compute");
    task->set_kernel_symbol("oneflow_calibrate_noop");
    if (t > 0)
      task->add_in_regsts(t - 1);
    task->add_out_regsts(t);
  }
  return plan;
}

/// The clocks around each of `runs` runs of `steps` steps of the chain of
/// `tasks` empty kernels (firingPlan).
Expected<std::vector<std::pair<Clocks, Clocks>>>
timeChain(const std::string &library, int tasks, bool alternate, int steps,
          int runs) {
  Expected<std::unique_ptr<Executor>> executor =
      Executor::create(firingPlan(library, tasks, alternate), ".");
  if (!executor.ok())
    return executor.error();
  std::vector<std::pair<Clocks, Clocks>> clocks;
  for (int r = 0; r < runs; ++r) {
    RunOptions options;
    options.steps = steps;
    Clocks start = Clocks::now();
    if (Status status = (*executor)->run(options, InputFeed(), OutputSink());
        !status.ok())
      return status;
    clocks.push_back({start, Clocks::now()});
  }
  return clocks;
}

/// Seconds per firing of an empty kernel in a chain on one stream, run by
/// the Executor (readiness checks, slot bookkeeping, the call): the CPU
/// time of a run (its one engine thread's; the caller sleeps) per firing,
/// the median of several runs.
Expected<double> firingSeconds(const std::string &library, bool quick,
                               Share &share) {
  const int tasks = 100, steps = quick ? 200 : 2000, runs = quick ? 3 : 7;
  auto clocks = timeChain(library, tasks, /*alternate=*/false, steps, runs);
  if (!clocks.ok())
    return clocks.error();
  std::vector<double> perFiring;
  for (const auto &[start, end] : *clocks) {
    perFiring.push_back((end.cpu - start.cpu) / double(steps * tasks));
    share.wall += end.wall - start.wall;
    share.cpu += end.cpu - start.cpu;
  }
  return median(perFiring);
}

/// Wall seconds per firing of the chain alternating between two streams,
/// less `firing`: what a handoff to another thread adds (its wake-up),
/// the median of several runs.
Expected<double> handoffSeconds(const std::string &library, bool quick,
                                double firing) {
  const int tasks = 100, steps = quick ? 20 : 200, runs = quick ? 3 : 7;
  auto clocks = timeChain(library, tasks, /*alternate=*/true, steps, runs);
  if (!clocks.ok())
    return clocks.error();
  std::vector<double> perHandoff;
  for (const auto &[start, end] : *clocks)
    perHandoff.push_back(std::max(
        0.0, (end.wall - start.wall) / double(steps * tasks) - firing));
  return median(perHandoff);
}

} // namespace

Expected<DeviceTimings>
measureDevice(const CalibrationOptions &options,
              const std::function<void()> &sync,
              const std::function<void(const std::string &)> &progress) {
  const std::string path = options.kernelsPath.empty()
                               ? calibrationKernelsPath()
                               : options.kernelsPath;
  Expected<std::unique_ptr<KernelLibrary>> library = KernelLibrary::open(path);
  if (!library.ok())
    return library.error();
  Expected<std::vector<KernelFn>> kernels = (*library)->lookupAll(
      {"oneflow_calibrate_gemm_f32", "oneflow_calibrate_gemm_f64",
       "oneflow_calibrate_vector_f32", "oneflow_calibrate_triad_f32",
       "oneflow_calibrate_vector_flops_per_element"});
  if (!kernels.ok())
    return kernels.error();
  const KernelFn gemmF32 = (*kernels)[0], gemmF64 = (*kernels)[1],
                 vector = (*kernels)[2], triad = (*kernels)[3],
                 flopsPerElement = (*kernels)[4];

  const bool quick = options.quick;
  const double target = quick ? 3e-4 : 2e-3;
  const int batches = quick ? 3 : 7;
  const int threads = std::max(1, options.threadsPerRank);
  DeviceTimings timings;
  Share share;

  std::vector<Shape> shapes = gemmShapes(quick);
  progress("f32 products (" + std::to_string(shapes.size()) + " shapes)");
  for (const Shape &shape : shapes) {
    sync();
    double time =
        gemmSeconds(gemmF32, shape, 4, target, batches, threads, share);
    timings.gemmF32.push_back(
        {shape.flops(), shape.flops() / time, shape.label()});
  }
  progress("f64 products");
  const Shape f64Shape =
      quick ? Shape{256, 256, 256, 0, 0} : Shape{1024, 1024, 1024, 0, 0};
  sync();
  timings.peakF64 = f64Shape.flops() / gemmSeconds(gemmF64, f64Shape, 8, target,
                                                   batches, threads, share);

  progress("vector arithmetic");
  {
    // 8 KiB per array and thread: both stay in the L1 cache.
    const int64_t n = 2048 * threads;
    const int64_t repeats = quick ? 20 : 100;
    Buffer<float> x(n), y(n);
    int64_t params[2] = {n, repeats};
    void *args[3] = {params, x.get(), y.get()};
    sync();
    double time =
        timePerCall([&] { vector(args); }, target, batches, threads, share);
    int64_t perElement = 0;
    void *countArgs[1] = {&perElement};
    flopsPerElement(countArgs);
    timings.vectorFlops = double(n * repeats * perElement) / time;
  }

  progress("memory bandwidth");
  // The triad over n elements per array, `repeats` times per call.
  auto triadBandwidth = [&](int64_t n, int64_t repeats) {
    Buffer<float> a(n), b(n), c(n);
    int64_t params[2] = {n, repeats};
    void *args[4] = {params, a.get(), b.get(), c.get()};
    sync();
    double time =
        timePerCall([&] { triad(args); }, target, batches, threads, share);
    return double(12 * n * repeats) / time;
  };
  // 3 arrays of 64 MiB (16 MiB quick) per rank: far beyond the caches, the
  // figure of the file. Then 3 x 512 KiB per thread, which stay in the
  // caches: only reported (the format has one bandwidth; kernels of small
  // models stream from the caches, see docs/runtime.md).
  timings.bandwidth = triadBandwidth(int64_t(quick ? 4 : 16) << 20, 1);
  timings.cacheBandwidth = triadBandwidth(int64_t(threads) << 17, 16);

  progress("firing cost");
  sync();
  Expected<double> firing = firingSeconds(path, quick, share);
  if (!firing.ok())
    return firing.error();
  timings.firingSeconds = *firing;
  progress("stream handoff");
  sync();
  Expected<double> handoff = handoffSeconds(path, quick, *firing);
  if (!handoff.ok())
    return handoff.error();
  timings.handoffSeconds = *handoff;
  if (options.localRanks >= 2) {
    // Every rank of this machine on its first allowed CPU: the chains of
    // all ranks share it, and each handoff switches between processes.
    progress("switches on a shared CPU");
    cpu_set_t allowed, first;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
      return makeError("cannot read the CPU affinity: ", std::strerror(errno));
    CPU_ZERO(&first);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &allowed)) {
        CPU_SET(cpu, &first);
        break;
      }
    sync();
    if (sched_setaffinity(0, sizeof(first), &first) != 0)
      return makeError("cannot bind to one CPU: ", std::strerror(errno));
    Expected<double> shared = handoffSeconds(path, quick, *firing);
    sched_setaffinity(0, sizeof(allowed), &allowed);
    if (!shared.ok())
      return shared.error();
    timings.sharedSwitchSeconds = *shared / options.localRanks;
  }
  timings.cpuShare = share.wall > 0 ? share.cpu / share.wall : 1;
  return timings;
}

} // namespace runtime
} // namespace oneflow
