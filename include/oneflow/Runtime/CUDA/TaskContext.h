//===- TaskContext.h - What the CUDA kernel ABI works on --------*- C++ -*-===//
//
// The oneflow_cuda_* functions (KernelABI.h) take no context argument: the
// executor sets the calling thread's TaskContext around each KERNEL task
// (device, stream, the plan's GPU functions, the task's name), and takes
// the first error the task's calls recorded once its kernel entry returns.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CUDA_TASKCONTEXT_H
#define ONEFLOW_RUNTIME_CUDA_TASKCONTEXT_H

#include "oneflow/Runtime/CUDA/BlasLt.h"
#include "oneflow/Runtime/CUDA/Dnn.h"

namespace oneflow {
namespace runtime {
namespace cuda {

/// Told around each cuBLASLt product a context's tasks enqueue (so it can
/// record timing events on the stream: oneflow-run's GPU times).
class MatmulObserver {
public:
  virtual ~MatmulObserver() = default;
  virtual void beforeMatmul(const MatmulShape &shape) = 0;
  virtual void afterMatmul(const MatmulShape &shape) = 0;
};

/// One per executor thread (so per stream): its BlasLt and Dnn are created
/// on first use and live as long as it.
class TaskContext {
public:
  /// `functions` (Plan.gpu_kernels, loaded) must outlive the context.
  TaskContext(const Device &device, Stream stream,
              const std::vector<GpuFunction> *functions);
  ~TaskContext();
  TaskContext(const TaskContext &) = delete;
  TaskContext &operator=(const TaskContext &) = delete;

  const Device &device() const { return dev; }
  Stream stream() const { return str; }
  const std::vector<GpuFunction> &functions() const { return *gpuFunctions; }

  /// The running task's name, which errors start with.
  void setTaskName(std::string name) { task = std::move(name); }
  const std::string &taskName() const { return task; }

  /// The stream's cuBLASLt / cuDNN state, created on first use.
  Expected<BlasLt *> blasLt();
  Expected<Dnn *> dnn();

  /// Null (the default): products are not observed.
  void setMatmulObserver(MatmulObserver *observer) { matmuls = observer; }
  MatmulObserver *matmulObserver() const { return matmuls; }

  /// Keeps `error` unless an earlier one is pending (the first one wins);
  /// prefixes it with "kernel <task>: ".
  void recordError(const Status &error);
  bool failed() const { return !pending.ok(); }
  /// The pending error (success if none), which is cleared.
  Status takeError();

private:
  const Device &dev;
  Stream str;
  const std::vector<GpuFunction> *gpuFunctions;
  std::string task;
  std::unique_ptr<BlasLt> blas;
  std::unique_ptr<Dnn> conv;
  MatmulObserver *matmuls = nullptr;
  Status pending;
};

/// The calling thread's context (null: none).
void setTaskContext(TaskContext *context);
TaskContext *currentTaskContext();

} // namespace cuda
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_CUDA_TASKCONTEXT_H
