//===- PlanRolesTest.cpp - Expanding shared programs to every rank --------===//

#include "oneflow/Runtime/PlanGraph.h"

#include "gtest/gtest.h"

using namespace oneflow;
using namespace oneflow::runtime;

namespace {

plan::Regst *addRegst(plan::Plan &plan, int32_t rank, const char *name,
                      std::vector<int64_t> shape,
                      plan::DataType dtype = plan::F32) {
  plan::Regst *regst = plan.add_regsts();
  regst->set_id(plan.regsts_size() - 1);
  regst->set_name(name);
  regst->set_rank(rank);
  regst->set_num_slots(1);
  regst->set_weights_offset(-1);
  regst->mutable_desc()->set_dtype(dtype);
  int64_t count = 1;
  for (int64_t dim : shape) {
    regst->mutable_desc()->add_shape(dim);
    count *= dim;
  }
  regst->set_size_bytes(count * (dtype == plan::I64 ? 8 : 4));
  return regst;
}

plan::Task *addTask(plan::Plan &plan, int32_t rank, plan::TaskKind kind,
                    const char *name, const char *stream) {
  plan::Task *task = plan.add_tasks();
  task->set_id(plan.tasks_size() - 1);
  task->set_rank(rank);
  task->set_kind(kind);
  task->set_name(name);
  task->set_stream(stream);
  return task;
}

/// One program for a 2x2 mesh: an input, a weight split along mesh axis 1
/// on its rows, the mesh coordinates, an all-reduce along mesh axis 1, an
/// output.
plan::Plan sharedPlan() {
  plan::Plan plan;
  plan.set_version(1);
  plan.set_num_ranks(4);
  plan.add_mesh_shape(2);
  plan.add_mesh_shape(2);
  plan::Role *role = plan.add_roles();
  for (int rank : {0, 1, 2, 3})
    role->add_members(rank);

  plan::Regst *x = addRegst(plan, 0, "x", {2, 3});
  plan::Regst *w = addRegst(plan, 0, "w", {2, 3});
  w->set_persistent(true);
  w->set_weights_offset(0);
  for (int64_t dim : {4, 3})
    w->add_weights_shape(dim);
  w->add_weights_piece_offsets(0);
  w->add_weights_piece_offsets(0);
  w->add_mesh_splits()->add_mesh_axes(1);
  w->add_mesh_splits();
  w->mutable_variable()->set_name("w");
  for (int64_t dim : {4, 3})
    w->mutable_variable()->add_global_shape(dim);
  w->mutable_variable()->add_offsets(0);
  w->mutable_variable()->add_offsets(0);
  plan::Regst *coords = addRegst(plan, 0, "coords", {2}, plan::I64);
  coords->set_persistent(true);
  coords->mutable_initializer()->set_kind(plan::Initializer::MESH_COORDINATES);
  plan::Regst *sum = addRegst(plan, 0, "sum", {2, 3});

  plan::Task *input = addTask(plan, 0, plan::INPUT, "input x", "io");
  input->set_io_name("x");
  input->add_out_regsts(x->id());
  plan::Task *reduce = addTask(plan, 0, plan::COLLECTIVE, "all_reduce", "comm");
  reduce->add_in_regsts(x->id());
  reduce->add_out_regsts(sum->id());
  reduce->mutable_collective()->set_kind(plan::Collective::ALL_REDUCE);
  reduce->mutable_collective()->add_group(0);
  reduce->mutable_collective()->add_group(1);
  reduce->mutable_collective()->set_tag(3);
  reduce->mutable_collective()->set_mesh_axis(1);
  reduce->add_wait_for(input->id());
  plan::Task *output = addTask(plan, 0, plan::OUTPUT, "output y", "io");
  output->set_io_name("y");
  output->add_in_regsts(sum->id());
  plan::IOSpec *in = plan.add_inputs();
  in->set_name("x");
  in->set_regst(x->id());
  plan::IOSpec *out = plan.add_outputs();
  out->set_name("y");
  out->set_regst(sum->id());
  return plan;
}

const plan::Task &taskOf(const plan::Plan &plan, int32_t rank,
                         plan::TaskKind kind) {
  for (const plan::Task &task : plan.tasks())
    if (task.rank() == rank && task.kind() == kind)
      return task;
  ADD_FAILURE() << "no task of kind " << kind << " on rank " << rank;
  return plan.tasks(0);
}

const plan::Regst &regstOf(const plan::Plan &plan, int32_t rank,
                           const std::string &name) {
  for (const plan::Regst &regst : plan.regsts())
    if (regst.rank() == rank && regst.name() == name)
      return regst;
  ADD_FAILURE() << "no regst '" << name << "' on rank " << rank;
  return plan.regsts(0);
}

TEST(PlanRoles, PlanWithoutRolesIsUnchanged) {
  plan::Plan plan = sharedPlan();
  plan.clear_roles();
  std::string before = plan.SerializeAsString();
  ASSERT_TRUE(expandRoles(plan).ok());
  EXPECT_EQ(plan.SerializeAsString(), before);
}

TEST(PlanRoles, EveryMemberGetsItsPlace) {
  plan::Plan plan = sharedPlan();
  Status status = expandRoles(plan);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(plan.roles_size(), 0);
  // 4 regsts per rank; INPUT and COLLECTIVE on every rank, OUTPUT on rank 0.
  EXPECT_EQ(plan.regsts_size(), 16);
  EXPECT_EQ(plan.tasks_size(), 9);
  for (int i = 0; i < plan.regsts_size(); ++i)
    EXPECT_EQ(plan.regsts(i).id(), i);
  for (int i = 0; i < plan.tasks_size(); ++i)
    EXPECT_EQ(plan.tasks(i).id(), i);

  // Rank 3 is device (1, 1): its all-reduce along axis 1 is with rank 2,
  // tagged by the group's first device (2).
  const plan::Task &reduce = taskOf(plan, 3, plan::COLLECTIVE);
  EXPECT_EQ(std::vector<int32_t>(reduce.collective().group().begin(),
                                 reduce.collective().group().end()),
            (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(reduce.collective().tag(), 3 * 4 + 2);
  EXPECT_EQ(taskOf(plan, 2, plan::COLLECTIVE).collective().tag(), 3 * 4 + 2);
  EXPECT_EQ(taskOf(plan, 1, plan::COLLECTIVE).collective().tag(), 3 * 4 + 0);
  // Its inputs and waits are its own.
  EXPECT_EQ(plan.regsts(int(reduce.in_regsts(0))).rank(), 3);
  EXPECT_EQ(plan.tasks(int(reduce.wait_for(0))).rank(), 3);
  EXPECT_EQ(plan.tasks(int(reduce.wait_for(0))).kind(), plan::INPUT);

  // The weight's rows are split along mesh axis 1: coordinate 1 holds rows
  // [2, 4) of the whole, in the file and in the logical variable.
  const plan::Regst &w3 = regstOf(plan, 3, "w");
  EXPECT_EQ(w3.weights_piece_offsets(0), 2);
  EXPECT_EQ(w3.variable().offsets(0), 2);
  EXPECT_EQ(regstOf(plan, 2, "w").variable().offsets(0), 0);
  const plan::Regst &coords = regstOf(plan, 2, "coords");
  EXPECT_EQ(std::vector<int64_t>(coords.initializer().values().begin(),
                                 coords.initializer().values().end()),
            (std::vector<int64_t>{1, 0}));

  int outputs = 0;
  for (const plan::Task &task : plan.tasks())
    outputs += task.kind() == plan::OUTPUT;
  EXPECT_EQ(outputs, 1);
  EXPECT_EQ(plan.inputs(0).regst(), regstOf(plan, 0, "x").id());
  EXPECT_EQ(plan.outputs(0).regst(), regstOf(plan, 0, "sum").id());
}

TEST(PlanRoles, SendsGoToTheSameDeviceOfThePeerRole) {
  plan::Plan plan;
  plan.set_num_ranks(4);
  plan.add_mesh_shape(2);
  for (int stage : {0, 1}) {
    plan::Role *role = plan.add_roles();
    role->add_members(2 * stage);
    role->add_members(2 * stage + 1);
  }
  plan::Regst *a = addRegst(plan, 0, "a", {2});
  plan::Task *send = addTask(plan, 0, plan::COLLECTIVE, "send", "comm");
  send->add_in_regsts(a->id());
  send->mutable_collective()->set_kind(plan::Collective::SEND);
  send->mutable_collective()->set_peer(2);
  send->mutable_collective()->set_tag(5);
  plan::Regst *b = addRegst(plan, 2, "b", {2});
  plan::Task *recv = addTask(plan, 2, plan::COLLECTIVE, "recv", "comm");
  recv->add_out_regsts(b->id());
  recv->mutable_collective()->set_kind(plan::Collective::RECV);
  recv->mutable_collective()->set_peer(0);
  recv->mutable_collective()->set_tag(5);

  Status status = expandRoles(plan);
  ASSERT_TRUE(status.ok()) << status.message();
  const plan::Collective &sent = taskOf(plan, 1, plan::COLLECTIVE).collective();
  EXPECT_EQ(sent.kind(), plan::Collective::SEND);
  EXPECT_EQ(sent.peer(), 3);
  EXPECT_EQ(sent.tag(), 5 * 2 + 1);
  EXPECT_EQ(std::vector<int32_t>(sent.group().begin(), sent.group().end()),
            (std::vector<int32_t>{1, 3}));
  const plan::Collective &got = taskOf(plan, 3, plan::COLLECTIVE).collective();
  EXPECT_EQ(got.peer(), 1);
  EXPECT_EQ(got.tag(), sent.tag());
}

TEST(PlanRoles, BadRolesAreErrors) {
  plan::Plan plan = sharedPlan();
  plan.mutable_roles(0)->add_members(4);
  Status status = expandRoles(plan);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("has 5 members, the mesh has 4 devices"),
            std::string::npos)
      << status.message();

  plan = sharedPlan();
  plan.mutable_tasks(1)->mutable_collective()->clear_mesh_axis();
  status = expandRoles(plan);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("names no mesh axis"), std::string::npos)
      << status.message();

  plan = sharedPlan();
  plan.mutable_tasks(0)->set_rank(1);
  status = expandRoles(plan);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("represents no role"), std::string::npos)
      << status.message();
}

} // namespace
