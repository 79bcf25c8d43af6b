//===- UpdateVariablesInPlace.cpp - Kernels that write their variables ----===//
//
// After outlining, an optimizer step reads each parameter (and its state)
// into a kernel, computes the new value into a fresh buffer, and an
// `oneflow.assign` copies that buffer into the variable: per step, every
// parameter is written twice. When the kernel reads the variable itself and
// nothing reads the old value after the kernel, the kernel may write the new
// value straight into the variable's buffer. This pass marks such results
// on the call (`oneflow.updates_in_place`): whether a result may be written
// over its argument depends on where the call stands, not on the kernel's
// body, which calls elsewhere (a repeated layer, another rank, an ordinary
// op with the same arithmetic) may share. `oneflow-share-kernels` then
// shares a body only between calls that decide alike and records their
// decision on it; the plan builder gives the result the variable's register
// (no ASSIGN task), and the kernel compiler makes the kernel correct when
// its result and argument share memory.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_UPDATEVARIABLESINPLACE
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// The reads (oneflow.variable ops) of each variable in a block.
using ReadsOf = llvm::StringMap<SmallVector<VariableOp, 1>>;

/// For each result of `call`: the operand whose variable the result is
/// assigned to and may be written over, or -1.
SmallVector<int64_t> inPlaceResultsOf(func::CallOp call, const ReadsOf &reads) {
  SmallVector<int64_t> inPlace(call.getNumResults(), -1);
  Block *block = call->getBlock();
  for (auto [index, result] : llvm::enumerate(call.getResults())) {
    if (!result.hasOneUse())
      continue;
    auto assign = dyn_cast<AssignOp>(*result.getUsers().begin());
    if (!assign || assign->getBlock() != block)
      continue;
    for (auto [position, operand] : llvm::enumerate(call.getOperands())) {
      auto variable = operand.getDefiningOp<VariableOp>();
      if (!variable || variable.getVarName() != assign.getVarName() ||
          operand.getType() != result.getType())
        continue;
      // Every other read of the old value comes first, through any read of
      // the variable (a parameter read by several ops: shared, tied, or
      // merged by an exporter).
      bool readsBefore = true;
      auto it = reads.find(variable.getVarName());
      if (it != reads.end())
        for (VariableOp read : it->second)
          readsBefore &= llvm::all_of(read->getUsers(), [&](Operation *user) {
            user = block->findAncestorOpInBlock(*user);
            return user == call.getOperation() ||
                   (user && user->isBeforeInBlock(call));
          });
      if (readsBefore && !llvm::is_contained(inPlace, int64_t(position)))
        inPlace[index] = position;
      break;
    }
  }
  return inPlace;
}

struct UpdateVariablesInPlacePass
    : public oneflow::impl::UpdateVariablesInPlaceBase<
          UpdateVariablesInPlacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // The reads of each block's variables, gathered once per block.
    DenseMap<Block *, ReadsOf> readsIn;
    auto readsOf = [&](Block *block) -> const ReadsOf & {
      auto [it, inserted] = readsIn.try_emplace(block);
      if (inserted)
        for (auto read : block->getOps<VariableOp>())
          it->second[read.getVarName()].push_back(read);
      return it->second;
    };
    module.walk([&](func::CallOp call) {
      auto kernel = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!kernel || !kernel->hasAttr(kKernelAttrName) ||
          call->getParentOfType<func::FuncOp>()->hasAttr(kKernelAttrName))
        return;
      SmallVector<int64_t> inPlace =
          inPlaceResultsOf(call, readsOf(call->getBlock()));
      if (llvm::any_of(inPlace, [](int64_t arg) { return arg >= 0; }))
        call->setAttr(kUpdatesInPlaceAttrName,
                      DenseI64ArrayAttr::get(&getContext(), inPlace));
      else
        call->removeAttr(kUpdatesInPlaceAttrName);
    });
  }
};
} // namespace
