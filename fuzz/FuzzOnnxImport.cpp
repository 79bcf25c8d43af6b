//===- FuzzOnnxImport.cpp - Fuzz target: the ONNX importer ----------------===//
//
// Model bytes -> oneflow MLIR, as oneflow-opt model.onnx imports them: any
// bytes give diagnostics and no module, or a module that verifies.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"
#include "oneflow/Import/ONNX/ONNXImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdlib>
#include <memory>

using namespace mlir;

// LLVM's BumpPtrAllocator poisons the slabs it starts when its header code
// is compiled with ASan (ours), while libMLIR (not instrumented) hands out
// memory from such slabs without unpoisoning it: the MLIRContext's uniquer,
// shared by both, then gives false use-after-poison reports after some
// thousand inputs. Manual poisoning is off for this target.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Creating a context costs most of an import: one serves many inputs, and
  // is replaced now and then, as the attributes it uniques only grow.
  static std::unique_ptr<MLIRContext> context;
  static int uses = 0;
  if (!context || ++uses == 4096) {
    context = std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED);
    context->loadDialect<oneflow::OneFlowDialect, sbp::SBPDialect,
                         func::FuncDialect>();
    uses = 0;
  }
  ScopedDiagnosticHandler quiet(context.get(),
                                [](Diagnostic &) { return success(); });
  // A directory that does not exist: external data must fail, not read.
  OwningOpRef<ModuleOp> module = oneflow::importONNXBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz",
      "/nonexistent-fuzz-dir", context.get());
  if (module && failed(verify(*module)))
    std::abort();
  return 0;
}
