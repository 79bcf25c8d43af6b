//===- CudaStandIn.cpp - libcuda.so.1 without a GPU -----------------------===//
//
// ONEFLOW_CUDA_STANDIN_DEVICES devices (default 1; 0: cuInit fails with
// CUDA_ERROR_NO_DEVICE). Memory is 256-byte aligned host memory; copies
// and memsets run at once. Modules are read like the real driver reads the
// PTX of a fatbin: each `.entry NAME(` and its `.param` lines, so that
// cuFuncGetParamInfo answers as it would. Launches are logged, not run.
//
// ONEFLOW_CUDA_STANDIN_HANG_LAUNCH=N: the N-th kernel launch of the process
// never finishes (a hung kernel, for the watchdog's tests): its stream, and
// every stream that waits for one of its events, hangs; events recorded on
// a hung stream stay pending (cuEventQuery: CUDA_ERROR_NOT_READY) and
// synchronizing a hung stream or event blocks forever.
//
//===----------------------------------------------------------------------===//

#include "CudaApi.h"
#include "StandIn.h"
#include <cctype>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#define STANDIN_API extern "C" __attribute__((visibility("default")))

struct CUctx_st {
  int device;
};
struct CUevent_st {
  int id;
  unsigned flags;
  bool recorded = false;
  std::chrono::steady_clock::time_point time;
  std::atomic<bool> pending{false}; // recorded on a hung stream
};
struct CUfunc_st {
  std::string name;
  std::vector<size_t> paramSizes;
};
struct CUmod_st {
  std::vector<std::unique_ptr<CUfunc_st>> functions;
};

namespace {

std::mutex mutex;
int deviceCount = -1; // -1: cuInit not called
int nextStream = 1, nextEvent = 1;
std::map<CUdeviceptr, size_t> allocations;
CUctx_st contexts[16];
thread_local CUcontext current = nullptr;

int configuredDevices() {
  const char *count = std::getenv("ONEFLOW_CUDA_STANDIN_DEVICES");
  return count && *count ? std::atoi(count) : 1;
}

CUresult allocate(CUdeviceptr *pointer, size_t bytes, CUstream stream,
                  const char *call) {
  if (!pointer || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = reinterpret_cast<CUdeviceptr>(memory);
  {
    std::lock_guard<std::mutex> lock(mutex);
    allocations[*pointer] = bytes;
  }
  standin::log("%s stream=%d bytes=%zu", call, standin::streamId(stream),
               bytes);
  return CUDA_SUCCESS;
}

CUresult release(CUdeviceptr pointer, CUstream stream, const char *call) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = allocations.find(pointer);
    if (found == allocations.end())
      return CUDA_ERROR_INVALID_VALUE;
    standin::log("%s stream=%d bytes=%zu", call, standin::streamId(stream),
                 found->second);
    allocations.erase(found);
  }
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}

void *host(CUdeviceptr pointer) { return reinterpret_cast<void *>(pointer); }

/// The size in bytes of a PTX parameter declaration after `.param`
/// (".u64 name", ".align 8 .b8 name[16]").
size_t paramSize(const std::string &declaration) {
  // The first type token (.u64, .f32, .b8 ...); `.ptr` and `.align N` may
  // follow it (pointer parameters) or `.align N` precede it (arrays).
  size_t bits = 0, count = 1;
  for (size_t at = declaration.find('.'); at != std::string::npos;
       at = declaration.find('.', at + 1)) {
    char kind = at + 1 < declaration.size() ? declaration[at + 1] : 0;
    if ((kind == 'u' || kind == 's' || kind == 'b' || kind == 'f') &&
        at + 2 < declaration.size() && std::isdigit(declaration[at + 2])) {
      bits = std::strtoul(declaration.c_str() + at + 2, nullptr, 10);
      break;
    }
  }
  size_t bracket = declaration.find('[');
  if (bracket != std::string::npos)
    count = std::strtoul(declaration.c_str() + bracket + 1, nullptr, 10);
  return bits / 8 * count;
}

/// The entries of the PTX in `text`.
std::unique_ptr<CUmod_st> parsePtx(const std::string &text) {
  auto module = std::make_unique<CUmod_st>();
  size_t at = 0;
  while ((at = text.find(".entry ", at)) != std::string::npos) {
    at += 7;
    size_t open = text.find('(', at);
    if (open == std::string::npos)
      break;
    auto function = std::make_unique<CUfunc_st>();
    function->name = text.substr(at, open - at);
    while (!function->name.empty() && function->name.back() == ' ')
      function->name.pop_back();
    size_t close = text.find(')', open);
    if (close == std::string::npos)
      break;
    std::string params = text.substr(open + 1, close - open - 1);
    for (size_t p = params.find(".param"); p != std::string::npos;
         p = params.find(".param", p + 6)) {
      size_t end = params.find_first_of(",\n", p);
      function->paramSizes.push_back(paramSize(params.substr(
          p + 6, end == std::string::npos ? std::string::npos : end - p - 6)));
    }
    module->functions.push_back(std::move(function));
    at = close;
  }
  return module;
}

} // namespace

STANDIN_API CUresult cuGetErrorName(CUresult error, const char **text) {
  static const std::map<int, const char *> names = {
      {CUDA_SUCCESS, "CUDA_SUCCESS"},
      {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
      {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
      {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
      {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
      {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
      {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
      {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
      {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
      {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY"},
  };
  auto found = names.find(error);
  *text = found == names.end() ? nullptr : found->second;
  return found == names.end() ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

STANDIN_API CUresult cuGetErrorString(CUresult error, const char **text) {
  static const std::map<int, const char *> strings = {
      {CUDA_SUCCESS, "no error"},
      {CUDA_ERROR_INVALID_VALUE, "invalid argument"},
      {CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
      {CUDA_ERROR_NOT_INITIALIZED, "initialization error"},
      {CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"},
      {CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"},
      {CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"},
      {CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"},
      {CUDA_ERROR_NOT_FOUND, "named symbol not found"},
      {CUDA_ERROR_NOT_READY, "device not ready"},
  };
  auto found = strings.find(error);
  *text = found == strings.end() ? nullptr : found->second;
  return found == strings.end() ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

STANDIN_API CUresult cuInit(unsigned int flags) {
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(mutex);
  // Read at every call, so one test process can try several counts.
  deviceCount = std::min(configuredDevices(), 16);
  standin::log("cuInit devices=%d", deviceCount);
  return deviceCount > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

STANDIN_API CUresult cuDeviceGetCount(int *count) {
  std::lock_guard<std::mutex> lock(mutex);
  if (deviceCount < 0)
    return CUDA_ERROR_NOT_INITIALIZED;
  *count = deviceCount;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  std::lock_guard<std::mutex> lock(mutex);
  if (deviceCount < 0)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= deviceCount)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  std::snprintf(name, length, "OneFlow stand-in GPU %d", device);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuDeviceGetAttribute(int *value,
                                          CUdevice_attribute attribute,
                                          CUdevice device) {
  if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
    *value = 9;
  else if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
    *value = 0;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  *bytes = size_t(80) << 30;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuDevicePrimaryCtxRetain(CUcontext *context,
                                              CUdevice device) {
  if (device < 0 || device >= 16)
    return CUDA_ERROR_INVALID_DEVICE;
  contexts[device].device = device;
  *context = &contexts[device];
  standin::log("cuDevicePrimaryCtxRetain device=%d", device);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  standin::log("cuDevicePrimaryCtxRelease device=%d", device);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuCtxSetCurrent(CUcontext context) {
  current = context;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  return allocate(pointer, bytes, nullptr, "cuMemAlloc");
}

STANDIN_API CUresult cuMemFree_v2(CUdeviceptr pointer) {
  return release(pointer, nullptr, "cuMemFree");
}

STANDIN_API CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes,
                                     CUstream stream) {
  return allocate(pointer, bytes, stream, "cuMemAllocAsync");
}

STANDIN_API CUresult cuMemFreeAsync(CUdeviceptr pointer, CUstream stream) {
  return release(pointer, stream, "cuMemFreeAsync");
}

STANDIN_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src,
                                          size_t bytes, CUstream stream) {
  std::memcpy(host(dst), src, bytes);
  standin::log("cuMemcpyAsync HtoD stream=%d bytes=%zu",
               standin::streamId(stream), bytes);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src,
                                          size_t bytes, CUstream stream) {
  std::memcpy(dst, host(src), bytes);
  standin::log("cuMemcpyAsync DtoH stream=%d bytes=%zu",
               standin::streamId(stream), bytes);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src,
                                          size_t bytes, CUstream stream) {
  std::memmove(host(dst), host(src), bytes);
  standin::log("cuMemcpyAsync DtoD stream=%d bytes=%zu",
               standin::streamId(stream), bytes);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *copy,
                                        CUstream stream) {
  if (copy->srcMemoryType == CU_MEMORYTYPE_ARRAY ||
      copy->dstMemoryType == CU_MEMORYTYPE_ARRAY ||
      copy->srcPitch < copy->WidthInBytes ||
      copy->dstPitch < copy->WidthInBytes)
    return CUDA_ERROR_INVALID_VALUE;
  const char *src = static_cast<const char *>(
      copy->srcMemoryType == CU_MEMORYTYPE_HOST ? copy->srcHost
                                                : host(copy->srcDevice));
  char *dst = static_cast<char *>(copy->dstMemoryType == CU_MEMORYTYPE_HOST
                                      ? copy->dstHost
                                      : host(copy->dstDevice));
  src += copy->srcY * copy->srcPitch + copy->srcXInBytes;
  dst += copy->dstY * copy->dstPitch + copy->dstXInBytes;
  for (size_t row = 0; row < copy->Height; ++row)
    std::memcpy(dst + row * copy->dstPitch, src + row * copy->srcPitch,
                copy->WidthInBytes);
  standin::log("cuMemcpy2DAsync stream=%d width=%zu height=%zu srcPitch=%zu "
               "dstPitch=%zu",
               standin::streamId(stream), copy->WidthInBytes, copy->Height,
               copy->srcPitch, copy->dstPitch);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value,
                                     size_t bytes, CUstream stream) {
  std::memset(host(dst), value, bytes);
  standin::log("cuMemsetD8Async stream=%d bytes=%zu value=%d",
               standin::streamId(stream), bytes, value);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  std::lock_guard<std::mutex> lock(mutex);
  *stream = new CUstream_st{nextStream++};
  standin::log("cuStreamCreate stream=%d flags=%u", (*stream)->id, flags);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuStreamDestroy_v2(CUstream stream) {
  if (!stream)
    return CUDA_ERROR_INVALID_HANDLE;
  standin::log("cuStreamDestroy stream=%d", stream->id);
  delete stream;
  return CUDA_SUCCESS;
}

/// A hung stream's or event's work never finishes: waiting for it blocks.
[[noreturn]] static void blockForever() {
  while (true)
    std::this_thread::sleep_for(std::chrono::seconds(1));
}

STANDIN_API CUresult cuStreamSynchronize(CUstream stream) {
  standin::log("cuStreamSynchronize stream=%d", standin::streamId(stream));
  if (stream && stream->hung)
    blockForever();
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuStreamWaitEvent(CUstream stream, CUevent event,
                                       unsigned int flags) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  standin::log("cuStreamWaitEvent stream=%d event=%d",
               standin::streamId(stream), event->id);
  if (stream && event->pending)
    stream->hung = true;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  std::lock_guard<std::mutex> lock(mutex);
  *event = new CUevent_st{nextEvent++, flags};
  standin::log("cuEventCreate event=%d timing=%d", (*event)->id,
               (flags & CU_EVENT_DISABLE_TIMING) ? 0 : 1);
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuEventDestroy_v2(CUevent event) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  standin::log("cuEventDestroy event=%d", event->id);
  delete event;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuEventRecord(CUevent event, CUstream stream) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  event->recorded = true;
  event->time = std::chrono::steady_clock::now();
  event->pending = stream && stream->hung;
  standin::log("cuEventRecord event=%d stream=%d", event->id,
               standin::streamId(stream));
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuEventQuery(CUevent event) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  return event->pending ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

STANDIN_API CUresult cuEventSynchronize(CUevent event) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  if (event->pending)
    blockForever();
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuEventElapsedTime_v2(float *ms, CUevent start,
                                           CUevent end) {
  // Like the driver: both recorded, both with timing.
  if (!start || !end || (start->flags & CU_EVENT_DISABLE_TIMING) ||
      (end->flags & CU_EVENT_DISABLE_TIMING) || !start->recorded ||
      !end->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  *ms =
      std::chrono::duration<float, std::milli>(end->time - start->time).count();
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  return cuEventElapsedTime_v2(ms, start, end);
}

STANDIN_API CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  const char *bytes = static_cast<const char *>(image);
  size_t size;
  uint32_t magic;
  std::memcpy(&magic, bytes, sizeof(magic));
  if (magic == 0xBA55ED50u) {
    // A fatbin: header {magic, u16 version, u16 header size, u64 size}.
    uint16_t headerSize;
    uint64_t fatSize;
    std::memcpy(&headerSize, bytes + 6, sizeof(headerSize));
    std::memcpy(&fatSize, bytes + 8, sizeof(fatSize));
    size = headerSize + fatSize;
  } else {
    size = std::strlen(bytes); // PTX text
  }
  std::unique_ptr<CUmod_st> parsed = parsePtx(std::string(bytes, size));
  if (parsed->functions.empty())
    return CUDA_ERROR_INVALID_IMAGE;
  standin::log("cuModuleLoadData bytes=%zu functions=%zu", size,
               parsed->functions.size());
  *module = parsed.release();
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuModuleUnload(CUmodule module) {
  if (!module)
    return CUDA_ERROR_INVALID_HANDLE;
  standin::log("cuModuleUnload");
  delete module;
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                                         const char *name) {
  if (!module)
    return CUDA_ERROR_INVALID_HANDLE;
  for (auto &candidate : module->functions)
    if (candidate->name == name) {
      *function = candidate.get();
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

STANDIN_API CUresult cuFuncGetParamInfo(CUfunction function, size_t index,
                                        size_t *offset, size_t *size) {
  if (!function)
    return CUDA_ERROR_INVALID_HANDLE;
  if (index >= function->paramSizes.size())
    return CUDA_ERROR_INVALID_VALUE;
  size_t at = 0;
  for (size_t i = 0; i <= index; ++i) {
    size_t bytes = function->paramSizes[i];
    size_t align = bytes >= 8 ? 8 : (bytes ? bytes : 1);
    at = (at + align - 1) / align * align;
    if (i < index)
      at += bytes;
  }
  *offset = at;
  *size = function->paramSizes[index];
  return CUDA_SUCCESS;
}

STANDIN_API CUresult cuLaunchKernel(CUfunction function, unsigned gridX,
                                    unsigned gridY, unsigned gridZ,
                                    unsigned blockX, unsigned blockY,
                                    unsigned blockZ, unsigned sharedBytes,
                                    CUstream stream, void **params,
                                    void **extra) {
  if (!function)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!current)
    return CUDA_ERROR_INVALID_HANDLE; // no context on this thread
  // The values of the 8-byte parameters, as the kernel would see them.
  std::string values;
  for (size_t i = 0; i < function->paramSizes.size(); ++i) {
    int64_t value = 0;
    std::memcpy(&value, params[i],
                std::min<size_t>(8, function->paramSizes[i]));
    values += (i ? "," : "") + std::to_string(value);
  }
  static std::atomic<long> launches{0};
  static const long hangAt = [] {
    const char *value = std::getenv("ONEFLOW_CUDA_STANDIN_HANG_LAUNCH");
    return value ? std::atol(value) : 0L;
  }();
  if (++launches == hangAt && stream) {
    stream->hung = true;
    standin::log("hung: launch %ld on stream=%d never finishes", hangAt,
                 stream->id);
  }
  standin::log("cuLaunchKernel stream=%d function=%s grid=%u,%u,%u "
               "block=%u,%u,%u shared=%u params=%zu args=%s",
               standin::streamId(stream), function->name.c_str(), gridX, gridY,
               gridZ, blockX, blockY, blockZ, sharedBytes,
               function->paramSizes.size(), values.c_str());
  return CUDA_SUCCESS;
}

// The stand-in has the signatures the runtime's table expects.
#define STANDIN_CHECK(MEMBER, SYMBOL, RET, PARAMS)                             \
  static_assert(std::is_same_v<decltype(&SYMBOL), RET(*) PARAMS>, #SYMBOL);
ONEFLOW_CUDA_DRIVER_FUNCTIONS(STANDIN_CHECK)
ONEFLOW_CUDA_OPTIONAL_DRIVER_FUNCTIONS(STANDIN_CHECK)
