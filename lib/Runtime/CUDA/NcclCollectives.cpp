//===- NcclCollectives.cpp - COLLECTIVE tasks as NCCL calls ---------------===//
//
// Each kind is one NCCL call on the member's buffers when the plan's layout
// needs no packing (e.g. along axis 0); otherwise the pieces are rearranged
// with copy2D through stream-ordered scratch, exactly as MpiCollectives
// transposes blocks on the host (see Collectives.h for the layouts).
//
//===----------------------------------------------------------------------===//

#include "NcclApi.h"
#include "oneflow/Runtime/CUDA/Nccl.h"
#include "oneflow/Runtime/Tensor.h"

#include <algorithm>

namespace oneflow {
namespace runtime {
namespace cuda {

CollectiveDeviceOps::~CollectiveDeviceOps() = default;

namespace {

/// The NCCL type that moves (and, for reductions, sums) `dtype`.
bool ncclType(plan::DataType dtype, nccl::DataType &type) {
  switch (dtype) {
  case plan::F32:
    type = nccl::Float32;
    return true;
  case plan::F64:
    type = nccl::Float64;
    return true;
  case plan::F16:
    type = nccl::Float16;
    return true;
  case plan::BF16:
    type = nccl::Bfloat16;
    return true;
  case plan::I32:
    type = nccl::Int32;
    return true;
  case plan::I64:
    type = nccl::Int64;
    return true;
  case plan::BOOL: // moved only, never summed
    type = nccl::Uint8;
    return true;
  default:
    return false;
  }
}

bool isNarrowFloat(plan::DataType dtype) {
  return dtype == plan::F16 || dtype == plan::BF16;
}

/// Enqueues one collective; owns its scratch, released (stream-ordered)
/// whatever happens.
class Enqueuer {
public:
  Enqueuer(const plan::Collective &c, const NcclCommunicator &comm,
           StreamHandle stream, CollectiveDeviceOps &ops)
      : c(c), comm(comm), api(comm.library().api()), stream(stream), ops(ops),
        handle(static_cast<nccl::CommHandle>(comm.handle())) {}
  ~Enqueuer() {
    for (DevicePtr p : scratch)
      ops.free(p, stream);
  }

  Status run(const CollectiveLayout &layout, DevicePtr in, DevicePtr out);

private:
  std::string what() const {
    return collectiveKindName(c.kind()) + " over " + comm.group().describe();
  }
  Status check(int rc, const char *call) const {
    if (rc == nccl::Success)
      return Status::success();
    return comm.library().error(rc, what() + ": " + call, comm.handle());
  }
  Status device(Status s) const {
    return s.ok() ? s : makeError(what(), ": ", s.message());
  }
  Expected<DevicePtr> allocate(int64_t bytes) {
    Expected<DevicePtr> p = ops.allocate(bytes, stream);
    if (!p.ok())
      return device(p.error());
    scratch.push_back(*p);
    return p;
  }
  /// [outer][G][bytes] -> [G][outer][bytes], as transposeBlocks.
  Status pack(DevicePtr src, DevicePtr dst, int64_t outer, int64_t bytes) {
    const int g = comm.size();
    for (int j = 0; j < g; ++j)
      if (Status s = ops.copy2D(dst + j * outer * bytes, bytes, src + j * bytes,
                                g * bytes, bytes, outer, stream);
          !s.ok())
        return device(s);
    return Status::success();
  }
  /// [G][outer][bytes] -> [outer][G][bytes].
  Status unpack(DevicePtr src, DevicePtr dst, int64_t outer, int64_t bytes) {
    const int g = comm.size();
    for (int j = 0; j < g; ++j)
      if (Status s =
              ops.copy2D(dst + j * bytes, g * bytes, src + j * outer * bytes,
                         bytes, bytes, outer, stream);
          !s.ok())
        return device(s);
    return Status::success();
  }
  Status convert(DevicePtr dst, plan::DataType dstType, DevicePtr src,
                 plan::DataType srcType, int64_t count) {
    return device(ops.convert(dst, dstType, src, srcType, count, stream));
  }
  Status allToAll(DevicePtr src, DevicePtr dst, size_t count,
                  nccl::DataType type, int64_t blockBytes);

  const plan::Collective &c;
  const NcclCommunicator &comm;
  const nccl::Api &api;
  StreamHandle stream;
  CollectiveDeviceOps &ops;
  nccl::CommHandle handle;
  std::vector<DevicePtr> scratch;
};

void *ptr(DevicePtr p) { return reinterpret_cast<void *>(uintptr_t(p)); }

Status Enqueuer::allToAll(DevicePtr src, DevicePtr dst, size_t count,
                          nccl::DataType type, int64_t blockBytes) {
  // Grouped sends and receives (ncclAlltoAll only exists since 2.28):
  // NCCL runs them together, so no member waits for another's send.
  if (Status s = check(api.groupStart(), "ncclGroupStart"); !s.ok())
    return s;
  Status failure;
  for (int j = 0; j < comm.size() && failure.ok(); ++j) {
    failure = check(
        api.send(ptr(src + j * blockBytes), count, type, j, handle, stream),
        "ncclSend");
    if (failure.ok())
      failure = check(
          api.recv(ptr(dst + j * blockBytes), count, type, j, handle, stream),
          "ncclRecv");
  }
  Status end = check(api.groupEnd(), "ncclGroupEnd");
  return failure.ok() ? end : failure;
}

Status Enqueuer::run(const CollectiveLayout &layout, DevicePtr in,
                     DevicePtr out) {
  nccl::DataType type = nccl::Uint8;
  ncclType(layout.dtype, type); // validated
  const int64_t n = layout.blockElements, es = layout.elementSize;
  const int64_t blockBytes = n * es;
  const int g = comm.size();
  // Every member has the same shapes: all skip an empty tensor alike.
  if (n == 0)
    return Status::success();
  // Only an all-reduce may work in place; others read a copy.
  if (in && in == out && layout.kind != plan::Collective::ALL_REDUCE) {
    Expected<DevicePtr> copy = allocate(layout.inBytes);
    if (!copy.ok())
      return copy.error();
    if (Status s = device(ops.copy2D(*copy, layout.inBytes, in, layout.inBytes,
                                     layout.inBytes, 1, stream));
        !s.ok())
      return s;
    in = *copy;
  }
  // Input pieces along `axis` -> piece-major (REDUCE_SCATTER, ALL_TO_ALL).
  DevicePtr src = in;
  if (layout.packOuter > 1) {
    Expected<DevicePtr> packed = allocate(layout.inBytes);
    if (!packed.ok())
      return packed.error();
    if (Status s = pack(in, *packed, layout.packOuter, layout.packBytes);
        !s.ok())
      return s;
    src = *packed;
  }
  // Member-major results (ALL_GATHER, ALL_TO_ALL) land in scratch first
  // when the output interleaves them.
  DevicePtr dst = out;
  if (layout.unpackOuter > 1) {
    Expected<DevicePtr> received = allocate(blockBytes * g);
    if (!received.ok())
      return received.error();
    dst = *received;
  }
  auto unpackAfter = [&](Status s) {
    if (s.ok() && layout.unpackOuter > 1)
      s = unpack(dst, out, layout.unpackOuter, layout.unpackBytes);
    return s;
  };

  switch (layout.kind) {
  case plan::Collective::ALL_REDUCE:
    if (!isNarrowFloat(layout.dtype))
      return check(api.allReduce(ptr(in), ptr(out), size_t(n), type, nccl::Sum,
                                 handle, stream),
                   "ncclAllReduce");
    {
      Expected<DevicePtr> wide = allocate(n * 4);
      if (!wide.ok())
        return wide.error();
      if (Status s = convert(*wide, plan::F32, in, layout.dtype, n); !s.ok())
        return s;
      if (Status s =
              check(api.allReduce(ptr(*wide), ptr(*wide), size_t(n),
                                  nccl::Float32, nccl::Sum, handle, stream),
                    "ncclAllReduce");
          !s.ok())
        return s;
      return convert(out, layout.dtype, *wide, plan::F32, n);
    }
  case plan::Collective::REDUCE_SCATTER:
    if (!isNarrowFloat(layout.dtype))
      return check(api.reduceScatter(ptr(src), ptr(out), size_t(n), type,
                                     nccl::Sum, handle, stream),
                   "ncclReduceScatter");
    {
      Expected<DevicePtr> wideIn = allocate(n * g * 4);
      if (!wideIn.ok())
        return wideIn.error();
      Expected<DevicePtr> wideOut = allocate(n * 4);
      if (!wideOut.ok())
        return wideOut.error();
      if (Status s = convert(*wideIn, plan::F32, src, layout.dtype, n * g);
          !s.ok())
        return s;
      if (Status s =
              check(api.reduceScatter(ptr(*wideIn), ptr(*wideOut), size_t(n),
                                      nccl::Float32, nccl::Sum, handle, stream),
                    "ncclReduceScatter");
          !s.ok())
        return s;
      return convert(out, layout.dtype, *wideOut, plan::F32, n);
    }
  case plan::Collective::ALL_GATHER:
    return unpackAfter(
        check(api.allGather(ptr(in), ptr(dst), size_t(n), type, handle, stream),
              "ncclAllGather"));
  case plan::Collective::ALL_TO_ALL:
    return unpackAfter(allToAll(src, dst, size_t(n), type, blockBytes));
  case plan::Collective::SEND:
    // The direction's communicator is {sender, receiver}.
    return check(api.send(ptr(in), size_t(n), type, 1, handle, stream),
                 "ncclSend");
  case plan::Collective::RECV:
    return check(api.recv(ptr(out), size_t(n), type, 0, handle, stream),
                 "ncclRecv");
  default:
    break;
  }
  return makeError("unknown collective ", what());
}

} // namespace

Expected<CollectiveLayout> validateNcclCollective(const plan::Collective &c,
                                                  const plan::TensorDesc *in,
                                                  const plan::TensorDesc *out,
                                                  int groupSize) {
  // layoutCollective already refuses sums of BOOL; NCCL could not do them
  // either (no boolean type), so the plan fails at load, not mid-run.
  Expected<CollectiveLayout> layout = layoutCollective(c, in, out, groupSize);
  if (!layout.ok())
    return layout;
  nccl::DataType type;
  if (!ncclType(layout->dtype, type))
    return makeError(collectiveKindName(c.kind()), " of ",
                     dataTypeName(layout->dtype), ": not a dtype NCCL moves");
  if (isReduction(layout->kind) && layout->dtype == plan::BOOL)
    return makeError(collectiveKindName(c.kind()),
                     ": sums of booleans are not supported (reduce i32)");
  return layout;
}

Status runCollective(const plan::Collective &collective,
                     const plan::TensorDesc *inDesc,
                     const plan::TensorDesc *outDesc, DevicePtr in,
                     DevicePtr out, const NcclCommunicator &comm,
                     StreamHandle stream, CollectiveDeviceOps &ops) {
  const bool pointToPoint = isPointToPoint(collective.kind());
  if (pointToPoint != comm.group().pointToPoint ||
      (!pointToPoint &&
       !std::equal(collective.group().begin(), collective.group().end(),
                   comm.group().ranks.begin(), comm.group().ranks.end())))
    return makeError(collectiveKindName(collective.kind()),
                     " given the NCCL communicator of ",
                     comm.group().describe());
  // A transfer on the other direction's communicator would wait forever.
  const int peer = collective.peer();
  if ((collective.kind() == plan::Collective::SEND &&
       (comm.rank() != 0 || comm.group().ranks[1] != peer)) ||
      (collective.kind() == plan::Collective::RECV &&
       (comm.rank() != 1 || comm.group().ranks[0] != peer)))
    return makeError(collectiveKindName(collective.kind()), " with peer ", peer,
                     " given the NCCL communicator of ",
                     comm.group().describe());
  Expected<CollectiveLayout> layout =
      validateNcclCollective(collective, inDesc, outDesc, comm.size());
  if (!layout.ok())
    return layout.error();
  return Enqueuer(collective, comm, stream, ops).run(*layout, in, out);
}

} // namespace cuda
} // namespace runtime
} // namespace oneflow
