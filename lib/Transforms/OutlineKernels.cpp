//===- OutlineKernels.cpp - One kernel function per compute op ------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_OUTLINEKERNELS
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {
/// Constants up to this many elements become part of the kernel's code.
constexpr int64_t kMaxInlinedConstantElements = 1 << 16;

bool isInlinableConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return constant && type && type.hasStaticShape() &&
         type.getNumElements() <= kMaxInlinedConstantElements;
}

struct OutlineKernelsPass
    : public oneflow::impl::OutlineKernelsBase<OutlineKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = module.lookupSymbol<func::FuncOp>(graphFunction);
    if (!graph) {
      module.emitError() << "no graph function @" << graphFunction;
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    OpBuilder builder(module.getContext());
    unsigned counter = 0;
    for (Operation &op : llvm::make_early_inc_range(graph.getOps())) {
      // Constants and variables are registers, assigns copies into them:
      // not kernels.
      if (!isa<OneFlowDialect>(op.getDialect()) ||
          isa<ConstantOp, VariableOp, AssignOp>(op))
        continue;
      // A fused region's kernel takes the values its body reads from above.
      auto fused = dyn_cast<FusedOp>(op);
      SetVector<Value> used;
      if (fused)
        getUsedValuesDefinedAbove(fused.getBody(), used);
      else
        used.insert(op.operand_begin(), op.operand_end());
      // Small constants are compiled into the kernel, where the code
      // generator can fold them (a scale, a divisor, a mask), instead of
      // being loaded from a buffer argument.
      SmallVector<Value> inputs, inlined;
      for (Value value : used)
        (isInlinableConstant(value) ? inlined : inputs).push_back(value);
      std::string name = op.getName().stripDialect().str();
      if (fused)
        name = "fused_" + getFusionRoot(fused.getBody().front())
                              ->getName()
                              .stripDialect()
                              .str();

      builder.setInsertionPoint(graph);
      auto type = builder.getFunctionType(
          ValueRange(inputs).getTypes(), op.getResultTypes());
      auto kernel = func::FuncOp::create(
          builder, op.getLoc(),
          "kernel_" + std::to_string(counter++) + "_" + name, type);
      kernel.setPrivate();
      kernel->setAttr(kKernelAttrName, builder.getUnitAttr());
      symbols.insert(kernel);

      Block *body = kernel.addEntryBlock();
      IRMapping mapping;
      mapping.map(inputs, body->getArguments());
      builder.setInsertionPointToStart(body);
      for (Value constant : inlined)
        builder.clone(*constant.getDefiningOp(), mapping);
      if (fused) {
        for (Operation &nested : fused.getBody().front().without_terminator())
          builder.clone(nested, mapping);
        auto yield = cast<YieldOp>(fused.getBody().front().getTerminator());
        SmallVector<Value> results;
        for (Value value : yield.getValues())
          results.push_back(mapping.lookup(value));
        func::ReturnOp::create(builder, op.getLoc(), results);
      } else {
        Operation *clone = builder.clone(op, mapping);
        func::ReturnOp::create(builder, op.getLoc(), clone->getResults());
      }

      builder.setInsertionPoint(&op);
      auto call = func::CallOp::create(builder, op.getLoc(), kernel, inputs);
      op.replaceAllUsesWith(call.getResults());
      op.erase();
    }
    // Constants that now live only inside kernels need no register.
    for (auto constant : llvm::make_early_inc_range(graph.getOps<ConstantOp>()))
      if (constant->use_empty())
        constant.erase();
  }
};
} // namespace
