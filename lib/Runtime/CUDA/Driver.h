//===- Driver.h - The dlopen'd CUDA driver ----------------------*- C++ -*-===//

#ifndef ONEFLOW_LIB_RUNTIME_CUDA_DRIVER_H
#define ONEFLOW_LIB_RUNTIME_CUDA_DRIVER_H

#include "CudaApi.h"
#include "Library.h"

#include <memory>

namespace oneflow {
namespace runtime {
namespace cuda {

/// libcuda's functions the runtime calls.
class Driver {
public:
  /// The process's driver: loaded on first call from ONEFLOW_CUDA_DRIVER or
  /// libcuda.so.1; the same result (table or error) afterwards.
  static Expected<const Driver *> get();
  /// Loads the driver at `path` (tests; get() for everything else).
  static Expected<std::unique_ptr<Driver>> load(const std::string &path);

  /// Success, or "<call>: <error name> (<error string>)".
  Status check(CUresult result, const char *call) const;

  ONEFLOW_CUDA_DRIVER_FUNCTIONS(ONEFLOW_CUDA_DECLARE_MEMBER)
  ONEFLOW_CUDA_OPTIONAL_DRIVER_FUNCTIONS(ONEFLOW_CUDA_DECLARE_MEMBER)
};

/// Evaluates the driver call EXPR (a member call on `driver`), returning
/// its error Status from the enclosing function.
#define ONEFLOW_CU_CHECK(DRIVER, CALL, ...)                                    \
  do {                                                                         \
    Status oneflowCuStatus = (DRIVER).check((DRIVER).__VA_ARGS__, CALL);       \
    if (!oneflowCuStatus.ok())                                                 \
      return oneflowCuStatus;                                                  \
  } while (false)

} // namespace cuda
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_LIB_RUNTIME_CUDA_DRIVER_H
