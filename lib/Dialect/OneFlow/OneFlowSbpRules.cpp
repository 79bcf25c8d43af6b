//===- OneFlowSbpRules.cpp - SBP factor rules of the oneflow ops ----------===//
//
// Each op states its rule as an einsum-like spec (see SbpRule.h). A `_`
// keeps a dimension whole: softmax axes, convolution windows, and anything a
// split would make wrong.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::oneflow;
using sbp::PartialRule;
using sbp::SbpFactorRule;

namespace {
/// Assembles a factor rule spec, handing out fresh factor letters.
class RuleSpec {
public:
  char fresh() { return sbp::factorLetter(next++); }
  /// The number of the factor fresh() handed out last.
  int lastFactor() const { return next - 1; }
  std::string fresh(int64_t count) {
    std::string letters;
    for (int64_t i = 0; i < count; ++i)
      letters.push_back(fresh());
    return letters;
  }
  void addOperand(std::string dims) { operands.push_back(orScalar(dims)); }
  void addResult(std::string dims) { results.push_back(orScalar(dims)); }

  SbpFactorRule build(PartialRule partial = PartialRule::None,
                      ArrayRef<unsigned> linear = {}) const {
    SbpFactorRule rule = SbpFactorRule::get(llvm::join(operands, ",") + "->" +
                                            llvm::join(results, ","));
    if (partial == PartialRule::None)
      return rule;
    SmallVector<unsigned> linearOperands(linear);
    if (linearOperands.empty())
      linearOperands = llvm::to_vector(llvm::seq<unsigned>(0, operands.size()));
    return rule.setPartial(partial, linearOperands);
  }

private:
  static std::string orScalar(std::string dims) {
    return dims.empty() ? "." : dims;
  }
  unsigned next = 0;
  SmallVector<std::string> operands, results;
};
} // namespace

static RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The letters of a tensor broadcast into `result` (numpy alignment): a
/// dimension of size 1 stretched over a larger one has no factor.
static std::string broadcastDims(RankedTensorType operand,
                                 ArrayRef<int64_t> result,
                                 StringRef resultDims) {
  std::string dims;
  int64_t offset = result.size() - operand.getRank();
  for (auto [dim, size] : llvm::enumerate(operand.getShape())) {
    int64_t target = dim + offset;
    dims.push_back(size == result[target] ? resultDims[target] : '_');
  }
  return dims;
}

SbpFactorRule mlir::oneflow::getElementwiseSbpRule(Operation *op,
                                                   PartialRule partial,
                                                   ArrayRef<unsigned> linear) {
  RuleSpec spec;
  RankedTensorType result = typeOf(op->getResult(0));
  std::string resultDims = spec.fresh(result.getRank());
  for (Value operand : op->getOperands())
    spec.addOperand(
        broadcastDims(typeOf(operand), result.getShape(), resultDims));
  spec.addResult(resultDims);
  return spec.build(partial, linear);
}

SbpFactorRule mlir::oneflow::getWholeAxesSbpRule(Operation *op,
                                                 ArrayRef<int64_t> axes) {
  RuleSpec spec;
  std::string dims = spec.fresh(typeOf(op->getResult(0)).getRank());
  for (int64_t axis : axes)
    dims[axis] = '_';
  spec.addOperand(dims);
  spec.addResult(dims);
  return spec.build();
}

SbpFactorRule mlir::oneflow::getReductionSbpRule(int64_t rank,
                                                 ArrayRef<int64_t> axes,
                                                 bool keepDims, bool linear) {
  RuleSpec spec;
  std::string input = spec.fresh(rank), result;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!llvm::is_contained(axes, dim)) {
      result.push_back(input[dim]);
      continue;
    }
    // A split reduced axis leaves partial sums only for linear reductions.
    if (!linear)
      input[dim] = '_';
    if (keepDims)
      result.push_back('_');
  }
  spec.addOperand(input);
  spec.addResult(result);
  return linear ? spec.build(PartialRule::Joint) : spec.build();
}

SbpFactorRule mlir::oneflow::getReshapeSbpRule(RankedTensorType input,
                                               RankedTensorType result) {
  RuleSpec spec;
  ArrayRef<int64_t> in = input.getShape(), out = result.getShape();
  std::string inDims(in.size(), '_'), outDims(out.size(), '_');
  if (input.getNumElements() > 0) {
    // Walk matching groups of dimensions (equal products). Splitting the
    // leading dimension of a group on either side cuts the group's elements
    // into the same contiguous chunks, so those two share a factor.
    size_t i = 0, j = 0;
    auto skipOnes = [](ArrayRef<int64_t> shape, size_t &k) {
      while (k < shape.size() && shape[k] == 1)
        ++k;
    };
    skipOnes(in, i);
    skipOnes(out, j);
    while (i < in.size() && j < out.size()) {
      char factor = spec.fresh();
      inDims[i] = outDims[j] = factor;
      int64_t inProduct = in[i++], outProduct = out[j++];
      while (inProduct != outProduct) {
        if (inProduct < outProduct)
          inProduct *= in[i++];
        else
          outProduct *= out[j++];
      }
      skipOnes(in, i);
      skipOnes(out, j);
    }
  }
  spec.addOperand(inDims);
  spec.addResult(outDims);
  return spec.build(PartialRule::Joint);
}

//===----------------------------------------------------------------------===//
// Per-op rules
//===----------------------------------------------------------------------===//

SbpFactorRule WhereOp::getSbpFactorRule() {
  return getElementwiseSbpRule(*this, PartialRule::Joint, {1, 2});
}

SbpFactorRule CastOp::getSbpFactorRule() {
  bool floatToFloat = isa<FloatType>(getX().getType().getElementType()) &&
                      isa<FloatType>(getY().getType().getElementType());
  return getElementwiseSbpRule(*this, floatToFloat ? PartialRule::Joint
                                                   : PartialRule::None);
}

/// Ops without operands (constants, variables) can produce any split.
static SbpFactorRule getSourceSbpRule(RankedTensorType result) {
  RuleSpec spec;
  spec.addResult(spec.fresh(result.getRank()));
  return spec.build();
}

SbpFactorRule ConstantOp::getSbpFactorRule() {
  return getSourceSbpRule(getOutput().getType());
}

SbpFactorRule VariableOp::getSbpFactorRule() {
  return getSourceSbpRule(getOutput().getType());
}

SbpFactorRule MatmulOp::getSbpFactorRule() {
  RuleSpec spec;
  std::string m(1, spec.fresh()), k(1, spec.fresh()), n(1, spec.fresh());
  spec.addOperand(getTransposeA() ? k + m : m + k);
  spec.addOperand(getTransposeB() ? n + k : k + n);
  spec.addResult(m + n);
  return spec.build(PartialRule::Each);
}

SbpFactorRule BatchMatmulOp::getSbpFactorRule() {
  RuleSpec spec;
  RankedTensorType result = getC().getType();
  int64_t batchRank = result.getRank() - 2;
  std::string batch = spec.fresh(batchRank);
  std::string m(1, spec.fresh()), k(1, spec.fresh()), n(1, spec.fresh());
  ArrayRef<int64_t> batchShape = result.getShape().take_front(batchRank);
  auto operandDims = [&](Value operand, std::string matrix) {
    RankedTensorType type = typeOf(operand);
    RankedTensorType batchType = RankedTensorType::get(
        type.getShape().drop_back(2), type.getElementType());
    return broadcastDims(batchType, batchShape, batch) + matrix;
  };
  spec.addOperand(operandDims(getA(), getTransposeA() ? k + m : m + k));
  spec.addOperand(operandDims(getB(), getTransposeB() ? n + k : k + n));
  spec.addResult(batch + m + n);
  return spec.build(PartialRule::Each);
}

// The products with aux epilogues exist only after distribution (CUDA rank
// programs): every dimension whole.
SbpFactorRule MatmulActAuxOp::getSbpFactorRule() {
  RuleSpec spec;
  for (int i = 0; i < 3; ++i)
    spec.addOperand(i == 2 ? "_" : "__");
  spec.addResult("__");
  spec.addResult("__");
  return spec.build();
}

SbpFactorRule MatmulActGradOp::getSbpFactorRule() {
  RuleSpec spec;
  for (int i = 0; i < 3; ++i)
    spec.addOperand("__");
  spec.addResult("__");
  if (getBiasGrad())
    spec.addResult("_");
  return spec.build();
}

// Made on CPU rank programs, after distribution: every dimension whole.
SbpFactorRule Conv2DEpilogueOp::getSbpFactorRule() {
  RuleSpec spec;
  spec.addOperand("____");
  spec.addOperand("____");
  if (getBias())
    spec.addOperand("_");
  if (getResidual())
    spec.addOperand("____");
  spec.addResult("____");
  return spec.build();
}

SbpFactorRule Conv2DOp::getSbpFactorRule() {
  RuleSpec spec;
  char n = spec.fresh();
  std::string x = {n, '_', '_', '_'}, w = "____", y = {n, '_', '_', '_'};
  std::string bias = "_";
  int64_t groups = getGroups();
  int groupFactor = -1;
  if (groups == 1) {
    char o = spec.fresh();
    w[0] = y[1] = bias[0] = o;
    // Splitting input channels leaves partial sums, which a bias added on
    // every rank would break: with a bias, input channels stay whole.
    if (!getBias()) {
      char c = spec.fresh();
      x[1] = w[1] = c;
    }
  } else {
    // Grouped and depthwise: the channels of group g only meet those of
    // group g, so whole groups split input, weight, bias and output alike.
    char g = spec.fresh();
    groupFactor = spec.lastFactor();
    x[1] = w[0] = y[1] = bias[0] = g;
  }
  if (getChannelsLast()) {
    // NHWC: the channel factor moves last.
    std::rotate(x.begin() + 1, x.begin() + 2, x.end());
    std::rotate(y.begin() + 1, y.begin() + 2, y.end());
  }
  spec.addOperand(x);
  spec.addOperand(w);
  if (getBias())
    spec.addOperand(bias);
  spec.addResult(y);
  SbpFactorRule rule = getBias() ? spec.build() : spec.build(PartialRule::Each);
  if (groupFactor >= 0)
    rule.setFactorUnits(groupFactor, groups);
  return rule;
}

/// NCHW windows: batch and channels split, H and W stay whole (NHWC ones:
/// the channels last).
static SbpFactorRule getPoolingSbpRule(bool linear, bool channelsLast = false) {
  SbpFactorRule rule =
      SbpFactorRule::get(channelsLast ? "a__b->a__b" : "ab__->ab__");
  if (linear)
    rule.setPartial(PartialRule::Joint, {0});
  return rule;
}

SbpFactorRule MaxPool2DOp::getSbpFactorRule() {
  return getPoolingSbpRule(false, getChannelsLast());
}
SbpFactorRule AvgPool2DOp::getSbpFactorRule() {
  return getPoolingSbpRule(true, getChannelsLast());
}
SbpFactorRule GlobalAvgPool2DOp::getSbpFactorRule() {
  return getPoolingSbpRule(true);
}
SbpFactorRule GlobalMaxPool2DOp::getSbpFactorRule() {
  return getPoolingSbpRule(false);
}

SbpFactorRule BatchNormOp::getSbpFactorRule() {
  RuleSpec spec;
  std::string x = spec.fresh(getX().getType().getRank());
  std::string channel(1, x[1]);
  spec.addOperand(x);
  for (int i = 0; i < 4; ++i)
    spec.addOperand(channel);
  spec.addResult(x);
  return spec.build();
}

SbpFactorRule BatchNormTrainOp::getSbpFactorRule() {
  // Batch statistics span N, H and W: only channels split.
  RuleSpec spec;
  std::string x(getX().getType().getRank(), '_');
  x[1] = spec.fresh();
  std::string channel(1, x[1]);
  spec.addOperand(x);
  for (int i = 0; i < 4; ++i)
    spec.addOperand(channel);
  spec.addResult(x);
  for (int i = 0; i < 4; ++i)
    spec.addResult(channel);
  return spec.build();
}

SbpFactorRule LayerNormOp::getSbpFactorRule() {
  RuleSpec spec;
  int64_t rank = getX().getType().getRank(), axis = getAxis();
  std::string x = spec.fresh(axis) + std::string(rank - axis, '_');
  spec.addOperand(x);
  spec.addOperand(std::string(rank - axis, '_'));
  if (getBias())
    spec.addOperand(std::string(rank - axis, '_'));
  spec.addResult(x);
  return spec.build();
}

SbpFactorRule ReshapeOp::getSbpFactorRule() {
  return getReshapeSbpRule(getX().getType(), getY().getType());
}

SbpFactorRule TransposeOp::getSbpFactorRule() {
  RuleSpec spec;
  std::string x = spec.fresh(getX().getType().getRank()), y;
  for (int64_t dim : getPerm())
    y.push_back(x[dim]);
  spec.addOperand(x);
  spec.addResult(y);
  return spec.build(PartialRule::Joint);
}

SbpFactorRule ConcatOp::getSbpFactorRule() {
  RuleSpec spec;
  std::string dims = spec.fresh(getResult().getType().getRank());
  dims[getAxis()] = '_';
  for (size_t i = 0, e = getInputs().size(); i < e; ++i)
    spec.addOperand(dims);
  spec.addResult(dims);
  return spec.build(PartialRule::Joint);
}

SbpFactorRule SplitOp::getSbpFactorRule() {
  RuleSpec spec;
  std::string dims = spec.fresh(getX().getType().getRank());
  dims[getAxis()] = '_';
  spec.addOperand(dims);
  for (size_t i = 0, e = getOutputs().size(); i < e; ++i)
    spec.addResult(dims);
  return spec.build(PartialRule::Joint);
}

SbpFactorRule SliceOp::getSbpFactorRule() {
  RuleSpec spec;
  RankedTensorType x = getX().getType();
  std::string dims;
  for (int64_t dim = 0; dim < x.getRank(); ++dim) {
    bool whole = getStarts()[dim] == 0 &&
                 getLimits()[dim] == x.getDimSize(dim) && getSteps()[dim] == 1;
    dims.push_back(whole ? spec.fresh() : '_');
  }
  spec.addOperand(dims);
  spec.addResult(dims);
  return spec.build(PartialRule::Joint);
}

SbpFactorRule GatherOp::getSbpFactorRule() {
  // Splitting the gathered axis (the vocabulary of an embedding) lets each
  // rank look up the indices it holds and zero the others: partial sums.
  RuleSpec spec;
  RankedTensorType data = getData().getType();
  int64_t axis = getAxis();
  std::string dataDims = spec.fresh(data.getRank());
  std::string indexDims = spec.fresh(getIndices().getType().getRank());
  spec.addOperand(dataDims);
  spec.addOperand(indexDims);
  spec.addResult(dataDims.substr(0, axis) + indexDims +
                 dataDims.substr(axis + 1));
  return spec.build(PartialRule::Each, {0});
}

SbpFactorRule ExpandOp::getSbpFactorRule() {
  RuleSpec spec;
  RankedTensorType y = getY().getType();
  std::string dims = spec.fresh(y.getRank());
  spec.addOperand(broadcastDims(getX().getType(), y.getShape(), dims));
  spec.addResult(dims);
  return spec.build(PartialRule::Joint);
}

SbpFactorRule PadOp::getSbpFactorRule() {
  RuleSpec spec;
  int64_t rank = getX().getType().getRank();
  std::string dims;
  for (int64_t dim = 0; dim < rank; ++dim)
    dims.push_back(
        getPads()[dim] == 0 && getPads()[rank + dim] == 0 ? spec.fresh() : '_');
  spec.addOperand(dims);
  spec.addResult(dims);
  // Copies are linear; filling with a non-zero constant is not.
  bool linear = getMode() != PadMode::Constant || getValue().isZero();
  return linear ? spec.build(PartialRule::Joint) : spec.build();
}

SbpFactorRule CoordinateSliceOp::getSbpFactorRule() {
  // Made by localization, on local pieces: the other dimensions pass
  // through, the coordinates are whole.
  RuleSpec spec;
  std::string dims;
  for (int64_t dim = 0; dim < getX().getType().getRank(); ++dim)
    dims.push_back(dim == int64_t(getAxis()) ? '_' : spec.fresh());
  spec.addOperand(dims);
  spec.addOperand("_");
  spec.addResult(dims);
  return spec.build(PartialRule::Joint, {0});
}

SbpFactorRule TileOp::getSbpFactorRule() {
  RuleSpec spec;
  std::string dims;
  for (int64_t repeat : getRepeats())
    dims.push_back(repeat == 1 ? spec.fresh() : '_');
  spec.addOperand(dims);
  spec.addResult(dims);
  return spec.build(PartialRule::Joint);
}

SbpFactorRule SoftmaxCrossEntropyOp::getSbpFactorRule() {
  RuleSpec spec;
  int64_t batchRank = getLabels().getType().getRank();
  std::string batch = spec.fresh(batchRank);
  // The mean over non-ignored labels needs the global count of them.
  if (getIgnoreIndex() && getReduction() == LossReduction::Mean)
    batch = std::string(batchRank, '_');
  spec.addOperand(batch + "_");
  spec.addOperand(batch);
  spec.addResult(getReduction() == LossReduction::None ? batch : "");
  return spec.build();
}

SbpFactorRule MseLossOp::getSbpFactorRule() {
  RuleSpec spec;
  std::string dims = spec.fresh(getInput().getType().getRank());
  spec.addOperand(dims);
  spec.addOperand(dims);
  spec.addResult(getReduction() == LossReduction::None ? dims : "");
  return spec.build();
}

SbpFactorRule ConvTranspose2DOp::getSbpFactorRule() {
  // Like conv2d with the roles of the weight's channel dims swapped:
  // [C_in, C_out / groups, kh, kw]. Input channels are the reduction.
  RuleSpec spec;
  char n = spec.fresh();
  std::string x = {n, '_', '_', '_'}, w = "____", y = {n, '_', '_', '_'};
  std::string bias = "_";
  int64_t groups = getGroups();
  int groupFactor = -1;
  if (groups == 1) {
    char o = spec.fresh();
    w[1] = y[1] = bias[0] = o;
    if (!getBias()) {
      char c = spec.fresh();
      x[1] = w[0] = c;
    }
  } else {
    char g = spec.fresh();
    groupFactor = spec.lastFactor();
    x[1] = w[0] = y[1] = bias[0] = g;
  }
  spec.addOperand(x);
  spec.addOperand(w);
  if (getBias())
    spec.addOperand(bias);
  spec.addResult(y);
  SbpFactorRule rule = getBias() ? spec.build() : spec.build(PartialRule::Each);
  if (groupFactor >= 0)
    rule.setFactorUnits(groupFactor, groups);
  return rule;
}

SbpFactorRule GatherElementsOp::getSbpFactorRule() {
  // Off the axis, data and indices share a factor where their sizes match;
  // along it, splitting the indices splits the result.
  RuleSpec spec;
  RankedTensorType data = getData().getType(), indices = getIndices().getType();
  std::string dataDims, indexDims;
  for (int64_t d = 0; d < data.getRank(); ++d) {
    char factor = spec.fresh();
    bool shared =
        d != (int64_t)getAxis() && data.getDimSize(d) == indices.getDimSize(d);
    dataDims.push_back(shared ? factor : '_');
    indexDims.push_back(factor);
  }
  spec.addOperand(dataDims);
  spec.addOperand(indexDims);
  spec.addResult(indexDims);
  return spec.build(PartialRule::Each, {0});
}

SbpFactorRule CumSumOp::getSbpFactorRule() {
  RuleSpec spec;
  std::string dims = spec.fresh(getX().getType().getRank());
  dims[getAxis()] = '_';
  spec.addOperand(dims);
  spec.addResult(dims);
  return spec.build(PartialRule::Joint);
}

SbpFactorRule NonMaxSuppressionOp::getSbpFactorRule() {
  // Every operand whole: the selected rows of all batches and classes are
  // packed in order, so no split of the inputs gives a split of the result.
  RuleSpec spec;
  for (Value operand : getOperands())
    spec.addOperand(std::string(typeOf(operand).getRank(), '_'));
  spec.addResult("__");
  spec.addResult("");
  return spec.build();
}

SbpFactorRule UniqueOp::getSbpFactorRule() {
  // Whole: which entries are distinct is a question about all of them.
  RuleSpec spec;
  spec.addOperand(std::string(typeOf(getX()).getRank(), '_'));
  spec.addResult(std::string(typeOf(getY()).getRank(), '_'));
  for (int i = 0; i < 3; ++i)
    spec.addResult("_");
  spec.addResult("");
  return spec.build();
}

SbpFactorRule NonZeroOp::getSbpFactorRule() {
  // Whole: a non-zero's column depends on every element before it.
  RuleSpec spec;
  spec.addOperand(std::string(typeOf(getX()).getRank(), '_'));
  spec.addResult("__");
  spec.addResult("");
  return spec.build();
}

SbpFactorRule TopKOp::getSbpFactorRule() {
  RuleSpec spec;
  std::string dims = spec.fresh(getX().getType().getRank());
  dims[getAxis()] = '_';
  spec.addOperand(dims);
  spec.addResult(dims);
  spec.addResult(dims);
  return spec.build();
}

//===----------------------------------------------------------------------===//
// Training ops
//===----------------------------------------------------------------------===//

SbpFactorRule AssignOp::getSbpFactorRule() {
  // The stored value is laid out as its parameter is; sbp-infer gives the
  // assign its parameter's signature.
  RuleSpec spec;
  spec.addOperand(spec.fresh(typeOf(getValue()).getRank()));
  return spec.build();
}

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

SbpFactorRule Conv2DGradFilterOp::getSbpFactorRule() {
  // dweight sums x * dy over the batch and the output positions: a split
  // batch leaves partial sums. Channels carry through as in conv2d.
  RuleSpec spec;
  char n = spec.fresh();
  std::string x = {n, '_', '_', '_'}, dy = {n, '_', '_', '_'}, dw = "____";
  int64_t groups = getGroups();
  int groupFactor = -1;
  if (groups == 1) {
    char o = spec.fresh(), c = spec.fresh();
    dy[1] = dw[0] = o;
    x[1] = dw[1] = c;
  } else {
    // Weight rows of group g only see group g's channels of x and dy.
    char g = spec.fresh();
    groupFactor = spec.lastFactor();
    x[1] = dy[1] = dw[0] = g;
  }
  spec.addOperand(x);
  spec.addOperand(dy);
  spec.addResult(dw);
  SbpFactorRule rule = spec.build(PartialRule::Each);
  if (groupFactor >= 0)
    rule.setFactorUnits(groupFactor, groups);
  return rule;
}

SbpFactorRule MaxPool2DGradOp::getSbpFactorRule() {
  // Windows stay whole; the routing depends on x, the values on dy alone.
  return SbpFactorRule::get("ab__,ab__->ab__")
      .setPartial(PartialRule::Each, {1});
}

SbpFactorRule AvgPool2DGradOp::getSbpFactorRule() {
  return getPoolingSbpRule(true);
}

SbpFactorRule GatherGradOp::getSbpFactorRule() {
  // The transpose of gather: split indices (with dy) scatter into the whole
  // ddata, leaving partial sums; the gathered axis stays whole since index
  // values address all of it.
  RuleSpec spec;
  int64_t axis = getAxis();
  std::string data = spec.fresh(getDdata().getType().getRank());
  data[axis] = '_';
  std::string indices = spec.fresh(getIndices().getType().getRank());
  spec.addOperand(indices);
  spec.addOperand(data.substr(0, axis) + indices + data.substr(axis + 1));
  spec.addResult(data);
  return spec.build(PartialRule::Each, {1});
}

SbpFactorRule GatherElementsGradOp::getSbpFactorRule() {
  // Off the axis, indices, dy and ddata share a factor where their sizes
  // match (a smaller indices dimension covers only a prefix of ddata's, so
  // it stays whole). Along the axis, index values address the whole ddata
  // axis: splitting the indices there leaves partial sums.
  RuleSpec spec;
  RankedTensorType data = getDdata().getType(),
                   indices = getIndices().getType();
  std::string dataDims, indexDims;
  for (int64_t d = 0; d < data.getRank(); ++d) {
    if (d == (int64_t)getAxis()) {
      indexDims.push_back(spec.fresh());
      dataDims.push_back('_');
    } else if (data.getDimSize(d) == indices.getDimSize(d)) {
      char factor = spec.fresh();
      indexDims.push_back(factor);
      dataDims.push_back(factor);
    } else {
      indexDims.push_back('_');
      dataDims.push_back('_');
    }
  }
  spec.addOperand(indexDims);
  spec.addOperand(indexDims);
  spec.addResult(dataDims);
  return spec.build(PartialRule::Each, {1});
}

SbpFactorRule SliceGradOp::getSbpFactorRule() {
  // As slice: only dimensions the slice keeps whole may split.
  RuleSpec spec;
  RankedTensorType dx = getDx().getType();
  std::string dims;
  for (int64_t dim = 0; dim < dx.getRank(); ++dim) {
    bool whole = getStarts()[dim] == 0 &&
                 getLimits()[dim] == dx.getDimSize(dim) && getSteps()[dim] == 1;
    dims.push_back(whole ? spec.fresh() : '_');
  }
  spec.addOperand(dims);
  spec.addResult(dims);
  return spec.build(PartialRule::Joint);
}

SbpFactorRule SoftmaxCrossEntropyGradOp::getSbpFactorRule() {
  // Positions are independent; the softmax needs the whole class axis.
  RuleSpec spec;
  std::string batch = spec.fresh(getLabels().getType().getRank());
  spec.addOperand(batch + "_");
  spec.addOperand(batch);
  spec.addOperand(batch);
  spec.addResult(batch + "_");
  return spec.build(PartialRule::Each, {2});
}

SbpFactorRule LayerNormGradOp::getSbpFactorRule() {
  // Batch dims split x, dy and dx; dscale and dbias sum over them, so a
  // batch split leaves them partial. The normalized dims stay whole.
  RuleSpec spec;
  int64_t rank = getX().getType().getRank(), axis = getAxis();
  std::string x = spec.fresh(axis) + std::string(rank - axis, '_');
  std::string param(rank - axis, '_');
  spec.addOperand(x);
  spec.addOperand(param);
  spec.addOperand(x);
  spec.addResult(x);
  spec.addResult(param);
  spec.addResult(param);
  return spec.build(PartialRule::Each, {2});
}

SbpFactorRule BatchNormGradOp::getSbpFactorRule() {
  // The statistics span N, H and W: only channels split.
  RuleSpec spec;
  std::string x(getX().getType().getRank(), '_');
  x[1] = spec.fresh();
  std::string channel(1, x[1]);
  spec.addOperand(x);
  for (int i = 0; i < 3; ++i)
    spec.addOperand(channel);
  spec.addOperand(x);
  spec.addResult(x);
  spec.addResult(channel);
  spec.addResult(channel);
  return spec.build(PartialRule::Each, {4});
}
