//===- TaskContext.cpp - What the CUDA kernel ABI works on ----------------===//

#include "oneflow/Runtime/CUDA/TaskContext.h"

namespace oneflow {
namespace runtime {
namespace cuda {

namespace {
thread_local TaskContext *current = nullptr;
} // namespace

TaskContext::TaskContext(const Device &device, Stream stream,
                         const std::vector<GpuFunction> *functions)
    : dev(device), str(stream), gpuFunctions(functions) {
  static const std::vector<GpuFunction> none;
  if (!gpuFunctions)
    gpuFunctions = &none;
}

TaskContext::~TaskContext() {
  if (current == this)
    current = nullptr;
}

Expected<BlasLt *> TaskContext::blasLt() {
  if (!blas) {
    Expected<std::unique_ptr<BlasLt>> created = BlasLt::create(dev, str);
    if (!created.ok())
      return created.error();
    blas = created.take();
  }
  return blas.get();
}

Expected<Dnn *> TaskContext::dnn() {
  if (!conv) {
    Expected<std::unique_ptr<Dnn>> created = Dnn::create(dev, str);
    if (!created.ok())
      return created.error();
    conv = created.take();
  }
  return conv.get();
}

void TaskContext::recordError(const Status &error) {
  if (error.ok() || failed())
    return;
  pending =
      makeError("kernel ", task.empty() ? "?" : task, ": ", error.message());
}

Status TaskContext::takeError() {
  Status error = std::move(pending);
  pending = Status::success();
  return error;
}

void setTaskContext(TaskContext *context) { current = context; }
TaskContext *currentTaskContext() { return current; }

} // namespace cuda
} // namespace runtime
} // namespace oneflow
