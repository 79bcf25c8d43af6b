//===- BoxingCost.cpp - Bytes moved by SBP conversions --------------------===//

#include "oneflow/Dialect/SBP/BoxingCost.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir::sbp;

BoxingKind mlir::sbp::classifyBoxing(Sbp from, Sbp to) {
  if (from == to)
    return BoxingKind::Identity;
  switch (from.kind) {
  case Sbp::Kind::PartialSum:
    return to.isBroadcast() ? BoxingKind::AllReduce
                            : BoxingKind::ReduceScatter;
  case Sbp::Kind::Split:
    if (to.isBroadcast())
      return BoxingKind::AllGather;
    return to.isSplit() ? BoxingKind::AllToAll : BoxingKind::SplitToPartial;
  case Sbp::Kind::Broadcast:
    return to.isSplit() ? BoxingKind::LocalSlice : BoxingKind::ZeroFill;
  }
  llvm_unreachable("unknown SBP kind");
}

llvm::StringRef mlir::sbp::stringifyBoxingKind(BoxingKind kind) {
  switch (kind) {
  case BoxingKind::Identity:
    return "identity";
  case BoxingKind::AllReduce:
    return "all-reduce";
  case BoxingKind::ReduceScatter:
    return "reduce-scatter";
  case BoxingKind::AllGather:
    return "all-gather";
  case BoxingKind::AllToAll:
    return "all-to-all";
  case BoxingKind::LocalSlice:
    return "local-slice";
  case BoxingKind::ZeroFill:
    return "zero-fill";
  case BoxingKind::SplitToPartial:
    return "split-to-partial";
  }
  llvm_unreachable("unknown boxing kind");
}

double mlir::sbp::boxingBytes1D(Sbp from, Sbp to, double tensorBytes,
                                int64_t numDevices) {
  if (numDevices <= 1)
    return 0;
  double n = numDevices;
  double share = tensorBytes * (n - 1) / n;
  switch (classifyBoxing(from, to)) {
  case BoxingKind::AllReduce:
    return 2 * share;
  case BoxingKind::ReduceScatter:
  case BoxingKind::AllGather:
    return share;
  case BoxingKind::AllToAll:
    // Each device sends T/n^2 to each of its n-1 peers.
    return tensorBytes / n * (n - 1) / n;
  case BoxingKind::Identity:
  case BoxingKind::LocalSlice:
  case BoxingKind::ZeroFill:
  case BoxingKind::SplitToPartial:
    return 0;
  }
  llvm_unreachable("unknown boxing kind");
}

llvm::SmallVector<BoxingStep, 3>
mlir::sbp::boxingStepsND(llvm::ArrayRef<Sbp> from, llvm::ArrayRef<Sbp> to,
                         double tensorBytes,
                         llvm::ArrayRef<int64_t> meshShape) {
  assert(from.size() == meshShape.size() && to.size() == meshShape.size() &&
         "nd-SBP length must equal the mesh rank");
  llvm::SmallVector<Sbp, 3> state(from.begin(), from.end());
  // The piece of the tensor that one device group along `axis` works on: the
  // splits of the other axes shrink it.
  auto localBytes = [&](size_t axis) {
    double bytes = tensorBytes;
    for (size_t other = 0; other < state.size(); ++other)
      if (other != axis && state[other].isSplit())
        bytes /= meshShape[other];
    return bytes;
  };
  llvm::SmallVector<BoxingStep, 3> steps;
  for (bool towardsSplit : {true, false}) {
    for (size_t axis = 0; axis < state.size(); ++axis) {
      if (state[axis] == to[axis] || to[axis].isSplit() != towardsSplit)
        continue;
      double bytes = localBytes(axis);
      steps.push_back({unsigned(axis), classifyBoxing(state[axis], to[axis]),
                       state[axis], to[axis], bytes,
                       boxingBytes1D(state[axis], to[axis], bytes,
                                     meshShape[axis])});
      state[axis] = to[axis];
    }
  }
  return steps;
}

double mlir::sbp::boxingBytesND(llvm::ArrayRef<Sbp> from,
                                llvm::ArrayRef<Sbp> to, double tensorBytes,
                                llvm::ArrayRef<int64_t> meshShape) {
  double total = 0;
  for (const BoxingStep &step : boxingStepsND(from, to, tensorBytes, meshShape))
    total += step.bytesSent;
  return total;
}
