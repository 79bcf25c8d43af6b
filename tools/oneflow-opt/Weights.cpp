//===- Weights.cpp - Variable data from a checkpoint directory ------------===//

#include "Weights.h"

#include "oneflow/Dialect/OneFlow/ElementTypeName.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Runtime/Crc32c.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace {

/// One tensor of the manifest and its file's bytes.
struct WeightFile {
  std::string dtype;
  SmallVector<int64_t> shape;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  size_t dataOffset = 0;
  bool used = false;
};

/// The numpy descr of a manifest dtype; empty when unsupported.
StringRef npyDescr(StringRef dtype) {
  return llvm::StringSwitch<StringRef>(dtype)
      .Case("f32", "<f4")
      .Case("f64", "<f8")
      .Case("i32", "<i4")
      .Case("i64", "<i8")
      .Default("");
}

/// The manifest dtype of an element type; empty when unsupported.
std::string dtypeOf(Type type) {
  return mlir::oneflow::elementTypeName(type).str();
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "," : "") + std::to_string(d);
  return s + "]";
}

/// Parses a .npy header (versions 1 to 3, C order); an error message or "".
std::string parseNpy(WeightFile &file) {
  StringRef bytes = file.buffer->getBuffer();
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return "not a .npy file";
  uint8_t major = bytes[6];
  size_t headerLength, start;
  if (major == 1) {
    headerLength = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    start = 10;
  } else {
    if (bytes.size() < 12)
      return "truncated .npy header";
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    start = 12;
  }
  if (start + headerLength > bytes.size())
    return "truncated .npy header";
  StringRef header = bytes.substr(start, headerLength);
  file.dataOffset = start + headerLength;
  std::string descr = "'descr': '" + npyDescr(file.dtype).str() + "'";
  if (!header.contains(descr))
    return "its .npy dtype is not " + npyDescr(file.dtype).str() + " (" +
           file.dtype + ")";
  if (!header.contains("'fortran_order': False"))
    return "its .npy data is not in C order";
  size_t open = header.find("'shape': (");
  size_t close = open == StringRef::npos ? open : header.find(')', open);
  if (close == StringRef::npos)
    return "its .npy header has no shape";
  SmallVector<StringRef> parts;
  header.substr(open + 10, close - open - 10)
      .split(parts, ',', -1, /*KeepEmpty=*/false);
  SmallVector<int64_t> shape;
  for (StringRef part : parts) {
    int64_t d;
    if (part.trim().getAsInteger(10, d))
      return "its .npy shape is malformed";
    shape.push_back(d);
  }
  if (shape != file.shape)
    return "its .npy shape " + shapeString(shape) +
           " differs from the manifest's " + shapeString(file.shape);
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  size_t elementBytes = file.dtype == "f32" || file.dtype == "i32" ? 4 : 8;
  if (bytes.size() - file.dataOffset != size_t(count) * elementBytes)
    return "its .npy file holds " +
           std::to_string(bytes.size() - file.dataOffset) +
           " bytes of data, its shape needs " +
           std::to_string(count * elementBytes);
  return "";
}

} // namespace

LogicalResult mlir::oneflow::attachWeights(ModuleOp module, StringRef dir) {
  Location loc = module.getLoc();
  SmallString<256> manifestPath(dir);
  llvm::sys::path::append(manifestPath, "manifest.json");
  auto manifestBuffer = llvm::MemoryBuffer::getFile(manifestPath);
  if (!manifestBuffer)
    return emitError(loc) << "--weights: cannot read '" << manifestPath
                          << "': " << manifestBuffer.getError().message();
  llvm::Expected<llvm::json::Value> manifest =
      llvm::json::parse((*manifestBuffer)->getBuffer());
  if (!manifest)
    return emitError(loc) << "--weights: '" << manifestPath << "' is not JSON: "
                          << llvm::toString(manifest.takeError());
  const llvm::json::Object *root = manifest->getAsObject();
  const llvm::json::Array *variables =
      root ? root->getArray("variables") : nullptr;
  if (!variables)
    return emitError(loc) << "--weights: '" << manifestPath
                          << "' has no \"variables\" array";

  bool ok = true;
  auto fail = [&](const Twine &message) {
    emitError(loc) << "--weights: " << message;
    ok = false;
  };
  llvm::StringMap<WeightFile> files;
  for (const llvm::json::Value &entry : *variables) {
    const llvm::json::Object *object = entry.getAsObject();
    std::optional<StringRef> name = object ? object->getString("name") : "";
    std::optional<StringRef> fileName =
        object ? object->getString("file") : std::nullopt;
    std::optional<StringRef> dtype =
        object ? object->getString("dtype") : std::nullopt;
    const llvm::json::Array *shape =
        object ? object->getArray("shape") : nullptr;
    if (!name || !fileName || !dtype || !shape) {
      fail("a manifest entry lacks name, file, dtype or shape");
      continue;
    }
    WeightFile file;
    file.dtype = dtype->str();
    if (npyDescr(*dtype).empty()) {
      fail("variable '" + *name + "' has unsupported dtype '" + *dtype + "'");
      continue;
    }
    for (const llvm::json::Value &d : *shape)
      file.shape.push_back(d.getAsInteger().value_or(-1));
    if (fileName->contains('/') || *fileName == "..") {
      fail("variable '" + *name + "': file '" + *fileName +
           "' is not a plain file name");
      continue;
    }
    SmallString<256> path(dir);
    llvm::sys::path::append(path, *fileName);
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      fail("cannot read '" + path + "': " + buffer.getError().message());
      continue;
    }
    file.buffer = std::move(*buffer);
    // Version 2 manifests record each file's CRC-32C (docs/runtime.md).
    if (std::optional<StringRef> recorded = object->getString("crc32c")) {
      StringRef bytes = file.buffer->getBuffer();
      std::string actual = ::oneflow::runtime::formatCrc32c(
          ::oneflow::runtime::crc32c(bytes.data(), bytes.size()));
      if (actual != *recorded) {
        fail("variable '" + *name + "': '" + path +
             "' is damaged: its CRC-32C is " + actual +
             ", the manifest recorded " + *recorded);
        continue;
      }
    } else if (root->getInteger("version").value_or(1) >= 2) {
      fail("variable '" + *name + "' has no \"crc32c\" in '" + manifestPath +
           "'");
      continue;
    }
    std::string error = parseNpy(file);
    if (!error.empty()) {
      fail("variable '" + *name + "' ('" + path + "'): " + error);
      continue;
    }
    files[*name] = std::move(file);
  }
  if (!ok)
    return failure();

  module.walk([&](mlir::oneflow::VariableOp variable) {
    auto it = files.find(variable.getVarName());
    if (it == files.end())
      return;
    WeightFile &file = it->second;
    auto type = cast<RankedTensorType>(variable.getType());
    if (dtypeOf(type.getElementType()) != file.dtype ||
        type.getShape() != ArrayRef<int64_t>(file.shape)) {
      variable.emitError() << "--weights: variable '" << variable.getVarName()
                           << "' is " << dtypeOf(type.getElementType())
                           << shapeString(type.getShape())
                           << " in the model but " << file.dtype
                           << shapeString(file.shape) << " in '" << dir << "'";
      ok = false;
      return;
    }
    file.used = true;
    StringRef data = file.buffer->getBuffer().substr(file.dataOffset);
    variable.setInitialValueAttr(DenseResourceElementsAttr::get(
        type, variable.getVarName(),
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(data.data(), data.size()), alignof(double))));
    variable.removeInitializerAttr();
  });
  for (auto &entry : files)
    if (!entry.second.used)
      fail("'" + dir + "' holds '" + entry.first() +
           "', which no variable of the model reads");
  return success(ok);
}
