//===- FileUtil.cpp - Files read and written by the runtime ---------------===//

#include "oneflow/Runtime/FileUtil.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace oneflow {
namespace runtime {

namespace {

std::string systemError() { return std::strerror(errno); }

/// write(2) until done, retrying interrupted and short writes.
bool writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

} // namespace

Expected<std::string> readFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return makeError("cannot read '", path, "': ", systemError());
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return makeError("cannot read '", path, "': it is a directory");
  }
  std::string data;
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      Status error = makeError("cannot read '", path, "': ", systemError());
      ::close(fd);
      return error;
    }
    if (n == 0)
      break;
    data.append(buffer, size_t(n));
  }
  ::close(fd);
  return data;
}

Status writeFileAtomic(const std::string &path, const std::string &data) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path();
  if (dir.empty())
    dir = ".";
  std::string temp =
      (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(temp.data());
  if (fd < 0)
    return makeError("cannot write '", path, "': ", systemError());
  bool ok = writeAll(fd, data.data(), data.size()) && ::fsync(fd) == 0;
  std::string why = ok ? "" : systemError();
  if (::close(fd) != 0 && ok) {
    ok = false;
    why = systemError();
  }
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    ok = false;
    why = systemError();
  }
  if (!ok) {
    ::unlink(temp.c_str());
    return makeError("cannot write '", path, "': ", why);
  }
  // Make the rename itself durable.
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  return Status::success();
}

Status makeDirectories(const std::string &path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec)
    return makeError("cannot create directory '", path, "': ", ec.message());
  if (!std::filesystem::is_directory(path, ec))
    return makeError("cannot create directory '", path,
                     "': a file of that name exists");
  return Status::success();
}

Status writeNewFileSynced(const std::string &path, const std::string &data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return makeError("cannot write '", path, "': ", systemError());
  bool ok = writeAll(fd, data.data(), data.size()) && ::fsync(fd) == 0;
  std::string why = ok ? "" : systemError();
  if (::close(fd) != 0 && ok) {
    ok = false;
    why = systemError();
  }
  if (!ok)
    return makeError("cannot write '", path, "': ", why);
  return Status::success();
}

Status syncDirectory(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return makeError("cannot open directory '", path, "': ", systemError());
  bool ok = ::fsync(fd) == 0;
  std::string why = ok ? "" : systemError();
  ::close(fd);
  if (!ok)
    return makeError("cannot sync directory '", path, "': ", why);
  return Status::success();
}

std::string sanitizeFileName(const std::string &name) {
  static const char hex[] = "0123456789ABCDEF";
  std::string safe;
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                 (c == '.' && i > 0);
    if (plain) {
      safe += char(c);
    } else {
      safe += '%';
      safe += hex[c >> 4];
      safe += hex[c & 15];
    }
  }
  if (safe.empty())
    return "%";
  constexpr size_t kMaxLength = 200, kKept = 183;
  if (safe.size() > kMaxLength) {
    // FNV-1a of the full name keeps long names distinct.
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : name)
      hash = (hash ^ c) * 1099511628211ull;
    // Do not cut an escape in half.
    size_t keep = kKept;
    while (keep >= 2 && (safe[keep - 1] == '%' || safe[keep - 2] == '%'))
      --keep;
    safe.resize(keep);
    safe += '~';
    for (int shift = 60; shift >= 0; shift -= 4)
      safe += hex[(hash >> shift) & 15];
  }
  return safe;
}

} // namespace runtime
} // namespace oneflow
