//===- KernelLibrary.cpp - The plan's compiled kernels --------------------===//

#include "oneflow/Runtime/KernelLibrary.h"

#include <dlfcn.h>
#include <malloc.h>
#include <mutex>
#include <set>
#include <stdlib.h>
#include <sys/stat.h>

namespace oneflow {
namespace runtime {

namespace {
// dlerror() is per thread but dlopen/dlsym + dlerror pairs must not
// interleave within one: serialize them.
std::mutex &dlMutex() {
  static std::mutex mutex;
  return mutex;
}

/// Fused kernels allocate their scratch tensors with malloc at every firing.
/// Serving them from the heap, and keeping freed memory there, spares each
/// firing the mmap, page faults and munmap of fresh pages.
void keepScratchMemoryInHeap() {
  static std::once_flag once;
  std::call_once(once, [] {
    ::mallopt(M_MMAP_THRESHOLD, 32 << 20); // glibc's largest
    ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

/// Kernels' OpenMP loops and OpenBLAS's threads take turns on the same
/// cores: OpenMP workers that spin after a loop (200 ms by default) would
/// steal them from the next matrix product. Unless the user chose
/// otherwise, they spin 1 ms, long enough for back-to-back loops (libomp
/// reads this when kernels.so loads). Measured on 2 cores: GPT training
/// step 168-174 ms (1 ms) vs 187-191 (0) vs about 200 (200 ms).
/// OpenBLAS (f64 products only: f32 ones run on oneDNN) starts its
/// workers when kernels.so loads, and they spin 2^28 cycles (about 80 ms)
/// before they first sleep, on the cores the OpenMP team needs: with two
/// threads, MobileNetV3-small's first 18 steps at batch 1 took 2.1 ms
/// instead of 0.5. They spin 2^4 cycles instead, unless the user chose.
void shortenWorkerSpinning() {
  ::setenv("KMP_BLOCKTIME", "1", 0);
  ::setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
}
} // namespace

Expected<std::unique_ptr<KernelLibrary>>
KernelLibrary::open(const std::string &path) {
  keepScratchMemoryInHeap();
  shortenWorkerSpinning();
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return makeError("kernel library '", path, "' does not exist");
  std::lock_guard<std::mutex> lock(dlMutex());
  // RTLD_LOCAL: kernels of different plans never resolve to each other.
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    return makeError("cannot load kernel library '", path,
                     "': ", why ? why : "unknown error");
  }
  return std::unique_ptr<KernelLibrary>(new KernelLibrary(handle, path));
}

// Sanitizer builds keep the kernel libraries loaded: what a library's
// globals hold (8 bytes, in kernels.so or a library it loads) would be
// reported as leaked once it is unloaded, and ASan could not name its
// frames.
KernelLibrary::~KernelLibrary() {
  std::lock_guard<std::mutex> lock(dlMutex());
#ifndef ONEFLOW_SANITIZE
  ::dlclose(handle);
#endif
}

Expected<KernelFn> KernelLibrary::lookup(const std::string &symbol) const {
  std::lock_guard<std::mutex> lock(dlMutex());
  ::dlerror();
  void *address = ::dlsym(handle, symbol.c_str());
  if (!address)
    return makeError("kernel library '", libraryPath, "' has no symbol '",
                     symbol, "'");
  return reinterpret_cast<KernelFn>(address);
}

Expected<std::vector<KernelFn>>
KernelLibrary::lookupAll(const std::vector<std::string> &symbols) const {
  std::vector<KernelFn> kernels;
  std::set<std::string> missing;
  for (const std::string &symbol : symbols) {
    Expected<KernelFn> kernel = lookup(symbol);
    kernels.push_back(kernel.ok() ? *kernel : nullptr);
    if (!kernel.ok())
      missing.insert(symbol);
  }
  if (missing.empty())
    return kernels;
  std::string list;
  for (const std::string &symbol : missing)
    list += (list.empty() ? "'" : ", '") + symbol + "'";
  return makeError("kernel library '", libraryPath, "' lacks ",
                   missing.size() == 1 ? "symbol " : "symbols ", list);
}

} // namespace runtime
} // namespace oneflow
