//===- Autodiff.cpp - Reverse-mode differentiation of @main ---------------===//
//
// Appends to @main the gradients of its first result (the loss) with
// respect to the variables (training) or the arguments (gradient checks).
// The backward ops follow the forward ops in the same function, so SBP
// propagation and boxing see one graph: under data parallelism the
// gradients of broadcast parameters come out partial-sum and boxing
// inserts the all-reduce, with no special case here.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_AUTODIFF
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {
bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

/// One read per variable: later reads of a name use the first.
void mergeVariableReads(func::FuncOp graph) {
  llvm::StringMap<VariableOp> first;
  Block &body = graph.getBody().front();
  for (VariableOp variable :
       llvm::make_early_inc_range(body.getOps<VariableOp>())) {
    auto [it, inserted] = first.try_emplace(variable.getVarName(), variable);
    if (inserted) {
      variable->moveBefore(&body, body.begin());
      continue;
    }
    if (it->second.getType() == variable.getType()) {
      variable.replaceAllUsesWith(it->second.getOutput());
      variable.erase();
    }
  }
}

struct AutodiffPass : public oneflow::impl::AutodiffBase<AutodiffPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = module.lookupSymbol<func::FuncOp>("main");
    if (!graph) {
      module.emitError() << "no @main graph to differentiate";
      return signalPassFailure();
    }
    if (wrt != "variables" && wrt != "arguments") {
      module.emitError() << "wrt must be 'variables' or 'arguments', got '"
                         << wrt << "'";
      return signalPassFailure();
    }
    auto ret = cast<func::ReturnOp>(graph.getBody().front().getTerminator());
    if (ret.getNumOperands() == 0 || !isFloatTensor(ret.getOperand(0)) ||
        cast<RankedTensorType>(ret.getOperand(0).getType()).getNumElements() !=
            1) {
      graph.emitError() << "the first result must be the loss: a "
                           "floating-point tensor of one element";
      return signalPassFailure();
    }
    Value loss = ret.getOperand(0);
    MLIRContext *context = &getContext();

    // The sources, named for the gradient results.
    struct Source {
      Value value;
      Attribute of;
      std::string name;
    };
    SmallVector<Source> sources;
    if (wrt == "variables") {
      mergeVariableReads(graph);
      llvm::StringSet<> frozen;
      for (const std::string &name : freeze)
        frozen.insert(name);
      llvm::StringSet<> seen;
      for (VariableOp variable : graph.getOps<VariableOp>()) {
        seen.insert(variable.getVarName());
        if (isFloatTensor(variable.getOutput()) &&
            !frozen.contains(variable.getVarName()))
          sources.push_back({variable.getOutput(),
                             FlatSymbolRefAttr::get(variable.getVarNameAttr()),
                             variable.getVarName().str()});
      }
      for (const std::string &name : freeze)
        if (!seen.contains(name)) {
          graph.emitError() << "cannot freeze '" << name
                            << "': the graph has no variable of that name";
          return signalPassFailure();
        }
    } else {
      for (BlockArgument arg : graph.getArguments()) {
        if (!isFloatTensor(arg))
          continue;
        std::string name = "input" + std::to_string(arg.getArgNumber());
        if (auto attr = graph.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                           kIONameAttrName))
          name = attr.str();
        sources.push_back({arg,
                           IntegerAttr::get(IntegerType::get(context, 64),
                                            arg.getArgNumber()),
                           name});
      }
    }

    // Values that depend on a source and that the loss depends on.
    llvm::DenseSet<Value> dependsOnSource;
    for (const Source &source : sources)
      dependsOnSource.insert(source.value);
    Block &body = graph.getBody().front();
    for (Operation &op : body.without_terminator())
      if (llvm::any_of(op.getOperands(), [&](Value operand) {
            return dependsOnSource.contains(operand);
          }))
        for (Value result : op.getResults())
          if (isFloatTensor(result))
            dependsOnSource.insert(result);
    llvm::DenseSet<Value> active;
    if (dependsOnSource.contains(loss))
      active.insert(loss);
    for (Operation &op : llvm::reverse(body.without_terminator()))
      if (llvm::any_of(op.getResults(),
                       [&](Value result) { return active.contains(result); }))
        for (Value operand : op.getOperands())
          if (dependsOnSource.contains(operand))
            active.insert(operand);

    // The backward pass, built before the return in reverse program order.
    OpBuilder builder(ret);
    llvm::DenseMap<Value, Value> grads;
    auto lossType = cast<RankedTensorType>(loss.getType());
    grads[loss] = ConstantOp::create(
        builder, NameLoc::get(StringAttr::get(context, "loss.grad")), lossType,
        DenseElementsAttr::get(
            lossType, builder.getFloatAttr(lossType.getElementType(), 1.0)));
    bool failedRules = false;
    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator())
      forward.push_back(&op);
    for (Operation *op : llvm::reverse(forward)) {
      // Variables, constants: the gradient stops here.
      if (op->getNumOperands() == 0)
        continue;
      SmallVector<Value> resultGrads;
      bool any = false;
      for (Value result : op->getResults()) {
        Value grad = active.contains(result) ? grads.lookup(result) : Value();
        resultGrads.push_back(grad);
        any |= bool(grad);
      }
      if (!any)
        continue;
      auto rule = dyn_cast<GradientOpInterface>(op);
      if (!rule) {
        op->emitOpError() << "has no gradient rule, but the loss depends on "
                             "it through a trained value";
        failedRules = true;
        continue;
      }
      SmallVector<Value> operandGrads;
      if (failed(rule.buildGradients(builder, resultGrads, operandGrads))) {
        failedRules = true;
        continue;
      }
      assert(operandGrads.size() == op->getNumOperands() &&
             "one gradient per operand");
      for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads)) {
        if (!grad || !active.contains(operand))
          continue;
        if (grad.getType() != operand.getType()) {
          op->emitOpError() << "gradient rule gave " << grad.getType()
                            << " for an operand of type " << operand.getType();
          failedRules = true;
          continue;
        }
        Value &total = grads[operand];
        total = total ? Value(AddOp::create(builder, op->getLoc(), total, grad))
                      : grad;
      }
    }
    if (failedRules) {
      graph.emitError() << "cannot differentiate the loss: see the ops above";
      return signalPassFailure();
    }

    // One gradient result per source the loss depends on (every float
    // argument in gradient-check mode, zeros where it does not).
    SmallVector<Value> results(ret.getOperands());
    SmallVector<DictionaryAttr> resultAttrs;
    graph.getAllResultAttrs(resultAttrs);
    for (const Source &source : sources) {
      Value grad = grads.lookup(source.value);
      if (!grad && wrt == "variables")
        continue;
      if (!grad) {
        auto type = cast<RankedTensorType>(source.value.getType());
        grad = ConstantOp::create(
            builder, source.value.getLoc(), type,
            DenseElementsAttr::get(type,
                                   builder.getZeroAttr(type.getElementType())));
      }
      if (auto variable = source.value.getDefiningOp<VariableOp>())
        variable->setAttr(kTrainableAttrName, UnitAttr::get(context));
      results.push_back(grad);
      resultAttrs.push_back(DictionaryAttr::get(
          context,
          {NamedAttribute(StringAttr::get(context, kGradientOfAttrName),
                          source.of),
           NamedAttribute(StringAttr::get(context, kIONameAttrName),
                          StringAttr::get(context, "grad_" + source.name))}));
    }
    func::ReturnOp::create(builder, ret.getLoc(), results);
    ret.erase();
    graph.setType(FunctionType::get(context, graph.getArgumentTypes(),
                                    ValueRange(results).getTypes()));
    graph.setAllResultAttrs(resultAttrs);
  }
};
} // namespace
