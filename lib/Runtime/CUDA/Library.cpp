//===- Library.cpp - dlopen'd function tables -----------------------------===//

#include "Library.h"

#include <dlfcn.h>
#include <mutex>

namespace oneflow {
namespace runtime {
namespace cuda {

namespace {
// dlopen + dlerror pairs must not interleave within a thread's dlerror state.
std::mutex &libraryMutex() {
  static std::mutex mutex;
  return mutex;
}
} // namespace

Expected<void *> openLibrary(const std::string &path, const std::string &what) {
  std::lock_guard<std::mutex> lock(libraryMutex());
  if (void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
    return handle;
  const char *reason = ::dlerror();
  return makeError(what, " (", reason ? reason : path + ": not loadable", ")");
}

void *findSymbol(void *handle, const char *name) {
  return ::dlsym(handle, name);
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
