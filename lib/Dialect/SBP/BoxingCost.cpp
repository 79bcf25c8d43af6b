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
    return to.isBroadcast() ? BoxingKind::AllReduce : BoxingKind::ReduceScatter;
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

namespace {
/// Replays the conversion as sbp-localize lowers it (RankLocalizer::convert
/// and convertAxis), so that what is priced is what runs: a conversion on
/// one axis first undoes, innermost first, the splits of inner axes along
/// the tensor dimensions it splits or gathers, which makes the piece it
/// moves larger.
class StepRecorder {
public:
  StepRecorder(llvm::ArrayRef<Sbp> from, double tensorBytes,
               llvm::ArrayRef<int64_t> meshShape)
      : state(from.begin(), from.end()), tensorBytes(tensorBytes),
        meshShape(meshShape) {}

  void convertAxis(size_t axis, Sbp target) {
    Sbp source = state[axis];
    if (source == target)
      return;
    auto involves = [&](Sbp inner) {
      return inner.isSplit() &&
             ((source.isSplit() && inner.axis == source.axis) ||
              (target.isSplit() && inner.axis == target.axis));
    };
    for (size_t inner = state.size() - 1; inner > axis; --inner)
      if (involves(state[inner]))
        convertAxis(inner, Sbp::broadcast());
    double bytes = localBytes(axis);
    steps.push_back({unsigned(axis), classifyBoxing(source, target), source,
                     target, bytes,
                     boxingBytes1D(source, target, bytes, meshShape[axis])});
    state[axis] = target;
  }

  llvm::SmallVector<BoxingStep, 3> steps;

private:
  /// The piece of the tensor that one device group along `axis` works on:
  /// the splits of the other axes shrink it.
  double localBytes(size_t axis) const {
    double bytes = tensorBytes;
    for (size_t other = 0; other < state.size(); ++other)
      if (other != axis && state[other].isSplit())
        bytes /= meshShape[other];
    return bytes;
  }

  llvm::SmallVector<Sbp, 3> state;
  double tensorBytes;
  llvm::ArrayRef<int64_t> meshShape;
};
} // namespace

/// The steps in sbp-localize's order, with the all-reduces of partial sums
/// that become broadcast placed as `placement` says.
static llvm::SmallVector<BoxingStep, 3>
stepsInOrder(llvm::ArrayRef<Sbp> from, llvm::ArrayRef<Sbp> to,
             double tensorBytes, llvm::ArrayRef<int64_t> meshShape,
             AllReducePlacement placement) {
  StepRecorder recorder(from, tensorBytes, meshShape);
  auto allReduce = [&](size_t axis) {
    return from[axis].isPartialSum() && to[axis].isBroadcast();
  };
  if (placement == AllReducePlacement::First)
    for (size_t axis = to.size(); axis-- > 0;)
      if (allReduce(axis))
        recorder.convertAxis(axis, to[axis]);
  bool last = placement == AllReducePlacement::Last;
  for (size_t axis = to.size(); axis-- > 0;)
    if (!to[axis].isSplit() && !(last && allReduce(axis)))
      recorder.convertAxis(axis, to[axis]);
  for (size_t axis = 0; axis < to.size(); ++axis)
    if (!(last && allReduce(axis)))
      recorder.convertAxis(axis, to[axis]);
  for (size_t axis = to.size(); axis-- > 0;)
    recorder.convertAxis(axis, to[axis]);
  return std::move(recorder.steps);
}

static double totalBytes(llvm::ArrayRef<BoxingStep> steps) {
  double total = 0;
  for (const BoxingStep &step : steps)
    total += step.bytesSent;
  return total;
}

AllReducePlacement
mlir::sbp::placeAllReduces(llvm::ArrayRef<Sbp> from, llvm::ArrayRef<Sbp> to,
                           llvm::ArrayRef<int64_t> meshShape) {
  // Every step's bytes scale with the tensor's: any size compares the same.
  AllReducePlacement best = AllReducePlacement::InPlace;
  double bestBytes = totalBytes(stepsInOrder(from, to, 1, meshShape, best));
  for (AllReducePlacement other :
       {AllReducePlacement::First, AllReducePlacement::Last}) {
    double bytes = totalBytes(stepsInOrder(from, to, 1, meshShape, other));
    if (bytes < bestBytes) {
      best = other;
      bestBytes = bytes;
    }
  }
  return best;
}

llvm::SmallVector<BoxingStep, 3>
mlir::sbp::boxingStepsND(llvm::ArrayRef<Sbp> from, llvm::ArrayRef<Sbp> to,
                         double tensorBytes,
                         llvm::ArrayRef<int64_t> meshShape) {
  assert(from.size() == meshShape.size() && to.size() == meshShape.size() &&
         "nd-SBP length must equal the mesh rank");
  return stepsInOrder(from, to, tensorBytes, meshShape,
                      placeAllReduces(from, to, meshShape));
}

double mlir::sbp::boxingBytesND(llvm::ArrayRef<Sbp> from,
                                llvm::ArrayRef<Sbp> to, double tensorBytes,
                                llvm::ArrayRef<int64_t> meshShape) {
  double total = 0;
  for (const BoxingStep &step : boxingStepsND(from, to, tensorBytes, meshShape))
    total += step.bytesSent;
  return total;
}
