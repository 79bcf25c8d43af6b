//===- TestPlans.cpp - Hand-built plans for the simulator tests -----------===//

#include "TestPlans.h"

using namespace oneflow;
using namespace oneflow::simulator;

cost::Cluster oneflow::simulator::testCluster() {
  return cantFail(cost::parseCluster(R"({
    "version": 1, "name": "test cluster",
    "device": {"kind": "gpu", "peak_flops": {"f32": 1e12},
               "gemm_efficiency": [[1, 1.0]],
               "vector_flops": 1e12, "memory_bandwidth": 1e12,
               "memory_capacity": 1000000000, "kernel_overhead": 0},
    "links": [{"name": "pair", "devices": 2, "latency": 1e-6,
               "bandwidth": 1e9},
              {"name": "all", "devices": 0, "latency": 1e-5,
               "bandwidth": 1e8}]})",
                                     "test.json"));
}

PlanMaker::PlanMaker(int numRanks) {
  plan.set_version(1);
  plan.set_num_ranks(numRanks);
}

int64_t PlanMaker::regst(int rank, int64_t bytes, bool persistent,
                         const std::string &variable, bool trainable) {
  plan::Regst *regst = plan.add_regsts();
  regst->set_id(plan.regsts_size() - 1);
  regst->set_rank(rank);
  regst->set_size_bytes(bytes);
  regst->set_num_slots(1);
  regst->set_persistent(persistent);
  regst->set_name("r" + std::to_string(regst->id()));
  regst->mutable_desc()->set_dtype(plan::F32);
  regst->mutable_desc()->add_shape(bytes / 4);
  if (!variable.empty()) {
    regst->mutable_variable()->set_name(variable);
    regst->mutable_variable()->set_trainable(trainable);
  }
  return regst->id();
}

plan::Task &PlanMaker::task(int rank, plan::TaskKind kind,
                            const std::string &stream, const std::string &name,
                            std::vector<int64_t> in, std::vector<int64_t> out) {
  plan::Task *task = plan.add_tasks();
  task->set_id(plan.tasks_size() - 1);
  task->set_kind(kind);
  task->set_name(name);
  task->set_rank(rank);
  task->set_stream(stream);
  for (int64_t id : in)
    task->add_in_regsts(id);
  for (int64_t id : out)
    task->add_out_regsts(id);
  return *task;
}

plan::Task &PlanMaker::kernel(int rank, const std::string &name,
                              double vectorFlops, std::vector<int64_t> in,
                              std::vector<int64_t> out) {
  plan::Task &task = this->task(rank, plan::KERNEL, "compute", name, in, out);
  task.set_kernel_symbol(name);
  task.mutable_cost()->set_vector_flops(vectorFlops);
  task.mutable_cost()->set_dtype(plan::F32);
  return task;
}

plan::Task &PlanMaker::collective(int rank, plan::Collective::Kind kind,
                                  std::vector<int32_t> group, int64_t tag,
                                  std::vector<int64_t> in,
                                  std::vector<int64_t> out) {
  plan::Task &task = this->task(rank, plan::COLLECTIVE, "comm",
                                plan::Collective::Kind_Name(kind) + " tag " +
                                    std::to_string(tag),
                                in, out);
  plan::Collective *spec = task.mutable_collective();
  spec->set_kind(kind);
  for (int32_t member : group)
    spec->add_group(member);
  spec->set_tag(tag);
  if (kind == plan::Collective::SEND)
    spec->set_peer(group[1]);
  if (kind == plan::Collective::RECV)
    spec->set_peer(group[0]);
  return task;
}
