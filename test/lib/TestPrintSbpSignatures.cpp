//===- TestPrintSbpSignatures.cpp - Print the SBP signatures of ops -------===//
//
// Prints, for every op that implements SbpRuleOpInterface, its factor rule
// and the 1-D signatures that follow from it, so lit tests can check the
// rules op by op.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/SBP/SBPDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
struct TestPrintSbpSignaturesPass
    : public PassWrapper<TestPrintSbpSignaturesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintSbpSignaturesPass)

  StringRef getArgument() const final { return "test-print-sbp-signatures"; }
  StringRef getDescription() const final {
    return "Print the factor rule and the 1-D SBP signatures of every op";
  }

  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto func = dyn_cast<FunctionOpInterface>(op)) {
        os << "func @" << func.getName() << "\n";
        return;
      }
      auto sbpOp = dyn_cast<sbp::SbpRuleOpInterface>(op);
      if (!sbpOp)
        return;
      os << op->getName() << ": " << sbpOp.getSbpFactorRule().str() << "\n";
      for (const sbp::SbpSignature &sig : sbpOp.getSbpSignatures())
        os << "  " << sig.str() << "\n";
    });
    os.flush();
  }
};
} // namespace

namespace mlir::oneflow::test {
void registerTestPrintSbpSignaturesPass() {
  PassRegistration<TestPrintSbpSignaturesPass>();
}
} // namespace mlir::oneflow::test
