//===- TensorConversion.cpp - ONNX tensors and types to MLIR --------------===//

#include "ImportContext.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"

#include <cstring>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

Type onnx_import::convertElementType(MLIRContext *context, int32_t onnxType) {
  Builder b(context);
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

std::string onnx_import::onnxTypeName(int32_t onnxType) {
  if (onnx::TensorProto::DataType_IsValid(onnxType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(onnxType));
  return "<unknown type " + std::to_string(onnxType) + ">";
}

/// Bytes per element of the element types we handle (i1 is one byte in ONNX).
static size_t elementBytes(Type type) {
  return type.isInteger(1) ? 1 : type.getIntOrFloatBitWidth() / 8;
}

ElementsAttr onnx_import::convertTensorProto(const onnx::TensorProto &tensor,
                                             RankedTensorType type,
                                             llvm::StringRef resourceName,
                                             bool preferResource,
                                             std::string &error) {
  int64_t numElements = type.getNumElements();
  Type elementType = type.getElementType();
  size_t bytesPerElement = elementBytes(elementType);
  std::vector<char> bytes;

  auto fail = [&](const std::string &msg) -> ElementsAttr {
    error = msg;
    return {};
  };
  auto checkCount = [&](int64_t count) { return count == numElements; };

  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if ((int64_t)raw.size() != numElements * (int64_t)bytesPerElement)
      return fail("has " + std::to_string(raw.size()) +
                  " bytes of data but its shape needs " +
                  std::to_string(numElements * bytesPerElement));
    // Large weights go straight into their blob: one copy, no staging.
    if (preferResource && !elementType.isInteger(1))
      return DenseResourceElementsAttr::get(
          type, resourceName,
          HeapAsmResourceBlob::allocateAndCopyWithAlign(
              ArrayRef<char>(raw.data(), raw.size()), alignof(double)));
    bytes.assign(raw.begin(), raw.end());
  } else {
    // Typed fields: ONNX stores 16-bit floats, bools and int32 in int32_data.
    auto append = [&](const void *data, size_t size) {
      const char *begin = static_cast<const char *>(data);
      bytes.insert(bytes.end(), begin, begin + size);
    };
    switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (!checkCount(tensor.float_data_size()))
        return fail("has " + std::to_string(tensor.float_data_size()) +
                    " values but its shape needs " +
                    std::to_string(numElements));
      append(tensor.float_data().data(), numElements * 4);
      break;
    case onnx::TensorProto::DOUBLE:
      if (!checkCount(tensor.double_data_size()))
        return fail("has " + std::to_string(tensor.double_data_size()) +
                    " values but its shape needs " +
                    std::to_string(numElements));
      append(tensor.double_data().data(), numElements * 8);
      break;
    case onnx::TensorProto::INT64:
      if (!checkCount(tensor.int64_data_size()))
        return fail("has " + std::to_string(tensor.int64_data_size()) +
                    " values but its shape needs " +
                    std::to_string(numElements));
      append(tensor.int64_data().data(), numElements * 8);
      break;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::BOOL: {
      if (!checkCount(tensor.int32_data_size()))
        return fail("has " + std::to_string(tensor.int32_data_size()) +
                    " values but its shape needs " +
                    std::to_string(numElements));
      for (int32_t v : tensor.int32_data()) {
        if (bytesPerElement == 4) {
          append(&v, 4);
        } else if (bytesPerElement == 2) {
          uint16_t bits = static_cast<uint16_t>(v);
          append(&bits, 2);
        } else {
          char flag = v != 0;
          append(&flag, 1);
        }
      }
      break;
    }
    default:
      return fail("has unsupported element type " +
                  onnxTypeName(tensor.data_type()));
    }
  }

  if (elementType.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, values);
  }
  if (preferResource) {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(bytes.data(), bytes.size()), alignof(double));
    return DenseResourceElementsAttr::get(type, resourceName, std::move(blob));
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(bytes.data(), bytes.size()));
}

DenseElementsAttr onnx_import::getDenseElements(ElementsAttr attr) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(attr))
    return dense;
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(attr);
  if (!resource)
    return {};
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob)
    return {};
  auto type = cast<RankedTensorType>(resource.getType());
  ArrayRef<char> data = blob->getData();
  if ((int64_t)data.size() !=
      type.getNumElements() * (int64_t)elementBytes(type.getElementType()))
    return {};
  return DenseElementsAttr::getFromRawBuffer(type, data);
}
