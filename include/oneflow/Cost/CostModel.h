//===- CostModel.h - Seconds of plan tasks on a cluster ---------*- C++ -*-===//
//
// The formulas of docs/simulator.md: a kernel's GEMM time at the achieved
// fraction of the peak plus its vector or memory time (whichever is
// longer) plus the per-task overhead; copies at memory bandwidth;
// collectives as ring algorithms over the innermost link level that holds
// their group.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_COST_COSTMODEL_H
#define ONEFLOW_COST_COSTMODEL_H

#include "oneflow/Cost/Cluster.h"

namespace oneflow {
namespace cost {

/// One firing of a KERNEL task that does `cost`'s work; f32 products run
/// as TF32 when `allowTf32` (CUDA plans).
double kernelSeconds(const plan::TaskCost &cost, const Cluster &cluster,
                     bool allowTf32);

/// An ASSIGN, INPUT or OUTPUT task moving `bytes`.
double copySeconds(double bytes, const Cluster &cluster);

/// A collective of `kind` over `group` (global ranks) with `bytes` the
/// bytes of its input (of its output for ALL_GATHER); SEND and RECV are
/// one transfer of `bytes`.
double collectiveSeconds(plan::Collective::Kind kind, double bytes,
                         llvm::ArrayRef<int32_t> group, const Cluster &cluster);

} // namespace cost
} // namespace oneflow

#endif // ONEFLOW_COST_COSTMODEL_H
