//===- StandIn.h - What the CUDA stand-in libraries share -------*- C++ -*-===//
//
// The stand-ins for libcuda.so.1, libcublasLt.so.13 and libcudnn.so.9 run
// the device layer without a GPU: device memory is host memory, copies
// copy, library calls compute with reference loops, kernel launches are
// only recorded. Every call that matters appends one line to the file
// named by ONEFLOW_CUDA_STANDIN_LOG.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_CUDA_STANDIN_H
#define ONEFLOW_UNITTESTS_RUNTIME_CUDA_STANDIN_H

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

/// A stream of the stand-in driver; the libraries read its id. `hung`:
/// its work never finishes (ONEFLOW_CUDA_STANDIN_HANG_LAUNCH).
struct CUstream_st {
  int id;
  std::atomic<bool> hung{false};
};

namespace standin {

/// Appends one line (printf format, no newline) to the log: one write()
/// on an O_APPEND file, so lines of threads and libraries do not mix.
inline void log(const char *format, ...) {
  const char *path = std::getenv("ONEFLOW_CUDA_STANDIN_LOG");
  if (!path || !*path)
    return;
  char line[1024];
  va_list args;
  va_start(args, format);
  int length = std::vsnprintf(line, sizeof(line) - 1, format, args);
  va_end(args);
  if (length < 0)
    return;
  if (length > static_cast<int>(sizeof(line)) - 2)
    length = sizeof(line) - 2;
  line[length++] = '\n';
  int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0)
    return;
  ssize_t written = ::write(fd, line, length);
  (void)written;
  ::close(fd);
}

/// The id of a stream (0: the default stream).
inline int streamId(const CUstream_st *stream) {
  return stream ? stream->id : 0;
}

} // namespace standin

#endif // ONEFLOW_UNITTESTS_RUNTIME_CUDA_STANDIN_H
