//===- SbpRule.cpp - SBP values and einsum-like factor rules --------------===//

#include "oneflow/Dialect/SBP/SbpRule.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::sbp;
using llvm::SmallVector;
using llvm::SmallVectorImpl;
using llvm::StringRef;

bool Sbp::operator<(const Sbp &other) const {
  if (kind != other.kind)
    return kind < other.kind;
  return isSplit() && axis < other.axis;
}

std::string Sbp::str() const {
  switch (kind) {
  case Kind::Split:
    return "S<" + std::to_string(axis) + ">";
  case Kind::Broadcast:
    return "B";
  case Kind::PartialSum:
    return "P";
  }
  llvm_unreachable("unknown SBP kind");
}

std::string SbpSignature::str() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  auto printList = [&](llvm::ArrayRef<Sbp> list) {
    os << "(";
    llvm::interleaveComma(list, os, [&](const Sbp &s) { os << s.str(); });
    os << ")";
  };
  printList(operands);
  os << " -> ";
  printList(results);
  return out;
}

char mlir::sbp::factorLetter(unsigned index) {
  assert(index < 52 && "too many factors for letter names");
  return index < 26 ? 'a' + index : 'A' + (index - 26);
}

llvm::Expected<SbpFactorRule> SbpFactorRule::parse(StringRef spec) {
  auto error = [&](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid factor rule '" + spec +
                                       "': " + msg);
  };
  auto [lhs, rhs] = spec.split("->");
  if (lhs.size() == spec.size())
    return error("missing '->'");

  SbpFactorRule rule;
  llvm::SmallDenseMap<char, int> letterToFactor;
  SmallVector<bool> seenInResult;
  auto parseTensors =
      [&](StringRef list, bool isResult,
          SmallVectorImpl<SmallVector<int, 4>> &out) -> llvm::Error {
    SmallVector<StringRef> tensors;
    if (!list.trim().empty())
      list.split(tensors, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
    for (StringRef tensor : tensors) {
      tensor = tensor.trim();
      if (tensor.empty())
        return error("empty tensor (write '.' for a scalar)");
      SmallVector<int, 4> dims;
      for (char c : tensor == "." ? StringRef() : tensor) {
        if (c == '_') {
          dims.push_back(kNoFactor);
          continue;
        }
        if (!llvm::isAlpha(c))
          return error("unexpected character '" + std::string(1, c) + "'");
        auto [it, inserted] =
            letterToFactor.try_emplace(c, (int)rule.numFactors);
        if (inserted) {
          ++rule.numFactors;
          rule.factorNames.push_back(c);
          seenInResult.push_back(false);
        }
        if (llvm::is_contained(dims, it->second))
          return error("factor '" + std::string(1, c) +
                       "' appears twice in one tensor");
        if (isResult)
          seenInResult[it->second] = true;
        dims.push_back(it->second);
      }
      out.push_back(std::move(dims));
    }
    return llvm::Error::success();
  };
  if (llvm::Error err = parseTensors(lhs, false, rule.operandFactors))
    return std::move(err);
  if (llvm::Error err = parseTensors(rhs, true, rule.resultFactors))
    return std::move(err);
  // Number factors in letter order (a..z, A..Z), so that a rule lists its
  // signatures in the order its author named the factors.
  auto letterRank = [](char c) {
    return llvm::isLower(c) ? c - 'a' : 26 + (c - 'A');
  };
  SmallVector<int> order = llvm::to_vector(llvm::seq<int>(0, rule.numFactors));
  llvm::sort(order, [&](int a, int b) {
    return letterRank(rule.factorNames[a]) < letterRank(rule.factorNames[b]);
  });
  SmallVector<int> newId(rule.numFactors);
  SmallVector<char> names;
  for (auto [id, old] : llvm::enumerate(order)) {
    newId[old] = id;
    names.push_back(rule.factorNames[old]);
    rule.isReduction.push_back(!seenInResult[old]);
  }
  rule.factorNames = std::move(names);
  auto renumber = [&](auto &tensors) {
    for (auto &dims : tensors)
      for (int &f : dims)
        if (f != kNoFactor)
          f = newId[f];
  };
  renumber(rule.operandFactors);
  renumber(rule.resultFactors);
  return rule;
}

SbpFactorRule SbpFactorRule::get(StringRef spec) {
  llvm::Expected<SbpFactorRule> rule = parse(spec);
  if (!rule)
    llvm::report_fatal_error(rule.takeError());
  return std::move(*rule);
}

SbpFactorRule &SbpFactorRule::setPartial(PartialRule rule,
                                         llvm::ArrayRef<unsigned> operands) {
  partial = rule;
  linearOperands.assign(operands.begin(), operands.end());
  return *this;
}

SbpFactorRule &SbpFactorRule::setFactorUnits(int factor, int64_t units) {
  factorUnits.resize(numFactors, 0);
  factorUnits[factor] = units;
  return *this;
}

SbpSignature SbpFactorRule::splitSignature(int factor) const {
  // A result sums over the operand factors it does not carry (as in
  // einsum), also where another result carries them: layer_norm_grad's dx
  // splits with the batch while its dscale sums over it.
  bool inOperands = llvm::any_of(operandFactors, [&](const auto &dims) {
    return llvm::is_contained(dims, factor);
  });
  auto sbpOf = [&](llvm::ArrayRef<int> dims, bool isResult) {
    for (auto [dim, f] : llvm::enumerate(dims))
      if (f == factor)
        return Sbp::split(dim);
    if (isResult && (isReduction[factor] || inOperands))
      return Sbp::partialSum();
    return Sbp::broadcast();
  };
  SbpSignature sig;
  sig.splitFactor = factor;
  for (const auto &dims : operandFactors)
    sig.operands.push_back(sbpOf(dims, false));
  for (const auto &dims : resultFactors)
    sig.results.push_back(sbpOf(dims, true));
  return sig;
}

SmallVector<SbpSignature> SbpFactorRule::enumerateSignatures() const {
  SmallVector<SbpSignature> sigs;
  auto add = [&](SbpSignature sig) {
    if (!llvm::is_contained(sigs, sig))
      sigs.push_back(std::move(sig));
  };
  SbpSignature allBroadcast;
  allBroadcast.operands.assign(operandFactors.size(), Sbp::broadcast());
  allBroadcast.results.assign(resultFactors.size(), Sbp::broadcast());
  add(allBroadcast);

  for (unsigned f = 0; f < numFactors; ++f)
    add(splitSignature(f));

  auto partialSig = [&](llvm::ArrayRef<unsigned> partialOperands) {
    SbpSignature sig = allBroadcast;
    for (unsigned i : partialOperands)
      sig.operands[i] = Sbp::partialSum();
    sig.results.assign(resultFactors.size(), Sbp::partialSum());
    return sig;
  };
  if (partial == PartialRule::Joint && !linearOperands.empty())
    add(partialSig(linearOperands));
  if (partial == PartialRule::Each)
    for (unsigned i : linearOperands)
      add(partialSig({i}));
  return sigs;
}

std::string SbpFactorRule::str() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  auto printTensors = [&](llvm::ArrayRef<SmallVector<int, 4>> tensors) {
    llvm::interleave(
        tensors, os,
        [&](const SmallVector<int, 4> &dims) {
          if (dims.empty())
            os << '.';
          for (int f : dims)
            os << (f == kNoFactor ? '_' : factorNames[f]);
        },
        ",");
  };
  printTensors(operandFactors);
  os << "->";
  printTensors(resultFactors);
  if (partial != PartialRule::None) {
    os << " | partial: " << (partial == PartialRule::Joint ? "joint" : "each")
       << "(";
    llvm::interleaveComma(linearOperands, os);
    os << ")";
  }
  for (auto [factor, units] : llvm::enumerate(factorUnits))
    if (units)
      os << " | " << factorNames[factor] << " in " << units;
  return out;
}
