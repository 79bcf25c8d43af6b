//===- BoxingCost.h - Bytes moved by SBP conversions ------------*- C++ -*-===//
//
// The communication cost model of boxing, per the architecture's table: the
// bytes each device sends to convert a tensor of T bytes from one SBP to
// another over a mesh axis of n devices.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_DIALECT_SBP_BOXINGCOST_H
#define ONEFLOW_DIALECT_SBP_BOXINGCOST_H

#include "oneflow/Dialect/SBP/SbpRule.h"

#include "llvm/ADT/ArrayRef.h"

namespace mlir {
namespace sbp {

/// The collective that a 1-D conversion lowers to.
enum class BoxingKind : uint8_t {
  Identity,      // same SBP
  AllReduce,     // P -> B
  ReduceScatter, // P -> S(i)
  AllGather,     // S(i) -> B
  AllToAll,      // S(i) -> S(j)
  LocalSlice,    // B -> S(i)
  ZeroFill,      // B -> P (keep on one rank, zero elsewhere)
  SplitToPartial // S(i) -> P (pad the local slice with zeros)
};

BoxingKind classifyBoxing(Sbp from, Sbp to);
llvm::StringRef stringifyBoxingKind(BoxingKind kind);

/// Bytes each device sends for a 1-D conversion of a tensor of
/// `tensorBytes` logical bytes over `numDevices` devices.
double boxingBytes1D(Sbp from, Sbp to, double tensorBytes, int64_t numDevices);

/// Bytes each device sends for an nd-SBP conversion on a mesh of `meshShape`,
/// converting one mesh axis at a time (the largest axes first, where the
/// tensor seen by each axis is the part left by the other axes).
double boxingBytesND(llvm::ArrayRef<Sbp> from, llvm::ArrayRef<Sbp> to,
                     double tensorBytes, llvm::ArrayRef<int64_t> meshShape);

} // namespace sbp
} // namespace mlir

#endif // ONEFLOW_DIALECT_SBP_BOXINGCOST_H
