//===- NcclApi.h - The part of NCCL's C ABI we call -------------*- C++ -*-===//
//
// libnccl.so.2 is loaded with dlopen, so nothing here comes from nccl.h (CI
// machines may lack it): the types, enum values and signatures below are
// copied from NCCL 2.28's nccl.h and are ABI-stable since NCCL 2.18, the
// oldest version we accept. Only what the collectives need is declared.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_CUDA_NCCLAPI_H
#define ONEFLOW_LIB_RUNTIME_CUDA_NCCLAPI_H

#include <cstddef>

namespace oneflow {
namespace runtime {
namespace cuda {
namespace nccl {

/// nccl.h: typedef struct ncclComm *ncclComm_t.
struct Comm;
using CommHandle = Comm *;

/// nccl.h: NCCL_UNIQUE_ID_BYTES, typedef struct { char internal[128]; }.
constexpr int kUniqueIdBytes = 128;
struct UniqueId {
  char internal[kUniqueIdBytes];
};

/// nccl.h: ncclResult_t (a C enum: int-sized).
enum Result : int {
  Success = 0,
  UnhandledCudaError = 1,
  SystemError = 2,
  InternalError = 3,
  InvalidArgument = 4,
  InvalidUsage = 5,
  RemoteError = 6,
  InProgress = 7,
};

/// nccl.h: ncclDataType_t.
enum DataType : int {
  Int8 = 0,
  Uint8 = 1,
  Int32 = 2,
  Uint32 = 3,
  Int64 = 4,
  Uint64 = 5,
  Float16 = 6,
  Float32 = 7,
  Float64 = 8,
  Bfloat16 = 9,
};

/// nccl.h: ncclRedOp_t (sum is the only one we use).
enum RedOp : int { Sum = 0 };

/// nccl.h: NCCL_VERSION(X, Y, Z) for Y > 8, as ncclGetVersion reports it.
constexpr int versionCode(int major, int minor, int patch) {
  return major * 10000 + minor * 100 + patch;
}

/// cudaStream_t is a pointer (struct CUstream_st *).
using Stream = void *;

/// The functions, by their nccl.h signatures.
struct Api {
  Result (*getVersion)(int *version) = nullptr;
  const char *(*getErrorString)(Result result) = nullptr;
  /// Since 2.13; may be missing from other builds: then nullptr.
  const char *(*getLastError)(CommHandle comm) = nullptr;
  Result (*getUniqueId)(UniqueId *id) = nullptr;
  Result (*commInitRank)(CommHandle *comm, int nranks, UniqueId id,
                         int rank) = nullptr;
  Result (*commDestroy)(CommHandle comm) = nullptr;
  Result (*commAbort)(CommHandle comm) = nullptr;
  Result (*commGetAsyncError)(CommHandle comm, Result *asyncError) = nullptr;
  Result (*groupStart)() = nullptr;
  Result (*groupEnd)() = nullptr;
  Result (*allReduce)(const void *send, void *recv, size_t count, DataType type,
                      RedOp op, CommHandle comm, Stream stream) = nullptr;
  Result (*allGather)(const void *send, void *recv, size_t sendCount,
                      DataType type, CommHandle comm, Stream stream) = nullptr;
  Result (*reduceScatter)(const void *send, void *recv, size_t recvCount,
                          DataType type, RedOp op, CommHandle comm,
                          Stream stream) = nullptr;
  Result (*send)(const void *send, size_t count, DataType type, int peer,
                 CommHandle comm, Stream stream) = nullptr;
  Result (*recv)(void *recv, size_t count, DataType type, int peer,
                 CommHandle comm, Stream stream) = nullptr;
};

} // namespace nccl
} // namespace cuda
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_LIB_RUNTIME_CUDA_NCCLAPI_H
