//===- FoldConvEpilogues.cpp - Residuals and activations in CPU convs -----===//
//
// A conv kernel of a CPU inference plan wrote its result, then the same
// kernel read it back for the residual add and the activation after it
// (ResNet's `relu(conv + identity)`, MobileNet's `clip(conv, 0, 6)`,
// EfficientNet's `conv * sigmoid(conv)`): one more pass over the output
// per conv. oneDNN applies both while the result is still in registers
// (its sum and eltwise post-ops), so this pass folds them into the conv:
//
//   conv2d {channels_last, constant_weight} -> [add residual] -> [act]
//     => conv2d_epilogue [residual] {activation}
//
// where act is relu, clip with both bounds, silu (`oneflow.silu`, or
// `y * sigmoid(y)` as PyTorch exports it) or hard-swish (`y *
// hard_sigmoid(y)` with alpha 1/6, beta 1/2: nn.Hardswish's export). Each
// value folded must have no other use (the act's input in the product
// forms: the two ops of the act and nothing else). The residual must be of
// the conv's type (no broadcast): oneDNN's sum post-op adds it element for
// element. Runs on rank programs after oneflow-channels-last, before
// fusion; only channels-last convs are folded (their kernel is oneDNN's
// NHWC primitive, which takes the post-ops).
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <cmath>

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_FOLDCONVEPILOGUES
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// The only user of `value`, or null.
Operation *soleUser(Value value) {
  return value.hasOneUse() ? *value.user_begin() : nullptr;
}

/// An activation read from the ops after a value, and the ops it takes.
struct Activation {
  ConvActivation kind;
  std::optional<double> clipMin, clipMax;
  SmallVector<Operation *, 2> ops; // the last one computes it
};

/// `y * g(y)` where g is the sole use of y besides the product: the gate
/// op of type GateOp, else null.
template <typename GateOp> GateOp gatedProduct(Value y, MulOp &product) {
  SmallVector<Operation *> users(y.getUsers());
  if (users.size() != 2)
    return nullptr;
  auto gate = dyn_cast<GateOp>(users[0]);
  auto mul = dyn_cast<MulOp>(users[1]);
  if (!gate || !mul) {
    gate = dyn_cast<GateOp>(users[1]);
    mul = dyn_cast<MulOp>(users[0]);
  }
  if (!gate || !mul || soleUser(gate.getResult()) != mul ||
      mul.getType() != y.getType())
    return nullptr;
  product = mul;
  return gate;
}

/// The activation applied to `y` (a value of the conv's type), if one the
/// conv kernel can fold follows it.
std::optional<Activation> activationAfter(Value y) {
  Activation act;
  Operation *user = soleUser(y);
  if (auto relu = dyn_cast_or_null<ReluOp>(user)) {
    act.kind = ConvActivation::Relu;
    act.ops = {relu};
    return act;
  }
  if (auto clip = dyn_cast_or_null<ClipOp>(user)) {
    if (!clip.getMin() || !clip.getMax())
      return std::nullopt;
    act.kind = ConvActivation::Clip;
    act.clipMin = clip.getMin()->convertToDouble();
    act.clipMax = clip.getMax()->convertToDouble();
    act.ops = {clip};
    return act;
  }
  if (auto silu = dyn_cast_or_null<SiluOp>(user)) {
    act.kind = ConvActivation::Silu;
    act.ops = {silu};
    return act;
  }
  MulOp product;
  if (auto sigmoid = gatedProduct<SigmoidOp>(y, product)) {
    act.kind = ConvActivation::Silu;
    act.ops = {sigmoid, product};
    return act;
  }
  if (auto hard = gatedProduct<HardSigmoidOp>(y, product)) {
    auto near = [](double value, double expected) {
      return std::fabs(value - expected) <= 1e-6;
    };
    if (!near(hard.getAlpha().convertToDouble(), 1.0 / 6) ||
        !near(hard.getBeta().convertToDouble(), 0.5))
      return std::nullopt;
    act.kind = ConvActivation::HardSwish;
    act.ops = {hard, product};
    return act;
  }
  return std::nullopt;
}

/// Folds what follows `conv` into a conv2d_epilogue; false if nothing does.
bool foldEpilogue(Conv2DOp conv) {
  Value y = conv.getY();
  Value residual;
  SmallVector<Operation *> folded;
  if (auto add = dyn_cast_or_null<AddOp>(soleUser(y))) {
    Value other = add.getLhs() == y ? add.getRhs() : add.getLhs();
    if (other != y && other.getType() == y.getType() &&
        add.getType() == y.getType()) {
      residual = other;
      folded.push_back(add);
      y = add.getResult();
    }
  }
  std::optional<Activation> act = activationAfter(y);
  if (act)
    folded.append(act->ops.begin(), act->ops.end());
  if (folded.empty())
    return false;

  // At the last op folded: the residual may be computed after the conv.
  Operation *last = folded.back();
  OpBuilder builder(last);
  auto epilogue = Conv2DEpilogueOp::create(
      builder, conv.getLoc(), conv.getY().getType(), conv.getX(),
      conv.getWeight(), conv.getBias(), residual, conv.getStridesAttr(),
      conv.getPadsAttr(), conv.getDilationsAttr(), conv.getGroupsAttr(),
      act ? ConvActivationAttr::get(conv.getContext(), act->kind)
          : ConvActivationAttr(),
      act && act->clipMin ? builder.getF64FloatAttr(*act->clipMin)
                          : FloatAttr(),
      act && act->clipMax ? builder.getF64FloatAttr(*act->clipMax)
                          : FloatAttr());
  last->getResult(0).replaceAllUsesWith(epilogue.getY());
  for (Operation *op : llvm::reverse(folded))
    op->erase();
  conv.erase();
  return true;
}

struct FoldConvEpiloguesPass
    : public oneflow::impl::FoldConvEpiloguesBase<FoldConvEpiloguesPass> {
  void runOnOperation() override {
    SmallVector<Conv2DOp> convs;
    getOperation().walk([&](Conv2DOp conv) {
      if (conv.getChannelsLast() && conv.getConstantWeight() &&
          conv.getY().getType().getElementType().isF32())
        convs.push_back(conv);
    });
    for (Conv2DOp conv : convs)
      foldEpilogue(conv);
  }
};

} // namespace
