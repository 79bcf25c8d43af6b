//===- Provenance.h - Where the ops of a training graph come from -*- C++
//-*-===//
//
// oneflow-autodiff records, for every op of a training graph, its phase
// (forward, backward, update), the forward op it belongs to (its index in
// program order; -1 for glue such as micro-batch slicing) and its
// micro-batch. Pipelining places and orders ops by them. The record rides in
// the op's location (a FusedLoc's metadata), so it survives cloning and
// distribution and stays out of the printed IR.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TRANSFORMS_PROVENANCE_H
#define ONEFLOW_TRANSFORMS_PROVENANCE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace mlir {
namespace oneflow {

struct Provenance {
  StringRef phase; // "forward", "backward" or "update"
  int64_t opIndex = -1;
  int64_t microbatch = 0;
  /// The model chunk (virtual stage) of its rank an interleaved pipeline
  /// runs it in; 0 otherwise.
  int64_t chunk = 0;
};

namespace detail {
constexpr llvm::StringLiteral kProvenanceKey = "oneflow.provenance";
inline DictionaryAttr provenanceDict(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused)
    return {};
  auto dict = dyn_cast_or_null<DictionaryAttr>(fused.getMetadata());
  return dict && dict.get(kProvenanceKey) ? dict : DictionaryAttr();
}
} // namespace detail

/// The name a location carries: a NameLoc's (the ONNX node or parameter),
/// or the first one inside a FusedLoc (provenance records wrap it); empty
/// when there is none.
inline std::string locationName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = locationName(inner); !name.empty())
        return name;
  return "";
}

/// The provenance recorded on `op`, if any.
inline std::optional<Provenance> getProvenance(Operation *op) {
  DictionaryAttr dict = detail::provenanceDict(op->getLoc());
  if (!dict)
    return std::nullopt;
  auto values = cast<ArrayAttr>(dict.get(detail::kProvenanceKey));
  return Provenance{cast<StringAttr>(values[0]).getValue(),
                    cast<IntegerAttr>(values[1]).getInt(),
                    cast<IntegerAttr>(values[2]).getInt(),
                    values.size() > 3 ? cast<IntegerAttr>(values[3]).getInt()
                                      : 0};
}

/// The micro-batches the training graph under `root` was built with.
inline int64_t countMicrobatches(Operation *root) {
  int64_t count = 1;
  root->walk([&](Operation *op) {
    if (std::optional<Provenance> origin = getProvenance(op))
      count = std::max(count, origin->microbatch + 1);
  });
  return count;
}

/// Records `provenance` on `op` (replacing an earlier record).
inline void setProvenance(Operation *op, const Provenance &provenance) {
  Location loc = op->getLoc();
  if (detail::provenanceDict(loc))
    loc = cast<FusedLoc>(loc).getLocations().front();
  Builder b(op->getContext());
  SmallVector<Attribute, 4> fields = {
      b.getStringAttr(provenance.phase),
      b.getI64IntegerAttr(provenance.opIndex),
      b.getI64IntegerAttr(provenance.microbatch)};
  if (provenance.chunk != 0)
    fields.push_back(b.getI64IntegerAttr(provenance.chunk));
  auto record = b.getArrayAttr(fields);
  auto dict =
      b.getDictionaryAttr(b.getNamedAttr(detail::kProvenanceKey, record));
  op->setLoc(FusedLoc::get(op->getContext(), {loc}, dict));
}

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOW_TRANSFORMS_PROVENANCE_H
