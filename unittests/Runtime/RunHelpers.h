//===- RunHelpers.h - Running plans in GoogleTest cases ---------*- C++ -*-===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_RUNHELPERS_H
#define ONEFLOW_UNITTESTS_RUNTIME_RUNHELPERS_H

#include "TestSupport.h"

#include <memory>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {
namespace test {

/// Runs on another thread so that a hang aborts the test (after 60 s)
/// instead of blocking ctest until its own timeout.
Status runWithTimeout(Executor &executor, const RunOptions &options,
                      const InputFeed &feed, const OutputSink &sink);

/// Writes `plan` into `dir` and loads it; nullptr (and a test failure with
/// the message) when it does not load.
std::unique_ptr<Executor> loadOrFail(const PlanDir &dir,
                                     const plan::Plan &plan);

/// The validation problems of `plan`, which must be invalid ("" and a test
/// failure otherwise).
std::string planProblems(const plan::Plan &plan);

/// The bytes of `values` (e.g. for weights.bin).
std::string floatBytes(std::vector<float> values);
/// The bytes of `values` (e.g. the ids test_record logs, for weights.bin).
std::string int32Bytes(std::vector<int32_t> values);

} // namespace test
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_UNITTESTS_RUNTIME_RUNHELPERS_H
