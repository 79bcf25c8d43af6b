//===- OneFlowAttrs.cpp - oneflow attributes ------------------------------===//
//
// The variable initializer `#oneflow.init<...>`: its syntax, defaults and
// verification.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::oneflow;

namespace {
/// Which keyword parameters each distribution takes.
enum InitParam : unsigned {
  kMean = 1,
  kStd = 2,
  kA = 4,
  kB = 8,
  kSeed = 16,
  kStream = 32,
};

unsigned paramsOf(InitDistribution distribution) {
  switch (distribution) {
  case InitDistribution::Zeros:
  case InitDistribution::Ones:
  case InitDistribution::MeshCoordinates:
    return 0;
  case InitDistribution::Normal:
    return kMean | kStd | kSeed | kStream;
  case InitDistribution::Uniform:
    return kA | kB | kSeed | kStream;
  case InitDistribution::TruncatedNormal:
    return kMean | kStd | kA | kB | kSeed | kStream;
  }
  return 0;
}

/// The standard normal CDF.
double normalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

/// A parameter as people write it ("0.02", "-2", "inf") for messages.
std::string text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}
} // namespace

bool InitializerAttr::isRandom() const {
  return getDistribution() != InitDistribution::Zeros &&
         getDistribution() != InitDistribution::Ones &&
         getDistribution() != InitDistribution::MeshCoordinates;
}

uint64_t InitializerAttr::getStreamFor(StringRef name) const {
  if (std::optional<uint64_t> stream = getStream())
    return *stream;
  // 64-bit FNV-1a.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : name) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

LogicalResult
InitializerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        InitDistribution distribution, APFloat meanAttr,
                        APFloat stdAttr, APFloat aAttr, APFloat bAttr,
                        uint64_t seed, std::optional<uint64_t> stream) {
  double mean = meanAttr.convertToDouble(), sd = stdAttr.convertToDouble(),
         a = aAttr.convertToDouble(), b = bAttr.convertToDouble();
  unsigned params = paramsOf(distribution);
  for (auto [bit, name, value] :
       {std::make_tuple(kMean, "mean", mean), std::make_tuple(kStd, "std", sd),
        std::make_tuple(kA, "a", a), std::make_tuple(kB, "b", b)})
    if ((params & bit) && !std::isfinite(value))
      return emitError() << "initializer " << name << " must be finite, got "
                         << text(value);
  switch (distribution) {
  case InitDistribution::Zeros:
  case InitDistribution::Ones:
  case InitDistribution::MeshCoordinates:
    return success();
  case InitDistribution::Normal:
    if (sd < 0)
      return emitError() << "normal initializer needs std >= 0, got "
                         << text(sd);
    return success();
  case InitDistribution::Uniform:
    if (!(a < b))
      return emitError() << "uniform initializer needs a < b, got [" << text(a)
                         << ", " << text(b) << ")";
    return success();
  case InitDistribution::TruncatedNormal: {
    if (!(sd > 0))
      return emitError() << "truncated normal initializer needs std > 0, got "
                         << text(sd);
    if (!(a < b))
      return emitError() << "truncated normal initializer needs a < b, got ["
                         << text(a) << ", " << text(b) << "]";
    // The generator samples the tail nearer the mean's side in double: the
    // interval must hold probability it can represent.
    double alpha = (a - mean) / sd, beta = (b - mean) / sd;
    if (alpha >= 0)
      std::tie(alpha, beta) = std::make_pair(-beta, -alpha);
    if (!(normalCdf(beta) - normalCdf(alpha) > 0) || !std::isfinite(alpha) ||
        !std::isfinite(beta))
      return emitError() << "truncated normal initializer bounds [" << text(a)
                         << ", " << text(b) << "] hold no probability mass of "
                         << "normal(" << text(mean) << ", " << text(sd) << ")";
    return success();
  }
  }
  return emitError() << "unknown initializer distribution";
}

Attribute InitializerAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<InitDistribution> distribution =
      symbolizeInitDistribution(keyword);
  if (!distribution) {
    parser.emitError(loc) << "unknown initializer distribution '" << keyword
                          << "' (expected zeros, ones, normal, uniform or "
                             "truncated_normal)";
    return {};
  }
  // PyTorch's defaults: normal_(0, 1), uniform_(0, 1),
  // trunc_normal_(0, 1, -2, 2).
  bool truncated = *distribution == InitDistribution::TruncatedNormal;
  double mean = 0, sd = 1, a = truncated ? -2 : 0, b = truncated ? 2 : 1;
  uint64_t seed = 0;
  std::optional<uint64_t> stream;
  unsigned allowed = paramsOf(*distribution), seen = 0;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return {};
    unsigned bit = llvm::StringSwitch<unsigned>(key)
                       .Case("mean", kMean)
                       .Case("std", kStd)
                       .Case("a", kA)
                       .Case("b", kB)
                       .Case("seed", kSeed)
                       .Case("stream", kStream)
                       .Default(0);
    if (!(bit & allowed)) {
      parser.emitError(keyLoc) << "'" << key << "' is not a parameter of a "
                               << keyword << " initializer";
      return {};
    }
    if (seen & bit) {
      parser.emitError(keyLoc) << "'" << key << "' is given twice";
      return {};
    }
    seen |= bit;
    if (parser.parseEqual())
      return {};
    if (bit == kSeed || bit == kStream) {
      SMLoc valueLoc = parser.getCurrentLocation();
      uint64_t value;
      if (succeeded(parser.parseOptionalMinus())) {
        parser.emitError(valueLoc) << "'" << key << "' must be non-negative";
        return {};
      }
      if (parser.parseInteger(value))
        return {};
      if (bit == kSeed)
        seed = value;
      else
        stream = value;
      continue;
    }
    double value;
    if (parser.parseFloat(value))
      return {};
    (bit == kMean ? mean : bit == kStd ? sd : bit == kA ? a : b) = value;
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<InitializerAttr>(
      loc, parser.getContext(), *distribution, APFloat(mean), APFloat(sd),
      APFloat(a), APFloat(b), seed, stream);
}

void InitializerAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyInitDistribution(getDistribution());
  unsigned params = paramsOf(getDistribution());
  auto number = [&](const char *name, const APFloat &value) {
    printer << ", " << name << " = ";
    printer.printFloat(value);
  };
  if (params & kMean)
    number("mean", getMean());
  if (params & kStd)
    number("std", getStd());
  if (params & kA)
    number("a", getA());
  if (params & kB)
    number("b", getB());
  if (params & kSeed)
    printer << ", seed = " << getSeed();
  if (std::optional<uint64_t> stream = getStream();
      stream && (params & kStream))
    printer << ", stream = " << *stream;
  printer << ">";
}
