//===- CudaApi.h - The slice of the CUDA driver API we call -----*- C++ -*-===//
//
// Copied from cuda.h (CUDA 13.0): the types, enum values and signatures of
// the driver functions the runtime calls, so that it builds without the
// toolkit and loads libcuda.so.1 with dlopen. Symbol names are the versioned
// ones cuda.h maps the plain names to (cuMemAlloc -> cuMemAlloc_v2): those
// are what the driver exports with the current ABI.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_CUDA_CUDAAPI_H
#define ONEFLOW_LIB_RUNTIME_CUDA_CUDAAPI_H

#include <cstddef>
#include <cstdint>

extern "C" {
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef struct CUarray_st *CUarray;

typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_NOT_SUPPORTED = 801,
} CUresult;

typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
} CUdevice_attribute;

typedef enum CUmemorytype_enum {
  CU_MEMORYTYPE_HOST = 0x01,
  CU_MEMORYTYPE_DEVICE = 0x02,
  CU_MEMORYTYPE_ARRAY = 0x03,
  CU_MEMORYTYPE_UNIFIED = 0x04,
} CUmemorytype;

enum { CU_STREAM_DEFAULT = 0x0, CU_STREAM_NON_BLOCKING = 0x1 };
enum { CU_EVENT_DEFAULT = 0x0, CU_EVENT_DISABLE_TIMING = 0x2 };

typedef struct CUDA_MEMCPY2D_st {
  size_t srcXInBytes;
  size_t srcY;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes;
  size_t dstY;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
} CUDA_MEMCPY2D;
}

/// X(member, symbol, return type, parameters) for every driver function the
/// runtime calls. Optional ones (newer than CUDA 12.0) are listed apart.
#define ONEFLOW_CUDA_DRIVER_FUNCTIONS(X)                                       \
  X(getErrorName, cuGetErrorName, CUresult, (CUresult, const char **))         \
  X(getErrorString, cuGetErrorString, CUresult, (CUresult, const char **))     \
  X(init, cuInit, CUresult, (unsigned int))                                    \
  X(deviceGetCount, cuDeviceGetCount, CUresult, (int *))                       \
  X(deviceGet, cuDeviceGet, CUresult, (CUdevice *, int))                       \
  X(deviceGetName, cuDeviceGetName, CUresult, (char *, int, CUdevice))         \
  X(deviceGetAttribute, cuDeviceGetAttribute, CUresult,                        \
    (int *, CUdevice_attribute, CUdevice))                                     \
  X(deviceTotalMem, cuDeviceTotalMem_v2, CUresult, (size_t *, CUdevice))       \
  X(primaryCtxRetain, cuDevicePrimaryCtxRetain, CUresult,                      \
    (CUcontext *, CUdevice))                                                   \
  X(primaryCtxRelease, cuDevicePrimaryCtxRelease_v2, CUresult, (CUdevice))     \
  X(ctxSetCurrent, cuCtxSetCurrent, CUresult, (CUcontext))                     \
  X(memAlloc, cuMemAlloc_v2, CUresult, (CUdeviceptr *, size_t))                \
  X(memFree, cuMemFree_v2, CUresult, (CUdeviceptr))                            \
  X(memcpyHtoDAsync, cuMemcpyHtoDAsync_v2, CUresult,                           \
    (CUdeviceptr, const void *, size_t, CUstream))                             \
  X(memcpyDtoHAsync, cuMemcpyDtoHAsync_v2, CUresult,                           \
    (void *, CUdeviceptr, size_t, CUstream))                                   \
  X(memcpyDtoDAsync, cuMemcpyDtoDAsync_v2, CUresult,                           \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                              \
  X(memcpy2DAsync, cuMemcpy2DAsync_v2, CUresult,                               \
    (const CUDA_MEMCPY2D *, CUstream))                                         \
  X(memsetD8Async, cuMemsetD8Async, CUresult,                                  \
    (CUdeviceptr, unsigned char, size_t, CUstream))                            \
  X(streamCreate, cuStreamCreate, CUresult, (CUstream *, unsigned int))        \
  X(streamDestroy, cuStreamDestroy_v2, CUresult, (CUstream))                   \
  X(streamSynchronize, cuStreamSynchronize, CUresult, (CUstream))              \
  X(streamWaitEvent, cuStreamWaitEvent, CUresult,                              \
    (CUstream, CUevent, unsigned int))                                         \
  X(eventCreate, cuEventCreate, CUresult, (CUevent *, unsigned int))           \
  X(eventDestroy, cuEventDestroy_v2, CUresult, (CUevent))                      \
  X(eventRecord, cuEventRecord, CUresult, (CUevent, CUstream))                 \
  X(eventQuery, cuEventQuery, CUresult, (CUevent))                             \
  X(eventSynchronize, cuEventSynchronize, CUresult, (CUevent))                 \
  X(moduleLoadData, cuModuleLoadData, CUresult, (CUmodule *, const void *))    \
  X(moduleUnload, cuModuleUnload, CUresult, (CUmodule))                        \
  X(moduleGetFunction, cuModuleGetFunction, CUresult,                          \
    (CUfunction *, CUmodule, const char *))                                    \
  X(launchKernel, cuLaunchKernel, CUresult,                                    \
    (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,       \
     unsigned int, unsigned int, unsigned int, CUstream, void **, void **))    \
  X(memAllocAsync, cuMemAllocAsync, CUresult,                                  \
    (CUdeviceptr *, size_t, CUstream))                                         \
  X(memFreeAsync, cuMemFreeAsync, CUresult, (CUdeviceptr, CUstream))

/// CUDA 12.4+ (parameter counts) and 12.8+ (the _v2 elapsed time, which the
/// 13.0 headers map cuEventElapsedTime to); the runtime copes without them.
#define ONEFLOW_CUDA_OPTIONAL_DRIVER_FUNCTIONS(X)                              \
  X(funcGetParamInfo, cuFuncGetParamInfo, CUresult,                            \
    (CUfunction, size_t, size_t *, size_t *))                                  \
  X(eventElapsedTimeV2, cuEventElapsedTime_v2, CUresult,                       \
    (float *, CUevent, CUevent))                                               \
  X(eventElapsedTime, cuEventElapsedTime, CUresult, (float *, CUevent, CUevent))

#endif // ONEFLOW_LIB_RUNTIME_CUDA_CUDAAPI_H
