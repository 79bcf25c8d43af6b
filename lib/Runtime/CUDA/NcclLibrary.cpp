//===- NcclLibrary.cpp - libnccl.so.2 through dlopen ----------------------===//

#include "NcclApi.h"
#include "oneflow/Runtime/CUDA/Nccl.h"

#include <cstdlib>
#include <dlfcn.h>

namespace oneflow {
namespace runtime {
namespace cuda {

namespace {

std::string dlerrorText() {
  const char *text = dlerror();
  return text ? text : "unknown dlopen error";
}

/// Resolves `name` into `slot`; a missing symbol is an error unless
/// `optional`.
template <typename Function>
Status resolve(void *handle, const std::string &path, const char *name,
               Function &slot, bool optional = false) {
  slot = reinterpret_cast<Function>(dlsym(handle, name));
  if (slot || optional)
    return Status::success();
  return makeError("NCCL library '", path, "' lacks ", name);
}

} // namespace

Expected<std::shared_ptr<const Nccl>> Nccl::load() {
  const char *path = std::getenv("ONEFLOW_NCCL_LIBRARY");
  return load(path && *path ? path : "libnccl.so.2");
}

Expected<std::shared_ptr<const Nccl>> Nccl::load(const std::string &path) {
  // RTLD_LOCAL: NCCL's symbols must not interpose on anything else.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return makeError("no NCCL library (", dlerrorText(), ")");
  std::shared_ptr<Nccl> lib(new Nccl());
  lib->handle = handle;
  lib->libraryPath = path;
  lib->table = std::make_unique<nccl::Api>();
  nccl::Api &api = *lib->table;
  for (Status s : {
           resolve(handle, path, "ncclGetVersion", api.getVersion),
           resolve(handle, path, "ncclGetErrorString", api.getErrorString),
           resolve(handle, path, "ncclGetLastError", api.getLastError, true),
           resolve(handle, path, "ncclGetUniqueId", api.getUniqueId),
           resolve(handle, path, "ncclCommInitRank", api.commInitRank),
           resolve(handle, path, "ncclCommDestroy", api.commDestroy),
           resolve(handle, path, "ncclCommAbort", api.commAbort),
           resolve(handle, path, "ncclCommGetAsyncError",
                   api.commGetAsyncError),
           resolve(handle, path, "ncclGroupStart", api.groupStart),
           resolve(handle, path, "ncclGroupEnd", api.groupEnd),
           resolve(handle, path, "ncclAllReduce", api.allReduce),
           resolve(handle, path, "ncclAllGather", api.allGather),
           resolve(handle, path, "ncclReduceScatter", api.reduceScatter),
           resolve(handle, path, "ncclSend", api.send),
           resolve(handle, path, "ncclRecv", api.recv),
       })
    if (!s.ok())
      return s;
  int version = 0;
  if (nccl::Result rc = api.getVersion(&version); rc != nccl::Success)
    return lib->error(rc, "ncclGetVersion");
  lib->versionCode = version;
  if (version < kMinVersion)
    return makeError("NCCL ", lib->versionString(), " at '", path,
                     "' is too old (need 2.18 or newer)");
  return std::shared_ptr<const Nccl>(std::move(lib));
}

Nccl::~Nccl() {
  // Never dlclose: NCCL keeps threads and atexit handlers alive.
}

std::string Nccl::versionString() const {
  // NCCL_VERSION: X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z since.
  int major, minor, patch;
  if (versionCode >= 10000) {
    major = versionCode / 10000;
    minor = versionCode / 100 % 100;
  } else {
    major = versionCode / 1000;
    minor = versionCode / 100 % 10;
  }
  patch = versionCode % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(patch);
}

Status Nccl::error(int result, const std::string &what, void *comm) const {
  if (result == nccl::Success)
    return Status::success();
  const char *text = table->getErrorString(nccl::Result(result));
  std::string message = what + " failed: " +
                        (text ? text : "NCCL error " + std::to_string(result));
  if (table->getLastError) {
    const char *last = table->getLastError(static_cast<nccl::CommHandle>(comm));
    if (last && *last)
      message += std::string(" (") + last + ")";
  }
  return Status::error(message);
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
