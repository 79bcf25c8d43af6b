//===- TestKernels.cpp - A real kernel library for the runtime tests ------===//
//
// Built as a MODULE and loaded through the runtime's dlopen path. Vectors
// are kTestLength (4) elements; see TestSupport.h.
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <sched.h>
#include <stdexcept>
#include <thread>
#include <unistd.h>

#define TEST_KERNEL extern "C" __attribute__((visibility("default")))

namespace {
constexpr int kLength = 4;
constexpr int kLogCapacity = 1 << 20;
std::atomic<int> logSize{0};
int32_t logEntries[kLogCapacity];

float *f32(void *p) { return static_cast<float *>(p); }

void record(void *id) {
  int slot = logSize.fetch_add(1);
  if (slot < kLogCapacity)
    logEntries[slot] = *static_cast<int32_t *>(id);
}
} // namespace

// out = a + b
TEST_KERNEL void test_add_f32(void **args) {
  for (int i = 0; i < kLength; ++i)
    f32(args[2])[i] = f32(args[0])[i] + f32(args[1])[i];
}

// out = x * scale[0]
TEST_KERNEL void test_scale(void **args) {
  for (int i = 0; i < kLength; ++i)
    f32(args[2])[i] = f32(args[0])[i] * f32(args[1])[0];
}

// out = x
TEST_KERNEL void test_copy_f32(void **args) {
  std::memcpy(args[1], args[0], kLength * sizeof(float));
}

// Appends the i32 in args[0] to the call log; out = args[1].
TEST_KERNEL void test_record(void **args) {
  record(args[0]);
  std::memcpy(args[2], args[1], kLength * sizeof(float));
}

// test_record after 2 ms: a slow consumer.
TEST_KERNEL void test_slow_record(void **args) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  test_record(args);
}

// out = {CPUs this thread may run on, the lowest of them, x[2], x[3]}.
TEST_KERNEL void test_thread_cpus(void **args) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  float count = -1, lowest = -1;
  if (pthread_getaffinity_np(pthread_self(), sizeof(cpus), &cpus) == 0) {
    count = float(CPU_COUNT(&cpus));
    for (int cpu = 0; cpu < CPU_SETSIZE && lowest < 0; ++cpu)
      if (CPU_ISSET(cpu, &cpus))
        lowest = float(cpu);
  }
  f32(args[1])[0] = count;
  f32(args[1])[1] = lowest;
  f32(args[1])[2] = f32(args[0])[2];
  f32(args[1])[3] = f32(args[0])[3];
}

// out = x, after 1 ms.
TEST_KERNEL void test_slow_copy_f32(void **args) {
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  test_copy_f32(args);
}

// out (f32, one element) = the sum of x: a "loss".
TEST_KERNEL void test_sum_f32(void **args) {
  float sum = 0;
  for (int i = 0; i < kLength; ++i)
    sum += f32(args[0])[i];
  f32(args[1])[0] = sum;
}

// Multi-rank tests.

// out (i32[2]) = OMP_NUM_THREADS, OPENBLAS_NUM_THREADS as this process sees
// them (-1 when unset): the thread budget of its rank.
TEST_KERNEL void test_thread_env(void **args) {
  int32_t *out = static_cast<int32_t *>(args[0]);
  const char *names[2] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"};
  for (int i = 0; i < 2; ++i) {
    const char *value = std::getenv(names[i]);
    out[i] = value ? int32_t(std::atoi(value)) : -1;
  }
}

// A rank that dies in the middle of a run (exit status 3).
TEST_KERNEL void test_exit_3(void **) { _exit(3); }

// A kernel that fails: throws (the runtime catches it on its thread).
TEST_KERNEL void test_throw(void **) {
  throw std::runtime_error("test_throw failed");
}

// Watchdog tests. out = x, but call number $ONEFLOW_TEST_HANG_CALL (default
// 3) of this process blocks until test_hang_release(): never, in a lit test
// (a hung kernel, or a peer that never sends what it computes).
namespace {
std::atomic<int> hangCalls{0};
std::atomic<bool> hangReleased{false};
} // namespace

TEST_KERNEL void test_hang(void **args) {
  const char *call = std::getenv("ONEFLOW_TEST_HANG_CALL");
  if (hangCalls.fetch_add(1) + 1 == (call ? std::atoi(call) : 3))
    while (!hangReleased.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  test_copy_f32(args);
}
TEST_KERNEL void test_hang_reset() {
  hangCalls = 0;
  hangReleased = false;
}
TEST_KERNEL void test_hang_release() { hangReleased = true; }

// out = x, after 100 ms: a slow but steady step.
TEST_KERNEL void test_copy_100ms_f32(void **args) {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  test_copy_f32(args);
}

// Nothing: measures the runtime alone.
TEST_KERNEL void test_noop(void **) {}

TEST_KERNEL void test_log_reset() { logSize = 0; }
TEST_KERNEL int test_log_size() { return logSize.load(); }
TEST_KERNEL int32_t test_log_get(int i) { return logEntries[i]; }
