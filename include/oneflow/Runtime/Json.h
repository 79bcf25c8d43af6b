//===- Json.h - A small JSON reader and writer helpers ----------*- C++ -*-===//
//
// Enough JSON for the runtime's own files (checkpoint manifests, metrics,
// traces): strings are UTF-8, numbers keep their text so that 64-bit
// integers read back exactly.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_JSON_H
#define ONEFLOW_RUNTIME_JSON_H

#include "oneflow/Runtime/Status.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  std::string text; // String: the value; Number: its spelling
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members; // in file order

  /// Object member `key`, or nullptr (also when this is not an object).
  const JsonValue *find(const std::string &key) const;
  /// A Number that is an integer in int64 range (no fraction, no exponent).
  bool isInteger() const;
  int64_t asInteger() const;
  double asDouble() const;
};

/// Parses one JSON document (RFC 8259; nesting up to 64 levels); errors
/// name the byte offset.
Expected<JsonValue> parseJson(const std::string &text);

/// Appends `text` as a JSON string literal (quotes, escapes).
void appendJsonString(std::string &out, const std::string &text);

/// A finite double as the shortest text that reads back to the same value
/// ("0.1", "3", "1e-07"), or to the same float with `singlePrecision` (so
/// an f32 0.1f is "0.1"); NaN and infinities (which JSON lacks) as null.
std::string jsonNumber(double value, bool singlePrecision = false);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_JSON_H
