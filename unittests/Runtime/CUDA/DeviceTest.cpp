//===- DeviceTest.cpp - Device, memory, streams, events, modules ----------===//

#include "CudaTestSupport.h"

#include "Driver.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>

using namespace oneflow::runtime;
using namespace oneflow::runtime::cuda;

namespace {

TEST(CudaDeviceOpen, NoDriver) {
  Expected<std::unique_ptr<Driver>> driver =
      Driver::load("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.error().message().rfind(
                "no CUDA driver (/nonexistent/libcuda.so.1: ", 0),
            0u)
      << driver.error().message();
  EXPECT_EQ(driver.error().message().find('\n'), std::string::npos);
}

TEST(CudaDeviceOpen, NoDriverFromEnvironment) {
  // Run by ctest in a process of its own, with ONEFLOW_CUDA_DRIVER set.
  const char *path = std::getenv("ONEFLOW_CUDA_DRIVER");
  if (!path || std::strstr(path, "/nonexistent/") != path)
    GTEST_SKIP() << "needs ONEFLOW_CUDA_DRIVER=/nonexistent/...";
  Expected<std::unique_ptr<Device>> device = Device::open(0);
  ASSERT_FALSE(device.ok());
  std::string expected = "no CUDA driver (" + std::string(path) + ": ";
  EXPECT_EQ(device.error().message().rfind(expected, 0), 0u)
      << device.error().message();
}

TEST(CudaDeviceOpen, NoDevice) {
  ::setenv("ONEFLOW_CUDA_STANDIN_DEVICES", "0", 1);
  Expected<std::unique_ptr<Device>> device = Device::open(0);
  ::unsetenv("ONEFLOW_CUDA_STANDIN_DEVICES");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().message(), "no CUDA device");
}

TEST(CudaDeviceOpen, OrdinalOutOfRange) {
  ::setenv("ONEFLOW_CUDA_STANDIN_DEVICES", "2", 1);
  Expected<std::unique_ptr<Device>> device = Device::open(5);
  Expected<std::unique_ptr<Device>> second = Device::open(1);
  ::unsetenv("ONEFLOW_CUDA_STANDIN_DEVICES");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().message(), "CUDA device 5 requested, 2 present");
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ((*second)->ordinal(), 1);
}

TEST(CudaDeviceOpen, Properties) {
  Expected<std::unique_ptr<Device>> device = Device::open(0);
  ASSERT_TRUE(device.ok()) << device.error().message();
  EXPECT_EQ((*device)->name(), "OneFlow stand-in GPU 0");
  EXPECT_EQ((*device)->computeMajor(), 9);
  EXPECT_EQ((*device)->computeMinor(), 0);
  EXPECT_EQ((*device)->totalMemory(), size_t(80) << 30);
  EXPECT_TRUE((*device)->makeCurrent().ok());
}

using CudaDeviceTest = CudaTest;

TEST_F(CudaDeviceTest, CopiesRoundTrip) {
  std::vector<float> values = randomF32(1000, 1);
  DevicePtr a = upload(values);
  DevicePtr b = allocate(values.size() * sizeof(float));
  expectOk(device->copyOnDevice(b, a, values.size() * sizeof(float), stream));
  EXPECT_EQ(download<float>(b, values.size()), values);
  EXPECT_EQ(a % 256, 0u);

  // Zero a middle part.
  expectOk(device->zero(b + 100 * sizeof(float), 50 * sizeof(float), stream));
  std::vector<float> zeroed = download<float>(b, values.size());
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(zeroed[i], i >= 100 && i < 150 ? 0.0f : values[i]) << i;

  std::vector<std::string> copies = logLinesWith("cuMemcpyAsync");
  ASSERT_EQ(copies.size(), 4u);
  std::string id = std::to_string(streamId(stream));
  EXPECT_EQ(copies[0], "cuMemcpyAsync HtoD stream=" + id + " bytes=4000");
  EXPECT_EQ(copies[1], "cuMemcpyAsync DtoD stream=" + id + " bytes=4000");
  EXPECT_EQ(copies[2], "cuMemcpyAsync DtoH stream=" + id + " bytes=4000");
  EXPECT_EQ(logLinesWith("cuMemsetD8Async").size(), 1u);
  EXPECT_EQ(logLinesWith("cuStreamSynchronize").size(), 2u);
}

TEST_F(CudaDeviceTest, ZeroBytesStillGetAnAddress) {
  Expected<DevicePtr> a = device->allocate(0), b = device->allocate(0);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, 0u);
  EXPECT_NE(*a, *b);
  expectOk(device->free(*a));
  expectOk(device->free(*b));
}

TEST_F(CudaDeviceTest, FreeErrorNamesTheCall) {
  Status status = device->free(0x1234);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "cuMemFree_v2: CUDA_ERROR_INVALID_VALUE (invalid argument)");
}

TEST_F(CudaDeviceTest, Copy2DRearrangesRows) {
  // A [4, 6] matrix; copy its columns 2..4 into a packed [4, 3] matrix.
  std::vector<double> matrix(24);
  std::iota(matrix.begin(), matrix.end(), 0.0);
  DevicePtr src = upload(matrix);
  DevicePtr dst = allocate(12 * sizeof(double));
  expectOk(device->copy2D(dst, 3 * sizeof(double), src + 2 * sizeof(double),
                          6 * sizeof(double), 3 * sizeof(double), 4, stream));
  std::vector<double> slice = download<double>(dst, 12);
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 3; ++col)
      EXPECT_EQ(slice[row * 3 + col], matrix[row * 6 + col + 2]);
  EXPECT_EQ(logLinesWith("cuMemcpy2DAsync").size(), 1u);
}

TEST_F(CudaDeviceTest, EventsOrderStreams) {
  Expected<Stream> other = device->createStream();
  ASSERT_TRUE(other.ok());
  Expected<Event> event = device->createEvent();
  ASSERT_TRUE(event.ok());
  expectOk(device->record(*event, stream));
  expectOk(device->streamWaitEvent(*other, *event));
  Expected<bool> done = device->query(*event);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(*done);
  // No timing on a plain event.
  EXPECT_FALSE(device->elapsedMs(*event, *event).ok());

  std::string a = std::to_string(streamId(stream)),
              b = std::to_string(streamId(*other));
  EXPECT_EQ(logLinesWith("cuStreamCreate stream=" + b + " flags=1").size(),
            1u); // non-blocking
  std::vector<std::string> records = logLinesWith("cuEventRecord");
  ASSERT_EQ(records.size(), 1u);
  std::string eventId = records[0].substr(records[0].find("event=") + 6);
  eventId = eventId.substr(0, eventId.find(' '));
  EXPECT_EQ(records[0], "cuEventRecord event=" + eventId + " stream=" + a);
  EXPECT_EQ(logLinesWith("cuStreamWaitEvent"),
            std::vector<std::string>{"cuStreamWaitEvent stream=" + b +
                                     " event=" + eventId});
  EXPECT_EQ(logLinesWith("cuEventCreate event=" + eventId + " timing=0").size(),
            1u);
  expectOk(device->destroyEvent(*event));
  expectOk(device->destroyStream(*other));
}

TEST_F(CudaDeviceTest, TimingEvents) {
  Expected<Event> start = device->createEvent(true),
                  end = device->createEvent(true);
  ASSERT_TRUE(start.ok() && end.ok());
  // Not yet recorded: the driver's error, named.
  Expected<float> early = device->elapsedMs(*start, *end);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().message().rfind("cuEventElapsedTime_v2: "
                                          "CUDA_ERROR_INVALID_HANDLE",
                                          0),
            0u);
  expectOk(device->record(*start, stream));
  expectOk(device->record(*end, stream));
  expectOk(device->synchronize(*end));
  Expected<float> ms = device->elapsedMs(*start, *end);
  ASSERT_TRUE(ms.ok()) << ms.error().message();
  EXPECT_GE(*ms, 0.0f);
  expectOk(device->destroyEvent(*start));
  expectOk(device->destroyEvent(*end));
}

/// A file laid out like a fatbin (header, then images) whose PTX is stored
/// uncompressed, as the compiler packs it.
std::string writeFatbin(const std::string &ptx) {
  std::string payload = std::string("\x01\x02\x00\x03 cubin bytes", 16) + ptx;
  std::string file(16, '\0');
  uint32_t magic = 0xBA55ED50u;
  uint16_t version = 1, headerSize = 16;
  uint64_t size = payload.size();
  std::memcpy(&file[0], &magic, 4);
  std::memcpy(&file[4], &version, 2);
  std::memcpy(&file[6], &headerSize, 2);
  std::memcpy(&file[8], &size, 8);
  char path[] = "/tmp/oneflow-cuda-fatbin-XXXXXX";
  int fd = ::mkstemp(path);
  ::close(fd);
  std::ofstream(path, std::ios::binary) << file << payload;
  return path;
}

const char *kTestPtx = R"(
.version 8.5
.target sm_90
.address_size 64

.visible .entry add_kernel(
	.param .u64 add_kernel_param_0,
	.param .u64 add_kernel_param_1,
	.param .u64 add_kernel_param_2
)
{
	ret;
}

.visible .entry no_params()
{
	ret;
}

.visible .entry narrow(
	.param .u64 .ptr .align 1 narrow_param_0,
	.param .u32 narrow_param_1
)
{
	ret;
}
.visible .entry wide(
	.param .u64 wide_param_0,
	.param .align 8 .b8 wide_param_1[16]
)
{
	ret;
}
)";

TEST_F(CudaDeviceTest, ModuleParamCounts) {
  std::string path = writeFatbin(kTestPtx);
  Expected<std::unique_ptr<Module>> module = device->loadModule(path);
  std::remove(path.c_str());
  ASSERT_TRUE(module.ok()) << module.error().message();
  Expected<std::vector<GpuFunction>> functions =
      (*module)->functions({"add_kernel", "no_params"});
  ASSERT_TRUE(functions.ok()) << functions.error().message();
  EXPECT_EQ((*functions)[0].name, "add_kernel");
  EXPECT_EQ((*functions)[0].paramCount, 3);
  EXPECT_EQ((*functions)[1].paramCount, 0);

  Expected<GpuFunction> missing = (*module)->function("absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "GPU kernel absent of " + path +
                ": cuModuleGetFunction: CUDA_ERROR_NOT_FOUND (named symbol "
                "not found)");
  // A pointer parameter (NVVM's `.ptr .align 1` form) and a 4-byte one,
  // which sits in the low bytes of its 8-byte slot.
  Expected<GpuFunction> narrow = (*module)->function("narrow");
  ASSERT_TRUE(narrow.ok()) << narrow.error().message();
  EXPECT_EQ(narrow->paramCount, 2);
  Expected<GpuFunction> wide = (*module)->function("wide");
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().message(),
            "GPU kernel wide parameter 1 is 16 bytes (the kernel ABI passes "
            "values of up to 8 bytes)");
}

TEST_F(CudaDeviceTest, ModuleErrors) {
  Expected<std::unique_ptr<Module>> absent =
      device->loadModule("/nonexistent/kernels.fatbin");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().message(),
            "cannot read GPU kernels /nonexistent/kernels.fatbin");
  std::string path = writeFatbin("no entries here");
  Expected<std::unique_ptr<Module>> empty = device->loadModule(path);
  std::remove(path.c_str());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message(),
            path + ": cuModuleLoadData: CUDA_ERROR_INVALID_IMAGE (device "
                   "kernel image is invalid)");
}

} // namespace
