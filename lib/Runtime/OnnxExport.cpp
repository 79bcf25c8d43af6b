//===- OnnxExport.cpp - Trained weights back into an ONNX model -----------===//

#include "oneflow/Runtime/OnnxExport.h"

#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/TensorProtoIO.h"

#include "onnx/onnx_pb.h"

#include <climits>
#include <cstring>
#include <filesystem>
#include <set>

namespace oneflow {
namespace runtime {

namespace {

bool isFloating(plan::DataType dtype) {
  return dtype == plan::F32 || dtype == plan::F64 || dtype == plan::F16 ||
         dtype == plan::BF16;
}

double loadDouble(plan::DataType dtype, const uint8_t *p) {
  switch (dtype) {
  case plan::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case plan::F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case plan::F16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return halfToFloat(v);
  }
  case plan::BF16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return bfloat16ToFloat(v);
  }
  case plan::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case plan::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  default:
    return *p ? 1 : 0;
  }
}

int64_t loadInteger(plan::DataType dtype, const uint8_t *p) {
  if (dtype == plan::I64) {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (dtype == plan::I32) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (dtype == plan::BOOL)
    return *p ? 1 : 0;
  return int64_t(loadDouble(dtype, p));
}

void store(plan::DataType dtype, uint8_t *p, double value, int64_t integer,
           bool fromFloat) {
  switch (dtype) {
  case plan::F32: {
    float v = float(value);
    std::memcpy(p, &v, 4);
    break;
  }
  case plan::F64:
    std::memcpy(p, &value, 8);
    break;
  case plan::F16: {
    uint16_t v = floatToHalf(float(value));
    std::memcpy(p, &v, 2);
    break;
  }
  case plan::BF16: {
    uint16_t v = floatToBfloat16(float(value));
    std::memcpy(p, &v, 2);
    break;
  }
  case plan::I32: {
    int32_t v = int32_t(fromFloat ? int64_t(value) : integer);
    std::memcpy(p, &v, 4);
    break;
  }
  case plan::I64: {
    int64_t v = fromFloat ? int64_t(value) : integer;
    std::memcpy(p, &v, 8);
    break;
  }
  default:
    *p = (fromFloat ? value != 0 : integer != 0) ? 1 : 0;
  }
}

/// `tensor` in element type `dtype`, as little-endian raw bytes.
std::string convert(const HostTensor &tensor, plan::DataType dtype) {
  if (tensor.dtype == dtype)
    return std::string(tensor.data.begin(), tensor.data.end());
  const int64_t n = tensor.numElements();
  const int64_t in = elementSize(tensor.dtype), out = elementSize(dtype);
  std::string bytes(size_t(n * out), '\0');
  const bool fromFloat = isFloating(tensor.dtype);
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t *src = tensor.data.data() + i * in;
    uint8_t *dst = reinterpret_cast<uint8_t *>(bytes.data()) + i * out;
    if (fromFloat)
      store(dtype, dst, loadDouble(tensor.dtype, src), 0, true);
    else
      store(dtype, dst, double(loadInteger(tensor.dtype, src)),
            loadInteger(tensor.dtype, src), false);
  }
  return bytes;
}

void setRawData(onnx::TensorProto &proto, std::string bytes) {
  proto.clear_float_data();
  proto.clear_int32_data();
  proto.clear_string_data();
  proto.clear_int64_data();
  proto.clear_double_data();
  proto.clear_uint64_data();
  proto.clear_external_data();
  proto.set_data_location(onnx::TensorProto::DEFAULT);
  proto.set_raw_data(std::move(bytes));
}

/// Reads the external data of `proto` (relative to `modelDir`) into it.
Status inlineExternalData(onnx::TensorProto &proto,
                          const std::filesystem::path &modelDir) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : proto.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      offset = std::strtoll(entry.value().c_str(), nullptr, 10);
    else if (entry.key() == "length")
      length = std::strtoll(entry.value().c_str(), nullptr, 10);
  }
  if (location.empty())
    return makeError("initializer '", proto.name(),
                     "': external data without a location");
  std::string file = (modelDir / location).string();
  Expected<std::string> data = readFile(file);
  if (!data.ok())
    return makeError("initializer '", proto.name(),
                     "': ", data.error().message());
  int64_t size = int64_t(data->size());
  if (length < 0)
    length = size - offset;
  if (offset < 0 || offset > size || length > size - offset)
    return makeError("initializer '", proto.name(), "': '", file,
                     "' is too short for offset ", offset, " and length ",
                     length);
  setRawData(proto, data->substr(size_t(offset), size_t(length)));
  return Status::success();
}

} // namespace

Expected<OnnxExportSummary>
exportOnnx(const std::string &sourceModel, const std::string &path,
           const std::vector<Variable> &variables,
           const std::map<std::string, HostTensor> &tensors) {
  Expected<std::string> bytes = readFile(sourceModel);
  if (!bytes.ok())
    return makeError("cannot export ONNX: ", bytes.error().message());
  onnx::ModelProto model;
  if (!model.ParseFromString(*bytes))
    return makeError("cannot export ONNX: '", sourceModel,
                     "' is not an ONNX model (protobuf parse error)");
  bytes = std::string(); // Free it.
  const std::filesystem::path modelDir =
      std::filesystem::path(sourceModel).parent_path();

  onnx::GraphProto &graph = *model.mutable_graph();
  // A variable named after the output of an Identity of an initializer is
  // a value the exporter had merged with that initializer (equal data) and
  // training kept apart (a batch norm's running statistic): it becomes an
  // initializer of its own in place of the Identity.
  std::set<std::string> initializerNames;
  for (const onnx::TensorProto &proto : graph.initializer())
    initializerNames.insert(proto.name());
  std::set<std::string> variableNames;
  for (const Variable &variable : variables)
    variableNames.insert(variable.name);
  std::map<std::string, std::string> unmerged; // name -> initializer
  for (int i = 0; i < graph.node_size();) {
    const onnx::NodeProto &node = graph.node(i);
    if (node.op_type() == "Identity" && node.input_size() == 1 &&
        node.output_size() == 1 && initializerNames.count(node.input(0)) &&
        variableNames.count(node.output(0)) &&
        !initializerNames.count(node.output(0))) {
      unmerged[node.output(0)] = node.input(0);
      graph.mutable_node()->DeleteSubrange(i, 1);
      continue;
    }
    ++i;
  }
  for (const auto &[name, source] : unmerged)
    for (int i = 0, e = graph.initializer_size(); i < e; ++i)
      if (graph.initializer(i).name() == source) {
        onnx::TensorProto *copy = graph.add_initializer();
        *copy = graph.initializer(i);
        copy->set_name(name);
        break;
      }

  std::map<std::string, onnx::TensorProto *> initializers;
  for (onnx::TensorProto &proto : *graph.mutable_initializer())
    initializers.emplace(proto.name(), &proto);

  OnnxExportSummary summary;
  std::vector<std::string> problems, unmatched;
  std::set<std::string> matched;
  for (const Variable &variable : variables)
    if (initializers.count(variable.name))
      matched.insert(variable.name);
  for (const Variable &variable : variables) {
    auto it = initializers.find(variable.name);
    if (it == initializers.end()) {
      bool state = variable.name == "optimizer.step";
      for (size_t dot = variable.name.find('.');
           !state && dot != std::string::npos;
           dot = variable.name.find('.', dot + 1))
        state = matched.count(variable.name.substr(0, dot)) > 0;
      if (state)
        summary.optimizerState.push_back(variable.name);
      else
        unmatched.push_back(variable.describe());
      continue;
    }
    onnx::TensorProto &proto = *it->second;
    auto value = tensors.find(variable.name);
    if (value == tensors.end()) {
      problems.push_back("no value for variable " + variable.describe());
      continue;
    }
    std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
    plan::DataType dtype = dataTypeFromOnnx(proto.data_type());
    if (dims != value->second.shape) {
      problems.push_back(
          "initializer '" + proto.name() + "' is " +
          describeTensor(dtype == plan::DT_INVALID ? plan::F32 : dtype, dims) +
          " but variable " + variable.describe() + " has another shape");
      continue;
    }
    if (dtype == plan::DT_INVALID) {
      problems.push_back(
          "initializer '" + proto.name() + "' has ONNX element type " +
          std::to_string(proto.data_type()) + ", which export does not write");
      continue;
    }
    setRawData(proto, convert(value->second, dtype));
    summary.replaced.push_back(variable.name);
  }
  if (!unmatched.empty()) {
    std::string list;
    for (const std::string &name : unmatched)
      list += (list.empty() ? "" : ", ") + name;
    problems.push_back("variables without an initializer in '" + sourceModel +
                       "': " + list);
  }
  // Initializers left with external data would point next to the source.
  for (onnx::TensorProto &proto : *graph.mutable_initializer())
    if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
      Status status = inlineExternalData(proto, modelDir);
      if (!status.ok())
        problems.push_back(status.message());
    }
  if (problems.empty() && model.ByteSizeLong() > size_t(INT_MAX))
    problems.push_back("the model is larger than 2 GiB, protobuf's limit "
                       "(external data is not written)");
  if (!problems.empty()) {
    std::string text;
    for (const std::string &problem : problems)
      text += (text.empty() ? "" : "\n") + ("cannot export ONNX: " + problem);
    return Status::error(text);
  }
  std::string out;
  if (!model.SerializeToString(&out))
    return makeError("cannot export ONNX: serializing the model failed");
  Status written = writeFileAtomic(path, out);
  if (!written.ok())
    return written;
  return summary;
}

} // namespace runtime
} // namespace oneflow
