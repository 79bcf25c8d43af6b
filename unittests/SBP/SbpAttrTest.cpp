//===- SbpAttrTest.cpp - SBP attributes and the op interface --------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::sbp;

namespace {

class SbpAttrTest : public ::testing::Test {
protected:
  SbpAttrTest() {
    context.loadDialect<SBPDialect, oneflow::OneFlowDialect,
                        func::FuncDialect>();
  }
  std::string print(Attribute attr) {
    std::string out;
    llvm::raw_string_ostream os(out);
    attr.print(os);
    return out;
  }
  MLIRContext context;
};

TEST_F(SbpAttrTest, ValuesRoundTripThroughAttributes) {
  for (Sbp value : {Sbp::split(2), Sbp::broadcast(), Sbp::partialSum()}) {
    Attribute attr = getSbpAttr(&context, value);
    std::optional<Sbp> back = getSbpValue(attr);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, value);
  }
  EXPECT_FALSE(getSbpValue(UnitAttr::get(&context)).has_value());
}

TEST_F(SbpAttrTest, NdSbpParsesAndPrints) {
  Attribute attr = parseAttribute("#sbp.nd<[S<0>, P]>", &context);
  auto nd = dyn_cast_or_null<NdSbpAttr>(attr);
  ASSERT_TRUE(nd);
  EXPECT_EQ(nd.size(), 2u);
  EXPECT_EQ(nd.getValues()[0], Sbp::split(0));
  EXPECT_EQ(nd.getValues()[1], Sbp::partialSum());
  EXPECT_EQ(print(nd), "#sbp.nd<[S<0>, P]>");
  EXPECT_EQ(NdSbpAttr::get(&context, {Sbp::split(0), Sbp::partialSum()}), nd);
}

TEST_F(SbpAttrTest, SignaturePrintsBareEntriesOnOneDimensionalMeshes) {
  Attribute attr = parseAttribute("#sbp.sig<([S<0>], B) -> ([S<0>])>",
                                  &context);
  ASSERT_TRUE(attr);
  EXPECT_EQ(print(attr), "#sbp.sig<(S<0>, B) -> (S<0>)>");
}

TEST_F(SbpAttrTest, OneFlowOpsImplementTheRuleInterface) {
  const char *source = R"mlir(
    func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
      %c = oneflow.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
      return %c : tensor<4x16xf32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  SmallVector<SbpRuleOpInterface> ops;
  module->walk([&](SbpRuleOpInterface op) { ops.push_back(op); });
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].getSbpFactorRule().str(),
            "ab,bc->ac | partial: each(0, 1)");
  EXPECT_EQ(ops[0].getSbpSignatures().size(), 6u);
}

} // namespace
