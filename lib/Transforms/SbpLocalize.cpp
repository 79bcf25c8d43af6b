//===- SbpLocalize.cpp - One local program per rank of the mesh -----------===//
//
// Turns the distributed @main (global types, SBP signatures, boxings) into
// @main_rank<r>, one per device: every value holds the rank's local piece,
// parameters hold their slice of the data, and each boxing becomes the
// collectives (or local slices) that move pieces between ranks.
//
// With share-programs only the first device's program is written, and
// every device runs it: what depends on the device (its pieces' offsets, a
// partial sum's owner, collective groups) is read from the rank's mesh
// coordinates at run time, so the plan holds one program per rank role
// whatever the rank count.
//
//===----------------------------------------------------------------------===//

#include "SbpUtils.h"
#include "oneflow/Dialect/SBP/BoxingCost.h"

#include "oneflow/Dialect/OneFlow/ElementsUtils.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SBPLOCALIZE
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;
using sbp::Sbp;

/// The variable holding a rank's mesh coordinates in a shared program.
static constexpr llvm::StringLiteral kCoordinatesName = "mesh.coordinates";

/// A grouped convolution whose channels are split holds whole groups (the
/// factor rule splits them by groups): it runs its share of the groups.
template <typename ConvOp>
static void localizeGroups(ConvOp local, ConvOp global) {
  int64_t groups = global.getGroups();
  int64_t globalChannels = global.getX().getType().getDimSize(1);
  int64_t localChannels = local.getX().getType().getDimSize(1);
  if (groups > 1 && (groups * localChannels) % globalChannels == 0)
    local.setGroups(groups * localChannels / globalChannels);
}

/// Elements of `type` along `axes`.
static int64_t countAlong(Type type, ArrayRef<int64_t> axes) {
  auto tensor = cast<RankedTensorType>(type);
  int64_t count = 1;
  for (int64_t axis : axes)
    count *= tensor.getDimSize(axis < 0 ? axis + tensor.getRank() : axis);
  return count;
}

/// For an op computing a mean (reduce_mean, mean losses) whose local form
/// averages fewer elements than the global one: the local share of them.
/// The local means, scaled by it, sum to the global mean.
static std::optional<double> meanShare(Operation &global, Operation *local) {
  int64_t globalCount = 1, localCount = 1;
  if (auto mean = dyn_cast<ReduceMeanOp>(global)) {
    globalCount = countAlong(mean.getX().getType(), mean.getAxes());
    localCount = countAlong(local->getOperand(0).getType(), mean.getAxes());
  } else if (auto loss = dyn_cast<SoftmaxCrossEntropyOp>(global);
             loss && loss.getReduction() == LossReduction::Mean) {
    globalCount = loss.getLabels().getType().getNumElements();
    localCount =
        cast<RankedTensorType>(local->getOperand(1).getType()).getNumElements();
  } else if (auto loss = dyn_cast<MseLossOp>(global);
             loss && loss.getReduction() == LossReduction::Mean) {
    globalCount = loss.getInput().getType().getNumElements();
    localCount =
        cast<RankedTensorType>(local->getOperand(0).getType()).getNumElements();
  }
  if (globalCount == localCount)
    return std::nullopt;
  return double(localCount) / globalCount;
}

/// The limits of a local slice (or slice gradient) over the local `full`
/// tensor: dimensions taken whole end at their local size.
template <typename SliceLikeOp>
static SmallVector<int64_t> localSliceLimits(SliceLikeOp slice, Type full) {
  auto input = cast<RankedTensorType>(full);
  SmallVector<int64_t> limits(slice.getLimits());
  for (int64_t dim = 0; dim < input.getRank(); ++dim)
    if (slice.getStarts()[dim] == 0 && slice.getSteps()[dim] == 1)
      limits[dim] = std::min(limits[dim], input.getDimSize(dim));
  return limits;
}

namespace {
/// Builds the program of one device.
class RankLocalizer {
public:
  RankLocalizer(func::FuncOp graph, sbp::MeshOp mesh, int64_t device,
                bool shared)
      : graph(graph), meshShape(mesh.getShape()), ranks(mesh.getRankList()),
        shared(shared), builder(graph.getContext()) {
    int64_t rest = device;
    coord.resize(meshShape.size());
    for (int64_t axis = meshShape.size() - 1; axis >= 0; --axis) {
      coord[axis] = rest % meshShape[axis];
      rest /= meshShape[axis];
    }
    rank = ranks[device];
  }

  FailureOr<func::FuncOp> run();

private:
  /// How many pieces `nd` cuts dimension `dim` into.
  int64_t piecesOf(ArrayRef<Sbp> nd, int64_t dim) const {
    int64_t pieces = 1;
    for (auto [axis, sbp] : llvm::enumerate(nd))
      if (sbp.isSplit() && sbp.axis == dim)
        pieces *= meshShape[axis];
    return pieces;
  }
  /// The index of this device's piece of `dim` (mesh axis 0 outermost).
  int64_t pieceIndex(ArrayRef<Sbp> nd, int64_t dim) const {
    int64_t index = 0;
    for (auto [axis, sbp] : llvm::enumerate(nd))
      if (sbp.isSplit() && sbp.axis == dim)
        index = index * meshShape[axis] + coord[axis];
    return index;
  }
  FailureOr<RankedTensorType> localType(Location loc, Type global,
                                        ArrayRef<Sbp> nd) const {
    auto type = cast<RankedTensorType>(global);
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      int64_t pieces = piecesOf(nd, dim);
      if (shape[dim] % pieces != 0)
        return emitError(loc) << "dimension " << dim << " of " << type
                              << " does not divide into " << pieces
                              << " pieces for " << ndString(nd);
      shape[dim] /= pieces;
    }
    return type.clone(shape);
  }
  SmallVector<int64_t> localOffsets(RankedTensorType local,
                                    ArrayRef<Sbp> nd) const {
    SmallVector<int64_t> offsets;
    for (int64_t dim = 0; dim < local.getRank(); ++dim)
      offsets.push_back(pieceIndex(nd, dim) * local.getDimSize(dim));
    return offsets;
  }
  /// The global ranks of the devices that differ from this one only along
  /// mesh axis `axis`.
  SmallVector<int64_t> groupAlong(int64_t axis) const {
    SmallVector<int64_t> group;
    SmallVector<int64_t> other(coord);
    for (int64_t i = 0; i < meshShape[axis]; ++i) {
      other[axis] = i;
      int64_t device = 0;
      for (auto [a, c] : llvm::enumerate(other))
        device = device * meshShape[a] + c;
      group.push_back(ranks[device]);
    }
    return group;
  }
  /// A tag shared by the members of one collective and no other: the
  /// collective's program-order number and its group's first device.
  int64_t tagFor(int64_t meshAxis) {
    int64_t numDevices = 1, first = 0;
    for (auto [axis, size] : llvm::enumerate(meshShape)) {
      numDevices *= size;
      first = first * size + (int64_t(axis) == meshAxis ? 0 : coord[axis]);
    }
    return nextTag++ * numDevices + first;
  }
  /// Whether this device holds a partial sum's only non-zero piece.
  bool isPartialOwner(ArrayRef<Sbp> nd) const {
    for (auto [axis, sbp] : llvm::enumerate(nd))
      if (sbp.isPartialSum() && coord[axis] != 0)
        return false;
    return true;
  }

  /// Notes on a local variable which piece of the logical variable it
  /// holds (composed with a piece it already was, e.g. a split projection).
  void recordPiece(VariableOp variable, RankedTensorType global,
                   ArrayRef<int64_t> offsets) {
    SmallVector<int64_t> logicalOffsets(offsets);
    if (auto outer =
            variable->getAttrOfType<DenseI64ArrayAttr>(kLogicalOffsetsAttrName))
      for (auto [offset, base] : llvm::zip(logicalOffsets, outer.asArrayRef()))
        offset += base;
    else
      variable->setAttr(kLogicalShapeAttrName,
                        builder.getDenseI64ArrayAttr(global.getShape()));
    if (!variable->hasAttr(kLogicalNameAttrName))
      variable->setAttr(kLogicalNameAttrName, variable.getVarNameAttr());
    variable->setAttr(kLogicalOffsetsAttrName,
                      builder.getDenseI64ArrayAttr(logicalOffsets));
  }

  /// Shared programs: the rank's coordinate along every mesh axis, read
  /// from a variable each rank fills at load time.
  Value meshCoordinates(Location loc) {
    if (coordinates)
      return coordinates;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(body);
    auto type = RankedTensorType::get({int64_t(meshShape.size())},
                                      builder.getI64Type());
    auto init = InitializerAttr::get(builder.getContext(),
                                     InitDistribution::MeshCoordinates, 0.0,
                                     0.0, 0.0, 0.0, 0);
    coordinates = VariableOp::create(builder, loc, type,
                                     builder.getStringAttr(kCoordinatesName),
                                     ElementsAttr(), init);
    return coordinates;
  }
  /// Shared programs: the coordinate along `axis` as a 0-d tensor of
  /// `element` type.
  Value coordinateOf(Location loc, int64_t axis, Type element) {
    Value all = meshCoordinates(loc);
    Type i64 = builder.getI64Type();
    Value piece = SliceOp::create(builder, loc, RankedTensorType::get({1}, i64),
                                  all, builder.getDenseI64ArrayAttr({axis}),
                                  builder.getDenseI64ArrayAttr({axis + 1}),
                                  builder.getDenseI64ArrayAttr({1}));
    Value scalar =
        ReshapeOp::create(builder, loc, RankedTensorType::get({}, i64), piece);
    if (element != i64)
      scalar = CastOp::create(builder, loc, RankedTensorType::get({}, element),
                              scalar);
    return scalar;
  }
  Value scalarConstant(Location loc, Type element, double value) {
    auto type = RankedTensorType::get({}, element);
    Attribute attr =
        isa<FloatType>(element)
            ? Attribute(builder.getFloatAttr(element, value))
            : Attribute(builder.getIntegerAttr(element, int64_t(value)));
    return ConstantOp::create(builder, loc, type,
                              DenseElementsAttr::get(type, attr));
  }
  /// Shared programs: `value` on the devices at coordinate 0 of `axis`,
  /// zeros on the others (a partial sum's only non-zero piece).
  Value keepOnFirst(Location loc, Value value, int64_t axis) {
    Type i64 = builder.getI64Type();
    Value first = EqualOp::create(builder, loc, coordinateOf(loc, axis, i64),
                                  scalarConstant(loc, i64, 0));
    auto type = cast<RankedTensorType>(value.getType());
    Value zero = zeros(loc, RankedTensorType::get({}, type.getElementType()));
    return WhereOp::create(builder, loc, type, first, value, zero);
  }

  Value zeros(Location loc, RankedTensorType type) {
    auto value = DenseElementsAttr::get(
        type, builder.getZeroAttr(type.getElementType()));
    return ConstantOp::create(builder, loc, type, value);
  }
  /// This device's piece along `dim` (the split of mesh axis `axis`).
  Value pieceAlong(Location loc, Value value, RankedTensorType type,
                   int64_t dim, int64_t axis) {
    if (shared)
      return CoordinateSliceOp::create(builder, loc, type, value,
                                       meshCoordinates(loc), dim, axis,
                                       type.getDimSize(dim));
    SmallVector<int64_t> offsets(type.getRank(), 0);
    offsets[dim] = coord[axis] * type.getDimSize(dim);
    return localSlice(loc, value, type, offsets);
  }
  Value localSlice(Location loc, Value value, RankedTensorType type,
                   ArrayRef<int64_t> offsets) {
    SmallVector<int64_t> limits, steps(type.getRank(), 1);
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      limits.push_back(offsets[dim] + type.getDimSize(dim));
    return SliceOp::create(builder, loc, type, value,
                           builder.getDenseI64ArrayAttr(offsets),
                           builder.getDenseI64ArrayAttr(limits),
                           builder.getDenseI64ArrayAttr(steps));
  }
  Value collective(Location loc, StringRef kind, Value input,
                   RankedTensorType type, int64_t axis, int64_t meshAxis,
                   int64_t concatAxis = 0) {
    // A group of one device moves nothing.
    if (meshShape[meshAxis] == 1 && input.getType() == type)
      return input;
    auto op = sbp::CollectiveOp::create(
        builder, loc, type, builder.getStringAttr(kind), input,
        builder.getDenseI64ArrayAttr(groupAlong(meshAxis)),
        builder.getI64IntegerAttr(axis), builder.getI64IntegerAttr(concatAxis),
        builder.getI64IntegerAttr(tagFor(meshAxis)),
        shared ? builder.getI64IntegerAttr(meshAxis) : IntegerAttr());
    return op.getOutput();
  }

  FailureOr<Value> convert(Location loc, Value value, Type global, NdSbp from,
                           const NdSbp &to);
  FailureOr<Value> convertAxis(Location loc, Value value, Type global,
                               NdSbp &current, int64_t axis, Sbp target);
  LogicalResult localizeOp(Operation &op);
  LogicalResult localizeShared(Operation &op, ArrayRef<Sbp> nd,
                               RankedTensorType type);
  LogicalResult verifyLocal(Operation &op, Operation *clone,
                            sbp::SignatureAttr sig);
  LogicalResult localizeSplitGather(GatherOp gather, ArrayRef<Sbp> dataNd,
                                    RankedTensorType resultType);
  /// Maps the operands of `op`, converted to the nd-SBPs it needs.
  LogicalResult mapOperands(Operation &op, ArrayRef<NdSbp> wanted);

  func::FuncOp graph;
  ArrayRef<int64_t> meshShape;
  SmallVector<int64_t> ranks;
  SmallVector<int64_t> coord;
  int64_t rank = 0;
  /// One program for every device: device-dependent values at run time.
  bool shared = false;
  OpBuilder builder;
  Block *body = nullptr;
  Value coordinates;
  IRMapping mapping;
  /// Every rank numbers its collectives in the same program order.
  int64_t nextTag = 0;
};
} // namespace

/// Converts mesh axis `axis` of `current` to `target`. Axis 0 is outermost:
/// a dimension split along several axes is cut by the outer one first, so
/// inner splits of the dimensions involved are undone beforehand.
FailureOr<Value> RankLocalizer::convertAxis(Location loc, Value value,
                                            Type global, NdSbp &current,
                                            int64_t axis, Sbp target) {
  Sbp source = current[axis];
  if (source == target)
    return value;
  auto involves = [&](Sbp inner) {
    return inner.isSplit() &&
           ((source.isSplit() && inner.axis == source.axis) ||
            (target.isSplit() && inner.axis == target.axis));
  };
  for (int64_t inner = meshShape.size() - 1; inner > axis; --inner) {
    if (!involves(current[inner]))
      continue;
    FailureOr<Value> undone =
        convertAxis(loc, value, global, current, inner, Sbp::broadcast());
    if (failed(undone))
      return failure();
    value = *undone;
  }

  NdSbp next(current);
  next[axis] = target;
  FailureOr<RankedTensorType> toType = localType(loc, global, next);
  if (failed(toType))
    return failure();
  auto fromType = cast<RankedTensorType>(value.getType());

  Value result;
  if (source.isSplit() && target.isSplit()) {
    result = collective(loc, "all_to_all", value, *toType, target.axis, axis,
                        source.axis);
  } else if (source.isSplit() && target.isPartialSum()) {
    // Each rank's piece in place, zeros around it: the pieces sum to the
    // whole, with nothing sent (the cost model prices S->P free).
    int64_t dims = fromType.getRank();
    int64_t size = fromType.getDimSize(source.axis);
    if (shared) {
      result = CoordinateSliceOp::create(builder, loc, *toType, value,
                                         meshCoordinates(loc), source.axis,
                                         axis, -size);
    } else {
      SmallVector<int64_t> pads(2 * dims, 0);
      pads[source.axis] = coord[axis] * size;
      pads[dims + source.axis] =
          toType->getDimSize(source.axis) - (coord[axis] + 1) * size;
      result = PadOp::create(builder, loc, *toType, value, pads,
                             PadMode::Constant, APFloat(0.0));
    }
  } else if (source.isSplit()) {
    NdSbp gathered(current);
    gathered[axis] = Sbp::broadcast();
    FailureOr<RankedTensorType> fullType = localType(loc, global, gathered);
    if (failed(fullType))
      return failure();
    result = collective(loc, "all_gather", value, *fullType, source.axis, axis);
  } else if (source.isBroadcast() && target.isSplit()) {
    result = pieceAlong(loc, value, *toType, target.axis, axis);
  } else if (source.isBroadcast()) {
    if (shared)
      result = keepOnFirst(loc, value, axis);
    else
      result = coord[axis] == 0 ? value : zeros(loc, *toType);
  } else if (target.isBroadcast()) {
    result = collective(loc, "all_reduce", value, *toType, 0, axis);
  } else {
    result =
        collective(loc, "reduce_scatter", value, *toType, target.axis, axis);
  }
  current = next;
  return result;
}

/// Undoes what `to` does not keep from the innermost axis outwards, then
/// builds the splits of `to` from the outermost axis inwards. Partial sums
/// that become broadcast are all-reduced where they move the fewest bytes:
/// before the gathers, in their place, or after the splits (a sum commutes
/// with every other axis' conversion). sbp::boxingStepsND prices exactly
/// this sequence.
FailureOr<Value> RankLocalizer::convert(Location loc, Value value, Type global,
                                        NdSbp from, const NdSbp &to) {
  sbp::AllReducePlacement placement = sbp::placeAllReduces(from, to, meshShape);
  bool last = placement == sbp::AllReducePlacement::Last;
  auto allReduce = [&](int64_t axis) {
    return from[axis].isPartialSum() && to[axis].isBroadcast();
  };
  auto step = [&](int64_t axis) -> LogicalResult {
    FailureOr<Value> next =
        convertAxis(loc, value, global, from, axis, to[axis]);
    if (failed(next))
      return failure();
    value = *next;
    return success();
  };
  int64_t rank = meshShape.size();
  if (placement == sbp::AllReducePlacement::First)
    for (int64_t axis = rank - 1; axis >= 0; --axis)
      if (allReduce(axis) && failed(step(axis)))
        return failure();
  for (int64_t axis = rank - 1; axis >= 0; --axis)
    if (!to[axis].isSplit() && !(last && allReduce(axis)) && failed(step(axis)))
      return failure();
  for (int64_t axis = 0; axis < rank; ++axis)
    if (!(last && allReduce(axis)) && failed(step(axis)))
      return failure();
  for (int64_t axis = rank - 1; axis >= 0; --axis)
    if (failed(step(axis)))
      return failure();
  if (from != to)
    return emitError(loc) << "internal: boxing ended at " << ndString(from)
                          << " instead of " << ndString(to);
  return value;
}

LogicalResult RankLocalizer::mapOperands(Operation &op,
                                         ArrayRef<NdSbp> wanted) {
  for (auto [operand, want] : llvm::zip(op.getOperands(), wanted)) {
    NdSbp have = producedSbp(graph, operand, meshShape.size());
    if (have == want)
      continue;
    // A boxing sbp-insert-boxing would have made explicit.
    FailureOr<Value> local = convert(op.getLoc(), mapping.lookup(operand),
                                     operand.getType(), have, want);
    if (failed(local))
      return failure();
    mapping.map(operand, *local);
  }
  return success();
}

/// Each rank holds rows [offset, offset + rows) of the gathered axis: it
/// looks up the indices that fall there and zeros the others, so the ranks'
/// results sum to the gather (a partial sum).
LogicalResult RankLocalizer::localizeSplitGather(GatherOp gather,
                                                 ArrayRef<Sbp> dataNd,
                                                 RankedTensorType resultType) {
  Location loc = gather.getLoc();
  int64_t axis = gather.getAxis();
  Value data = mapping.lookup(gather.getData());
  Value indices = mapping.lookup(gather.getIndices());
  auto indexType = cast<RankedTensorType>(indices.getType());
  Type indexElement = indexType.getElementType();
  int64_t globalRows =
      cast<RankedTensorType>(gather.getData().getType()).getDimSize(axis);
  int64_t rows = cast<RankedTensorType>(data.getType()).getDimSize(axis);
  auto scalar = [&](int64_t value) -> Value {
    return scalarConstant(loc, indexElement, value);
  };
  Value offset = scalar(pieceIndex(dataNd, axis) * rows);
  if (shared) {
    // The piece index from the coordinates, outermost axis first.
    Value index = scalar(0);
    for (auto [meshAxis, sbp] : llvm::enumerate(dataNd))
      if (sbp.isSplit() && sbp.axis == axis)
        index = AddOp::create(
            builder, loc,
            MulOp::create(builder, loc, index, scalar(meshShape[meshAxis])),
            coordinateOf(loc, meshAxis, indexElement));
    offset = MulOp::create(builder, loc, index, scalar(rows));
  }
  Value negative = LessOp::create(builder, loc, indices, scalar(0));
  Value wrapped = AddOp::create(builder, loc, indices, scalar(globalRows));
  Value normalized = WhereOp::create(builder, loc, negative, wrapped, indices);
  Value local = SubOp::create(builder, loc, normalized, offset);
  Value valid = AndOp::create(
      builder, loc, GreaterOp::create(builder, loc, local, scalar(-1)),
      LessOp::create(builder, loc, local, scalar(rows)));
  Value safe = WhereOp::create(builder, loc, valid, local, scalar(0));
  auto lookup = GatherOp::create(builder, loc, resultType, data, safe,
                                 gather.getAxisAttr());

  // Broadcast the mask over the dimensions the data adds around it.
  SmallVector<int64_t> maskShape(axis, 1);
  llvm::append_range(maskShape, indexType.getShape());
  maskShape.append(resultType.getRank() - maskShape.size(), 1);
  auto maskType = RankedTensorType::get(maskShape, builder.getI1Type());
  Value mask = ReshapeOp::create(builder, loc, maskType, valid);
  auto zeroType = RankedTensorType::get({}, resultType.getElementType());
  Value zero = ConstantOp::create(
      builder, loc, zeroType,
      DenseElementsAttr::get(zeroType,
                             builder.getZeroAttr(resultType.getElementType())));
  auto masked = WhereOp::create(builder, loc, mask, lookup, zero);
  mapping.map(gather.getResult(), masked.getResult());
  return success();
}

LogicalResult RankLocalizer::localizeOp(Operation &op) {
  Location loc = op.getLoc();
  auto where = [&](InFlightDiagnostic diag) {
    diag.attachNote() << "while localizing for rank " << rank;
    return diag;
  };
  if (auto boxing = dyn_cast<sbp::BoxingOp>(op)) {
    if (failed(mapOperands(op, {NdSbp(boxing.getFrom().getValues())})))
      return failure();
    FailureOr<Value> local = convert(
        loc, mapping.lookup(boxing.getInput()), boxing.getInput().getType(),
        boxing.getFrom().getValues(), boxing.getTo().getValues());
    if (failed(local))
      return failure();
    mapping.map(boxing.getOutput(), *local);
    return success();
  }
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    // Graph results are whole on every rank.
    SmallVector<NdSbp> whole(op.getNumOperands(),
                             broadcastNd(meshShape.size()));
    if (failed(mapOperands(op, whole)))
      return failure();
    builder.clone(op, mapping);
    return success();
  }

  auto sig =
      op.getAttrOfType<sbp::SignatureAttr>(sbp::SBPDialect::kSignatureAttrName);
  if (!sig)
    return where(op.emitOpError() << "has no SBP signature to localize "
                                     "(run sbp-infer first)");
  SmallVector<Type> resultTypes;
  for (auto [result, nd] : llvm::zip(op.getResults(), sig.getOutputs())) {
    FailureOr<RankedTensorType> type =
        localType(loc, result.getType(), nd.getValues());
    if (failed(type))
      return failure();
    resultTypes.push_back(*type);
  }
  SmallVector<NdSbp> wanted;
  for (sbp::NdSbpAttr nd : sig.getInputs())
    wanted.push_back(nd.getValues());
  if (failed(mapOperands(op, wanted)))
    return failure();

  // Shared programs: a constant is cut at run time, a variable holds the
  // piece its rank loads.
  if (shared && isa<VariableOp, ConstantOp>(op))
    return localizeShared(op, sig.getOutputs()[0].getValues(),
                          cast<RankedTensorType>(resultTypes[0]));

  // Parameters and constants hold their slice of the data.
  if (isa<VariableOp, ConstantOp>(op)) {
    NdSbp nd = sig.getOutputs()[0].getValues();
    auto type = cast<RankedTensorType>(resultTypes[0]);
    auto global = cast<RankedTensorType>(op.getResult(0).getType());
    if (!isPartialOwner(nd)) {
      mapping.map(op.getResult(0), zeros(loc, type));
      return success();
    }
    ElementsAttr data = isa<VariableOp>(op)
                            ? cast<VariableOp>(op).getInitialValueAttr()
                            : cast<ConstantOp>(op).getValue();
    if (data && type != global) {
      std::string name = "slice";
      if (auto variable = dyn_cast<VariableOp>(op))
        name = variable.getVarName().str();
      FailureOr<ElementsAttr> slice =
          sliceElements(data, localOffsets(type, nd), type,
                        name + ".rank" + std::to_string(rank));
      if (failed(slice))
        return where(op.emitOpError() << "cannot slice its data");
      data = *slice;
    }
    Operation *clone = builder.clone(op, mapping);
    clone->getResult(0).setType(type);
    if (auto variable = dyn_cast<VariableOp>(clone); variable && data)
      variable.setInitialValueAttr(data);
    if (auto variable = dyn_cast<VariableOp>(clone); variable && type != global)
      recordPiece(variable, global, localOffsets(type, nd));
    if (auto constant = dyn_cast<ConstantOp>(clone))
      constant.setValueAttr(data);
    clone->removeAttr(sbp::SBPDialect::kSignatureAttrName);
    clone->removeAttr(sbp::SBPDialect::kPlacementAttrName);
    mapping.map(op.getResult(0), clone->getResult(0));
    return success();
  }

  if (auto gather = dyn_cast<GatherOp>(op)) {
    NdSbp dataNd = sig.getInputs()[0].getValues();
    if (piecesOf(dataNd, gather.getAxis()) > 1)
      return localizeSplitGather(gather, dataNd,
                                 cast<RankedTensorType>(resultTypes[0]));
  }

  Operation *clone = builder.clone(op, mapping);
  clone->removeAttr(sbp::SBPDialect::kSignatureAttrName);
  clone->removeAttr(sbp::SBPDialect::kPlacementAttrName);
  for (auto [result, type] : llvm::zip(clone->getResults(), resultTypes))
    result.setType(type);

  // Grouped convolutions split by whole groups: each rank runs its share.
  if (auto conv = dyn_cast<Conv2DOp>(clone))
    localizeGroups(conv, cast<Conv2DOp>(op));
  else if (auto conv = dyn_cast<ConvTranspose2DOp>(clone))
    localizeGroups(conv, cast<ConvTranspose2DOp>(op));
  else if (auto conv = dyn_cast<Conv2DGradFilterOp>(clone))
    localizeGroups(conv, cast<Conv2DGradFilterOp>(op));

  // A slice (and its gradient) keeps whole the dimensions it may split: cut
  // them to size.
  if (auto slice = dyn_cast<SliceOp>(clone))
    slice.setLimits(localSliceLimits(slice, slice.getX().getType()));
  else if (auto grad = dyn_cast<SliceGradOp>(clone))
    grad.setLimits(localSliceLimits(grad, grad.getDx().getType()));

  // A mean over split dimensions is a partial sum once scaled by its share.
  if (std::optional<double> share = meanShare(op, clone)) {
    builder.setInsertionPointAfter(clone);
    Value mean = clone->getResult(0);
    auto type = cast<RankedTensorType>(mean.getType());
    auto scaleType = RankedTensorType::get({}, type.getElementType());
    auto scale = ConstantOp::create(
        builder, loc, scaleType,
        DenseElementsAttr::get(
            scaleType, builder.getFloatAttr(type.getElementType(), *share)));
    mapping.map(op.getResult(0),
                MulOp::create(builder, loc, type, mean, scale));
    return verifyLocal(op, clone, sig);
  }

  if (failed(verifyLocal(op, clone, sig)))
    return failure();
  for (auto [from, to] : llvm::zip(op.getResults(), clone->getResults()))
    mapping.map(from, to);
  return success();
}

/// Verifies the local form of `op`; a failure is one error at `op` naming
/// the op, the signature and the verifier's reason.
LogicalResult RankLocalizer::verifyLocal(Operation &op, Operation *clone,
                                         sbp::SignatureAttr sig) {
  std::string reason;
  LogicalResult verified = success();
  {
    ScopedDiagnosticHandler capture(op.getContext(), [&](Diagnostic &diag) {
      if (reason.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
        reason = diag.str();
      return success();
    });
    verified = verify(clone);
  }
  if (succeeded(verified))
    return success();
  InFlightDiagnostic diag = emitError(op.getLoc())
                            << "'" << op.getName()
                            << "' cannot run on the local pieces of " << sig;
  if (!reason.empty())
    diag << ": " << reason;
  diag.attachNote() << "while localizing for rank " << rank;
  return diag;
}

/// A parameter or constant in a program every device runs. A constant is
/// kept whole and cut by the coordinates. A variable holds the piece along
/// its split axes: zeros or a splat are the same piece everywhere, other
/// data stays whole (`oneflow.whole_value`) for each rank to load its piece
/// at the offsets its coordinates give (`oneflow.mesh_splits`). Partial-sum
/// axes keep the value on their first device only.
LogicalResult RankLocalizer::localizeShared(Operation &op, ArrayRef<Sbp> nd,
                                            RankedTensorType type) {
  Location loc = op.getLoc();
  size_t meshRank = meshShape.size();
  auto global = cast<RankedTensorType>(op.getResult(0).getType());
  Operation *clone = builder.clone(op, mapping);
  clone->removeAttr(sbp::SBPDialect::kSignatureAttrName);
  clone->removeAttr(sbp::SBPDialect::kPlacementAttrName);
  if (isa<ConstantOp>(op)) {
    FailureOr<Value> piece = convert(loc, clone->getResult(0), global,
                                     broadcastNd(meshRank), NdSbp(nd));
    if (failed(piece))
      return failure();
    mapping.map(op.getResult(0), *piece);
    return success();
  }

  auto variable = cast<VariableOp>(clone);
  variable.getOutput().setType(type);
  if (type != global) {
    if (ElementsAttr data = variable.getInitialValueAttr()) {
      auto dense = dyn_cast<DenseElementsAttr>(data);
      if (dense && dense.isSplat()) {
        variable.setInitialValueAttr(dense.resizeSplat(type));
      } else {
        variable.removeInitialValueAttr();
        variable->setAttr(kWholeValueAttrName, data);
      }
    }
    SmallVector<Attribute> splits;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      SmallVector<int64_t> axes;
      for (auto [axis, sbp] : llvm::enumerate(nd))
        if (sbp.isSplit() && sbp.axis == dim)
          axes.push_back(axis);
      splits.push_back(builder.getDenseI64ArrayAttr(axes));
    }
    variable->setAttr(kMeshSplitsAttrName, builder.getArrayAttr(splits));
    recordPiece(variable, global, localOffsets(type, nd));
  }
  Value value = variable.getOutput();
  for (auto [axis, sbp] : llvm::enumerate(nd))
    if (sbp.isPartialSum())
      value = keepOnFirst(loc, value, axis);
  mapping.map(op.getResult(0), value);
  return success();
}

FailureOr<func::FuncOp> RankLocalizer::run() {
  builder.setInsertionPoint(graph);
  auto local = cast<func::FuncOp>(builder.cloneWithoutRegions(*graph));
  local.setSymName((graph.getSymName() + "_rank" + Twine(rank)).str());
  local->removeAttr(sbp::SBPDialect::kPlacementAttrName);
  for (unsigned i = 0; i < local.getNumArguments(); ++i)
    local.removeArgAttr(i, sbp::SBPDialect::kNdSbpAttrName);
  for (unsigned i = 0; i < local.getNumResults(); ++i)
    local.removeResultAttr(
        i, builder.getStringAttr(sbp::SBPDialect::kNdSbpAttrName));
  body = local.addEntryBlock();
  builder.setInsertionPointToStart(body);

  // Every rank receives the full inputs and keeps its piece.
  size_t meshRank = meshShape.size();
  for (BlockArgument arg : graph.getArguments()) {
    NdSbp nd = argumentSbp(graph, arg.getArgNumber(), meshRank);
    FailureOr<Value> piece =
        convert(arg.getLoc(), body->getArgument(arg.getArgNumber()),
                arg.getType(), broadcastNd(meshRank), nd);
    if (failed(piece))
      return failure();
    mapping.map(arg, *piece);
  }
  for (Operation &op : graph.getOps()) {
    builder.setInsertionPointToEnd(body);
    if (failed(localizeOp(op)))
      return failure();
  }
  return local;
}

namespace {
struct SbpLocalizePass
    : public oneflow::impl::SbpLocalizeBase<SbpLocalizePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp graph;
    sbp::MeshOp mesh;
    if (failed(getPlacedGraph(module, graph, mesh)))
      return signalPassFailure();
    if (!graph)
      return;
    SymbolTable symbols(module);
    // Shared: the first device's program serves them all.
    int64_t programs = sharePrograms ? 1 : mesh.getNumDevices();
    for (int64_t device = 0; device < programs; ++device) {
      RankLocalizer localizer(graph, mesh, device, sharePrograms);
      FailureOr<func::FuncOp> local = localizer.run();
      if (failed(local))
        return signalPassFailure();
      symbols.insert(*local);
      if (sharePrograms)
        (*local)->setAttr(
            kRoleMembersAttrName,
            DenseI64ArrayAttr::get(module.getContext(), mesh.getRankList()));
    }
    if (sharePrograms)
      module->setAttr(
          kRoleMeshShapeAttrName,
          DenseI64ArrayAttr::get(module.getContext(), mesh.getShape()));
    module->setAttr(
        sbp::SBPDialect::kNumRanksAttrName,
        IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                         llvm::max_element(mesh.getRankList())[0] + 1));
    graph.erase();
  }
};
} // namespace
