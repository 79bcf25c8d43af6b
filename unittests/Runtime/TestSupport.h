//===- TestSupport.h - Plans, plan directories and kernels for tests ------===//
//
// Builds real plans programmatically and real plan directories (plan.pb,
// the test kernel library as kernels.so, weights.bin) in a temporary
// directory. Shared by the unit tests, the lit helper and the benchmark.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_TESTSUPPORT_H
#define ONEFLOW_UNITTESTS_RUNTIME_TESTSUPPORT_H

#include "oneflow/Runtime/Executor.h"

#include <string>
#include <vector>

namespace oneflow {
namespace runtime {
namespace test {

/// Elements of the f32 vectors the test kernels work on.
constexpr int kTestLength = 4;

/// The test kernel module (built next to the tests).
const char *testKernelsPath();

/// Builds a plan one regst and task at a time; ids are assigned in order.
class PlanBuilder {
public:
  PlanBuilder();

  int64_t regst(const std::string &name, plan::DataType dtype = plan::F32,
                std::vector<int64_t> shape = {kTestLength}, int numSlots = 1);
  int64_t persistent(const std::string &name, int64_t weightsOffset = -1,
                     plan::DataType dtype = plan::F32,
                     std::vector<int64_t> shape = {kTestLength});
  int64_t kernel(const std::string &name, const std::string &symbol,
                 std::vector<int64_t> ins, std::vector<int64_t> outs,
                 const std::string &stream = "compute");
  /// A graph input fed into `regst` by an INPUT task.
  int64_t input(const std::string &name, int64_t regst,
                const std::string &stream = "io");
  /// A graph output drained from `regst` by an OUTPUT task.
  int64_t output(const std::string &name, int64_t regst,
                 const std::string &stream = "io");

  /// A COLLECTIVE task on `rank` (stream "comm"); `ins`/`outs` as the kind
  /// needs (none for RECV's input and SEND's output). Also moves the regsts
  /// it touches to `rank`.
  int64_t collective(const std::string &name, plan::Collective::Kind kind,
                     int rank, std::vector<int64_t> ins,
                     std::vector<int64_t> outs, std::vector<int> group,
                     int64_t tag, int axis = 0, int concatAxis = 0,
                     int peer = 0);
  /// Moves a task and the regsts it touches to `rank`.
  void onRank(int64_t task, int rank);

  /// An ASSIGN task (stream "compute") copying `in` into the persistent
  /// `variable` once the tasks `waitFor` fired.
  int64_t assign(const std::string &name, int64_t in, int64_t variable,
                 std::vector<int64_t> waitFor = {});
  /// Marks persistent `regst` as the piece at `offsets` of variable `name`
  /// (`globalShape`; the regst's own shape and offsets 0 by default).
  void variable(int64_t regst, const std::string &name,
                std::vector<int64_t> globalShape = {},
                std::vector<int64_t> offsets = {}, bool trainable = true);

  plan::Regst &regstById(int64_t id);
  plan::Task &taskById(int64_t id);

  plan::Plan plan;
};

/// A fresh temporary directory, removed with its contents at destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return dir; }
  std::string file(const std::string &name) const { return dir + "/" + name; }

private:
  std::string dir;
};

/// A temporary directory holding kernels.so (a link to the test kernels).
class PlanDir : public TempDir {
public:
  PlanDir();

  void write(const std::string &name, const std::string &bytes) const;
  void writePlan(const plan::Plan &plan) const;
};

/// An f32 vector tensor.
HostTensor vec(std::vector<float> values);
std::vector<float> values(const HostTensor &tensor);

/// Calls of the test kernels' log (test_record), in order.
std::vector<int32_t> kernelLog();
void resetKernelLog();

/// test_hang: counts calls from 0 again; lets a hanging call return.
void resetHangingKernel();
void releaseHangingKernel();

} // namespace test
} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_UNITTESTS_RUNTIME_TESTSUPPORT_H
