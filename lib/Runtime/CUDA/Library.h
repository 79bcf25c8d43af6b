//===- Library.h - dlopen'd function tables ---------------------*- C++ -*-===//
//
// The CUDA libraries are optional at run time: each is a table of function
// pointers filled with dlsym from a library opened with dlopen, once per
// process.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_CUDA_LIBRARY_H
#define ONEFLOW_LIB_RUNTIME_CUDA_LIBRARY_H

#include "oneflow/Runtime/Status.h"

#include <string>
#include <vector>

namespace oneflow {
namespace runtime {
namespace cuda {

/// dlopen of `path` (RTLD_NOW | RTLD_LOCAL): the handle, or an error
/// "<what> (<dlerror>)".
Expected<void *> openLibrary(const std::string &path, const std::string &what);

/// dlsym; null if absent.
void *findSymbol(void *handle, const char *name);

} // namespace cuda
} // namespace runtime
} // namespace oneflow

/// Members of a function table: one pointer per X(member, symbol, ...).
#define ONEFLOW_CUDA_DECLARE_MEMBER(MEMBER, SYMBOL, RET, PARAMS)               \
  RET(*MEMBER) PARAMS = nullptr;

/// Fills a table's required members, collecting the missing symbols into
/// `missing`. Needs `handle` and `table` in scope.
#define ONEFLOW_CUDA_LOAD_REQUIRED(MEMBER, SYMBOL, RET, PARAMS)                \
  table->MEMBER =                                                              \
      reinterpret_cast<RET(*) PARAMS>(findSymbol(handle, #SYMBOL));            \
  if (!table->MEMBER)                                                          \
    missing.push_back(#SYMBOL);

#define ONEFLOW_CUDA_LOAD_OPTIONAL(MEMBER, SYMBOL, RET, PARAMS)                \
  table->MEMBER = reinterpret_cast<RET(*) PARAMS>(findSymbol(handle, #SYMBOL));

#endif // ONEFLOW_LIB_RUNTIME_CUDA_LIBRARY_H
