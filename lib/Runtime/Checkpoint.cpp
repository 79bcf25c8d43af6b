//===- Checkpoint.cpp - Saving and restoring variables --------------------===//

#include "oneflow/Runtime/Checkpoint.h"

#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/Crc32c.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Json.h"
#include "oneflow/Runtime/NpyIO.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace oneflow {
namespace runtime {

namespace {

constexpr const char *kManifest = "manifest.json";
constexpr const char *kFormat = "oneflow-checkpoint";
/// Version 2 records each tensor file's CRC-32C; version 1 (no checksums)
/// is still read, unverified.
constexpr int kVersion = 2;
constexpr int kUnverifiedVersion = 1;

/// "0x" and 8 hex digits, as formatCrc32c writes them.
bool parseCrc32c(const std::string &text, uint32_t &crc) {
  if (text.size() != 10 || text[0] != '0' || text[1] != 'x')
    return false;
  crc = 0;
  for (size_t i = 2; i < text.size(); ++i) {
    char c = text[i];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                       : -1;
    if (digit < 0)
      return false;
    crc = crc << 4 | uint32_t(digit);
  }
  return true;
}

/// "ckpt/" -> "ckpt": the path of the directory itself.
fs::path directoryPath(const std::string &path) {
  fs::path p(path);
  while (!p.has_filename() && p.has_parent_path() && p != p.root_path())
    p = p.parent_path();
  return p;
}

fs::path parentOf(const fs::path &dir) {
  fs::path parent = dir.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

std::string tempPrefix(const fs::path &dir) {
  return "." + dir.filename().string() + ".tmp.";
}

bool parseDataType(const std::string &name, plan::DataType &dtype) {
  for (plan::DataType candidate : {plan::F32, plan::F64, plan::F16, plan::BF16,
                                   plan::I32, plan::I64, plan::BOOL})
    if (name == dataTypeName(candidate)) {
      dtype = candidate;
      return true;
    }
  return false;
}

std::string manifestJson(int64_t step, const std::vector<Variable> &variables,
                         const std::vector<uint32_t> &checksums) {
  std::string out = "{\"format\": \"";
  out += kFormat;
  out += "\", \"version\": " + std::to_string(kVersion) +
         ", \"step\": " + std::to_string(step) + ",\n \"variables\": [";
  for (size_t i = 0; i < variables.size(); ++i) {
    const Variable &variable = variables[i];
    out += i ? ",\n  {" : "\n  {";
    out += "\"name\": ";
    appendJsonString(out, variable.name);
    out += ", \"file\": ";
    appendJsonString(out, sanitizeFileName(variable.name) + ".npy");
    out += ", \"dtype\": \"";
    out += dataTypeName(variable.dtype);
    out += "\", \"shape\": [";
    for (size_t d = 0; d < variable.shape.size(); ++d)
      out += (d ? ", " : "") + std::to_string(variable.shape[d]);
    out += "], \"trainable\": ";
    out += variable.trainable ? "true" : "false";
    out += ", \"crc32c\": \"" + formatCrc32c(checksums[i]) + "\"}";
  }
  out += "\n]}\n";
  return out;
}

/// Removes temporary directories that earlier saves to `dir` left behind
/// when they crashed.
void removeLeftovers(const fs::path &dir) {
  std::error_code ec;
  std::string prefix = tempPrefix(dir);
  for (const fs::directory_entry &entry :
       fs::directory_iterator(parentOf(dir), ec)) {
    std::string name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) == 0)
      fs::remove_all(entry.path(), ec);
  }
}

/// Puts the complete directory `temp` in the place of `dir`.
Status swapIntoPlace(const fs::path &temp, const fs::path &dir, bool exists) {
  std::string parent = parentOf(dir).string();
  std::error_code ec;
  if (!exists) {
    if (std::rename(temp.c_str(), dir.c_str()) != 0)
      return makeError("cannot write checkpoint '", dir.string(),
                       "': rename: ", std::strerror(errno));
    return syncDirectory(parent);
  }
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, dir.c_str(),
                  RENAME_EXCHANGE) == 0) {
    // `temp` now names the old checkpoint.
    Status synced = syncDirectory(parent);
    fs::remove_all(temp, ec);
    return synced;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
    return makeError("cannot write checkpoint '", dir.string(),
                     "': renameat2: ", std::strerror(errno));
  // A file system without RENAME_EXCHANGE: two renames. A crash between
  // them leaves the old checkpoint under .NAME.tmp.XXXXXX.old.
  fs::path old = temp.string() + ".old";
  if (std::rename(dir.c_str(), old.c_str()) != 0)
    return makeError("cannot write checkpoint '", dir.string(),
                     "': rename: ", std::strerror(errno));
  if (std::rename(temp.c_str(), dir.c_str()) != 0) {
    Status error = makeError("cannot write checkpoint '", dir.string(),
                             "': rename: ", std::strerror(errno));
    std::rename(old.c_str(), dir.c_str());
    return error;
  }
  Status synced = syncDirectory(parent);
  fs::remove_all(old, ec);
  return synced;
}

} // namespace

std::string CheckpointEntry::describe() const {
  return "'" + name + "' " + describeTensor(dtype, shape);
}

const CheckpointEntry *CheckpointManifest::find(const std::string &name) const {
  for (const CheckpointEntry &entry : entries)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

Status writeCheckpoint(const std::string &path, int64_t step,
                       const std::vector<Variable> &variables,
                       const std::map<std::string, HostTensor> &tensors,
                       const CheckpointWriteOptions &options) {
  const fs::path dir = directoryPath(path);
  auto fail = [&](const std::string &why) {
    return makeError("cannot write checkpoint '", path, "': ", why);
  };
  // Never replace something that is not a checkpoint (the old directory is
  // removed once the new one is in place).
  std::error_code ec;
  fs::file_status status = fs::symlink_status(dir, ec);
  bool exists = fs::exists(status);
  if (exists && !fs::is_directory(status))
    return fail("it exists and is not a directory");
  if (exists && !fs::exists(dir / kManifest, ec) && !fs::is_empty(dir, ec))
    return fail("the directory exists and is not a checkpoint (it has no " +
                std::string(kManifest) + "); not replacing it");
  Status made = makeDirectories(parentOf(dir).string());
  if (!made.ok())
    return fail(made.message());
  removeLeftovers(dir);

  std::string pattern = (parentOf(dir) / (tempPrefix(dir) + "XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    return fail(std::string("cannot create a temporary directory: ") +
                std::strerror(errno));
  const fs::path temp = pattern;
  Status result = [&]() -> Status {
    int written = 0;
    auto wrote = [&]() -> Status {
      ++written;
      return options.afterFile ? options.afterFile(written) : Status::success();
    };
    std::vector<uint32_t> checksums;
    for (const Variable &variable : variables) {
      auto it = tensors.find(variable.name);
      if (it == tensors.end())
        return fail("no value for variable " + variable.describe());
      const HostTensor &tensor = it->second;
      if (tensor.dtype != variable.dtype || tensor.shape != variable.shape)
        return fail("variable " + variable.describe() + " has a value of " +
                    tensor.describe());
      Expected<std::string> bytes = encodeNpy(widenBF16(tensor));
      if (!bytes.ok())
        return fail(bytes.error().message());
      checksums.push_back(crc32c(bytes->data(), bytes->size()));
      Status status = writeNewFileSynced(
          (temp / (sanitizeFileName(variable.name) + ".npy")).string(), *bytes);
      if (status.ok())
        status = wrote();
      if (!status.ok())
        return fail(status.message());
    }
    Status status = writeNewFileSynced(
        (temp / kManifest).string(), manifestJson(step, variables, checksums));
    if (status.ok())
      status = wrote();
    if (status.ok())
      status = syncDirectory(temp.string());
    if (!status.ok())
      return fail(status.message());
    return swapIntoPlace(temp, dir, exists);
  }();
  if (!result.ok())
    fs::remove_all(temp, ec);
  return result;
}

Expected<CheckpointManifest> readCheckpointManifest(const std::string &path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec))
    return makeError("checkpoint '", path, "' ",
                     fs::exists(path, ec) ? "is not a directory"
                                          : "does not exist");
  std::string file = (directoryPath(path) / kManifest).string();
  Expected<std::string> text = readFile(file);
  if (!text.ok())
    return makeError("checkpoint '", path, "': ", text.error().message());
  return parseCheckpointManifest(*text, path);
}

Expected<CheckpointManifest> parseCheckpointManifest(const std::string &text,
                                                     const std::string &path) {
  std::string file = (directoryPath(path) / kManifest).string();
  Expected<JsonValue> json = parseJson(text);
  auto bad = [&](const std::string &why) {
    return makeError("checkpoint '", path, "': ", file, ": ", why);
  };
  if (!json.ok())
    return bad(json.error().message());
  const JsonValue *format = json->find("format");
  if (!format || format->kind != JsonValue::String || format->text != kFormat)
    return bad(std::string("not a checkpoint manifest (\"format\" is not \"") +
               kFormat + "\")");
  const JsonValue *version = json->find("version");
  if (!version || !version->isInteger() ||
      (version->asInteger() != kVersion &&
       version->asInteger() != kUnverifiedVersion))
    return bad("unsupported version (this runtime reads versions " +
               std::to_string(kUnverifiedVersion) + " and " +
               std::to_string(kVersion) + ")");
  CheckpointManifest manifest;
  manifest.verified = version->asInteger() == kVersion;
  const JsonValue *step = json->find("step");
  if (!step || !step->isInteger() || step->asInteger() < 0)
    return bad("\"step\" must be an integer >= 0");
  manifest.step = step->asInteger();
  const JsonValue *variables = json->find("variables");
  if (!variables || variables->kind != JsonValue::Array)
    return bad("\"variables\" must be an array");
  for (size_t i = 0; i < variables->items.size(); ++i) {
    const JsonValue &item = variables->items[i];
    const std::string where = "variable " + std::to_string(i);
    const JsonValue *name = item.find("name");
    const JsonValue *fileName = item.find("file");
    const JsonValue *dtype = item.find("dtype");
    const JsonValue *shape = item.find("shape");
    const JsonValue *trainable = item.find("trainable");
    CheckpointEntry entry;
    if (!name || name->kind != JsonValue::String)
      return bad(where + ": \"name\" must be a string");
    entry.name = name->text;
    if (!fileName || fileName->kind != JsonValue::String ||
        fileName->text.empty() || fileName->text[0] == '.' ||
        fileName->text.find('/') != std::string::npos)
      return bad(where + ": \"file\" must be a file name in the directory");
    entry.file = fileName->text;
    if (!dtype || dtype->kind != JsonValue::String ||
        !parseDataType(dtype->text, entry.dtype))
      return bad(where + ": \"dtype\" must be one of f32 f64 f16 bf16 i32 "
                         "i64 bool");
    if (!shape || shape->kind != JsonValue::Array)
      return bad(where + ": \"shape\" must be an array of sizes");
    for (const JsonValue &dim : shape->items) {
      if (!dim.isInteger() || dim.asInteger() < 0)
        return bad(where + ": \"shape\" must be an array of sizes");
      entry.shape.push_back(dim.asInteger());
    }
    if (tensorBytes(entry.dtype, entry.shape) < 0)
      return bad(where + ": the shape is too large");
    if (trainable && trainable->kind != JsonValue::Bool)
      return bad(where + ": \"trainable\" must be true or false");
    entry.trainable = trainable && trainable->boolean;
    const JsonValue *checksum = item.find("crc32c");
    if (manifest.verified &&
        (!checksum || checksum->kind != JsonValue::String ||
         !parseCrc32c(checksum->text, entry.crc32c)))
      return bad(where + ": \"crc32c\" must be the file's CRC-32C as "
                         "\"0x\" and 8 lowercase hex digits");
    if (manifest.find(entry.name))
      return bad("variable '" + entry.name + "' is listed twice");
    manifest.entries.push_back(std::move(entry));
  }
  return manifest;
}

Status checkCheckpoint(const std::string &path,
                       const CheckpointManifest &manifest,
                       const std::vector<Variable> &variables) {
  std::vector<std::string> problems;
  std::set<std::string> known;
  for (const Variable &variable : variables) {
    known.insert(variable.name);
    const CheckpointEntry *entry = manifest.find(variable.name);
    if (!entry)
      problems.push_back("checkpoint '" + path + "' lacks variable " +
                         variable.describe());
    else if (entry->dtype != variable.dtype || entry->shape != variable.shape)
      problems.push_back(
          "checkpoint '" + path + "': variable '" + variable.name + "' is " +
          describeTensor(entry->dtype, entry->shape) +
          " in the checkpoint but " +
          describeTensor(variable.dtype, variable.shape) + " in the plan");
  }
  for (const CheckpointEntry &entry : manifest.entries)
    if (!known.count(entry.name))
      problems.push_back("checkpoint '" + path + "' holds " + entry.describe() +
                         ", which is not a variable of the plan");
  return joinProblems(problems);
}

Expected<std::map<std::string, HostTensor>>
readCheckpointTensors(const std::string &path,
                      const CheckpointManifest &manifest,
                      const std::set<std::string> &names) {
  std::map<std::string, HostTensor> tensors;
  if (!manifest.verified)
    std::cerr << "warning: checkpoint '" << path << "' has a version "
              << kUnverifiedVersion
              << " manifest, without checksums: its tensors are loaded "
                 "unverified (the next checkpoint written has them)\n";
  for (const CheckpointEntry &entry : manifest.entries) {
    if (!names.empty() && !names.count(entry.name))
      continue;
    std::string file = (directoryPath(path) / entry.file).string();
    Expected<std::string> bytes = readFile(file);
    if (!bytes.ok())
      return makeError("checkpoint '", path, "': ", bytes.error().message());
    if (manifest.verified) {
      uint32_t actual = crc32c(bytes->data(), bytes->size());
      if (actual != entry.crc32c)
        return makeError("checkpoint '", path, "': '", entry.file,
                         "' is damaged: its CRC-32C is ", formatCrc32c(actual),
                         ", the manifest recorded ", formatCrc32c(entry.crc32c),
                         " for variable ", entry.describe());
    }
    Expected<HostTensor> tensor = parseNpy(*bytes, file);
    if (!tensor.ok())
      return makeError("checkpoint '", path, "': ", tensor.error().message());
    // bf16 is stored as f32.
    plan::DataType stored = entry.dtype == plan::BF16 ? plan::F32 : entry.dtype;
    if (tensor->dtype != stored || tensor->shape != entry.shape)
      return makeError("checkpoint '", path, "': '", entry.file, "' holds ",
                       tensor->describe(), " but the manifest says ",
                       describeTensor(stored, entry.shape), " for variable ",
                       entry.describe());
    HostTensor value = tensor.take();
    if (entry.dtype == plan::BF16) {
      HostTensor narrow(plan::BF16, entry.shape);
      const float *in = value.as<float>();
      uint16_t *out = narrow.as<uint16_t>();
      for (int64_t i = 0, e = narrow.numElements(); i < e; ++i)
        out[i] = floatToBfloat16(in[i]);
      value = std::move(narrow);
    }
    tensors.emplace(entry.name, std::move(value));
  }
  return tensors;
}

} // namespace runtime
} // namespace oneflow
