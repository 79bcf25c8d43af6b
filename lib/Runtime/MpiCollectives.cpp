//===- MpiCollectives.cpp - COLLECTIVE tasks on MPI -----------------------===//

#include "MpiCollectives.h"

#include "oneflow/Runtime/Tensor.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <set>

namespace oneflow {
namespace runtime {

namespace {

/// MPI counts are ints: reductions and transfers go in chunks of this many
/// elements; gathers, scatters and all-to-alls must fit in one.
constexpr int64_t kMaxCount = int64_t(1) << 30;

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, size_t(length));
}

MPI_Datatype unitType(int64_t elementSize) {
  switch (elementSize) {
  case 2:
    return MPI_UINT16_T;
  case 4:
    return MPI_UINT32_T;
  case 8:
    return MPI_UINT64_T;
  default:
    return MPI_BYTE;
  }
}

/// The type MPI sums in; f16/bf16 are widened to f32 first.
MPI_Datatype sumType(plan::DataType dtype) {
  switch (dtype) {
  case plan::F64:
    return MPI_DOUBLE;
  case plan::I32:
    return MPI_INT32_T;
  case plan::I64:
    return MPI_INT64_T;
  default:
    return MPI_FLOAT;
  }
}

bool isNarrowFloat(plan::DataType dtype) {
  return dtype == plan::F16 || dtype == plan::BF16;
}

void widen(plan::DataType dtype, const void *src, float *dst, int64_t n) {
  const uint16_t *in = static_cast<const uint16_t *>(src);
  if (dtype == plan::F16)
    for (int64_t i = 0; i < n; ++i)
      dst[i] = halfToFloat(in[i]);
  else
    for (int64_t i = 0; i < n; ++i)
      dst[i] = bfloat16ToFloat(in[i]);
}

void narrow(plan::DataType dtype, const float *src, void *dst, int64_t n) {
  uint16_t *out = static_cast<uint16_t *>(dst);
  if (dtype == plan::F16)
    for (int64_t i = 0; i < n; ++i)
      out[i] = floatToHalf(src[i]);
  else
    for (int64_t i = 0; i < n; ++i)
      out[i] = floatToBfloat16(src[i]);
}

} // namespace

CollectiveOp::CollectiveOp(const plan::Task &task,
                           const CollectiveLayout &layout, MPI_Comm comm,
                           int peer, int mpiTag)
    : taskPtr(&task), layout(layout), comm(comm), peer(peer), mpiTag(mpiTag),
      unit(unitType(layout.elementSize)) {
  const int64_t groupBytes =
      layout.blockElements * layout.elementSize * layout.groupSize;
  if (layout.packOuter > 1)
    packed.resize(size_t(layout.inBytes));
  if (layout.unpackOuter > 1)
    received.resize(size_t(groupBytes));
  if (isNarrowFloat(layout.dtype)) {
    if (layout.kind == plan::Collective::ALL_REDUCE)
      wideIn.resize(size_t(std::min(layout.blockElements, kMaxCount)));
    if (layout.kind == plan::Collective::REDUCE_SCATTER) {
      wideIn.resize(size_t(layout.blockElements * layout.groupSize));
      wideOut.resize(size_t(layout.blockElements));
    }
  }
}

Status CollectiveOp::check(int rc, const char *call) const {
  if (rc == MPI_SUCCESS)
    return Status::success();
  return makeError(PlanGraph::describe(*taskPtr), ": ", call,
                   " failed: ", mpiError(rc));
}

Status CollectiveOp::run(const void *inPtr, void *outPtr) {
  const char *in = static_cast<const char *>(inPtr);
  char *out = static_cast<char *>(outPtr);
  const int64_t es = layout.elementSize;
  const int groupSize = layout.groupSize;
  const int block = int(std::min(layout.blockElements, kMaxCount));

  // Only an all-reduce may update its input in place.
  if (in == out && in && layout.kind != plan::Collective::ALL_REDUCE) {
    alias.assign(in, in + layout.inBytes);
    in = alias.data();
  }
  // Gathered blocks land group-major; when the output wants them inside
  // an outer dimension, they are transposed into place afterwards.
  auto unpackAfter = [&](Status received, const char *dst) {
    if (received.ok() && layout.unpackOuter > 1)
      transposeBlocks(dst, out, groupSize, layout.unpackOuter,
                      layout.unpackBytes);
    return received;
  };
  switch (layout.kind) {
  case plan::Collective::ALL_REDUCE: {
    const int64_t n = layout.blockElements;
    for (int64_t done = 0; done < n; done += kMaxCount) {
      int count = int(std::min(kMaxCount, n - done));
      const char *src = in + done * es;
      char *dst = out + done * es;
      if (isNarrowFloat(layout.dtype)) {
        widen(layout.dtype, src, wideIn.data(), count);
        if (Status s = check(MPI_Allreduce(MPI_IN_PLACE, wideIn.data(), count,
                                           MPI_FLOAT, MPI_SUM, comm),
                             "MPI_Allreduce");
            !s.ok())
          return s;
        narrow(layout.dtype, wideIn.data(), dst, count);
        continue;
      }
      if (Status s =
              check(MPI_Allreduce(src == dst ? MPI_IN_PLACE : src, dst, count,
                                  sumType(layout.dtype), MPI_SUM, comm),
                    "MPI_Allreduce");
          !s.ok())
        return s;
    }
    return Status::success();
  }
  case plan::Collective::REDUCE_SCATTER: {
    const char *src = in;
    if (layout.packOuter > 1) {
      transposeBlocks(in, packed.data(), layout.packOuter, groupSize,
                      layout.packBytes);
      src = packed.data();
    }
    if (isNarrowFloat(layout.dtype)) {
      widen(layout.dtype, src, wideIn.data(), layout.blockElements * groupSize);
      if (Status s =
              check(MPI_Reduce_scatter_block(wideIn.data(), wideOut.data(),
                                             block, MPI_FLOAT, MPI_SUM, comm),
                    "MPI_Reduce_scatter_block");
          !s.ok())
        return s;
      narrow(layout.dtype, wideOut.data(), out, layout.blockElements);
      return Status::success();
    }
    return check(MPI_Reduce_scatter_block(src, out, block,
                                          sumType(layout.dtype), MPI_SUM, comm),
                 "MPI_Reduce_scatter_block");
  }
  case plan::Collective::ALL_GATHER: {
    char *dst = layout.unpackOuter > 1 ? received.data() : out;
    return unpackAfter(
        check(MPI_Allgather(in, block, unit, dst, block, unit, comm),
              "MPI_Allgather"),
        dst);
  }
  case plan::Collective::ALL_TO_ALL: {
    const char *src = in;
    if (layout.packOuter > 1) {
      transposeBlocks(in, packed.data(), layout.packOuter, groupSize,
                      layout.packBytes);
      src = packed.data();
    }
    char *dst = layout.unpackOuter > 1 ? received.data() : out;
    return unpackAfter(
        check(MPI_Alltoall(src, block, unit, dst, block, unit, comm),
              "MPI_Alltoall"),
        dst);
  }
  case plan::Collective::RECV: {
    const int64_t n = layout.blockElements;
    for (int64_t done = 0; done < n || (n == 0 && done == 0);
         done += kMaxCount) {
      int count = int(std::min(kMaxCount, n - done));
      MPI_Status status;
      if (Status s = check(MPI_Recv(out + done * es, count, unit, peer, mpiTag,
                                    comm, &status),
                           "MPI_Recv");
          !s.ok())
        return s;
      int received = 0;
      MPI_Get_count(&status, unit, &received);
      if (received != count)
        return makeError(PlanGraph::describe(*taskPtr), ": received ", received,
                         " elements from rank ", peer, ", expected ", count);
      if (n == 0)
        break;
    }
    return Status::success();
  }
  default: // SEND: see startSend.
    break;
  }
  return makeError(PlanGraph::describe(*taskPtr), ": cannot run a ",
                   collectiveKindName(layout.kind), " here");
}

Status CollectiveOp::startSend(const void *inPtr,
                               std::vector<MPI_Request> &requests) {
  const char *in = static_cast<const char *>(inPtr);
  const int64_t n = layout.blockElements;
  requests.clear();
  // One message per chunk; an empty tensor is one empty message, so that
  // its RECV matches it.
  for (int64_t done = 0; done < n || (n == 0 && done == 0); done += kMaxCount) {
    int count = int(std::min(kMaxCount, n - done));
    requests.emplace_back();
    if (Status s = check(MPI_Isend(in + done * layout.elementSize, count, unit,
                                   peer, mpiTag, comm, &requests.back()),
                         "MPI_Isend");
        !s.ok())
      return s;
    if (n == 0)
      break;
  }
  return Status::success();
}

Status testRequests(std::vector<MPI_Request> &requests, bool wait, bool &done) {
  int rc, flag = 1;
  if (wait)
    rc =
        MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  else
    rc = MPI_Testall(int(requests.size()), requests.data(), &flag,
                     MPI_STATUSES_IGNORE);
  done = flag != 0;
  if (rc != MPI_SUCCESS)
    return makeError("a send failed: ", mpiError(rc));
  return Status::success();
}

Expected<std::unique_ptr<MpiCollectives>>
MpiCollectives::create(const PlanGraph &graph, int rank) {
  const plan::Plan &plan = graph.plan();
  // Every rank checks every task (not only its own) so that all of them
  // fail alike before any collective call.
  std::set<std::vector<int>> groupSet;
  std::set<int64_t> pointToPointTags;
  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    if (task.kind() != plan::COLLECTIVE)
      continue;
    const plan::Collective &c = task.collective();
    const CollectiveLayout &layout = graph.tasks()[t].collective;
    if (isPointToPoint(c.kind())) {
      pointToPointTags.insert(c.tag());
      continue;
    }
    groupSet.insert(std::vector<int>(c.group().begin(), c.group().end()));
    if (layout.kind != plan::Collective::ALL_REDUCE &&
        layout.blockElements > INT_MAX)
      return makeError(
          PlanGraph::describe(task), ": ", collectiveKindName(c.kind()),
          " exchanges ", layout.blockElements,
          " elements per rank, more than one MPI call can (", INT_MAX, ")");
  }
  void *attribute = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attribute, &found);
  int64_t tagLimit = found ? *static_cast<int *>(attribute) : 32767;
  if (int64_t(pointToPointTags.size()) > tagLimit + 1)
    return makeError("the plan has ", pointToPointTags.size(),
                     " SEND/RECV pairs, more than MPI's ", tagLimit + 1,
                     " tags");

  std::unique_ptr<MpiCollectives> result(new MpiCollectives());
  // Every rank splits the world once per group, in the same (sorted)
  // order; members get the group's communicator with their index in the
  // group as rank, the others MPI_COMM_NULL.
  for (const std::vector<int> &group : groupSet) {
    auto it = std::find(group.begin(), group.end(), rank);
    int color = it == group.end() ? MPI_UNDEFINED : 0;
    int key = int(it - group.begin());
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, color, key, &comm);
    if (comm != MPI_COMM_NULL) {
      MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
      result->groups[group] = comm;
    }
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &result->pointToPoint);
  MPI_Comm_set_errhandler(result->pointToPoint, MPI_ERRORS_RETURN);

  std::map<int64_t, int> mpiTagOf;
  for (int64_t tag : pointToPointTags)
    mpiTagOf.emplace(tag, int(mpiTagOf.size()));
  result->ops.resize(plan.tasks_size());
  for (int t = 0; t < plan.tasks_size(); ++t) {
    const plan::Task &task = plan.tasks(t);
    if (task.kind() != plan::COLLECTIVE || task.rank() != rank)
      continue;
    const plan::Collective &c = task.collective();
    MPI_Comm comm = result->pointToPoint;
    int tag = 0;
    if (isPointToPoint(c.kind()))
      tag = mpiTagOf.at(c.tag());
    else
      comm = result->groups.at(
          std::vector<int>(c.group().begin(), c.group().end()));
    result->ops[t] = std::make_unique<CollectiveOp>(
        task, graph.tasks()[t].collective, comm, c.peer(), tag);
  }
  return result;
}

MpiCollectives::~MpiCollectives() {
  for (auto &[group, comm] : groups)
    MPI_Comm_free(&comm);
  if (pointToPoint != MPI_COMM_NULL)
    MPI_Comm_free(&pointToPoint);
}

} // namespace runtime
} // namespace oneflow
