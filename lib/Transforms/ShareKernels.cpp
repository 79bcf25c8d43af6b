//===- ShareKernels.cpp - One kernel per distinct body and in-place use ---===//
//
// Outlining gives every kernel call a kernel of its own, yet most are equal:
// the layers of a deep model repeat, and ranks with the same local shapes
// run the same pieces. Kernels whose bodies print the same (function type
// and ops; locations, which name the ONNX node, aside) become one, called
// from everywhere, so that it is compiled once.
//
// A call that updates a variable in place (`oneflow.updates_in_place`, from
// oneflow-update-variables-in-place) passes the variable's buffer as both
// an argument and a result, and its kernel is compiled for that (the result
// is computed into the argument, or from an entry copy of it). That
// decision belongs to the call, and two calls with equal bodies may decide
// differently (under --no-fuse an SGD update `w - lr * g` and an ordinary
// subtraction are the same body): so it is part of what is shared, and
// each kernel ends up with the one decision that all its calls make,
// recorded on the kernel for the code generators and the plan builder. A
// kernel whose calls decide differently is split into one copy per
// decision.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SHAREKERNELS
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// What makes two kernels the same: their function type and their ops in
/// generic form (no locations). One printer state names the values of the
/// whole kernel: printing op by op without it would name them again for
/// every op (quadratic in the kernel's size).
std::string bodyOf(func::FuncOp kernel) {
  std::string body;
  llvm::raw_string_ostream os(body);
  os << kernel.getFunctionType() << "\n";
  OpPrintingFlags flags;
  flags.printGenericOpForm().useLocalScope();
  AsmState state(kernel, flags);
  for (Operation &op : kernel.getBody().front()) {
    op.print(os, state);
    os << "\n";
  }
  return body;
}

/// The in-place decision of `call` as part of a key ("" when none).
std::string decisionOf(func::CallOp call) {
  std::string key;
  if (auto inPlace =
          call->getAttrOfType<DenseI64ArrayAttr>(kUpdatesInPlaceAttrName)) {
    llvm::raw_string_ostream os(key);
    os << "in place:";
    for (int64_t arg : inPlace.asArrayRef())
      os << " " << arg;
  }
  return key;
}

struct ShareKernelsPass
    : public oneflow::impl::ShareKernelsBase<ShareKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // The calls of each kernel, in program order of the graphs.
    llvm::MapVector<Operation *, SmallVector<func::CallOp>> callsOf;
    for (auto graph : module.getOps<func::FuncOp>()) {
      if (graph->hasAttr(kKernelAttrName))
        continue;
      graph.walk([&](func::CallOp call) {
        auto kernel = symbols.lookup<func::FuncOp>(call.getCallee());
        if (kernel && kernel->hasAttr(kKernelAttrName))
          callsOf[kernel].push_back(call);
      });
    }

    // Body and decision -> the kernel its calls use.
    llvm::StringMap<func::FuncOp> kernelFor;
    DenseSet<Operation *> used;
    SmallVector<Operation *> unused;
    for (auto &[op, calls] : callsOf) {
      auto kernel = cast<func::FuncOp>(op);
      std::string body = bodyOf(kernel);
      for (func::CallOp call : calls) {
        auto inPlace =
            call->getAttrOfType<DenseI64ArrayAttr>(kUpdatesInPlaceAttrName);
        auto [it, inserted] =
            kernelFor.try_emplace(decisionOf(call) + "\n" + body);
        if (inserted) {
          // The first call with this body and decision: its kernel serves
          // them, or a copy of it if it already serves another decision.
          func::FuncOp target = kernel;
          if (!used.insert(kernel).second) {
            OpBuilder builder(kernel);
            builder.setInsertionPointAfter(kernel);
            target = cast<func::FuncOp>(builder.clone(*kernel));
            symbols.insert(target);
            used.insert(target);
          }
          if (inPlace)
            target->setAttr(kUpdatesInPlaceAttrName, inPlace);
          else
            target->removeAttr(kUpdatesInPlaceAttrName);
          it->second = target;
        }
        if (it->second.getSymName() != call.getCallee())
          call.setCallee(it->second.getSymName());
      }
      if (!used.contains(kernel))
        unused.push_back(kernel);
    }
    for (Operation *kernel : unused)
      kernel->erase();
  }
};
} // namespace
