//===- MessageQueue.h - The inbox of one engine thread ----------*- C++ -*-===//
//
// Actors on different threads talk only through these: "a piece of your
// input regst is ready", "I am done with a slot of your output regst", "a
// task you wait for fired", and (step-by-step runs) "the step is over".
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_MESSAGEQUEUE_H
#define ONEFLOW_LIB_RUNTIME_MESSAGEQUEUE_H

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace oneflow {
namespace runtime {

struct Message {
  enum Kind : int32_t {
    Ready,    // to a consumer: the next piece of in port `port` is readable
    Release,  // to a producer: the slot of `step` of out port `port` is free
    Stop,     // to a thread: another one failed; stop now
    Control,  // to a waiting actor: a task of `port` (in its wait_for) fired
    StepDone, // to a thread (step-by-step runs): every thread finished `step`
  };
  Kind kind;
  int32_t actor;
  int32_t port;
  int64_t step;
};

class MessageQueue {
public:
  void push(const Message &message) {
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mutex);
      pending.push_back(message);
      wake = waiting;
    }
    // Only a blocked owner needs the (costly) notification.
    if (wake)
      ready.notify_one();
  }

  /// Blocks until there is a message, then moves all of them into `out`
  /// (in arrival order).
  void popAll(std::vector<Message> &out) {
    out.clear();
    std::unique_lock<std::mutex> lock(mutex);
    waiting = true;
    ready.wait(lock, [&] { return !pending.empty(); });
    waiting = false;
    out.swap(pending);
  }

  /// As popAll, waiting at most `timeout`; false (and `out` empty) when
  /// nothing came.
  template <typename Duration>
  bool popAllFor(std::vector<Message> &out, Duration timeout) {
    out.clear();
    std::unique_lock<std::mutex> lock(mutex);
    waiting = true;
    bool any = ready.wait_for(lock, timeout, [&] { return !pending.empty(); });
    waiting = false;
    out.swap(pending);
    return any;
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    pending.clear();
  }

private:
  std::mutex mutex;
  std::condition_variable ready;
  std::vector<Message> pending;
  bool waiting = false;
};

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_LIB_RUNTIME_MESSAGEQUEUE_H
