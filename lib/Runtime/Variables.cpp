//===- Variables.cpp - The logical variables of a plan --------------------===//

#include "oneflow/Runtime/Variables.h"

#include "oneflow/Runtime/Distributed.h"

#include <algorithm>
#include <cstring>

namespace oneflow {
namespace runtime {

std::string Variable::describe() const {
  return "'" + name + "' " + describeTensor(dtype, shape);
}

std::vector<Variable> planVariables(const PlanGraph &graph) {
  std::map<std::string, Variable> byName;
  for (size_t r = 0; r < graph.regsts().size(); ++r) {
    const PlanGraph::RegstNode &node = graph.regsts()[r];
    const plan::Regst &regst = *node.regst;
    if (!regst.has_variable() || !regst.persistent())
      continue;
    const plan::VariableSlice &slice = regst.variable();
    Variable &variable = byName[slice.name()];
    if (variable.name.empty()) {
      variable.name = slice.name();
      variable.dtype = regst.desc().dtype();
      variable.shape.assign(slice.global_shape().begin(),
                            slice.global_shape().end());
      variable.trainable = slice.trainable();
    }
    VariablePiece piece;
    piece.regst = int(r);
    piece.rank = node.rank >= 0 ? node.rank : regst.rank();
    piece.offsets.assign(slice.offsets().begin(), slice.offsets().end());
    piece.shape = shapeOf(regst.desc());
    variable.pieces.push_back(std::move(piece));
  }
  std::vector<Variable> variables;
  for (auto &[name, variable] : byName) {
    // One copy of each distinct piece is gathered: the lowest rank's.
    for (VariablePiece &piece : variable.pieces) {
      const VariablePiece *best = nullptr;
      for (const VariablePiece &other : variable.pieces)
        if (other.offsets == piece.offsets && other.shape == piece.shape &&
            (!best || other.rank < best->rank))
          best = &other;
      piece.gathered = best == &piece;
    }
    variables.push_back(std::move(variable));
  }
  return variables;
}

void copyBlock(void *dst, const std::vector<int64_t> &dstShape,
               const std::vector<int64_t> &dstOffsets, const void *src,
               const std::vector<int64_t> &srcShape,
               const std::vector<int64_t> &srcOffsets,
               const std::vector<int64_t> &block, int64_t elementSize) {
  const size_t rank = block.size();
  for (int64_t dim : block)
    if (dim == 0)
      return;
  // The innermost dimensions that the block spans whole in both tensors
  // are one contiguous run.
  size_t inner = rank;
  int64_t run = elementSize;
  while (inner > 0 && block[inner - 1] == dstShape[inner - 1] &&
         block[inner - 1] == srcShape[inner - 1]) {
    --inner;
    run *= block[inner];
  }
  if (inner > 0) { // The first partial dimension is copied by rows too.
    --inner;
    run *= block[inner];
  }
  // Row-major strides (bytes).
  std::vector<int64_t> dstStride(rank), srcStride(rank);
  int64_t d = elementSize, s = elementSize;
  for (size_t i = rank; i-- > 0;) {
    dstStride[i] = d;
    srcStride[i] = s;
    d *= dstShape[i];
    s *= srcShape[i];
  }
  int64_t dstBase = 0, srcBase = 0;
  for (size_t i = 0; i < rank; ++i) {
    dstBase += dstOffsets[i] * dstStride[i];
    srcBase += srcOffsets[i] * srcStride[i];
  }
  char *out = static_cast<char *>(dst);
  const char *in = static_cast<const char *>(src);
  // Odometer over the dimensions before `inner`.
  std::vector<int64_t> index(inner, 0);
  while (true) {
    int64_t dstAt = dstBase, srcAt = srcBase;
    for (size_t i = 0; i < inner; ++i) {
      dstAt += index[i] * dstStride[i];
      srcAt += index[i] * srcStride[i];
    }
    std::memcpy(out + dstAt, in + srcAt, size_t(run));
    size_t i = inner;
    while (i > 0 && ++index[i - 1] == block[i - 1])
      index[--i] = 0;
    if (i == 0)
      return;
  }
}

namespace {

const char *pieceData(Executor &executor, const Variable &variable,
                      const VariablePiece &piece) {
  const plan::Regst &regst = *executor.graph().regsts()[piece.regst].regst;
  return static_cast<const char *>(executor.persistentData(regst.id()));
}

} // namespace

std::map<std::string, HostTensor>
gatherVariables(Executor &executor, const std::vector<Variable> &variables) {
  World *world = executor.world();
  const int rank = world ? world->rank() : 0;
  const int size = world ? world->size() : 1;
  // Each rank's gathered pieces, concatenated in variable and piece order:
  // every rank knows the order from the plan, so nothing else is sent.
  std::string mine;
  for (const Variable &variable : variables)
    for (const VariablePiece &piece : variable.pieces)
      if (piece.gathered && piece.rank == rank && size > 1) {
        size_t bytes = size_t(tensorBytes(variable.dtype, piece.shape));
        if (const char *data = pieceData(executor, variable, piece))
          mine.append(data, bytes);
        else
          mine.append(bytes, '\0');
      }
  std::vector<std::string> all;
  if (size > 1)
    all = world->gather(mine);
  std::map<std::string, HostTensor> tensors;
  if (rank != 0)
    return tensors;
  std::vector<size_t> at(size, 0);
  for (const Variable &variable : variables) {
    HostTensor whole(variable.dtype, variable.shape);
    for (const VariablePiece &piece : variable.pieces) {
      if (!piece.gathered)
        continue;
      const char *data;
      if (piece.rank == 0) {
        data = pieceData(executor, variable, piece);
        if (!data)
          continue; // Not allocated: cannot happen for a validated plan.
      } else {
        data = all[piece.rank].data() + at[piece.rank];
        at[piece.rank] += size_t(tensorBytes(variable.dtype, piece.shape));
      }
      copyBlock(whole.data.data(), variable.shape, piece.offsets, data,
                piece.shape, std::vector<int64_t>(piece.shape.size(), 0),
                piece.shape, elementSize(variable.dtype));
    }
    tensors.emplace(variable.name, std::move(whole));
  }
  return tensors;
}

Status scatterVariables(Executor &executor,
                        const std::vector<Variable> &variables,
                        const std::map<std::string, HostTensor> &tensors) {
  World *world = executor.world();
  const int rank = world ? world->rank() : 0;
  for (const Variable &variable : variables) {
    auto it = tensors.find(variable.name);
    if (it == tensors.end())
      return makeError("no value for variable ", variable.describe());
    const HostTensor &whole = it->second;
    if (whole.dtype != variable.dtype || whole.shape != variable.shape)
      return makeError("variable ", variable.describe(), " gets ",
                       whole.describe());
    for (const VariablePiece &piece : variable.pieces) {
      if (piece.rank != rank)
        continue;
      const plan::Regst &regst = *executor.graph().regsts()[piece.regst].regst;
      void *data = executor.persistentData(regst.id());
      if (!data)
        return makeError("variable ", variable.describe(), ": ",
                         PlanGraph::describe(regst), " is not allocated");
      copyBlock(data, piece.shape, std::vector<int64_t>(piece.shape.size(), 0),
                whole.data.data(), variable.shape, piece.offsets, piece.shape,
                elementSize(variable.dtype));
    }
  }
  return Status::success();
}

} // namespace runtime
} // namespace oneflow
