//===- SbpRuleTest.cpp - Factor rules and signature enumeration -----------===//

#include "oneflow/Dialect/SBP/SbpRule.h"

#include "gtest/gtest.h"

using namespace mlir::sbp;

namespace {

std::vector<std::string> signatureStrings(const SbpFactorRule &rule) {
  std::vector<std::string> out;
  for (const SbpSignature &sig : rule.enumerateSignatures())
    out.push_back(sig.str());
  return out;
}

TEST(SbpRule, MatmulHasTheSixArchitectureSignatures) {
  SbpFactorRule rule = SbpFactorRule::get("mk,kn->mn");
  rule.setPartial(PartialRule::Each, {0, 1});
  // Factors are numbered in letter order: k, m, n.
  EXPECT_EQ(rule.getNumFactors(), 3u);
  EXPECT_TRUE(rule.isReductionFactor(0));
  EXPECT_FALSE(rule.isReductionFactor(1));
  EXPECT_FALSE(rule.isReductionFactor(2));
  std::vector<std::string> expected = {
      "(B, B) -> (B)",       "(S<1>, S<0>) -> (P)", "(S<0>, B) -> (S<0>)",
      "(B, S<1>) -> (S<1>)", "(P, B) -> (P)",       "(B, P) -> (P)"};
  EXPECT_EQ(signatureStrings(rule), expected);
}

TEST(SbpRule, JointPartialPassesAllLinearOperandsTogether) {
  SbpFactorRule rule = SbpFactorRule::get("ab,ab->ab");
  rule.setPartial(PartialRule::Joint, {0, 1});
  std::vector<std::string> sigs = signatureStrings(rule);
  ASSERT_EQ(sigs.size(), 4u);
  EXPECT_EQ(sigs.back(), "(P, P) -> (P)");
}

TEST(SbpRule, NonLinearRuleHasNoPartialSignature) {
  SbpFactorRule rule = SbpFactorRule::get("ab->ab");
  for (const SbpSignature &sig : rule.enumerateSignatures())
    for (const Sbp &sbp : sig.operands)
      EXPECT_FALSE(sbp.isPartialSum()) << sig.str();
}

TEST(SbpRule, WholeDimensionsAreNeverSplit) {
  SbpFactorRule rule = SbpFactorRule::get("a_->a_");
  std::vector<std::string> expected = {"(B) -> (B)", "(S<0>) -> (S<0>)"};
  EXPECT_EQ(signatureStrings(rule), expected);
}

TEST(SbpRule, FactorsOnlyInResultsSplitFromBroadcastOperands) {
  // A source op (constant) and a broadcast operand.
  EXPECT_EQ(signatureStrings(SbpFactorRule::get("->ab")),
            (std::vector<std::string>{"() -> (B)", "() -> (S<0>)",
                                      "() -> (S<1>)"}));
  SbpFactorRule bias = SbpFactorRule::get("_b,ab->ab");
  EXPECT_EQ(bias.splitSignature(0).str(), "(B, S<0>) -> (S<0>)");
  EXPECT_EQ(bias.splitSignature(1).str(), "(S<1>, S<1>) -> (S<1>)");
}

TEST(SbpRule, ScalarTensorsAreDots) {
  SbpFactorRule rule = SbpFactorRule::get("ab,.->ab");
  EXPECT_EQ(rule.getOperandFactors().size(), 2u);
  EXPECT_TRUE(rule.getOperandFactors()[1].empty());
  EXPECT_EQ(rule.str(), "ab,.->ab");
  EXPECT_EQ(SbpFactorRule::get(".->.").enumerateSignatures().size(), 1u);
}

TEST(SbpRule, ScalarResultOfFullReductionIsPartial) {
  SbpFactorRule rule = SbpFactorRule::get("ab->.");
  EXPECT_EQ(rule.splitSignature(0).str(), "(S<0>) -> (P)");
  EXPECT_EQ(rule.splitSignature(1).str(), "(S<1>) -> (P)");
}

TEST(SbpRule, PrintsAsEinsum) {
  SbpFactorRule rule = SbpFactorRule::get("mk,kn->mn");
  EXPECT_EQ(rule.str(), "mk,kn->mn");
  rule.setPartial(PartialRule::Each, {0, 1});
  EXPECT_EQ(rule.str(), "mk,kn->mn | partial: each(0, 1)");
}

TEST(SbpRule, ParseErrorsAreReported) {
  for (const char *bad : {"ab", "a-b->a", "aa->a", "a1->a", "a,,b->ab"}) {
    llvm::Expected<SbpFactorRule> rule = SbpFactorRule::parse(bad);
    EXPECT_FALSE(static_cast<bool>(rule)) << bad;
    llvm::consumeError(rule.takeError());
  }
}

TEST(SbpRule, SbpOrderingAndEquality) {
  EXPECT_EQ(Sbp::split(1), Sbp::split(1));
  EXPECT_NE(Sbp::split(0), Sbp::split(1));
  EXPECT_NE(Sbp::broadcast(), Sbp::partialSum());
  EXPECT_TRUE(Sbp::split(0) < Sbp::split(1));
  EXPECT_EQ(Sbp::split(3).str(), "S<3>");
}

} // namespace
