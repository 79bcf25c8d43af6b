//===- ObjectCache.h - Host objects reused across compiles ------*- C++ -*-===//
//
// The machine code of a chunk of kernels depends only on its LLVM IR, the
// host target and LLVM itself, and LLVM's O3 and object emission are most of
// a compile. The cache keeps each chunk's object under a hash of those, so a
// model compiled again (other flags, other ranks, an unchanged layer of a
// changed model) skips LLVM for every chunk it has seen. Entries are written
// atomically, so concurrent compiles may share a directory, and pruned by
// LLVM's cache policy (least recently used first).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_CODEGEN_OBJECTCACHE_H
#define ONEFLOW_LIB_CODEGEN_OBJECTCACHE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir {
namespace oneflow {

class ObjectCache {
public:
  /// A cache in `directory` (created if missing); an empty directory is a
  /// disabled cache.
  explicit ObjectCache(llvm::StringRef directory) : directory(directory) {}

  bool enabled() const { return !directory.empty(); }

  /// The key of `module` compiled by `machine`: a hash of its IR, the
  /// target, the CPU and its features, and the LLVM version.
  static std::string key(const llvm::Module &module,
                         const llvm::TargetMachine &machine);

  /// Copies the object cached under `key` to `objectPath`; false when there
  /// is none (or it cannot be copied).
  bool fetch(llvm::StringRef key, llvm::StringRef objectPath) const;

  /// Keeps `object` under `key`. A failure is reported in `error` and
  /// leaves the cache as it was (the compile does not depend on it).
  bool store(llvm::StringRef key, llvm::StringRef object,
             std::string &error) const;

  /// Prunes the directory by the policy in ONEFLOW_KERNEL_CACHE_POLICY
  /// (LLVM's syntax, e.g. "cache_size_bytes=2g:prune_after=72h"; default
  /// at most 1 GiB, entries unused for a week dropped).
  void prune() const;

private:
  std::string directory;
};

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_LIB_CODEGEN_OBJECTCACHE_H
