//===- ObjectCache.cpp - Host objects reused across compiles --------------===//

#include "ObjectCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdlib>

using namespace mlir::oneflow;

/// Changes whenever emitChunk's optimization or emission changes (the IR
/// alone would no longer determine the object).
static constexpr llvm::StringLiteral kFormat = "oneflow-host-object-1";

/// pruneCache only looks at files named so.
static constexpr llvm::StringLiteral kPrefix = "llvmcache-";

std::string ObjectCache::key(const llvm::Module &module,
                             const llvm::TargetMachine &machine) {
  llvm::SHA256 hash;
  auto add = [&](llvm::StringRef part) {
    hash.update(part);
    hash.update(llvm::StringRef("\0", 1));
  };
  add(kFormat);
  add(LLVM_VERSION_STRING);
  add(machine.getTargetTriple().str());
  add(machine.getTargetCPU());
  add(machine.getTargetFeatureString());
  std::string ir;
  llvm::raw_string_ostream os(ir);
  module.print(os, nullptr);
  add(ir);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

bool ObjectCache::fetch(llvm::StringRef key, llvm::StringRef objectPath) const {
  llvm::SmallString<256> entry(directory);
  llvm::sys::path::append(entry, kPrefix + key);
  if (llvm::sys::fs::copy_file(entry, objectPath))
    return false;
  // The entry's modification time is its last use, for pruning.
  if (auto file = llvm::sys::fs::openNativeFileForWrite(
          entry, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append)) {
    llvm::sys::TimePoint<> now = std::chrono::system_clock::now();
    (void)llvm::sys::fs::setLastAccessAndModificationTime(*file, now);
    llvm::sys::fs::closeFile(*file);
  } else {
    llvm::consumeError(file.takeError());
  }
  return true;
}

bool ObjectCache::store(llvm::StringRef key, llvm::StringRef object,
                        std::string &error) const {
  if (std::error_code ec = llvm::sys::fs::create_directories(directory)) {
    error = "cannot create " + directory + ": " + ec.message();
    return false;
  }
  llvm::SmallString<256> model(directory), entry(directory);
  llvm::sys::path::append(model, "tmp-%%%%%%%%.o");
  llvm::sys::path::append(entry, kPrefix + key);
  llvm::Expected<llvm::sys::fs::TempFile> temp =
      llvm::sys::fs::TempFile::create(model);
  if (!temp) {
    error = "cannot write into " + directory + ": " +
            llvm::toString(temp.takeError());
    return false;
  }
  {
    llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    os << object;
    os.flush();
    if (os.has_error()) {
      error = "cannot write into " + directory + ": " + os.error().message();
      os.clear_error();
      llvm::consumeError(temp->discard());
      return false;
    }
  }
  // A rename: a concurrent compile sees the whole object or none.
  if (llvm::Error err = temp->keep(entry)) {
    error = "cannot write " + std::string(entry) + ": " +
            llvm::toString(std::move(err));
    llvm::consumeError(temp->discard());
    return false;
  }
  return true;
}

void ObjectCache::prune() const {
  const char *env = std::getenv("ONEFLOW_KERNEL_CACHE_POLICY");
  llvm::Expected<llvm::CachePruningPolicy> policy =
      llvm::parseCachePruningPolicy(env ? env : "cache_size_bytes=1g");
  if (!policy) {
    llvm::errs() << "warning: ONEFLOW_KERNEL_CACHE_POLICY: "
                 << llvm::toString(policy.takeError())
                 << "; the kernel cache is not pruned\n";
    return;
  }
  llvm::pruneCache(directory, *policy);
}
