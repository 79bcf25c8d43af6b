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
#include "llvm/ADT/SmallVector.h"

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

/// One 1-D conversion of an nd-SBP conversion: the collective along one
/// mesh axis, over the piece of the tensor its device group holds.
struct BoxingStep {
  unsigned axis;
  BoxingKind kind;
  Sbp from, to;
  /// Logical bytes of the piece the group along `axis` converts.
  double groupBytes;
  /// Bytes each device of the group sends.
  double bytesSent;
};

/// The 1-D conversions of an nd-SBP conversion on a mesh of `meshShape`, in
/// the order sbp-localize runs them: one mesh axis at a time; first what
/// the target does not split (innermost axis first), then the target's
/// splits (outermost first). A conversion along a tensor dimension that an
/// inner axis also splits first gathers that inner split (a step of its
/// own, on a larger piece). The all-reduces of partial sums that become
/// broadcast run where placeAllReduces puts them. Axes whose SBP does not
/// change have no step.
/// Where an nd-SBP conversion runs its all-reduces (P -> B): a sum commutes
/// with every other axis' conversion, so it can run before the gathers (on
/// the piece they would enlarge), in its place among the conversions to
/// non-split SBPs, or after the splits are built (on the piece they leave).
enum class AllReducePlacement { First, InPlace, Last };

/// The placement that moves the fewest bytes (in place on a tie).
AllReducePlacement placeAllReduces(llvm::ArrayRef<Sbp> from,
                                   llvm::ArrayRef<Sbp> to,
                                   llvm::ArrayRef<int64_t> meshShape);

llvm::SmallVector<BoxingStep, 3>
boxingStepsND(llvm::ArrayRef<Sbp> from, llvm::ArrayRef<Sbp> to,
              double tensorBytes, llvm::ArrayRef<int64_t> meshShape);

/// Bytes each device sends for an nd-SBP conversion on a mesh of `meshShape`,
/// converting one mesh axis at a time (the largest axes first, where the
/// tensor seen by each axis is the part left by the other axes).
double boxingBytesND(llvm::ArrayRef<Sbp> from, llvm::ArrayRef<Sbp> to,
                     double tensorBytes, llvm::ArrayRef<int64_t> meshShape);

} // namespace sbp
} // namespace mlir

#endif // ONEFLOW_DIALECT_SBP_BOXINGCOST_H
