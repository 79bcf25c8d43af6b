//===- TensorProtoIO.cpp - ONNX TensorProto files -------------------------===//

#include "oneflow/Runtime/TensorProtoIO.h"

#include "oneflow/Runtime/FileUtil.h"

#include "onnx/onnx_pb.h"

#include <cstring>

namespace oneflow {
namespace runtime {

namespace {

/// Copies a typed repeated field whose element type matches the tensor's.
template <typename Field>
void copyField(const Field &field, HostTensor &tensor) {
  if (!field.empty())
    std::memcpy(tensor.data.data(), field.data(),
                field.size() * sizeof(field.Get(0)));
}

} // namespace

plan::DataType dataTypeFromOnnx(int onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return plan::F32;
  case onnx::TensorProto::DOUBLE:
    return plan::F64;
  case onnx::TensorProto::FLOAT16:
    return plan::F16;
  case onnx::TensorProto::BFLOAT16:
    return plan::BF16;
  case onnx::TensorProto::INT32:
    return plan::I32;
  case onnx::TensorProto::INT64:
    return plan::I64;
  case onnx::TensorProto::BOOL:
    return plan::BOOL;
  default:
    return plan::DT_INVALID;
  }
}

Expected<HostTensor> parseTensorProto(const std::string &bytes,
                                      const std::string &source) {
  auto fail = [&](const auto &...parts) {
    return makeError("'", source, "': ", parts...);
  };
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes))
    return fail("not an ONNX TensorProto (protobuf parse error)");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail("the tensor's data is stored externally; "
                "external data is not supported");
  if (proto.has_segment())
    return fail("segmented tensors are not supported");

  HostTensor tensor;
  tensor.dtype = dataTypeFromOnnx(proto.data_type());
  if (tensor.dtype == plan::DT_INVALID)
    return fail(
        "unsupported ONNX data type ",
        onnx::TensorProto::DataType_Name(
            static_cast<onnx::TensorProto::DataType>(proto.data_type())),
        " (", proto.data_type(),
        "; supported: FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT32, INT64, "
        "BOOL)");
  tensor.shape.assign(proto.dims().begin(), proto.dims().end());
  int64_t count = tensor.numElements();
  int64_t size = tensorBytes(tensor.dtype, tensor.shape);
  if (count < 0 || size < 0)
    return fail("invalid dims ", tensor.describe());

  if (proto.has_raw_data()) {
    if (int64_t(proto.raw_data().size()) != size)
      return fail("raw_data has ", proto.raw_data().size(), " bytes, ",
                  tensor.describe(), " needs ", size);
    tensor.data.assign(proto.raw_data().begin(), proto.raw_data().end());
    return tensor;
  }

  // The typed field must hold every element before any memory is taken: a
  // damaged file may claim huge dims (found by fuzz/FuzzTensorProto.cpp).
  bool inFloat = tensor.dtype == plan::F32,
       inDouble = tensor.dtype == plan::F64,
       inInt64 = tensor.dtype == plan::I64;
  int64_t have = inFloat    ? proto.float_data_size()
                 : inDouble ? proto.double_data_size()
                 : inInt64  ? proto.int64_data_size()
                            : proto.int32_data_size();
  if (have != count)
    return fail(inFloat    ? "float_data"
                : inDouble ? "double_data"
                : inInt64  ? "int64_data"
                           : "int32_data",
                " has ", have, " values, ", tensor.describe(), " needs ",
                count);
  tensor.data.assign(size, 0);
  auto checkCount = [&](int64_t have, const char *field) -> Status {
    if (have == count)
      return Status::success();
    return fail(field, " has ", have, " values, ", tensor.describe(), " needs ",
                count);
  };
  Status status;
  switch (tensor.dtype) {
  case plan::F32:
    status = checkCount(proto.float_data_size(), "float_data");
    if (status.ok())
      copyField(proto.float_data(), tensor);
    break;
  case plan::F64:
    status = checkCount(proto.double_data_size(), "double_data");
    if (status.ok())
      copyField(proto.double_data(), tensor);
    break;
  case plan::I32:
    status = checkCount(proto.int32_data_size(), "int32_data");
    if (status.ok())
      copyField(proto.int32_data(), tensor);
    break;
  case plan::I64:
    status = checkCount(proto.int64_data_size(), "int64_data");
    if (status.ok())
      copyField(proto.int64_data(), tensor);
    break;
  case plan::F16:
  case plan::BF16:
    // One 16-bit pattern in the low bits of each int32.
    status = checkCount(proto.int32_data_size(), "int32_data");
    for (int64_t i = 0; status.ok() && i < count; ++i)
      tensor.as<uint16_t>()[i] = uint16_t(proto.int32_data(i) & 0xffff);
    break;
  case plan::BOOL:
    status = checkCount(proto.int32_data_size(), "int32_data");
    for (int64_t i = 0; status.ok() && i < count; ++i)
      tensor.as<uint8_t>()[i] = proto.int32_data(i) != 0;
    break;
  default:
    break;
  }
  if (!status.ok())
    return status;
  return tensor;
}

Expected<HostTensor> readTensorProtoFile(const std::string &path) {
  Expected<std::string> bytes = readFile(path);
  if (!bytes.ok())
    return bytes.error();
  return parseTensorProto(*bytes, path);
}

} // namespace runtime
} // namespace oneflow
