//===- NcclTestSupport.h - Host memory as device memory ---------*- C++ -*-===//
//
// The NCCL tests run on the stand-in libnccl.so.2 (StandIn/NcclStandIn.cpp),
// which takes host pointers as device pointers; these device ops do the
// same with malloc and memcpy, so runCollective's rearrangements are real.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_CUDA_NCCLTESTSUPPORT_H
#define ONEFLOW_UNITTESTS_RUNTIME_CUDA_NCCLTESTSUPPORT_H

#include "oneflow/Runtime/CUDA/Nccl.h"

#include <mpi.h>

#include <memory>
#include <string>

namespace oneflow {
namespace runtime {
namespace cuda {

class HostDeviceOps : public CollectiveDeviceOps {
public:
  Expected<DevicePtr> allocate(int64_t bytes, StreamHandle stream) override;
  void free(DevicePtr pointer, StreamHandle stream) override;
  Status copy2D(DevicePtr dst, int64_t dstPitch, DevicePtr src,
                int64_t srcPitch, int64_t widthBytes, int64_t height,
                StreamHandle stream) override;
  Status convert(DevicePtr dst, plan::DataType dstType, DevicePtr src,
                 plan::DataType srcType, int64_t count,
                 StreamHandle stream) override;

  int live = 0;        // allocations not freed yet
  int allocations = 0; // all of them
  int copies = 0, conversions = 0;
};

inline DevicePtr devicePtr(const void *p) { return DevicePtr(uintptr_t(p)); }

int worldRank();
int worldSize();

/// The stand-in, loaded once (libnccl.so.2 through LD_LIBRARY_PATH).
std::shared_ptr<const Nccl> standInNccl();

/// Sets (or unsets, for nullptr) an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value);
  ~ScopedEnv();

private:
  std::string name, old;
  bool had = false;
};

} // namespace cuda
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_UNITTESTS_RUNTIME_CUDA_NCCLTESTSUPPORT_H
