//===- oneflow-opt.cpp - The OneFlow-MLIR compiler driver -----------------===//
//
// Behaves like mlir-opt with the oneflow and sbp dialects and every upstream
// dialect and pass registered, so each pass can be run and tested alone.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::oneflow::test {
void registerTestPrintSbpSignaturesPass();
} // namespace mlir::oneflow::test

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::oneflow::test::registerTestPrintSbpSignaturesPass();

  mlir::DialectRegistry registry;
  registry.insert<mlir::oneflow::OneFlowDialect, mlir::sbp::SBPDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "OneFlow-MLIR compiler driver\n", registry));
}
