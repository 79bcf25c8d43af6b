//===- FuzzCheckpointManifest.cpp - Fuzz target: manifest.json ------------===//
//
// A checkpoint's manifest (JSON): any bytes give a manifest whose entries
// are well formed (a plain file name, a valid dtype, a shape whose byte
// size fits), or an error.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/Checkpoint.h"

#include <cstdlib>

using namespace oneflow::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Expected<CheckpointManifest> manifest = parseCheckpointManifest(
      std::string(reinterpret_cast<const char *>(data), size), "fuzz");
  if (!manifest.ok())
    return 0;
  for (const CheckpointEntry &entry : manifest->entries)
    if (entry.file.empty() || entry.file[0] == '.' ||
        entry.file.find('/') != std::string::npos ||
        tensorBytes(entry.dtype, entry.shape) < 0)
      std::abort();
  return 0;
}
