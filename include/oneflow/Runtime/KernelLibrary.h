//===- KernelLibrary.h - The plan's compiled kernels ------------*- C++ -*-===//
//
// Kernel ABI: `extern "C" void <kernel_symbol>(void **args)`, where args
// points to the buffers of the task's in_regsts, then its out_regsts, in the
// task's order; each buffer is contiguous and row-major. The library is
// loaded with dlopen/dlsym.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_KERNELLIBRARY_H
#define ONEFLOW_RUNTIME_KERNELLIBRARY_H

#include "oneflow/Runtime/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

using KernelFn = void (*)(void **args);

class KernelLibrary {
public:
  /// Loads the shared library at `path` (resolving all its symbols now, so
  /// an unresolvable library fails here rather than mid-run).
  static Expected<std::unique_ptr<KernelLibrary>> open(const std::string &path);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary &) = delete;
  KernelLibrary &operator=(const KernelLibrary &) = delete;

  const std::string &path() const { return libraryPath; }

  /// The kernel `symbol`, or an error naming it and the library.
  Expected<KernelFn> lookup(const std::string &symbol) const;

  /// Every symbol of `symbols`, in order; one error lists all missing ones.
  Expected<std::vector<KernelFn>>
  lookupAll(const std::vector<std::string> &symbols) const;

private:
  KernelLibrary(void *handle, std::string path)
      : handle(handle), libraryPath(std::move(path)) {}

  void *handle;
  std::string libraryPath;
};

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_KERNELLIBRARY_H
