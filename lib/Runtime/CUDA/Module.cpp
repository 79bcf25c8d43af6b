//===- Module.cpp - Fatbins loaded into a device's context ----------------===//

#include "oneflow/Runtime/CUDA/Device.h"

#include "Driver.h"

#include <fstream>
#include <iterator>

namespace oneflow {
namespace runtime {
namespace cuda {

Expected<std::unique_ptr<Module>>
Device::loadModule(const std::string &path) const {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return makeError("cannot read GPU kernels ", path);
  std::string image((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  // A PTX image must end in NUL; a fatbin carries its size.
  image.push_back('\0');
  if (Status current = makeCurrent(); !current.ok())
    return current;
  CUmodule handle = nullptr;
  if (Status loaded = api.check(api.moduleLoadData(&handle, image.data()),
                                "cuModuleLoadData");
      !loaded.ok())
    return makeError(path, ": ", loaded.message());
  return std::unique_ptr<Module>(new Module(*this, handle, path));
}

Module::~Module() {
  // Unloading needs the module's context current on this thread.
  if (device.makeCurrent().ok())
    (void)device.driver().moduleUnload(handle);
}

Expected<GpuFunction> Module::function(const std::string &name) const {
  const Driver &api = device.driver();
  GpuFunction function;
  function.name = name;
  if (Status found = api.check(
          api.moduleGetFunction(&function.handle, handle, name.c_str()),
          "cuModuleGetFunction");
      !found.ok())
    return makeError("GPU kernel ", name, " of ", path, ": ", found.message());
  if (!api.funcGetParamInfo)
    return function; // a driver before 12.4: the count stays unknown
  // The driver answers CUDA_ERROR_INVALID_VALUE past the last parameter.
  size_t index = 0;
  for (;; ++index) {
    size_t offset = 0, size = 0;
    CUresult result =
        api.funcGetParamInfo(function.handle, index, &offset, &size);
    if (result == CUDA_ERROR_INVALID_VALUE)
      break;
    if (Status status = api.check(result, "cuFuncGetParamInfo"); !status.ok())
      return makeError("GPU kernel ", name, ": ", status.message());
    // 8-byte slots: narrower values sit in their low bytes.
    if (size == 0 || size > 8)
      return makeError("GPU kernel ", name, " parameter ", index, " is ", size,
                       " bytes (the kernel ABI passes values of up to 8 "
                       "bytes)");
  }
  function.paramCount = static_cast<int>(index);
  return function;
}

Expected<std::vector<GpuFunction>>
Module::functions(const std::vector<std::string> &names) const {
  std::vector<GpuFunction> result;
  std::vector<std::string> problems;
  for (const std::string &name : names) {
    Expected<GpuFunction> function = this->function(name);
    if (function.ok())
      result.push_back(function.take());
    else
      problems.push_back(function.error().message());
  }
  if (!problems.empty())
    return joinProblems(problems);
  return result;
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
