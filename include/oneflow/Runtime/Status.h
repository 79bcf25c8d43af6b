//===- Status.h - Errors as values ------------------------------*- C++ -*-===//
//
// The runtime reports every failure (bad plan, missing kernel, wrong input)
// as a message for the user instead of crashing; these two small types carry
// it up to oneflow-run, which prints it and exits with 1.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_STATUS_H
#define ONEFLOW_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace oneflow {
namespace runtime {

/// Success, or an error with a message (one or more lines, no "error:"
/// prefix: the tool adds it).
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }

  bool ok() const { return !failed; }
  const std::string &message() const { return text; }

private:
  bool failed = false;
  std::string text;
};

/// Builds an error from the concatenation of `parts` (anything that streams).
template <typename... Parts> Status makeError(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return Status::error(os.str());
}

/// Success without `problems`, else an error listing them one a line.
inline Status joinProblems(const std::vector<std::string> &problems) {
  if (problems.empty())
    return Status::success();
  std::string text;
  for (const std::string &problem : problems)
    text += (text.empty() ? "" : "\n") + problem;
  return Status::error(text);
}

/// A value or the error that prevented computing it.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value(std::move(value)) {}
  Expected(Status error) : status(std::move(error)) {
    assert(!status.ok() && "an Expected without a value needs an error");
  }

  bool ok() const { return value.has_value(); }
  const Status &error() const { return status; }

  T &operator*() { return *value; }
  const T &operator*() const { return *value; }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }
  T take() { return std::move(*value); }

private:
  std::optional<T> value;
  Status status;
};

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_STATUS_H
