//===- Checkpoint.h - Saving and restoring variables ------------*- C++ -*-===//
//
// A checkpoint is a directory holding every variable of a plan as its full
// logical tensor, one .npy file per variable, and manifest.json:
//
//   {"format": "oneflow-checkpoint", "version": 2, "step": 120,
//    "variables": [{"name": "fc1.weight", "file": "fc1.weight.npy",
//                   "dtype": "f32", "shape": [64, 128], "trainable": true,
//                   "crc32c": "0x1c2d3e4f"},
//                  ...]}
//
// "crc32c" is the CRC-32C of the whole .npy file (header included),
// verified when the tensor is read: a damaged file is an error naming the
// variable and the file. Version 1 manifests (no "crc32c") are still read,
// with a warning, their tensors unverified.
//
// File names are the variable names escaped by sanitizeFileName (so
// "dense/kernel:0" is dense%2Fkernel%3A0.npy); the manifest keeps the real
// names. bf16 variables are stored as f32 (exact; .npy has no bf16) with
// "dtype": "bf16" in the manifest. `step` counts the training steps run
// before the checkpoint was written.
//
// Writing is atomic: everything goes into a temporary sibling directory
// (.NAME.tmp.XXXXXX), every file and the directory are fsync'ed, then it is
// swapped into place (renameat2 RENAME_EXCHANGE when the checkpoint exists,
// rename otherwise) and the old one removed. A crash at any point leaves
// the old complete checkpoint or the new complete one (plus, at worst, a
// temporary directory, removed by the next save to the same path).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CHECKPOINT_H
#define ONEFLOW_RUNTIME_CHECKPOINT_H

#include "oneflow/Runtime/Variables.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

struct CheckpointEntry {
  std::string name;
  std::string file; // in the checkpoint directory
  plan::DataType dtype = plan::DT_INVALID;
  std::vector<int64_t> shape;
  bool trainable = false;
  uint32_t crc32c = 0; // of the whole file; set when the manifest is verified

  std::string describe() const; // "'fc1.weight' f32[64,128]"
};

struct CheckpointManifest {
  int64_t step = 0;
  /// Version 2: every entry's crc32c is checked when its file is read.
  /// Version 1 manifests have no checksums and load with a warning.
  bool verified = true;
  std::vector<CheckpointEntry> entries; // in manifest order

  const CheckpointEntry *find(const std::string &name) const;
};

struct CheckpointWriteOptions {
  /// Called after each file written into the temporary directory, with the
  /// number written so far (the manifest is the last); an error stops the
  /// save there, as a failing write would. For tests.
  std::function<Status(int filesWritten)> afterFile;
};

/// Writes `tensors` (the full tensor of every variable in `variables`, by
/// name) and `step` as the checkpoint directory `path`, atomically (see
/// above). An existing `path` must be a checkpoint (it has manifest.json)
/// or an empty directory: anything else is an error and stays untouched.
/// The parent directory is created if needed.
Status writeCheckpoint(const std::string &path, int64_t step,
                       const std::vector<Variable> &variables,
                       const std::map<std::string, HostTensor> &tensors,
                       const CheckpointWriteOptions &options = {});

/// Reads and checks `path`/manifest.json.
Expected<CheckpointManifest> readCheckpointManifest(const std::string &path);
/// Checks `text`, the manifest of checkpoint `path` (named in errors).
Expected<CheckpointManifest> parseCheckpointManifest(const std::string &text,
                                                     const std::string &path);

/// Every difference between a checkpoint and the plan's variables, one
/// line each: variables the checkpoint lacks, tensors whose dtype or shape
/// differ, tensors that are not variables of the plan.
Status checkCheckpoint(const std::string &path,
                       const CheckpointManifest &manifest,
                       const std::vector<Variable> &variables);

/// The tensors of `names` (all when empty) from checkpoint `path`, each
/// checked against the manifest.
Expected<std::map<std::string, HostTensor>>
readCheckpointTensors(const std::string &path,
                      const CheckpointManifest &manifest,
                      const std::set<std::string> &names = {});

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_CHECKPOINT_H
