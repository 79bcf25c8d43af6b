//===- NcclStandIn.cpp - A libnccl.so.2 for machines without GPUs ---------===//
//
// The tests load this instead of NCCL (LD_LIBRARY_PATH). Buffers are host
// memory (the device stand-in uses host memory as device memory), and the
// collectives really run, over MPI, so multi-rank tests check data:
//
//  - ncclGetUniqueId: random bytes, then the caller's world rank (as real
//    ids hold their root's address: members find the root through it).
//  - ncclCommInitRank: every member tells the id's root its world rank; the
//    root answers with the member list; the members then make the
//    communicator with MPI_Comm_create_group (collective over the members
//    only). Inside ncclGroupStart/End the inits wait for ncclGroupEnd and
//    run ordered by id, so ranks never wait for each other in a cycle.
//  - Operations run synchronously in the calling thread (the stream is
//    only logged), but a lone ncclSend: real NCCL enqueues it and returns
//    (the stream, not the host, waits for the peer), so the stand-in sends
//    a copy of the data with MPI_Isend and completes it later (at the next
//    call, or when the communicator is destroyed). Grouped sends and
//    receives are posted together at ncclGroupEnd.
//  - Sums of f16/bf16 are refused (the NCCL layer sums them in f32).
//  - $ONEFLOW_NCCL_STANDIN_VERSION replaces the version (22809, 2.28.9);
//    $ONEFLOW_NCCL_STANDIN_FAIL=ncclAllGather makes that call fail.
//
// Each call appends a line to $ONEFLOW_CUDA_STANDIN_LOG (if set):
//   rank R nccl ncclAllReduce count=6 dtype=float32 op=sum comm=ID/0 ...
// with R the world rank, ID the hex of the first 8 bytes of the
// communicator's unique id and /0 the rank in it.
//
//===----------------------------------------------------------------------===//

#include <mpi.h>

#include <memory>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

// The C ABI of nccl.h (2.28), declared independently of lib/Runtime/CUDA.
extern "C" {
typedef struct ncclComm *ncclComm_t;
typedef struct {
  char internal[128];
} ncclUniqueId;
typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
} ncclResult_t;
typedef enum {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9,
} ncclDataType_t;
typedef enum { ncclSum = 0 } ncclRedOp_t;
typedef void *cudaStream_t;
}

#define STANDIN_API extern "C" __attribute__((visibility("default")))

struct ncclComm {
  std::string id; // hex of the id's first 8 bytes
  int rank = 0, nranks = 0;
  MPI_Comm mpi = MPI_COMM_NULL;
};

namespace {

constexpr int kJoinTag = 31001, kMembersTag = 31002, kDataTag = 7;

thread_local std::string lastError;
thread_local int groupDepth = 0;

struct PendingInit {
  ncclComm *comm;
  ncclUniqueId id;
};
thread_local std::vector<PendingInit> pendingInits;
thread_local std::vector<std::function<ncclResult_t()>> pendingCollectives;
struct PendingP2P {
  bool send;
  void *buffer;
  int count;
  MPI_Datatype type;
  int peer;
  ncclComm *comm;
};
thread_local std::vector<PendingP2P> pendingP2P;

int worldRank() {
  int initialized = 0, rank = -1;
  MPI_Initialized(&initialized);
  if (initialized)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

void logLine(const char *format, ...) {
  const char *path = std::getenv("ONEFLOW_CUDA_STANDIN_LOG");
  if (!path || !*path)
    return;
  char text[1024];
  int n = std::snprintf(text, sizeof(text), "rank %d nccl ", worldRank());
  va_list args;
  va_start(args, format);
  n += std::vsnprintf(text + n, sizeof(text) - n - 1, format, args);
  va_end(args);
  n = std::min(n, int(sizeof(text)) - 2);
  text[n++] = '\n';
  // One write per line with O_APPEND: lines of ranks never interleave.
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0)
    return;
  ssize_t ignored = write(fd, text, size_t(n));
  (void)ignored;
  close(fd);
}

ncclResult_t fail(ncclResult_t rc, const std::string &message) {
  lastError = message;
  logLine("error %s", message.c_str());
  return rc;
}

std::string hexId(const ncclUniqueId &id) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (int i = 0; i < 8; ++i) {
    text += digits[(id.internal[i] >> 4) & 0xf];
    text += digits[id.internal[i] & 0xf];
  }
  return text;
}

int idRoot(const ncclUniqueId &id) {
  int32_t root;
  std::memcpy(&root, id.internal + 16, sizeof(root));
  return root;
}

const char *typeName(ncclDataType_t type) {
  static const char *names[] = {"int8",    "uint8",   "int32",   "uint32",
                                "int64",   "uint64",  "float16", "float32",
                                "float64", "bfloat16"};
  return unsigned(type) < 10 ? names[type] : "invalid";
}

/// The MPI type that moves (and sums) `type`; MPI_DATATYPE_NULL if none.
MPI_Datatype mpiType(ncclDataType_t type, bool sum) {
  switch (type) {
  case ncclInt8:
    return MPI_INT8_T;
  case ncclUint8:
    return MPI_UINT8_T;
  case ncclInt32:
    return MPI_INT32_T;
  case ncclUint32:
    return MPI_UINT32_T;
  case ncclInt64:
    return MPI_INT64_T;
  case ncclUint64:
    return MPI_UINT64_T;
  case ncclFloat32:
    return MPI_FLOAT;
  case ncclFloat64:
    return MPI_DOUBLE;
  case ncclFloat16:
  case ncclBfloat16:
    return sum ? MPI_DATATYPE_NULL : MPI_UINT16_T;
  }
  return MPI_DATATYPE_NULL;
}

ncclResult_t checkMpi(int rc, const char *call) {
  if (rc == MPI_SUCCESS)
    return ncclSuccess;
  return fail(ncclSystemError, std::string(call) + " failed");
}

/// What a member tells the root of an id, and the root's answer.
struct JoinMessage {
  char id[16];
  int32_t rank, nranks, worldRank;
};

/// Joins the communicators of `inits` (see the file comment).
ncclResult_t runInits(std::vector<PendingInit> inits) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return fail(ncclSystemError, "the NCCL stand-in needs MPI initialized");
  std::sort(inits.begin(), inits.end(), [](const auto &a, const auto &b) {
    return std::memcmp(a.id.internal, b.id.internal, 20) < 0;
  });
  const int me = worldRank();
  std::vector<MPI_Request> requests(inits.size());
  std::vector<JoinMessage> joins(inits.size());
  for (size_t i = 0; i < inits.size(); ++i) {
    std::memcpy(joins[i].id, inits[i].id.internal, 16);
    joins[i].rank = inits[i].comm->rank;
    joins[i].nranks = inits[i].comm->nranks;
    joins[i].worldRank = me;
    MPI_Isend(&joins[i], sizeof(JoinMessage), MPI_BYTE, idRoot(inits[i].id),
              kJoinTag, MPI_COMM_WORLD, &requests[i]);
  }
  // Joins that arrived for ids whose root is this process, kept across
  // calls (a member may join before the root's own init).
  static std::map<std::string, std::vector<JoinMessage>> joined;
  static std::map<std::string, std::vector<int>> answers;
  auto key = [](const char *id) { return std::string(id, 16); };
  // Answers go out non-blocking: the root answers itself too.
  std::vector<std::vector<int>> sentAnswers;
  sentAnswers.reserve(inits.size());
  for (const PendingInit &init : inits) {
    if (idRoot(init.id) != me)
      continue;
    std::vector<JoinMessage> &members = joined[key(init.id.internal)];
    while (int(members.size()) < init.comm->nranks) {
      JoinMessage message;
      MPI_Recv(&message, sizeof(message), MPI_BYTE, MPI_ANY_SOURCE, kJoinTag,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      joined[key(message.id)].push_back(message);
    }
    // The answer: world ranks by rank in the communicator (then the id).
    sentAnswers.emplace_back(init.comm->nranks + 4, -1);
    std::vector<int> &ranks = sentAnswers.back();
    std::memcpy(ranks.data() + init.comm->nranks, init.id.internal, 16);
    for (const JoinMessage &m : members)
      if (m.rank >= 0 && m.rank < init.comm->nranks)
        ranks[m.rank] = m.worldRank;
    for (const JoinMessage &m : members) {
      requests.emplace_back();
      MPI_Isend(ranks.data(), int(ranks.size()), MPI_INT, m.worldRank,
                kMembersTag, MPI_COMM_WORLD, &requests.back());
    }
    joined.erase(key(init.id.internal));
  }
  for (const PendingInit &init : inits) {
    std::string k = key(init.id.internal);
    while (!answers.count(k)) {
      std::vector<int> ranks(init.comm->nranks + 4);
      MPI_Status status;
      MPI_Probe(MPI_ANY_SOURCE, kMembersTag, MPI_COMM_WORLD, &status);
      int count = 0;
      MPI_Get_count(&status, MPI_INT, &count);
      ranks.resize(size_t(count));
      MPI_Recv(ranks.data(), count, MPI_INT, status.MPI_SOURCE, kMembersTag,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      std::string from(reinterpret_cast<char *>(ranks.data() + count - 4), 16);
      ranks.resize(size_t(count - 4));
      answers[from] = ranks;
    }
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  // Ordered by id on every member: MPI_Comm_create_group never waits in a
  // cycle.
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  ncclResult_t result = ncclSuccess;
  for (const PendingInit &init : inits) {
    std::vector<int> ranks = answers[key(init.id.internal)];
    answers.erase(key(init.id.internal));
    if (std::count(ranks.begin(), ranks.end(), -1) ||
        int(ranks.size()) != init.comm->nranks) {
      result = fail(ncclInvalidUsage, "ncclCommInitRank: the members of " +
                                          init.comm->id + " disagree on ranks");
      continue;
    }
    MPI_Group group;
    MPI_Group_incl(world, int(ranks.size()), ranks.data(), &group);
    MPI_Comm_create_group(MPI_COMM_WORLD, group, 0, &init.comm->mpi);
    MPI_Group_free(&group);
  }
  MPI_Group_free(&world);
  return result;
}

/// Runs grouped sends and receives together.
/// Lone sends in flight: their request and the copy of their data.
struct InFlightSend {
  MPI_Request request;
  std::vector<char> data;
  ncclComm_t comm;
};
std::vector<std::unique_ptr<InFlightSend>> inFlight;

/// Completes the sends that are done (all of `comm`'s when given).
ncclResult_t progressSends(ncclComm_t waitFor = nullptr) {
  for (size_t i = 0; i < inFlight.size();) {
    int done = 0;
    int rc = waitFor && inFlight[i]->comm == waitFor
                 ? MPI_Wait(&inFlight[i]->request, MPI_STATUS_IGNORE)
                 : MPI_Test(&inFlight[i]->request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      return fail(ncclSystemError, "completing a send failed");
    if (done || (waitFor && inFlight[i]->comm == waitFor))
      inFlight.erase(inFlight.begin() + i);
    else
      ++i;
  }
  return ncclSuccess;
}

ncclResult_t runP2P(std::vector<PendingP2P> ops) {
  if (ops.size() == 1 && ops[0].send) {
    const PendingP2P &op = ops[0];
    int size = 0;
    MPI_Type_size(op.type, &size);
    auto send = std::make_unique<InFlightSend>();
    send->comm = op.comm;
    send->data.assign(static_cast<const char *>(op.buffer),
                      static_cast<const char *>(op.buffer) +
                          size_t(size) * size_t(op.count));
    if (MPI_Isend(send->data.data(), op.count, op.type, op.peer, kDataTag,
                  op.comm->mpi, &send->request) != MPI_SUCCESS)
      return fail(ncclSystemError, "posting a send failed");
    inFlight.push_back(std::move(send));
    return progressSends();
  }
  std::vector<MPI_Request> requests(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const PendingP2P &op = ops[i];
    int rc = op.send ? MPI_Issend(op.buffer, op.count, op.type, op.peer,
                                  kDataTag, op.comm->mpi, &requests[i])
                     : MPI_Irecv(op.buffer, op.count, op.type, op.peer,
                                 kDataTag, op.comm->mpi, &requests[i]);
    if (rc != MPI_SUCCESS)
      return fail(ncclSystemError, "posting a grouped send/recv failed");
  }
  return checkMpi(
      MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
      "MPI_Waitall");
}

/// Checks the arguments of an operation and logs it.
ncclResult_t prepare(const char *call, ncclComm_t comm, size_t count,
                     ncclDataType_t type, bool sum, MPI_Datatype &mpi,
                     const char *extra, cudaStream_t stream) {
  logLine("%s count=%zu dtype=%s%s comm=%s/%d stream=%p", call, count,
          typeName(type), extra, comm ? comm->id.c_str() : "null",
          comm ? comm->rank : -1, stream);
  if (!comm || comm->mpi == MPI_COMM_NULL)
    return fail(ncclInvalidArgument, std::string(call) + ": invalid comm");
  // Tests make an operation fail on every member alike.
  const char *failing = std::getenv("ONEFLOW_NCCL_STANDIN_FAIL");
  if (failing && std::strcmp(failing, call) == 0)
    return fail(ncclInternalError, std::string("injected failure of ") + call);
  mpi = mpiType(type, sum);
  if (mpi == MPI_DATATYPE_NULL)
    return fail(ncclInvalidArgument,
                std::string(call) + ": the stand-in cannot " +
                    (sum ? "sum " : "move ") + typeName(type));
  if (count > size_t(INT32_MAX))
    return fail(ncclInvalidArgument, std::string(call) + ": count too large");
  return ncclSuccess;
}

ncclResult_t runOrDefer(std::function<ncclResult_t()> op) {
  if (groupDepth > 0) {
    pendingCollectives.push_back(std::move(op));
    return ncclSuccess;
  }
  return op();
}

ncclResult_t pointToPoint(bool send, void *buffer, size_t count,
                          ncclDataType_t type, int peer, ncclComm_t comm,
                          cudaStream_t stream) {
  char extra[32];
  std::snprintf(extra, sizeof(extra), " peer=%d", peer);
  MPI_Datatype mpi;
  if (ncclResult_t rc = prepare(send ? "ncclSend" : "ncclRecv", comm, count,
                                type, false, mpi, extra, stream))
    return rc;
  if (peer < 0 || peer >= comm->nranks)
    return fail(ncclInvalidArgument, "peer out of range");
  PendingP2P op{send, buffer, int(count), mpi, peer, comm};
  if (groupDepth > 0) {
    pendingP2P.push_back(op);
    return ncclSuccess;
  }
  return runP2P({op});
}

} // namespace

STANDIN_API ncclResult_t ncclGetVersion(int *version) {
  const char *forced = std::getenv("ONEFLOW_NCCL_STANDIN_VERSION");
  *version = forced && *forced ? std::atoi(forced) : 22809;
  return ncclSuccess;
}

STANDIN_API const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error";
  case ncclSystemError:
    return "unhandled system error";
  case ncclInternalError:
    return "internal error";
  case ncclInvalidArgument:
    return "invalid argument";
  case ncclInvalidUsage:
    return "invalid usage";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  case ncclInProgress:
    return "NCCL operation in progress";
  }
  return "unknown result code";
}

STANDIN_API const char *ncclGetLastError(ncclComm_t) {
  return lastError.c_str();
}

STANDIN_API ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  const char *failing = std::getenv("ONEFLOW_NCCL_STANDIN_FAIL");
  if (failing && std::strcmp(failing, "ncclGetUniqueId") == 0)
    return fail(ncclInternalError, "injected failure of ncclGetUniqueId");
  static std::mt19937_64 random{std::random_device()()};
  std::memset(id->internal, 0, sizeof(id->internal));
  for (int i = 0; i < 16; i += 8) {
    uint64_t bits = random();
    std::memcpy(id->internal + i, &bits, 8);
  }
  int32_t root = worldRank();
  if (root < 0)
    return fail(ncclSystemError, "the NCCL stand-in needs MPI initialized");
  std::memcpy(id->internal + 16, &root, sizeof(root));
  logLine("ncclGetUniqueId id=%s", hexId(*id).c_str());
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                          ncclUniqueId id, int rank) {
  logLine("ncclCommInitRank id=%s nranks=%d rank=%d", hexId(id).c_str(), nranks,
          rank);
  if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
    return fail(ncclInvalidArgument, "ncclCommInitRank: invalid arguments");
  *comm = new ncclComm{hexId(id), rank, nranks, MPI_COMM_NULL};
  if (groupDepth > 0) {
    pendingInits.push_back({*comm, id});
    return ncclSuccess;
  }
  return runInits({{*comm, id}});
}

STANDIN_API ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return fail(ncclInvalidArgument, "ncclCommDestroy: null comm");
  logLine("ncclCommDestroy comm=%s/%d", comm->id.c_str(), comm->rank);
  if (ncclResult_t rc = progressSends(comm))
    return rc;
  if (comm->mpi != MPI_COMM_NULL)
    MPI_Comm_free(&comm->mpi);
  delete comm;
  return ncclSuccess;
}

// The watchdog aborts communicators while another thread may be blocked in
// one of their operations (here: inside MPI): logged, and left for the
// process's end, which follows.
STANDIN_API ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm)
    return fail(ncclInvalidArgument, "ncclCommAbort: null comm");
  logLine("ncclCommAbort comm=%s/%d", comm->id.c_str(), comm->rank);
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclCommGetAsyncError(ncclComm_t comm,
                                               ncclResult_t *asyncError) {
  if (!comm || !asyncError)
    return ncclInvalidArgument;
  *asyncError = ncclSuccess;
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclGroupStart() {
  logLine("ncclGroupStart");
  ++groupDepth;
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclGroupEnd() {
  logLine("ncclGroupEnd");
  if (groupDepth == 0)
    return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--groupDepth > 0)
    return ncclSuccess;
  // Inits first (operations may use the new communicators), then the
  // collectives in call order, then the sends and receives together.
  ncclResult_t result = ncclSuccess;
  std::vector<PendingInit> inits;
  inits.swap(pendingInits);
  if (!inits.empty())
    result = runInits(std::move(inits));
  std::vector<std::function<ncclResult_t()>> collectives;
  collectives.swap(pendingCollectives);
  for (auto &op : collectives)
    if (ncclResult_t rc = op(); rc != ncclSuccess && result == ncclSuccess)
      result = rc;
  std::vector<PendingP2P> p2p;
  p2p.swap(pendingP2P);
  if (!p2p.empty())
    if (ncclResult_t rc = runP2P(std::move(p2p));
        rc != ncclSuccess && result == ncclSuccess)
      result = rc;
  return result;
}

STANDIN_API ncclResult_t ncclAllReduce(const void *send, void *recv,
                                       size_t count, ncclDataType_t type,
                                       ncclRedOp_t op, ncclComm_t comm,
                                       cudaStream_t stream) {
  MPI_Datatype mpi;
  if (ncclResult_t rc = prepare("ncclAllReduce", comm, count, type, true, mpi,
                                " op=sum", stream))
    return rc;
  if (op != ncclSum)
    return fail(ncclInvalidArgument, "the stand-in only sums");
  return runOrDefer([=] {
    return checkMpi(MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv,
                                  int(count), mpi, MPI_SUM, comm->mpi),
                    "MPI_Allreduce");
  });
}

STANDIN_API ncclResult_t ncclAllGather(const void *send, void *recv,
                                       size_t count, ncclDataType_t type,
                                       ncclComm_t comm, cudaStream_t stream) {
  MPI_Datatype mpi;
  if (ncclResult_t rc =
          prepare("ncclAllGather", comm, count, type, false, mpi, "", stream))
    return rc;
  return runOrDefer([=] {
    return checkMpi(
        MPI_Allgather(send, int(count), mpi, recv, int(count), mpi, comm->mpi),
        "MPI_Allgather");
  });
}

STANDIN_API ncclResult_t ncclReduceScatter(const void *send, void *recv,
                                           size_t count, ncclDataType_t type,
                                           ncclRedOp_t op, ncclComm_t comm,
                                           cudaStream_t stream) {
  MPI_Datatype mpi;
  if (ncclResult_t rc = prepare("ncclReduceScatter", comm, count, type, true,
                                mpi, " op=sum", stream))
    return rc;
  if (op != ncclSum)
    return fail(ncclInvalidArgument, "the stand-in only sums");
  return runOrDefer([=] {
    return checkMpi(MPI_Reduce_scatter_block(send, recv, int(count), mpi,
                                             MPI_SUM, comm->mpi),
                    "MPI_Reduce_scatter_block");
  });
}

STANDIN_API ncclResult_t ncclSend(const void *send, size_t count,
                                  ncclDataType_t type, int peer,
                                  ncclComm_t comm, cudaStream_t stream) {
  return pointToPoint(true, const_cast<void *>(send), count, type, peer, comm,
                      stream);
}

STANDIN_API ncclResult_t ncclRecv(void *recv, size_t count, ncclDataType_t type,
                                  int peer, ncclComm_t comm,
                                  cudaStream_t stream) {
  return pointToPoint(false, recv, count, type, peer, comm, stream);
}
