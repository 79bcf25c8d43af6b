//===- PlanRoles.cpp - Every rank's tasks from one program per role -------===//
//
// A plan compiled with shared programs holds each rank role's program once,
// as its representative's tasks and regsts, with `Plan.roles` naming the
// ranks that run it. This expands it to the per-rank plan the rest of the
// runtime checks and runs. A member at device i of the mesh gets its own
// copy of the tasks and regsts, with what depends on its place recomputed:
// collective groups and tags from the mesh axis they run along, the peers
// of sends and receives (the same device of the peer's role), the pieces of
// split variables (offsets shifted by its piece index), and its mesh
// coordinates. The plan file stays the size of the roles' programs; only
// the loaded plan grows with the rank count.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/PlanRoles.h"

#include <map>
#include <set>
#include <unordered_map>

namespace oneflow {
namespace runtime {

namespace {
/// The row-major coordinates of device `device` of `shape`.
std::vector<int64_t> coordinatesOf(int64_t device,
                                   const std::vector<int64_t> &shape) {
  std::vector<int64_t> coords(shape.size());
  for (size_t axis = shape.size(); axis-- > 0;) {
    coords[axis] = device % shape[axis];
    device /= shape[axis];
  }
  return coords;
}

int64_t deviceOf(const std::vector<int64_t> &coords,
                 const std::vector<int64_t> &shape) {
  int64_t device = 0;
  for (size_t axis = 0; axis < shape.size(); ++axis)
    device = device * shape[axis] + coords[axis];
  return device;
}
} // namespace

Status expandRoles(plan::Plan &plan) {
  if (plan.roles_size() == 0)
    return Status::success();
  std::vector<int64_t> shape(plan.mesh_shape().begin(),
                             plan.mesh_shape().end());
  int64_t devices = 1;
  for (int64_t size : shape) {
    if (size <= 0)
      return makeError("plan: mesh_shape has a non-positive axis");
    // Every device is a rank: a mesh larger than the plan is an error (and
    // the product of its axes cannot overflow).
    if (size > plan.num_ranks() || devices * size > plan.num_ranks())
      return makeError("plan: mesh_shape has more devices than the plan's ",
                       plan.num_ranks(), " ranks");
    devices *= size;
  }
  if (shape.empty())
    return makeError("plan: roles without a mesh_shape");

  // Each representative's role; each member's role and device.
  std::unordered_map<int64_t, int> roleOfRepresentative;
  std::set<int64_t> seen;
  for (int role = 0; role < plan.roles_size(); ++role) {
    const plan::Role &spec = plan.roles(role);
    if (spec.members_size() != devices)
      return makeError("plan: role ", role, " has ", spec.members_size(),
                       " members, the mesh has ", devices, " devices");
    for (int32_t member : spec.members()) {
      if (member < 0 || member >= plan.num_ranks())
        return makeError("plan: role ", role, " names rank ", member,
                         ", outside [0, ", plan.num_ranks(), ")");
      if (!seen.insert(member).second)
        return makeError("plan: rank ", member, " is in two roles");
    }
    roleOfRepresentative[spec.members(0)] = role;
  }
  for (const plan::Task &task : plan.tasks())
    if (!roleOfRepresentative.count(task.rank()))
      return makeError("plan: task '", task.name(), "' is on rank ",
                       task.rank(), ", which represents no role");

  plan::Plan expanded(plan);
  expanded.clear_tasks();
  expanded.clear_regsts();
  expanded.clear_roles();
  expanded.clear_mesh_shape();
  std::unordered_map<int64_t, int64_t> firstRegstId; // representative's ids
  std::map<int64_t, int64_t> inputRegst, outputRegst;

  for (int role = 0; role < plan.roles_size(); ++role) {
    const plan::Role &spec = plan.roles(role);
    int64_t representative = spec.members(0);
    for (int64_t device = 0; device < devices; ++device) {
      int32_t rank = spec.members(int(device));
      std::vector<int64_t> coords = coordinatesOf(device, shape);
      std::unordered_map<int64_t, int64_t> regstId, taskId;

      for (const plan::Regst &source : plan.regsts()) {
        if (source.rank() != representative)
          continue;
        plan::Regst *regst = expanded.add_regsts();
        *regst = source;
        regst->set_id(expanded.regsts_size() - 1);
        regst->set_rank(rank);
        regstId[source.id()] = regst->id();
        if (source.mesh_splits_size() > 0) {
          if (source.mesh_splits_size() != source.desc().shape_size())
            return makeError("plan: regst '", source.name(),
                             "' has mesh_splits for ",
                             source.mesh_splits_size(), " of its ",
                             source.desc().shape_size(), " dimensions");
          for (int dim = 0; dim < source.mesh_splits_size(); ++dim) {
            int64_t piece = 0;
            for (int32_t axis : source.mesh_splits(dim).mesh_axes()) {
              if (axis < 0 || axis >= int(shape.size()))
                return makeError("plan: regst '", source.name(),
                                 "' is split along mesh axis ", axis);
              piece = piece * shape[axis] + coords[axis];
            }
            int64_t shift = piece * source.desc().shape(dim);
            if (regst->has_variable() && dim < regst->variable().offsets_size())
              regst->mutable_variable()->set_offsets(
                  dim, regst->variable().offsets(dim) + shift);
            if (dim < regst->weights_piece_offsets_size())
              regst->set_weights_piece_offsets(
                  dim, regst->weights_piece_offsets(dim) + shift);
          }
        }
        if (regst->has_initializer() &&
            regst->initializer().kind() ==
                plan::Initializer::MESH_COORDINATES) {
          plan::Initializer *init = regst->mutable_initializer();
          init->clear_values();
          for (int64_t coord : coords)
            init->add_values(coord);
        }
      }
      // Task ids first: wait_for may name a later task.
      int64_t nextTask = expanded.tasks_size();
      for (const plan::Task &source : plan.tasks())
        if (source.rank() == representative &&
            (device == 0 || source.kind() != plan::OUTPUT))
          taskId[source.id()] = nextTask++;

      for (const plan::Task &source : plan.tasks()) {
        if (source.rank() != representative || !taskId.count(source.id()))
          continue;
        plan::Task *task = expanded.add_tasks();
        *task = source;
        task->set_id(taskId[source.id()]);
        task->set_rank(rank);
        auto remapRegsts =
            [&](google::protobuf::RepeatedField<int64_t> *ids) -> Status {
          for (int i = 0; i < ids->size(); ++i) {
            auto it = regstId.find(ids->Get(i));
            if (it == regstId.end())
              return makeError("plan: task '", source.name(), "' uses regst ",
                               ids->Get(i), ", which is not its rank's");
            ids->Set(i, it->second);
          }
          return Status::success();
        };
        if (Status s = remapRegsts(task->mutable_in_regsts()); !s.ok())
          return s;
        if (Status s = remapRegsts(task->mutable_out_regsts()); !s.ok())
          return s;
        for (int i = 0; i < task->wait_for_size(); ++i) {
          auto it = taskId.find(task->wait_for(i));
          if (it == taskId.end())
            return makeError("plan: task '", source.name(), "' waits for task ",
                             task->wait_for(i), ", which is not its rank's");
          task->set_wait_for(i, it->second);
        }
        if (source.kind() != plan::COLLECTIVE)
          continue;
        plan::Collective *collective = task->mutable_collective();
        if (collective->kind() == plan::Collective::SEND ||
            collective->kind() == plan::Collective::RECV) {
          // The peer's role, at this member's device.
          auto peerRole = roleOfRepresentative.find(collective->peer());
          if (peerRole == roleOfRepresentative.end())
            return makeError("plan: task '", source.name(), "' sends to rank ",
                             collective->peer(), ", which represents no role");
          int32_t peer = plan.roles(peerRole->second).members(int(device));
          bool isSend = collective->kind() == plan::Collective::SEND;
          collective->set_peer(peer);
          collective->clear_group();
          collective->add_group(isSend ? rank : peer);
          collective->add_group(isSend ? peer : rank);
          collective->set_tag(source.collective().tag() * devices + device);
          continue;
        }
        if (!collective->has_mesh_axis())
          return makeError("plan: collective '", source.name(),
                           "' of a shared program names no mesh axis");
        int axis = collective->mesh_axis();
        if (axis < 0 || axis >= int(shape.size()))
          return makeError("plan: collective '", source.name(),
                           "' runs along mesh axis ", axis);
        std::vector<int64_t> along(coords);
        collective->clear_group();
        for (int64_t i = 0; i < shape[axis]; ++i) {
          along[axis] = i;
          collective->add_group(spec.members(int(deviceOf(along, shape))));
        }
        along[axis] = 0;
        collective->set_tag(source.collective().tag() * devices +
                            deviceOf(along, shape));
      }
      if (device == 0)
        for (auto [from, to] : regstId)
          firstRegstId[from] = to;
    }
  }
  for (plan::IOSpec &spec : *expanded.mutable_inputs())
    if (auto it = firstRegstId.find(spec.regst()); it != firstRegstId.end())
      spec.set_regst(it->second);
  for (plan::IOSpec &spec : *expanded.mutable_outputs())
    if (auto it = firstRegstId.find(spec.regst()); it != firstRegstId.end())
      spec.set_regst(it->second);
  plan = std::move(expanded);
  return Status::success();
}

} // namespace runtime
} // namespace oneflow
