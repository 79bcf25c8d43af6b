//===- Device.cpp - One CUDA device through the driver API ----------------===//

#include "oneflow/Runtime/CUDA/Device.h"

#include "Driver.h"

#include <algorithm>

namespace oneflow {
namespace runtime {
namespace cuda {

Expected<std::unique_ptr<Device>> Device::open(int ordinal) {
  Expected<const Driver *> loaded = Driver::get();
  if (!loaded.ok())
    return loaded.error();
  const Driver &api = **loaded;
  CUresult init = api.init(0);
  if (init == CUDA_ERROR_NO_DEVICE)
    return Status::error("no CUDA device");
  if (Status status = api.check(init, "cuInit"); !status.ok())
    return status;
  int count = 0;
  ONEFLOW_CU_CHECK(api, "cuDeviceGetCount", deviceGetCount(&count));
  if (count == 0)
    return Status::error("no CUDA device");
  if (ordinal < 0 || ordinal >= count)
    return makeError("CUDA device ", ordinal, " requested, ", count,
                     " present");

  std::unique_ptr<Device> device(new Device(api, ordinal));
  ONEFLOW_CU_CHECK(api, "cuDeviceGet", deviceGet(&device->handle, ordinal));
  char name[256] = {};
  ONEFLOW_CU_CHECK(api, "cuDeviceGetName",
                   deviceGetName(name, sizeof(name) - 1, device->handle));
  device->deviceName = name;
  ONEFLOW_CU_CHECK(
      api, "cuDeviceGetAttribute",
      deviceGetAttribute(&device->major,
                         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         device->handle));
  ONEFLOW_CU_CHECK(
      api, "cuDeviceGetAttribute",
      deviceGetAttribute(&device->minor,
                         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         device->handle));
  ONEFLOW_CU_CHECK(api, "cuDeviceTotalMem_v2",
                   deviceTotalMem(&device->memoryBytes, device->handle));
  // The primary context is the one the CUDA runtime and libraries share.
  CUcontext context = nullptr;
  ONEFLOW_CU_CHECK(api, "cuDevicePrimaryCtxRetain",
                   primaryCtxRetain(&context, device->handle));
  device->context = context;
  if (Status current = device->makeCurrent(); !current.ok())
    return current;
  return std::move(device);
}

Device::~Device() {
  if (context)
    (void)api.primaryCtxRelease(handle);
}

Status Device::makeCurrent() const {
  return api.check(api.ctxSetCurrent(context), "cuCtxSetCurrent");
}

Expected<DevicePtr> Device::allocate(size_t bytes) const {
  CUdeviceptr pointer = 0;
  // cuMemAlloc rejects 0 bytes; an empty buffer still gets an address.
  ONEFLOW_CU_CHECK(api, "cuMemAlloc_v2",
                   memAlloc(&pointer, std::max<size_t>(bytes, 1)));
  return DevicePtr(pointer);
}

Status Device::free(DevicePtr pointer) const {
  return api.check(api.memFree(pointer), "cuMemFree_v2");
}

Expected<DevicePtr> Device::allocateAsync(size_t bytes, Stream stream) const {
  CUdeviceptr pointer = 0;
  ONEFLOW_CU_CHECK(api, "cuMemAllocAsync",
                   memAllocAsync(&pointer, std::max<size_t>(bytes, 1), stream));
  return DevicePtr(pointer);
}

Status Device::freeAsync(DevicePtr pointer, Stream stream) const {
  return api.check(api.memFreeAsync(pointer, stream), "cuMemFreeAsync");
}

Status Device::copyToDevice(DevicePtr dst, const void *src, size_t bytes,
                            Stream stream) const {
  if (bytes == 0)
    return Status::success();
  return api.check(api.memcpyHtoDAsync(dst, src, bytes, stream),
                   "cuMemcpyHtoDAsync_v2");
}

Status Device::copyToHost(void *dst, DevicePtr src, size_t bytes,
                          Stream stream) const {
  if (bytes == 0)
    return Status::success();
  return api.check(api.memcpyDtoHAsync(dst, src, bytes, stream),
                   "cuMemcpyDtoHAsync_v2");
}

Status Device::copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes,
                            Stream stream) const {
  if (bytes == 0)
    return Status::success();
  return api.check(api.memcpyDtoDAsync(dst, src, bytes, stream),
                   "cuMemcpyDtoDAsync_v2");
}

Status Device::copy2D(DevicePtr dst, size_t dstPitch, DevicePtr src,
                      size_t srcPitch, size_t rowBytes, size_t rows,
                      Stream stream) const {
  if (rowBytes == 0 || rows == 0)
    return Status::success();
  CUDA_MEMCPY2D copy = {};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = src;
  copy.srcPitch = srcPitch;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = dst;
  copy.dstPitch = dstPitch;
  copy.WidthInBytes = rowBytes;
  copy.Height = rows;
  return api.check(api.memcpy2DAsync(&copy, stream), "cuMemcpy2DAsync_v2");
}

Status Device::zero(DevicePtr dst, size_t bytes, Stream stream) const {
  if (bytes == 0)
    return Status::success();
  return api.check(api.memsetD8Async(dst, 0, bytes, stream), "cuMemsetD8Async");
}

Status Device::synchronize(Stream stream) const {
  return api.check(api.streamSynchronize(stream), "cuStreamSynchronize");
}

Expected<Stream> Device::createStream() const {
  CUstream stream = nullptr;
  ONEFLOW_CU_CHECK(api, "cuStreamCreate",
                   streamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return Stream(stream);
}

Status Device::destroyStream(Stream stream) const {
  return api.check(api.streamDestroy(stream), "cuStreamDestroy_v2");
}

Expected<Event> Device::createEvent(bool timing) const {
  CUevent event = nullptr;
  ONEFLOW_CU_CHECK(
      api, "cuEventCreate",
      eventCreate(&event, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING));
  return Event(event);
}

Status Device::destroyEvent(Event event) const {
  return api.check(api.eventDestroy(event), "cuEventDestroy_v2");
}

Status Device::record(Event event, Stream stream) const {
  return api.check(api.eventRecord(event, stream), "cuEventRecord");
}

Status Device::streamWaitEvent(Stream stream, Event event) const {
  return api.check(api.streamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

Expected<float> Device::elapsedMs(Event start, Event end) const {
  float ms = 0;
  if (api.eventElapsedTimeV2)
    ONEFLOW_CU_CHECK(api, "cuEventElapsedTime_v2",
                     eventElapsedTimeV2(&ms, start, end));
  else if (api.eventElapsedTime)
    ONEFLOW_CU_CHECK(api, "cuEventElapsedTime",
                     eventElapsedTime(&ms, start, end));
  else
    return Status::error("cuEventElapsedTime: not in this CUDA driver");
  return ms;
}

Expected<bool> Device::query(Event event) const {
  CUresult result = api.eventQuery(event);
  if (result == CUDA_ERROR_NOT_READY)
    return false;
  if (Status status = api.check(result, "cuEventQuery"); !status.ok())
    return status;
  return true;
}

Status Device::synchronize(Event event) const {
  return api.check(api.eventSynchronize(event), "cuEventSynchronize");
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
