//===- MixedPrecision.cpp - Autocast a graph to bf16 or f16 ---------------===//
//
// Mixed precision the way PyTorch's autocast types a model (its CPU op
// lists in torch 1.13): products (matmuls, convolutions) compute in the low
// type; losses in f32; softmax and normalizations keep their input's type
// but compute it in f32; every other op runs in its inputs' type, f32 when
// low and f32 activations meet (scalars and constants follow the tensor
// they meet, a linear layer's bias joins its product). Parameters stay f32
// variables (the master weights): each use reads a cast of them, so their
// gradients, the optimizer state and the update are f32. Runs before
// oneflow-autodiff, which differentiates the casts.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_MIXEDPRECISION
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// How an op's type is chosen.
enum class Policy {
  Low,       // products: the low type
  F32,       // losses: f32
  F32Inside, // softmax, normalizations: f32 inside, the input's type out
  Promote,   // everything else: the inputs' type
};

Policy policyOf(Operation *op) {
  if (isa<MatmulOp, BatchMatmulOp, Conv2DOp, ConvTranspose2DOp>(op))
    return Policy::Low;
  if (isa<SoftmaxCrossEntropyOp, MseLossOp>(op))
    return Policy::F32;
  if (isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp, BatchNormOp, BatchNormTrainOp,
          ReduceSumOp, ReduceMeanOp, CumSumOp>(op))
    return Policy::F32Inside;
  return Policy::Promote;
}

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

Type elementOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// A scalar or constant operand does not decide the type of the op it
/// meets (PyTorch: Python scalars and 0-d tensors do not promote).
bool followsOthers(Value value) {
  return value.getDefiningOp<ConstantOp>() ||
         cast<RankedTensorType>(value.getType()).getRank() == 0;
}

class Autocast {
public:
  Autocast(func::FuncOp graph, Type low)
      : graph(graph), low(low), f32(Float32Type::get(graph.getContext())),
        builder(graph.getContext()) {}

  LogicalResult run();

private:
  /// `value` as `element`, through one cast per value and type.
  Value castTo(Value value, Type element);
  void retype(Operation *op, Type element);

  func::FuncOp graph;
  Type low, f32;
  OpBuilder builder;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
  /// Results of low-precision products (a bias added to one joins it).
  llvm::DenseSet<Value> products;
};

Value Autocast::castTo(Value value, Type element) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == element)
    return value;
  Value &cached = casts[{value, element}];
  if (!cached) {
    OpBuilder::InsertionGuard guard(builder);
    if (Operation *producer = value.getDefiningOp())
      builder.setInsertionPointAfter(producer);
    else
      builder.setInsertionPointToStart(&graph.getBody().front());
    cached =
        CastOp::create(builder, value.getLoc(), type.clone(element), value);
  }
  return cached;
}

/// Casts the float operands of `op` to `element` and gives its float
/// results that type.
void Autocast::retype(Operation *op, Type element) {
  for (OpOperand &operand : op->getOpOperands())
    if (isFloatTensor(operand.get().getType()))
      operand.set(castTo(operand.get(), element));
  for (OpResult result : op->getResults())
    if (isFloatTensor(result.getType()))
      result.setType(cast<RankedTensorType>(result.getType()).clone(element));
}

LogicalResult Autocast::run() {
  Block &body = graph.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    if (!isa<CastOp, ConstantOp, VariableOp, AssignOp>(op))
      ops.push_back(&op);
  for (Operation *op : ops) {
    SmallVector<Value> floats;
    for (Value operand : op->getOperands())
      if (isFloatTensor(operand.getType()))
        floats.push_back(operand);
    // f64 graphs keep their precision.
    if (floats.empty() ||
        llvm::any_of(floats, [](Value v) { return elementOf(v).isF64(); }))
      continue;
    switch (policyOf(op)) {
    case Policy::Low:
      retype(op, low);
      for (Value result : op->getResults())
        products.insert(result);
      break;
    case Policy::F32:
      retype(op, f32);
      break;
    case Policy::F32Inside: {
      // The input is the first operand; its parameters stay f32.
      if (elementOf(floats.front()) != low)
        break;
      retype(op, f32);
      builder.setInsertionPointAfter(op);
      OpResult result = op->getResult(0);
      auto back = CastOp::create(
          builder, op->getLoc(),
          cast<RankedTensorType>(result.getType()).clone(low), result);
      result.replaceAllUsesExcept(back.getResult(), back);
      break;
    }
    case Policy::Promote: {
      bool anyLow = false, anyF32 = false;
      for (Value operand : floats) {
        bool isLow = elementOf(operand) == low;
        anyLow |= isLow;
        if (!isLow && !followsOthers(operand))
          anyF32 = true;
      }
      if (!anyLow)
        break;
      // A linear layer's bias: added to its product, in the low type.
      bool biasAdd =
          isa<AddOp>(op) &&
          llvm::any_of(floats, [&](Value v) { return products.contains(v); }) &&
          llvm::any_of(floats,
                       [](Value v) { return v.getDefiningOp<VariableOp>(); });
      retype(op, anyF32 && !biasAdd ? f32 : low);
      break;
    }
    }
  }
  // The graph's results keep their declared types.
  Operation *terminator = body.getTerminator();
  for (auto [operand, type] :
       llvm::zip(terminator->getOpOperands(), graph.getResultTypes()))
    if (operand.get().getType() != type && isFloatTensor(type))
      operand.set(
          castTo(operand.get(), cast<RankedTensorType>(type).getElementType()));
  return verify(graph);
}

struct MixedPrecisionPass
    : public oneflow::impl::MixedPrecisionBase<MixedPrecisionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Type low;
    if (precision == "bf16")
      low = BFloat16Type::get(&getContext());
    else if (precision == "f16")
      low = Float16Type::get(&getContext());
    else if (precision != "f32") {
      module.emitError() << "unknown precision '" << precision
                         << "' (expected f32, bf16 or f16)";
      return signalPassFailure();
    }
    if (!low)
      return;
    auto graph = module.lookupSymbol<func::FuncOp>("main");
    if (!graph) {
      module.emitError() << "no @main graph to cast to " << precision;
      return signalPassFailure();
    }
    if (failed(Autocast(graph, low).run()))
      return signalPassFailure();
  }
};
} // namespace
