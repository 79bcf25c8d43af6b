//===- FileUtil.h - Files read and written by the runtime -------*- C++ -*-===//

#ifndef ONEFLOW_RUNTIME_FILEUTIL_H
#define ONEFLOW_RUNTIME_FILEUTIL_H

#include "oneflow/Runtime/Status.h"

#include <string>

namespace oneflow {
namespace runtime {

/// The whole file; "cannot read 'p': No such file or directory" otherwise.
Expected<std::string> readFile(const std::string &path);

/// Writes `data` to `path` so that readers see the old file or the new one,
/// never a partial one: a temporary file in the same directory, fsync,
/// rename over `path`, fsync of the directory.
Status writeFileAtomic(const std::string &path, const std::string &data);

/// Creates `path` and its missing parents.
Status makeDirectories(const std::string &path);

/// Creates the new file `path` (it must not exist), writes `data` and
/// fsyncs it: for files of a directory that is renamed into place later.
Status writeNewFileSynced(const std::string &path, const std::string &data);

/// fsync of a directory: makes the creation, renaming and removal of its
/// entries durable.
Status syncDirectory(const std::string &path);

/// Turns a graph output name (which may hold '/', ':', ...) into a safe,
/// distinct file name: bytes outside [A-Za-z0-9_.-] become %XX (hex, so '%'
/// itself too), as does a leading '.' (no hidden files, "." or ".."); an
/// empty name is "%". Names longer than 200 bytes once escaped keep 183
/// bytes plus '~' and a 16-digit hash, to stay under file name limits.
std::string sanitizeFileName(const std::string &name);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_FILEUTIL_H
