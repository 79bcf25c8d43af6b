//===- NcclTestMain.cpp - GoogleTest under mpirun -------------------------===//
//
// Every rank runs every test in the same order (tests call collectives).
// Rank 0 prints GoogleTest's report; the others print only their failures,
// prefixed with their rank. The exit status is nonzero on any failing rank
// (mpirun returns it).
//
//===----------------------------------------------------------------------===//

#include "NcclTestSupport.h"

#include "oneflow/Runtime/Collectives.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace oneflow {
namespace runtime {
namespace cuda {

Expected<DevicePtr> HostDeviceOps::allocate(int64_t bytes, StreamHandle) {
  void *p = std::malloc(size_t(std::max<int64_t>(bytes, 1)));
  if (!p)
    return makeError("out of host memory");
  ++live;
  ++allocations;
  return devicePtr(p);
}

void HostDeviceOps::free(DevicePtr pointer, StreamHandle) {
  --live;
  std::free(reinterpret_cast<void *>(uintptr_t(pointer)));
}

Status HostDeviceOps::copy2D(DevicePtr dst, int64_t dstPitch, DevicePtr src,
                             int64_t srcPitch, int64_t widthBytes,
                             int64_t height, StreamHandle) {
  if (widthBytes > dstPitch || widthBytes > srcPitch)
    return makeError("copy2D: rows wider than their pitch");
  ++copies;
  for (int64_t row = 0; row < height; ++row)
    std::memcpy(reinterpret_cast<char *>(uintptr_t(dst + row * dstPitch)),
                reinterpret_cast<const char *>(uintptr_t(src + row * srcPitch)),
                size_t(widthBytes));
  return Status::success();
}

Status HostDeviceOps::convert(DevicePtr dst, plan::DataType dstType,
                              DevicePtr src, plan::DataType srcType,
                              int64_t count, StreamHandle) {
  ++conversions;
  auto *out = reinterpret_cast<void *>(uintptr_t(dst));
  auto *in = reinterpret_cast<const void *>(uintptr_t(src));
  if (dstType == plan::F32 && (srcType == plan::F16 || srcType == plan::BF16)) {
    for (int64_t i = 0; i < count; ++i) {
      uint16_t bits = static_cast<const uint16_t *>(in)[i];
      static_cast<float *>(out)[i] =
          srcType == plan::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
    }
    return Status::success();
  }
  if (srcType == plan::F32 && (dstType == plan::F16 || dstType == plan::BF16)) {
    for (int64_t i = 0; i < count; ++i) {
      float value = static_cast<const float *>(in)[i];
      static_cast<uint16_t *>(out)[i] =
          dstType == plan::F16 ? floatToHalf(value) : floatToBfloat16(value);
    }
    return Status::success();
  }
  return makeError("convert: unsupported conversion");
}

int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int worldSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::shared_ptr<const Nccl> standInNccl() {
  static std::shared_ptr<const Nccl> lib = [] {
    ScopedEnv unset("ONEFLOW_NCCL_LIBRARY", nullptr);
    Expected<std::shared_ptr<const Nccl>> loaded = Nccl::load();
    if (!loaded.ok()) {
      std::fprintf(stderr, "rank %d: %s\n", worldRank(),
                   loaded.error().message().c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return *loaded;
  }();
  return lib;
}

ScopedEnv::ScopedEnv(const char *name, const char *value) : name(name) {
  if (const char *current = std::getenv(name)) {
    had = true;
    old = current;
  }
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (had)
    setenv(name.c_str(), old.c_str(), 1);
  else
    unsetenv(name.c_str());
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow

namespace {

/// Failures of a rank other than 0, one line each with the rank.
class RankFailurePrinter : public testing::EmptyTestEventListener {
public:
  explicit RankFailurePrinter(int rank) : rank(rank) {}
  void OnTestPartResult(const testing::TestPartResult &result) override {
    if (result.failed())
      std::fprintf(stderr, "rank %d: %s:%d: failure\n%s\n", rank,
                   result.file_name() ? result.file_name() : "?",
                   result.line_number(), result.summary());
  }

private:
  int rank;
};

} // namespace

int main(int argc, char **argv) {
  // MULTIPLE: the both-directions test runs a send and a receive on two
  // threads, as they would run on two streams.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  testing::InitGoogleTest(&argc, argv);
  int rank = oneflow::runtime::cuda::worldRank();
  if (rank != 0) {
    testing::TestEventListeners &listeners =
        testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  if (provided < MPI_THREAD_MULTIPLE && rank == 0)
    std::fprintf(stderr, "warning: MPI without MPI_THREAD_MULTIPLE\n");
  int failed = RUN_ALL_TESTS();
  // Destroy communicators before MPI goes (they hold MPI communicators in
  // the stand-in): the tests own theirs.
  MPI_Finalize();
  return failed;
}
