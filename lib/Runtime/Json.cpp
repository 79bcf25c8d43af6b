//===- Json.cpp - A small JSON reader and writer helpers ------------------===//

#include "oneflow/Runtime/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace oneflow {
namespace runtime {

const JsonValue *JsonValue::find(const std::string &key) const {
  if (kind != Object)
    return nullptr;
  for (const auto &[name, value] : members)
    if (name == key)
      return &value;
  return nullptr;
}

bool JsonValue::isInteger() const {
  if (kind != Number || text.find_first_of(".eE") != std::string::npos)
    return false;
  errno = 0;
  char *end = nullptr;
  std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && end && *end == '\0';
}

int64_t JsonValue::asInteger() const {
  return isInteger() ? int64_t(std::strtoll(text.c_str(), nullptr, 10)) : 0;
}

double JsonValue::asDouble() const {
  return kind == Number ? std::strtod(text.c_str(), nullptr) : 0.0;
}

namespace {

class Parser {
public:
  explicit Parser(const std::string &text) : text(text) {}

  Expected<JsonValue> document() {
    JsonValue value;
    Status status = parseValue(value, 0);
    if (status.ok()) {
      skipSpace();
      if (at < text.size())
        status = error("unexpected text after the value");
    }
    if (!status.ok())
      return status;
    return value;
  }

private:
  Status error(const std::string &what) const {
    return makeError("invalid JSON at byte ", at, ": ", what);
  }

  void skipSpace() {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' ||
                                text[at] == '\n' || text[at] == '\r'))
      ++at;
  }

  bool consume(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (text.compare(at, n, word) != 0)
      return false;
    at += n;
    return true;
  }

  Status parseValue(JsonValue &value, int depth) {
    if (depth > 64)
      return error("nested too deeply");
    skipSpace();
    if (at >= text.size())
      return error("unexpected end");
    char c = text[at];
    if (c == '{')
      return parseObject(value, depth);
    if (c == '[')
      return parseArray(value, depth);
    if (c == '"') {
      value.kind = JsonValue::String;
      return parseString(value.text);
    }
    if (consume("true")) {
      value.kind = JsonValue::Bool;
      value.boolean = true;
      return Status::success();
    }
    if (consume("false")) {
      value.kind = JsonValue::Bool;
      return Status::success();
    }
    if (consume("null")) {
      value.kind = JsonValue::Null;
      return Status::success();
    }
    return parseNumber(value);
  }

  Status parseNumber(JsonValue &value) {
    size_t begin = at;
    auto digits = [&] {
      size_t start = at;
      while (at < text.size() && text[at] >= '0' && text[at] <= '9')
        ++at;
      return at > start;
    };
    if (at < text.size() && text[at] == '-')
      ++at;
    if (at < text.size() && text[at] == '0')
      ++at;
    else if (!digits())
      return error("expected a value");
    if (at < text.size() && text[at] == '.') {
      ++at;
      if (!digits())
        return error("expected digits after '.'");
    }
    if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
      ++at;
      if (at < text.size() && (text[at] == '+' || text[at] == '-'))
        ++at;
      if (!digits())
        return error("expected an exponent");
    }
    value.kind = JsonValue::Number;
    value.text = text.substr(begin, at - begin);
    return Status::success();
  }

  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xC0 | (code >> 6));
      out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += char(0xE0 | (code >> 12));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    } else {
      out += char(0xF0 | (code >> 18));
      out += char(0x80 | ((code >> 12) & 0x3F));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    }
  }

  bool hex4(uint32_t &code) {
    if (at + 4 > text.size())
      return false;
    code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[at++];
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        code |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        code |= uint32_t(c - 'A' + 10);
      else
        return false;
    }
    return true;
  }

  Status parseString(std::string &out) {
    ++at; // '"'
    out.clear();
    while (true) {
      if (at >= text.size())
        return error("unterminated string");
      unsigned char c = static_cast<unsigned char>(text[at++]);
      if (c == '"')
        return Status::success();
      if (c < 0x20)
        return error("control character in a string");
      if (c != '\\') {
        out += char(c);
        continue;
      }
      if (at >= text.size())
        return error("unterminated string");
      char e = text[at++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t code;
        if (!hex4(code))
          return error("bad \\u escape");
        if (code >= 0xD800 && code < 0xDC00) {
          uint32_t low;
          if (!consume("\\u") || !hex4(low) || low < 0xDC00 || low >= 0xE000)
            return error("unpaired surrogate");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code < 0xE000) {
          return error("unpaired surrogate");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        return error(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  /// Consumes `c` if it is next.
  bool consumeChar(char c) {
    if (at >= text.size() || text[at] != c)
      return false;
    ++at;
    return true;
  }

  /// The comma-separated elements of an array or object, after its opening
  /// bracket, up to and including `close`; `parseElement` parses one.
  template <typename ParseElement>
  Status parseElements(char close, ParseElement parseElement) {
    skipSpace();
    if (consumeChar(close))
      return Status::success();
    while (true) {
      Status status = parseElement();
      if (!status.ok())
        return status;
      skipSpace();
      if (consumeChar(','))
        continue;
      if (consumeChar(close))
        return Status::success();
      return error(std::string("expected ',' or '") + close + "'");
    }
  }

  Status parseArray(JsonValue &value, int depth) {
    ++at; // '['
    value.kind = JsonValue::Array;
    return parseElements(']', [&] {
      value.items.emplace_back();
      return parseValue(value.items.back(), depth + 1);
    });
  }

  Status parseObject(JsonValue &value, int depth) {
    ++at; // '{'
    value.kind = JsonValue::Object;
    return parseElements('}', [&] {
      skipSpace();
      if (at >= text.size() || text[at] != '"')
        return error("expected a member name");
      std::string key;
      Status status = parseString(key);
      if (!status.ok())
        return status;
      skipSpace();
      if (!consumeChar(':'))
        return error("expected ':'");
      value.members.emplace_back(std::move(key), JsonValue());
      return parseValue(value.members.back().second, depth + 1);
    });
  }

  const std::string &text;
  size_t at = 0;
};

} // namespace

Expected<JsonValue> parseJson(const std::string &text) {
  return Parser(text).document();
}

void appendJsonString(std::string &out, const std::string &text) {
  out += '"';
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char escape[8];
        std::snprintf(escape, sizeof(escape), "\\u%04x", c);
        out += escape;
      } else {
        out += char(c);
      }
    }
  }
  out += '"';
}

std::string jsonNumber(double value, bool singlePrecision) {
  if (!std::isfinite(value))
    return "null";
  char text[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof(text), "%.*g", precision, value);
    if (singlePrecision ? std::strtof(text, nullptr) == float(value)
                        : std::strtod(text, nullptr) == value)
      break;
  }
  // "30", not "3e+01": plain digits up to 1e16.
  for (int precision = 2;
       std::strstr(text, "e+") && std::fabs(value) < 1e16 && precision <= 17;
       ++precision)
    std::snprintf(text, sizeof(text), "%.*g", precision, value);
  return text;
}

} // namespace runtime
} // namespace oneflow
