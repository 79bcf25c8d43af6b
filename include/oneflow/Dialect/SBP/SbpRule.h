//===- SbpRule.h - SBP values and einsum-like factor rules ------*- C++ -*-===//
//
// The IR-independent core of SBP: a 1-D SBP value (split / broadcast /
// partial-sum), the factor rule through which every op declares the
// signatures it admits, and the enumeration of those signatures.
//
// A factor rule reads like einsum: `mk,kn->mn` for matmul. Each letter is a
// factor (a loop dimension). Splitting a factor splits every operand and
// result dimension that carries it; a factor that no result carries is a
// reduction factor and splitting it leaves the results partial-sum. Each
// result sums over the operand factors it lacks, so in `ab->ab,b` splitting
// `a` leaves the second result partial-sum. A `_`
// marks a dimension that must stay whole (a softmax axis, a conv window).
// Linear ops also pass partial-sums through, which the rule states
// separately (`PartialRule`).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_DIALECT_SBP_SBPRULE_H
#define ONEFLOW_DIALECT_SBP_SBPRULE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace sbp {

/// One SBP entry for one mesh axis.
struct Sbp {
  enum class Kind : uint8_t { Split, Broadcast, PartialSum };
  Kind kind = Kind::Broadcast;
  int64_t axis = 0; // Only meaningful for Split.

  static Sbp split(int64_t axis) { return {Kind::Split, axis}; }
  static Sbp broadcast() { return {Kind::Broadcast, 0}; }
  static Sbp partialSum() { return {Kind::PartialSum, 0}; }

  bool isSplit() const { return kind == Kind::Split; }
  bool isBroadcast() const { return kind == Kind::Broadcast; }
  bool isPartialSum() const { return kind == Kind::PartialSum; }

  bool operator==(const Sbp &other) const {
    return kind == other.kind && (kind != Kind::Split || axis == other.axis);
  }
  bool operator!=(const Sbp &other) const { return !(*this == other); }
  bool operator<(const Sbp &other) const;

  /// `S<0>`, `B` or `P`.
  std::string str() const;
};

/// A 1-D signature: one SBP per operand and per result.
struct SbpSignature {
  llvm::SmallVector<Sbp, 4> operands;
  llvm::SmallVector<Sbp, 2> results;
  /// The factor this signature splits, or -1 (all-B and partial-sum ones).
  int splitFactor = -1;

  bool operator==(const SbpSignature &other) const {
    return operands == other.operands && results == other.results;
  }
  /// `(S<0>, B) -> (S<0>)`.
  std::string str() const;
};

/// How partial-sums flow through an op.
enum class PartialRule : uint8_t {
  /// Non-linear: no operand may be partial.
  None,
  /// Additive in the linear operands taken together (add, concat, where):
  /// all of them partial gives partial results.
  Joint,
  /// Linear in each linear operand separately (matmul, mul): exactly one of
  /// them partial, the others broadcast, gives partial results.
  Each,
};

/// The einsum-like SBP rule of an op.
class SbpFactorRule {
public:
  static constexpr int kNoFactor = -1;

  /// Parses `mk,kn->mn`; `_` marks a dimension without a factor and `.` a
  /// scalar (rank-0) tensor; an empty side has no tensors. Factors are
  /// numbered in letter order (a..z, A..Z). Reduction factors are those no
  /// result carries.
  static llvm::Expected<SbpFactorRule> parse(llvm::StringRef spec);
  /// Like parse() but for rules built by the compiler itself, which are
  /// well-formed by construction.
  static SbpFactorRule get(llvm::StringRef spec);

  SbpFactorRule &setPartial(PartialRule rule,
                            llvm::ArrayRef<unsigned> linearOperands);
  /// Makes `factor` indivisible below `units` pieces: a split must cut it
  /// into a number of pieces dividing `units` (a grouped convolution's
  /// channels split by whole groups).
  SbpFactorRule &setFactorUnits(int factor, int64_t units);
  /// The units `factor` splits by, or 0 when its dimensions decide.
  int64_t getFactorUnits(int factor) const {
    return factorUnits.empty() ? 0 : factorUnits[factor];
  }

  unsigned getNumFactors() const { return numFactors; }
  bool isReductionFactor(int factor) const { return isReduction[factor]; }
  llvm::ArrayRef<llvm::SmallVector<int, 4>> getOperandFactors() const {
    return operandFactors;
  }
  llvm::ArrayRef<llvm::SmallVector<int, 4>> getResultFactors() const {
    return resultFactors;
  }
  PartialRule getPartialRule() const { return partial; }
  llvm::ArrayRef<unsigned> getLinearOperands() const { return linearOperands; }

  /// Every 1-D signature the rule admits, in a deterministic order: all-B,
  /// then one split signature per factor, then the partial-sum signatures.
  llvm::SmallVector<SbpSignature> enumerateSignatures() const;

  /// The signature obtained by splitting `factor` (B where it is absent).
  SbpSignature splitSignature(int factor) const;

  /// `mk,kn->mn`, with `| partial: each(0, 1)` when partials pass.
  std::string str() const;

private:
  unsigned numFactors = 0;
  llvm::SmallVector<bool> isReduction;
  llvm::SmallVector<char> factorNames;
  llvm::SmallVector<llvm::SmallVector<int, 4>, 4> operandFactors;
  llvm::SmallVector<llvm::SmallVector<int, 4>, 2> resultFactors;
  PartialRule partial = PartialRule::None;
  llvm::SmallVector<unsigned, 4> linearOperands;
  llvm::SmallVector<int64_t> factorUnits;
};

/// Factor letters, `a`..`z` then `A`..`Z`, for rules built programmatically.
char factorLetter(unsigned index);

} // namespace sbp
} // namespace mlir

#endif // ONEFLOW_DIALECT_SBP_SBPRULE_H
