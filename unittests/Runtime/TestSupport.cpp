//===- TestSupport.cpp - Plans, plan directories and kernels for tests ----===//

#include "TestSupport.h"

#include "oneflow/Runtime/FileUtil.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <stdexcept>

namespace oneflow {
namespace runtime {
namespace test {

const char *testKernelsPath() { return ONEFLOW_TEST_KERNELS; }

PlanBuilder::PlanBuilder() {
  plan.set_version(1);
  plan.set_num_ranks(1);
  plan.set_kernel_library("kernels.so");
  plan.set_weights_file("weights.bin");
}

int64_t PlanBuilder::regst(const std::string &name, plan::DataType dtype,
                           std::vector<int64_t> shape, int numSlots) {
  plan::Regst *regst = plan.add_regsts();
  regst->set_id(plan.regsts_size() - 1);
  regst->set_name(name);
  regst->mutable_desc()->set_dtype(dtype);
  for (int64_t dim : shape)
    regst->mutable_desc()->add_shape(dim);
  regst->set_size_bytes(tensorBytes(dtype, shape));
  regst->set_num_slots(numSlots);
  regst->set_weights_offset(-1);
  return regst->id();
}

int64_t PlanBuilder::persistent(const std::string &name, int64_t weightsOffset,
                                plan::DataType dtype,
                                std::vector<int64_t> shape) {
  int64_t id = regst(name, dtype, std::move(shape), 1);
  regstById(id).set_persistent(true);
  regstById(id).set_weights_offset(weightsOffset);
  return id;
}

int64_t PlanBuilder::kernel(const std::string &name, const std::string &symbol,
                            std::vector<int64_t> ins, std::vector<int64_t> outs,
                            const std::string &stream) {
  plan::Task *task = plan.add_tasks();
  task->set_id(plan.tasks_size() - 1);
  task->set_kind(plan::KERNEL);
  task->set_name(name);
  task->set_rank(0);
  task->set_stream(stream);
  task->set_kernel_symbol(symbol);
  for (int64_t in : ins)
    task->add_in_regsts(in);
  for (int64_t out : outs)
    task->add_out_regsts(out);
  return task->id();
}

int64_t PlanBuilder::input(const std::string &name, int64_t regst,
                           const std::string &stream) {
  plan::IOSpec *spec = plan.add_inputs();
  spec->set_name(name);
  *spec->mutable_desc() = regstById(regst).desc();
  spec->set_regst(regst);
  plan::Task *task = plan.add_tasks();
  task->set_id(plan.tasks_size() - 1);
  task->set_kind(plan::INPUT);
  task->set_name("input " + name);
  task->set_stream(stream);
  task->set_io_name(name);
  task->add_out_regsts(regst);
  return task->id();
}

int64_t PlanBuilder::output(const std::string &name, int64_t regst,
                            const std::string &stream) {
  plan::IOSpec *spec = plan.add_outputs();
  spec->set_name(name);
  *spec->mutable_desc() = regstById(regst).desc();
  spec->set_regst(regst);
  plan::Task *task = plan.add_tasks();
  task->set_id(plan.tasks_size() - 1);
  task->set_kind(plan::OUTPUT);
  task->set_name("output " + name);
  task->set_stream(stream);
  task->set_io_name(name);
  task->add_in_regsts(regst);
  return task->id();
}

int64_t PlanBuilder::collective(const std::string &name,
                                plan::Collective::Kind kind, int rank,
                                std::vector<int64_t> ins,
                                std::vector<int64_t> outs,
                                std::vector<int> group, int64_t tag, int axis,
                                int concatAxis, int peer) {
  plan::Task *task = plan.add_tasks();
  task->set_id(plan.tasks_size() - 1);
  task->set_kind(plan::COLLECTIVE);
  task->set_name(name);
  task->set_stream("comm");
  for (int64_t in : ins)
    task->add_in_regsts(in);
  for (int64_t out : outs)
    task->add_out_regsts(out);
  plan::Collective *c = task->mutable_collective();
  c->set_kind(kind);
  for (int member : group)
    c->add_group(member);
  c->set_tag(tag);
  c->set_axis(axis);
  c->set_concat_axis(concatAxis);
  c->set_peer(peer);
  onRank(task->id(), rank);
  return task->id();
}

void PlanBuilder::onRank(int64_t taskId, int rank) {
  plan::Task &task = taskById(taskId);
  task.set_rank(rank);
  for (int64_t id : task.in_regsts())
    regstById(id).set_rank(rank);
  for (int64_t id : task.out_regsts())
    regstById(id).set_rank(rank);
}

int64_t PlanBuilder::assign(const std::string &name, int64_t in,
                            int64_t variable, std::vector<int64_t> waitFor) {
  int64_t id = kernel(name, "", {in}, {variable});
  plan::Task &task = taskById(id);
  task.set_kind(plan::ASSIGN);
  task.clear_kernel_symbol();
  for (int64_t other : waitFor)
    task.add_wait_for(other);
  return id;
}

void PlanBuilder::variable(int64_t regst, const std::string &name,
                           std::vector<int64_t> globalShape,
                           std::vector<int64_t> offsets, bool trainable) {
  plan::Regst &r = regstById(regst);
  plan::VariableSlice *v = r.mutable_variable();
  v->set_name(name);
  if (globalShape.empty())
    globalShape.assign(r.desc().shape().begin(), r.desc().shape().end());
  if (offsets.empty())
    offsets.assign(globalShape.size(), 0);
  for (int64_t dim : globalShape)
    v->add_global_shape(dim);
  for (int64_t offset : offsets)
    v->add_offsets(offset);
  v->set_trainable(trainable);
}

plan::Regst &PlanBuilder::regstById(int64_t id) {
  for (plan::Regst &regst : *plan.mutable_regsts())
    if (regst.id() == id)
      return regst;
  throw std::out_of_range("no regst " + std::to_string(id));
}

plan::Task &PlanBuilder::taskById(int64_t id) {
  for (plan::Task &task : *plan.mutable_tasks())
    if (task.id() == id)
      return task;
  throw std::out_of_range("no task " + std::to_string(id));
}

TempDir::TempDir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/oneflow-runtime-test-XXXXXX";
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("mkdtemp failed");
  dir = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

PlanDir::PlanDir() {
  std::filesystem::create_symlink(testKernelsPath(), file("kernels.so"));
}

void PlanDir::write(const std::string &name, const std::string &bytes) const {
  Status status = writeFileAtomic(file(name), bytes);
  if (!status.ok())
    throw std::runtime_error(status.message());
}

void PlanDir::writePlan(const plan::Plan &plan) const {
  write("plan.pb", plan.SerializeAsString());
}

HostTensor vec(std::vector<float> values) {
  HostTensor tensor(plan::F32, {int64_t(values.size())});
  std::memcpy(tensor.data.data(), values.data(), values.size() * sizeof(float));
  return tensor;
}

std::vector<float> values(const HostTensor &tensor) {
  std::vector<float> out(tensor.data.size() / sizeof(float));
  std::memcpy(out.data(), tensor.data.data(), out.size() * sizeof(float));
  return out;
}

namespace {
/// The kernels' own log functions, through the same (refcounted) handle
/// the runtime gets from dlopen.
void *kernelsHandle() {
  static void *handle = ::dlopen(testKernelsPath(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw std::runtime_error(std::string("cannot load test kernels: ") +
                             ::dlerror());
  return handle;
}
template <typename Fn> Fn kernelsFunction(const char *name) {
  void *address = ::dlsym(kernelsHandle(), name);
  if (!address)
    throw std::runtime_error(std::string("test kernels lack ") + name);
  return reinterpret_cast<Fn>(address);
}
} // namespace

std::vector<int32_t> kernelLog() {
  int size = kernelsFunction<int (*)()>("test_log_size")();
  auto get = kernelsFunction<int32_t (*)(int)>("test_log_get");
  std::vector<int32_t> log;
  for (int i = 0; i < size; ++i)
    log.push_back(get(i));
  return log;
}

void resetKernelLog() { kernelsFunction<void (*)()>("test_log_reset")(); }

void resetHangingKernel() { kernelsFunction<void (*)()>("test_hang_reset")(); }
void releaseHangingKernel() {
  kernelsFunction<void (*)()>("test_hang_release")();
}

} // namespace test
} // namespace runtime
} // namespace oneflow
