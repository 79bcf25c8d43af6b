//===- InPlaceKernelResults.cpp - Results that share an argument's buffer -===//
//
// A kernel marked `oneflow.updates_in_place` receives, for each marked
// result, the same buffer as the argument it names (the variable it
// updates). On tensors, before bufferization:
//
//  * when the result is computed by an all-parallel linalg.generic that
//    reads the argument element by element, and every other reader of the
//    argument comes before it, the generic writes into the argument itself
//    (its `outs`), the argument becomes writable, and bufferization stores
//    the result in place: each element is read, then overwritten, in one
//    iteration;
//  * otherwise the kernel reads a copy of the argument, taken on entry, so
//    that writing the result cannot change what it reads.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_INPLACEKERNELRESULTS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

namespace {

/// The generic that can compute `result` into `argument`'s buffer, or null.
linalg::GenericOp inPlaceProducer(Value result, BlockArgument argument) {
  auto generic = result.getDefiningOp<linalg::GenericOp>();
  Block *entry = argument.getOwner();
  if (!generic || generic->getBlock() != entry ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return nullptr;
  OpOperand *init =
      generic.getDpsInitOperand(cast<OpResult>(result).getResultNumber());
  if (!generic.getMatchingIndexingMap(init).isIdentity() ||
      generic.payloadUsesValueFromOperand(init) ||
      init->get().getType() != argument.getType())
    return nullptr;
  bool readsElementwise = llvm::any_of(
      generic.getDpsInputOperands(), [&](OpOperand *input) {
        return input->get() == argument &&
               generic.getMatchingIndexingMap(input).isIdentity();
      });
  bool othersBefore = llvm::all_of(argument.getUsers(), [&](Operation *user) {
    return user == generic.getOperation() ||
           (user->getBlock() == entry && user->isBeforeInBlock(generic));
  });
  return readsElementwise && othersBefore ? generic : nullptr;
}

struct InPlaceKernelResultsPass
    : public oneflow::impl::InPlaceKernelResultsBase<
          InPlaceKernelResultsPass> {
  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp func) {
      auto inPlace =
          func->getAttrOfType<DenseI64ArrayAttr>(oneflow::kUpdatesInPlaceAttrName);
      if (!inPlace || func.isDeclaration())
        return;
      auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
      for (auto [index, argNumber] : llvm::enumerate(inPlace.asArrayRef())) {
        if (argNumber < 0)
          continue;
        BlockArgument argument = func.getArgument(argNumber);
        Value result = ret.getOperand(index);
        if (linalg::GenericOp generic = inPlaceProducer(result, argument)) {
          generic.getDpsInitOperand(cast<OpResult>(result).getResultNumber())
              ->set(argument);
          func.setArgAttr(argNumber,
                          bufferization::BufferizationDialect::
                              kWritableAttrName,
                          BoolAttr::get(&getContext(), true));
          continue;
        }
        OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
        auto type = cast<RankedTensorType>(argument.getType());
        Value empty = tensor::EmptyOp::create(builder, func.getLoc(),
                                              type.getShape(),
                                              type.getElementType());
        auto copy = linalg::CopyOp::create(builder, func.getLoc(), argument,
                                           empty);
        argument.replaceAllUsesExcept(copy.getResult(0), copy);
      }
    });
  }
};
} // namespace
