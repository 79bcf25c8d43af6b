//===- NpyIO.cpp - NumPy .npy files ---------------------------------------===//
//
// Format: "\x93NUMPY", major, minor, header length (2 bytes in 1.0, 4 in
// 2.0/3.0, little-endian), then a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (8, 64), }
// padded with spaces and a newline, then the raw data.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/NpyIO.h"

#include "oneflow/Runtime/FileUtil.h"

#include <cctype>
#include <cstring>

namespace oneflow {
namespace runtime {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct DescrEntry {
  const char *descr;
  plan::DataType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {"<f4", plan::F32}, {"<f8", plan::F64}, {"<f2", plan::F16},
    {"<i4", plan::I32}, {"<i8", plan::I64}, {"|b1", plan::BOOL},
};

/// A cursor over the header dict; just enough Python literal syntax for
/// what NumPy writes (and hand-written variants of it).
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseWord(std::string &out) {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() &&
           std::isalpha(static_cast<unsigned char>(text[pos])))
      ++pos;
    out = text.substr(start, pos - start);
    return !out.empty();
  }
  bool parseInt(int64_t &out) {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[pos])))
      ++pos;
    if (start == pos || pos - start > 18)
      return false;
    out = std::stoll(text.substr(start, pos - start));
    // Python 2 era files may write "8L".
    if (pos < text.size() && text[pos] == 'L')
      ++pos;
    return true;
  }
  /// "(8, 64)", "(5,)", "()".
  bool parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return false;
    while (!consume(')')) {
      int64_t dim;
      if (!parseInt(dim))
        return false;
      shape.push_back(dim);
      if (!consume(',')) {
        return consume(')');
      }
    }
    return true;
  }

private:
  const std::string &text;
  size_t pos = 0;
};

uint32_t readLE(const std::string &bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= uint32_t(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return value;
}

} // namespace

Expected<HostTensor> parseNpy(const std::string &bytes,
                              const std::string &source) {
  auto fail = [&](const auto &...parts) {
    return makeError("'", source, "': ", parts...);
  };
  if (bytes.size() < kMagicSize + 2 ||
      std::memcmp(bytes.data(), kMagic, kMagicSize) != 0)
    return fail("not a .npy file (bad magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3)
    return fail("unsupported .npy version ", major, ".", minor);
  size_t lengthWidth = major == 1 ? 2 : 4;
  size_t headerStart = kMagicSize + 2 + lengthWidth;
  if (bytes.size() < headerStart)
    return fail("truncated .npy header");
  size_t headerLength = readLE(bytes, kMagicSize + 2, lengthWidth);
  if (bytes.size() - headerStart < headerLength)
    return fail("truncated .npy header");
  std::string header = bytes.substr(headerStart, headerLength);

  // The dict: keys in any order.
  HeaderParser parser(header);
  std::string descr;
  bool haveDescr = false, haveOrder = false, haveShape = false;
  bool fortran = false;
  HostTensor tensor;
  if (!parser.consume('{'))
    return fail("malformed .npy header: ", header);
  while (!parser.consume('}')) {
    std::string key;
    if (!parser.parseString(key) || !parser.consume(':'))
      return fail("malformed .npy header: ", header);
    bool ok = true;
    if (key == "descr") {
      ok = parser.parseString(descr);
      haveDescr = true;
    } else if (key == "fortran_order") {
      std::string word;
      ok = parser.parseWord(word) && (word == "True" || word == "False");
      fortran = word == "True";
      haveOrder = true;
    } else if (key == "shape") {
      ok = parser.parseShape(tensor.shape);
      haveShape = true;
    } else {
      ok = false;
    }
    if (!ok)
      return fail("malformed .npy header: ", header);
    if (!parser.consume(',')) {
      if (!parser.consume('}'))
        return fail("malformed .npy header: ", header);
      break;
    }
  }
  if (!haveDescr || !haveOrder || !haveShape)
    return fail("malformed .npy header (needs descr, fortran_order and "
                "shape): ",
                header);
  if (fortran)
    return fail("Fortran-order arrays are not supported (save a C-order "
                "array, e.g. np.ascontiguousarray)");
  for (const DescrEntry &entry : kDescrs)
    if (descr == entry.descr)
      tensor.dtype = entry.dtype;
  if (tensor.dtype == plan::DT_INVALID)
    return fail("unsupported dtype '", descr,
                "' (supported: <f4 <f8 <f2 <i4 <i8 |b1)");

  int64_t size = tensorBytes(tensor.dtype, tensor.shape);
  if (size < 0)
    return fail("shape too large");
  size_t dataStart = headerStart + headerLength;
  size_t available = bytes.size() - dataStart;
  if (available < uint64_t(size))
    return fail("truncated data: ", tensor.describe(), " needs ", size,
                " bytes, the file has ", available);
  if (available > uint64_t(size))
    return fail(available - size, " unexpected bytes after the data of ",
                tensor.describe());
  tensor.data.assign(bytes.begin() + dataStart, bytes.end());
  return tensor;
}

Expected<HostTensor> readNpyFile(const std::string &path) {
  Expected<std::string> bytes = readFile(path);
  if (!bytes.ok())
    return bytes.error();
  return parseNpy(*bytes, path);
}

Expected<std::string> encodeNpy(const HostTensor &tensor) {
  const char *descr = nullptr;
  for (const DescrEntry &entry : kDescrs)
    if (entry.dtype == tensor.dtype)
      descr = entry.descr;
  if (!descr)
    return makeError(dataTypeName(tensor.dtype), " has no .npy dtype");
  if (int64_t(tensor.data.size()) != tensorBytes(tensor.dtype, tensor.shape))
    return makeError("tensor ", tensor.describe(), " holds ",
                     tensor.data.size(), " bytes");

  std::string dict = "{'descr': '" + std::string(descr) +
                     "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    dict += (i ? ", " : "") + std::to_string(tensor.shape[i]);
  if (tensor.shape.size() == 1)
    dict += ','; // A 1-tuple: "(5,)".
  dict += "), }";
  // NumPy pads the header (with its newline) so the data is 64-aligned.
  auto padding = [&](size_t lengthWidth) {
    size_t unpadded = kMagicSize + 2 + lengthWidth + dict.size() + 1;
    return (64 - unpadded % 64) % 64;
  };
  // Version 1.0 stores the header length in 2 bytes.
  size_t lengthWidth = dict.size() + padding(2) + 1 > 65535 ? 4 : 2;
  dict.append(padding(lengthWidth), ' ');
  dict += '\n';

  std::string out(kMagic, kMagicSize);
  out += char(lengthWidth == 2 ? 1 : 2);
  out += char(0);
  for (size_t i = 0; i < lengthWidth; ++i)
    out += char((dict.size() >> (8 * i)) & 0xff);
  out += dict;
  out.append(reinterpret_cast<const char *>(tensor.data.data()),
             tensor.data.size());
  return out;
}

Status writeNpyFile(const std::string &path, const HostTensor &tensor) {
  Expected<std::string> bytes = encodeNpy(tensor);
  if (!bytes.ok())
    return makeError("cannot write '", path, "': ", bytes.error().message());
  return writeFileAtomic(path, *bytes);
}

} // namespace runtime
} // namespace oneflow
