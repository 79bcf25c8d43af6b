//===- Variables.h - The logical variables of a plan ------------*- C++ -*-===//
//
// Regsts with a VariableSlice hold pieces of logical variables (model
// parameters, optimizer state): each rank holds the pieces its tasks use,
// and several ranks may hold the same piece (replicas). This gathers the
// full logical tensors (for checkpoints and ONNX export) and writes pieces
// back from them (restoring a checkpoint).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_VARIABLES_H
#define ONEFLOW_RUNTIME_VARIABLES_H

#include "oneflow/Runtime/Executor.h"

#include <map>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

struct VariablePiece {
  int regst = -1; // index in PlanGraph::regsts()
  int rank = 0;
  std::vector<int64_t> offsets, shape;
  /// Whether this piece is the one copy of its replicas that is gathered
  /// (the first regst, in plan order, of the lowest rank that holds it).
  bool gathered = false;
};

struct Variable {
  std::string name;
  plan::DataType dtype = plan::DT_INVALID;
  std::vector<int64_t> shape; // the logical (global) shape
  bool trainable = false;
  std::vector<VariablePiece> pieces; // in plan order

  std::string describe() const; // "'fc1.weight' f32[784,512]"
};

/// The variables of a validated plan, sorted by name.
std::vector<Variable> planVariables(const PlanGraph &graph);

/// Copies the dense block `block` of elements of `elementSize` bytes from
/// `src` (dense, `srcShape`) at `srcOffsets` to `dst` (dense, `dstShape`)
/// at `dstOffsets`. All vectors have one entry per dimension.
void copyBlock(void *dst, const std::vector<int64_t> &dstShape,
               const std::vector<int64_t> &dstOffsets, const void *src,
               const std::vector<int64_t> &srcShape,
               const std::vector<int64_t> &srcOffsets,
               const std::vector<int64_t> &block, int64_t elementSize);

/// Every variable as its full logical tensor, by name, on rank 0 (other
/// ranks get an empty map). In a multi-rank run this is collective: every
/// rank calls it between runs, and rank 0 receives the gathered pieces of
/// the others (one copy of replicated pieces).
std::map<std::string, HostTensor>
gatherVariables(Executor &executor, const std::vector<Variable> &variables);

/// Writes this rank's pieces of every variable from `tensors` (full logical
/// tensors by name; each must be present with the variable's dtype and
/// shape). Call between runs; not collective.
Status scatterVariables(Executor &executor,
                        const std::vector<Variable> &variables,
                        const std::map<std::string, HostTensor> &tensors);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_VARIABLES_H
