//===- Optimizer.cpp - Parameter updates from their gradients -------------===//
//
// The update rules of PyTorch's SGD and AdamW, written with elementwise
// oneflow ops on the variable, its gradient and its optimizer state, and
// stored back with oneflow.assign. The state is ordinary variables, so SBP
// lays it out like its parameter and checkpoints hold it.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/Provenance.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/BitVector.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_OPTIMIZER
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {
class UpdateBuilder {
public:
  UpdateBuilder(OpBuilder &builder, OpBuilder &stateBuilder, Location loc)
      : b(builder), stateBuilder(stateBuilder), loc(loc) {}

  Value scalar(Type elementType, double value) {
    auto type = RankedTensorType::get({}, elementType);
    return ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type, b.getFloatAttr(elementType, value)));
  }
  Value scalarLike(Value like, double value) {
    return scalar(cast<RankedTensorType>(like.getType()).getElementType(),
                  value);
  }
  Value add(Value lhs, Value rhs) { return AddOp::create(b, loc, lhs, rhs); }
  Value sub(Value lhs, Value rhs) { return SubOp::create(b, loc, lhs, rhs); }
  Value mul(Value lhs, Value rhs) { return MulOp::create(b, loc, lhs, rhs); }
  Value div(Value lhs, Value rhs) { return DivOp::create(b, loc, lhs, rhs); }
  Value mul(Value lhs, double rhs) { return mul(lhs, scalarLike(lhs, rhs)); }
  Value castTo(Value value, Type elementType) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() == elementType)
      return value;
    return CastOp::create(b, loc, type.clone(elementType), value);
  }

  /// A zero-initialized state variable laid out like `param`.
  Value state(VariableOp param, StringRef suffix) {
    auto type = cast<RankedTensorType>(param.getType());
    return stateVariable(param, param.getVarName().str() + "." + suffix.str(),
                         suffix, type);
  }
  Value stateVariable(VariableOp param, const std::string &name,
                      StringRef suffix, RankedTensorType type) {
    auto variable = VariableOp::create(
        stateBuilder, loc, type, stateBuilder.getStringAttr(name),
        DenseElementsAttr::get(type,
                               stateBuilder.getZeroAttr(type.getElementType())),
        InitializerAttr());
    if (param) {
      variable->setAttr(kStateOfAttrName,
                        FlatSymbolRefAttr::get(param.getVarNameAttr()));
      // A piece of a logical parameter has a piece of its state.
      if (auto logical =
              param->getAttrOfType<StringAttr>(kLogicalNameAttrName)) {
        variable->setAttr(
            kLogicalNameAttrName,
            stateBuilder.getStringAttr(logical.str() + "." + suffix.str()));
        for (StringRef attr : {kLogicalShapeAttrName, kLogicalOffsetsAttrName})
          if (Attribute value = param->getAttr(attr))
            variable->setAttr(attr, value);
      }
    }
    return variable.getOutput();
  }
  void assign(Value variable, Value value) {
    auto op = variable.getDefiningOp<VariableOp>();
    AssignOp::create(b, loc, op.getVarNameAttr(), value);
  }

private:
  OpBuilder &b;
  OpBuilder &stateBuilder;
  Location loc;
};

struct OptimizerPass : public oneflow::impl::OptimizerBase<OptimizerPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = lookupGraph(module, "to optimize");
    if (!graph)
      return signalPassFailure();
    if (optimizer != "sgd" && optimizer != "adamw") {
      module.emitError() << "unknown optimizer '" << optimizer
                         << "' (expected sgd or adamw)";
      return signalPassFailure();
    }
    if (!(lr > 0)) {
      module.emitError() << "the learning rate must be positive, got " << lr;
      return signalPassFailure();
    }
    double decay =
        weightDecay >= 0 ? weightDecay : (optimizer == "adamw" ? 0.01 : 0.0);

    Block &body = graph.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    llvm::StringMap<VariableOp> variables;
    for (VariableOp variable : body.getOps<VariableOp>())
      variables.try_emplace(variable.getVarName(), variable);

    OpBuilder builder(ret);
    Operation *lastBeforeUpdates = ret->getPrevNode();
    OpBuilder stateBuilder(&body, body.begin());
    Location loc = NameLoc::get(builder.getStringAttr(optimizer));
    UpdateBuilder u(builder, stateBuilder, loc);

    // AdamW's bias corrections, from the step count (in f64, as PyTorch
    // computes them in Python floats).
    Value stepSize, invSqrtBias2;
    auto adamScalars = [&](Type elementType) {
      if (stepSize)
        return;
      Type f32 = builder.getF32Type(), f64 = builder.getF64Type();
      Value step = u.stateVariable(VariableOp(), "optimizer.step", "step",
                                   RankedTensorType::get({}, f32));
      Value next = u.add(step, u.scalar(f32, 1.0));
      u.assign(step, next);
      Value t = u.castTo(next, f64);
      Value one = u.scalar(f64, 1.0);
      Value bias1 =
          u.sub(one, PowOp::create(builder, loc, u.scalar(f64, beta1), t));
      Value bias2 =
          u.sub(one, PowOp::create(builder, loc, u.scalar(f64, beta2), t));
      stepSize = u.castTo(u.div(u.scalar(f64, lr), bias1), elementType);
      invSqrtBias2 =
          u.castTo(RsqrtOp::create(builder, loc, bias2), elementType);
    };

    llvm::BitVector erase(graph.getNumResults());
    SmallVector<Value> kept;
    for (unsigned i = 0; i < graph.getNumResults(); ++i) {
      auto of =
          graph.getResultAttrOfType<FlatSymbolRefAttr>(i, kGradientOfAttrName);
      if (!of) {
        kept.push_back(ret.getOperand(i));
        continue;
      }
      VariableOp param = variables.lookup(of.getValue());
      if (!param) {
        graph.emitError() << "result #" << i << " is the gradient of " << of
                          << ", which the graph does not read";
        return signalPassFailure();
      }
      erase.set(i);
      Value w = param.getOutput(), grad = ret.getOperand(i);
      Type elementType = cast<RankedTensorType>(w.getType()).getElementType();
      if (optimizer == "sgd") {
        if (decay != 0)
          grad = u.add(grad, u.mul(w, decay));
        Value direction = grad;
        if (momentum != 0) {
          // PyTorch starts the buffer at the first gradient, which is
          // momentum * 0 + gradient.
          Value buffer = u.state(param, "momentum_buffer");
          Value next = u.add(u.mul(buffer, momentum), grad);
          u.assign(buffer, next);
          direction = nesterov ? u.add(grad, u.mul(next, momentum)) : next;
        }
        u.assign(w, u.sub(w, u.mul(direction, lr)));
        continue;
      }
      adamScalars(elementType);
      Value decayed = decay != 0 ? u.mul(w, 1.0 - lr * decay) : w;
      Value m = u.state(param, "exp_avg"), v = u.state(param, "exp_avg_sq");
      Value nextM = u.add(u.mul(m, beta1), u.mul(grad, 1.0 - beta1));
      Value nextV =
          u.add(u.mul(v, beta2), u.mul(u.mul(grad, grad), 1.0 - beta2));
      u.assign(m, nextM);
      u.assign(v, nextV);
      Value denominator =
          u.add(u.mul(SqrtOp::create(builder, loc, nextV), invSqrtBias2),
                u.scalarLike(nextV, epsilon));
      u.assign(w, u.sub(decayed, u.mul(u.div(nextM, denominator), stepSize)));
    }

    // The updates run once per step, after every micro-batch.
    for (Operation *op = lastBeforeUpdates ? lastBeforeUpdates->getNextNode()
                                           : &body.front();
         op != ret.getOperation(); op = op->getNextNode())
      if (op->getNumOperands() > 0)
        setProvenance(op, {"update", -1, 0});
    func::ReturnOp::create(builder, ret.getLoc(), kept);
    ret.erase();
    if (failed(graph.eraseResults(erase))) {
      graph.emitError() << "cannot remove the gradient results";
      return signalPassFailure();
    }
  }
};
} // namespace
