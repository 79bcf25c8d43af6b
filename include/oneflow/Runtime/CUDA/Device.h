//===- Device.h - One CUDA device through the driver API --------*- C++ -*-===//
//
// The device layer of oneflow-run: libcuda.so.1 is loaded with dlopen (env
// ONEFLOW_CUDA_DRIVER overrides the path), so the runtime neither links nor
// needs CUDA unless a plan runs on a GPU. A Device holds the device's
// primary context; every thread using it calls makeCurrent() first. Copies,
// memsets and allocations take a stream and are asynchronous; every failure
// is a Status naming the driver call and its error.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CUDA_DEVICE_H
#define ONEFLOW_RUNTIME_CUDA_DEVICE_H

#include "oneflow/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// The driver's opaque handle types (cuda.h spells them so too).
struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
struct CUmod_st;
struct CUfunc_st;

namespace oneflow {
namespace runtime {
namespace cuda {

class Driver;
class Device;

/// A device address (CUdeviceptr).
using DevicePtr = uint64_t;
using Stream = CUstream_st *;
using Event = CUevent_st *;

/// A kernel of a loaded module.
struct GpuFunction {
  std::string name;
  CUfunc_st *handle = nullptr;
  /// Its parameter count from cuFuncGetParamInfo, or -1 where the driver
  /// cannot tell (older than CUDA 12.4).
  int paramCount = -1;
};

/// A fatbin (or PTX) image loaded into the device's context.
class Module {
public:
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// The function `name`, with its parameter count; an error if the module
  /// lacks it or a parameter is not 8 bytes (the kernel ABI passes int64s).
  Expected<GpuFunction> function(const std::string &name) const;
  /// Every function of `names`, in order; one error lists the failures.
  Expected<std::vector<GpuFunction>>
  functions(const std::vector<std::string> &names) const;

private:
  friend class Device;
  Module(const Device &device, CUmod_st *handle, std::string path)
      : device(device), handle(handle), path(std::move(path)) {}

  const Device &device;
  CUmod_st *handle;
  std::string path;
};

class Device {
public:
  /// Loads the driver (once per process), initializes it and retains the
  /// primary context of device `ordinal`, current on the calling thread.
  static Expected<std::unique_ptr<Device>> open(int ordinal);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  /// Binds the device's context to the calling thread.
  Status makeCurrent() const;

  int ordinal() const { return deviceOrdinal; }
  const std::string &name() const { return deviceName; }
  int computeMajor() const { return major; }
  int computeMinor() const { return minor; }
  size_t totalMemory() const { return memoryBytes; }
  const Driver &driver() const { return api; }

  /// Device memory (cuMemAlloc); 0 bytes still gets a distinct address.
  Expected<DevicePtr> allocate(size_t bytes) const;
  Status free(DevicePtr pointer) const;

  /// Stream-ordered memory (cuMemAllocAsync / cuMemFreeAsync).
  Expected<DevicePtr> allocateAsync(size_t bytes, Stream stream) const;
  Status freeAsync(DevicePtr pointer, Stream stream) const;

  Status copyToDevice(DevicePtr dst, const void *src, size_t bytes,
                      Stream stream) const;
  Status copyToHost(void *dst, DevicePtr src, size_t bytes,
                    Stream stream) const;
  Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes,
                      Stream stream) const;
  /// `rows` rows of `rowBytes` bytes, rows `dstPitch` / `srcPitch` bytes
  /// apart (the collectives' rearrangements of slices).
  Status copy2D(DevicePtr dst, size_t dstPitch, DevicePtr src, size_t srcPitch,
                size_t rowBytes, size_t rows, Stream stream) const;
  Status zero(DevicePtr dst, size_t bytes, Stream stream) const;
  /// Blocks the host until the stream's work is done.
  Status synchronize(Stream stream) const;

  /// A stream that does not synchronize with the legacy default stream.
  Expected<Stream> createStream() const;
  Status destroyStream(Stream stream) const;

  /// An event; without `timing` it is cheaper (ordering only).
  Expected<Event> createEvent(bool timing = false) const;
  Status destroyEvent(Event event) const;
  Status record(Event event, Stream stream) const;
  /// Work enqueued on `stream` after this waits for `event`.
  Status streamWaitEvent(Stream stream, Event event) const;
  /// Milliseconds between two recorded timing events.
  Expected<float> elapsedMs(Event start, Event end) const;
  /// Whether the work before the event's record has completed.
  Expected<bool> query(Event event) const;
  Status synchronize(Event event) const;

  /// Loads the fatbin (or PTX) file at `path`.
  Expected<std::unique_ptr<Module>> loadModule(const std::string &path) const;

private:
  Device(const Driver &api, int ordinal) : api(api), deviceOrdinal(ordinal) {}

  const Driver &api;
  int deviceOrdinal;
  int handle = 0; // CUdevice
  CUctx_st *context = nullptr;
  std::string deviceName;
  int major = 0, minor = 0;
  size_t memoryBytes = 0;
};

} // namespace cuda
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_CUDA_DEVICE_H
