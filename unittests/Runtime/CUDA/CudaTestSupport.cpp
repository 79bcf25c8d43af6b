//===- CudaTestSupport.cpp - Device tests on the stand-ins ----------------===//

#include "CudaTestSupport.h"

#include "StandIn.h"

#include <cstdlib>
#include <fstream>
#include <random>
#include <unistd.h>

namespace oneflow {
namespace runtime {
namespace cuda {

void CudaTest::SetUp() {
  char path[] = "/tmp/oneflow-cuda-standin-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  logPath = path;
  ::setenv("ONEFLOW_CUDA_STANDIN_LOG", path, 1);
  Expected<std::unique_ptr<Device>> opened = Device::open(0);
  ASSERT_TRUE(opened.ok()) << opened.error().message();
  device = opened.take();
  Expected<Stream> created = device->createStream();
  ASSERT_TRUE(created.ok()) << created.error().message();
  stream = *created;
}

void CudaTest::TearDown() {
  if (device) {
    for (DevicePtr buffer : buffers)
      expectOk(device->free(buffer));
    if (stream)
      expectOk(device->destroyStream(stream));
  }
  device.reset();
  ::unsetenv("ONEFLOW_CUDA_STANDIN_LOG");
  std::remove(logPath.c_str());
}

std::vector<std::string> CudaTest::logLines() const {
  std::vector<std::string> lines;
  std::ifstream file(logPath);
  for (std::string line; std::getline(file, line);)
    lines.push_back(line);
  return lines;
}

std::vector<std::string> CudaTest::logLinesWith(const std::string &text) const {
  std::vector<std::string> lines;
  for (const std::string &line : logLines())
    if (line.find(text) != std::string::npos)
      lines.push_back(line);
  return lines;
}

void CudaTest::clearLog() const { std::ofstream truncate(logPath); }

int CudaTest::streamId(Stream stream) { return standin::streamId(stream); }

DevicePtr CudaTest::allocate(size_t bytes) {
  Expected<DevicePtr> pointer = device->allocate(bytes);
  EXPECT_TRUE(pointer.ok()) << pointer.error().message();
  if (!pointer.ok())
    return 0;
  buffers.push_back(*pointer);
  return *pointer;
}

template <typename T> static std::vector<T> random(size_t n, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<T> distribution(-1, 1);
  std::vector<T> values(n);
  for (T &value : values)
    value = distribution(engine);
  return values;
}

std::vector<float> randomF32(size_t n, unsigned seed) {
  return random<float>(n, seed);
}
std::vector<double> randomF64(size_t n, unsigned seed) {
  return random<double>(n, seed);
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
