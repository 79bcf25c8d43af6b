//===- CudaTestSupport.h - Device tests on the stand-ins --------*- C++ -*-===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_CUDA_CUDATESTSUPPORT_H
#define ONEFLOW_UNITTESTS_RUNTIME_CUDA_CUDATESTSUPPORT_H

#include "oneflow/Runtime/CUDA/Device.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace oneflow {
namespace runtime {
namespace cuda {

/// Each test logs the stand-ins' calls to a fresh file and opens device 0
/// with a stream.
class CudaTest : public ::testing::Test {
protected:
  void SetUp() override;
  void TearDown() override;

  /// The log's lines so far.
  std::vector<std::string> logLines() const;
  /// The lines that contain `text`.
  std::vector<std::string> logLinesWith(const std::string &text) const;
  void clearLog() const;

  /// The id the stand-in driver gave `stream`.
  static int streamId(Stream stream);

  /// Copies to a fresh device buffer (freed at TearDown).
  template <typename T> DevicePtr upload(const std::vector<T> &host) {
    DevicePtr pointer = allocate(host.size() * sizeof(T));
    expectOk(device->copyToDevice(pointer, host.data(), host.size() * sizeof(T),
                                  stream));
    return pointer;
  }
  template <typename T> std::vector<T> download(DevicePtr pointer, size_t n) {
    std::vector<T> host(n);
    expectOk(device->copyToHost(host.data(), pointer, n * sizeof(T), stream));
    expectOk(device->synchronize(stream));
    return host;
  }
  DevicePtr allocate(size_t bytes);
  static void expectOk(const Status &status) {
    EXPECT_TRUE(status.ok()) << status.message();
  }

  std::string logPath;
  std::unique_ptr<Device> device;
  Stream stream = nullptr;
  std::vector<DevicePtr> buffers;
};

/// Random values in [-1, 1), fixed seed.
std::vector<float> randomF32(size_t n, unsigned seed);
std::vector<double> randomF64(size_t n, unsigned seed);

} // namespace cuda
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_UNITTESTS_RUNTIME_CUDA_CUDATESTSUPPORT_H
