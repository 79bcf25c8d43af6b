//===- OpCost.h - The work of oneflow ops -----------------------*- C++ -*-===//
//
// Counts what an op computes, for the plan's TaskCost (docs/simulator.md)
// and for any search that prices ops of a graph: matrix products and
// convolutions as GEMM FLOPs (2 per multiply-add), everything else as
// vector FLOPs (one per result element; a transcendental 8; a reduction one
// per input element). Shapes are the op's own (local ones after
// distribution).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_COST_OPCOST_H
#define ONEFLOW_COST_OPCOST_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"

namespace mlir {
namespace oneflow {

/// The convolution kernels (conv2d, conv_transpose2d, which is also the
/// data gradient, conv2d_grad_filter), which differ in efficiency.
enum class ConvKind { Conv, ConvTranspose, ConvGradFilter };
constexpr int kNumConvKinds = 3;

struct OpCost {
  /// FLOPs of matrix products and convolutions.
  double gemmFlops = 0;
  /// How many products (one per matmul, batch_matmul or convolution).
  int64_t gemmCount = 0;
  /// FLOPs of everything else.
  double vectorFlops = 0;
  /// The convolutions among the products, by ConvKind (part of gemmFlops
  /// and gemmCount).
  double convFlops[kNumConvKinds] = {};
  int64_t convCount[kNumConvKinds] = {};
  /// Their products of one image and one group (batch x groups each).
  int64_t convImages[kNumConvKinds] = {};

  OpCost &operator+=(const OpCost &other) {
    gemmFlops += other.gemmFlops;
    gemmCount += other.gemmCount;
    vectorFlops += other.vectorFlops;
    for (int kind = 0; kind < kNumConvKinds; ++kind) {
      convFlops[kind] += other.convFlops[kind];
      convCount[kind] += other.convCount[kind];
      convImages[kind] += other.convImages[kind];
    }
    return *this;
  }
  /// Every FLOP count divided by `degree` (the work of one of `degree`
  /// ranks sharing an op).
  OpCost dividedBy(double degree) const {
    OpCost local = *this;
    local.gemmFlops /= degree;
    local.vectorFlops /= degree;
    for (double &flops : local.convFlops)
      flops /= degree;
    return local;
  }
};

/// The work of one op; a oneflow.fused op's is that of its body.
OpCost estimateCost(Operation *op);

/// What one call of a kernel function costs.
struct KernelCost : OpCost {
  /// Bytes of its arguments and results (what it reads and writes).
  double bytes = 0;
  /// The element type of its first product, else of its first result (or
  /// argument); null without tensors.
  Type elementType;
};

/// The sum of the ops of `kernel`'s body, fused regions walked.
KernelCost estimateKernelCost(func::FuncOp kernel);

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_COST_OPCOST_H
