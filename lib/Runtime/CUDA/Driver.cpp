//===- Driver.cpp - The dlopen'd CUDA driver ------------------------------===//

#include "Driver.h"

#include <cstdlib>
#include <mutex>

namespace oneflow {
namespace runtime {
namespace cuda {

Expected<std::unique_ptr<Driver>> Driver::load(const std::string &path) {
  Expected<void *> opened = openLibrary(path, "no CUDA driver");
  if (!opened.ok())
    return opened.error();
  void *handle = *opened;
  auto table = std::make_unique<Driver>();
  std::vector<std::string> missing;
  ONEFLOW_CUDA_DRIVER_FUNCTIONS(ONEFLOW_CUDA_LOAD_REQUIRED)
  ONEFLOW_CUDA_OPTIONAL_DRIVER_FUNCTIONS(ONEFLOW_CUDA_LOAD_OPTIONAL)
  if (!missing.empty()) {
    std::string names;
    for (const std::string &name : missing)
      names += (names.empty() ? "" : ", ") + name;
    // The library stays loaded: the process may hold it elsewhere too.
    return makeError("CUDA driver ", path, " is too old (lacks ", names, ")");
  }
  return std::move(table);
}

Expected<const Driver *> Driver::get() {
  // Loaded once: dlopen of the driver is not cheap and its state is global.
  static std::once_flag once;
  static std::unique_ptr<Driver> driver;
  static Status failure;
  std::call_once(once, [] {
    const char *path = std::getenv("ONEFLOW_CUDA_DRIVER");
    Expected<std::unique_ptr<Driver>> loaded =
        load(path && *path ? path : "libcuda.so.1");
    if (loaded.ok())
      driver = loaded.take();
    else
      failure = loaded.error();
  });
  if (!driver)
    return failure;
  return static_cast<const Driver *>(driver.get());
}

Status Driver::check(CUresult result, const char *call) const {
  if (result == CUDA_SUCCESS)
    return Status::success();
  const char *name = nullptr, *text = nullptr;
  if (getErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = nullptr;
  if (getErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = nullptr;
  std::ostringstream os;
  os << call << ": ";
  if (name)
    os << name;
  else
    os << "CUDA error " << static_cast<int>(result);
  if (text)
    os << " (" << text << ")";
  return Status::error(os.str());
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
