//===- KernelExtraction.cpp - What every backend does to kernels ----------===//

#include "KernelExtraction.h"

#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::oneflow;

OwningOpRef<ModuleOp>
mlir::oneflow::extractKernels(ModuleOp source,
                              SmallVectorImpl<std::string> &names) {
  OpBuilder builder(source.getContext());
  OwningOpRef<ModuleOp> module = ModuleOp::create(source.getLoc());
  builder.setInsertionPointToEnd(module->getBody());
  for (auto func : source.getOps<func::FuncOp>()) {
    bool isKernel = func->hasAttr(kKernelAttrName);
    if (!isKernel && !func.isDeclaration())
      continue;
    auto copy = cast<func::FuncOp>(builder.clone(*func));
    if (isKernel) {
      names.push_back(func.getName().str());
      copy.setName((func.getName() + kKernelBodySuffix).str());
      // Public until the entry points exist, so no pass drops it as unused.
      copy.setPublic();
    }
  }
  return module;
}

LogicalResult mlir::oneflow::runKernelPipeline(ModuleOp module,
                                               StringRef pipeline,
                                               Operation *source) {
  PassManager pm(module.getContext());
  // --mlir-print-ir-after=... and friends (--mlir-timing too) see inside the
  // kernel pipeline.
  applyDefaultTimingPassManagerCLOptions(pm);
  if (failed(applyPassManagerCLOptions(pm)) ||
      failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    return source->emitError() << "invalid kernel lowering pipeline";
  if (failed(pm.run(module)))
    return source->emitError() << "lowering the kernels failed";
  return success();
}
