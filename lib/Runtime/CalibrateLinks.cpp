//===- CalibrateLinks.cpp - Timing the runtime's collectives --------------===//
//
// The link part of `oneflow-run --calibrate` (see Calibrate.h): each kind
// of COLLECTIVE task the runtime runs on MPI, through the same CollectiveOp
// that runs a plan's tasks, from 8 bytes to 16 MiB. Rank 0 keeps the times.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/Calibrate.h"

#include "MpiCollectives.h"
#include "oneflow/Runtime/Distributed.h"

#include <mpi.h>

#include <algorithm>
#include <cmath>

namespace oneflow {
namespace runtime {

namespace {

/// One COLLECTIVE task of the kind over every rank (f32, along axis 0),
/// or a SEND/RECV with `peer`, as a plan would hold it.
plan::Task collectiveTask(plan::Collective::Kind kind, int ranks, int peer,
                          int tag) {
  plan::Task task;
  task.set_kind(plan::COLLECTIVE);
  task.set_name(std::string("calibrate ") + collectiveKindName(kind));
  task.set_stream("comm");
  plan::Collective *c = task.mutable_collective();
  c->set_kind(kind);
  if (!isPointToPoint(kind))
    for (int r = 0; r < ranks; ++r)
      c->add_group(r);
  c->set_peer(peer);
  c->set_tag(tag);
  return task;
}

plan::TensorDesc vectorDesc(int64_t elements) {
  plan::TensorDesc desc;
  desc.set_dtype(plan::F32);
  desc.add_shape(elements);
  return desc;
}

/// A collective of one kind and size, ready to run on this rank.
class Collective {
public:
  Collective(plan::Collective::Kind kind, int64_t elements, int ranks, int peer,
             int tag, MPI_Comm comm)
      : task(collectiveTask(kind, ranks, peer, tag)) {
    const int64_t piece = elements / ranks;
    plan::TensorDesc in =
        vectorDesc(kind == plan::Collective::ALL_GATHER ? piece : elements);
    plan::TensorDesc out =
        vectorDesc(kind == plan::Collective::REDUCE_SCATTER ? piece : elements);
    bool send = kind == plan::Collective::SEND;
    bool recv = kind == plan::Collective::RECV;
    Expected<CollectiveLayout> layout = layoutCollective(
        task.collective(), recv ? nullptr : &in, send ? nullptr : &out,
        isPointToPoint(kind) ? 2 : ranks);
    if (!layout.ok())
      throw std::logic_error(layout.error().message());
    inData.assign(size_t(layout->inBytes / 4) + 1, 1.0f);
    outData.assign(size_t(layout->outBytes / 4) + 1, 0.0f);
    op = std::make_unique<CollectiveOp>(task, *layout, comm, peer, tag);
  }

  /// Every kind but SEND and RECV.
  Status run() { return op->run(inData.data(), outData.data()); }

  /// This SEND started, `recv` run, then the send waited for: what the
  /// comm thread does for a SEND and a RECV in a row.
  Status exchange(Collective &recv) {
    std::vector<MPI_Request> requests;
    if (Status status = op->startSend(inData.data(), requests); !status.ok())
      return status;
    if (Status status = recv.run(); !status.ok())
      return status;
    bool done = false;
    return testRequests(requests, /*wait=*/true, done);
  }

private:
  plan::Task task; // CollectiveOp keeps a pointer to it
  std::unique_ptr<CollectiveOp> op;
  std::vector<float> inData, outData;
};

/// Rank 0's seconds per call of `call` (which all ranks run together) in
/// its fastest batch: rank 0 picks how many calls fill `target` after a
/// warm-up and tells the others; every batch starts at a barrier. A
/// transfer can only be slowed down, by another process holding a core
/// that a rank waits for (scheduling slices are milliseconds, a small
/// transfer a microsecond): the fastest batch is the least disturbed, the
/// link's own time.
template <typename Call>
double timeTogether(MPI_Comm comm, Call &&call, double target, int batches) {
  MPI_Barrier(comm);
  double start = MPI_Wtime();
  call();
  call();
  double once = std::max((MPI_Wtime() - start) / 2, 1e-9);
  int64_t calls = std::clamp<int64_t>(int64_t(std::ceil(target / once)), 1,
                                      int64_t(1) << 20);
  MPI_Bcast(&calls, 1, MPI_INT64_T, 0, comm);
  double best = 1e300;
  for (int b = 0; b < batches; ++b) {
    MPI_Barrier(comm);
    start = MPI_Wtime();
    for (int64_t i = 0; i < calls; ++i)
      call();
    best = std::min(best, (MPI_Wtime() - start) / double(calls));
  }
  return best;
}

} // namespace

std::vector<LinkTiming> measureLinks(World &world, bool quick) {
  const int ranks = world.size(), rank = world.rank();
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  auto check = [&](const Status &status) {
    if (!status.ok())
      world.abort(status);
  };
  std::vector<int64_t> sizes; // bytes
  if (quick)
    sizes = {8, 256, 8 << 10, 256 << 10, 4 << 20};
  else
    for (int64_t bytes = 8; bytes <= (16 << 20); bytes *= 4)
      sizes.push_back(bytes);
  if (!quick)
    sizes.push_back(16 << 20);
  const double target = quick ? 3e-4 : 1e-3;
  const int batches = quick ? 3 : 9;

  std::vector<LinkTiming> timings;
  for (int64_t bytes : sizes) {
    // Whole elements, a multiple of the group size (the scattered and
    // gathered pieces must be equal).
    const int64_t elements =
        std::max<int64_t>(ranks, (bytes / 4 + ranks - 1) / ranks * ranks);
    for (plan::Collective::Kind kind :
         {plan::Collective::ALL_REDUCE, plan::Collective::REDUCE_SCATTER,
          plan::Collective::ALL_GATHER, plan::Collective::ALL_TO_ALL}) {
      Collective op(kind, elements, ranks, 0, 0, comm);
      double time = timeTogether(
          comm, [&] { check(op.run()); }, target, batches);
      timings.push_back({kind, ranks, double(elements * 4), time});
    }
    // Ranks 0 and 1 exchange B bytes at once, each a SEND to the other
    // then a RECV from it (as a pipeline's two directions do): one
    // transfer per docs/simulator.md, whose beta is what a rank sends and
    // receives at the same time. The others only take part in the
    // barriers.
    std::unique_ptr<Collective> send, recv;
    if (rank <= 1) {
      send = std::make_unique<Collective>(plan::Collective::SEND, elements,
                                          ranks, 1 - rank, rank, comm);
      recv = std::make_unique<Collective>(plan::Collective::RECV, elements,
                                          ranks, 1 - rank, 1 - rank, comm);
    }
    double time = timeTogether(
        comm,
        [&] {
          if (send)
            check(send->exchange(*recv));
        },
        target, batches);
    timings.push_back({plan::Collective::SEND, 2, double(elements * 4), time});
  }
  MPI_Comm_free(&comm);
  if (rank != 0)
    timings.clear();
  return timings;
}

} // namespace runtime
} // namespace oneflow
