//===- OnnxExportTest.cpp - Trained weights back into an ONNX model -------===//

#include "RunHelpers.h"

#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/OnnxExport.h"

#include "onnx/onnx_pb.h"

#include <filesystem>
#include "gtest/gtest.h"

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

onnx::TensorProto *initializer(onnx::ModelProto &model, const std::string &name,
                               int type, std::vector<int64_t> dims) {
  onnx::TensorProto *proto = model.mutable_graph()->add_initializer();
  proto->set_name(name);
  proto->set_data_type(type);
  for (int64_t dim : dims)
    proto->add_dims(dim);
  return proto;
}

Variable variable(const std::string &name, plan::DataType dtype,
                  std::vector<int64_t> shape) {
  Variable v;
  v.name = name;
  v.dtype = dtype;
  v.shape = shape;
  return v;
}

HostTensor floats(std::vector<int64_t> shape, std::vector<float> values) {
  HostTensor tensor(plan::F32, shape);
  std::memcpy(tensor.data.data(), values.data(), values.size() * 4);
  return tensor;
}

const onnx::TensorProto &find(const onnx::ModelProto &model,
                              const std::string &name) {
  for (const onnx::TensorProto &proto : model.graph().initializer())
    if (proto.name() == name)
      return proto;
  throw std::runtime_error("no initializer " + name);
}

template <typename T> std::vector<T> raw(const onnx::TensorProto &proto) {
  std::vector<T> values(proto.raw_data().size() / sizeof(T));
  std::memcpy(values.data(), proto.raw_data().data(), proto.raw_data().size());
  return values;
}

/// A model with initializers "fc/w:0" f32[2,2] (float_data), "b" f16[2],
/// "shape" i64[2] (not a variable), "ext" f32[2] in an external file, and
/// "count" i64[1].
std::string writeModel(const TempDir &dir) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.mutable_graph()->set_name("g");
  onnx::TensorProto *w =
      initializer(model, "fc/w:0", onnx::TensorProto::FLOAT, {2, 2});
  for (float value : {9.f, 9.f, 9.f, 9.f})
    w->add_float_data(value);
  initializer(model, "b", onnx::TensorProto::FLOAT16, {2})
      ->set_raw_data(std::string(4, '\0'));
  onnx::TensorProto *shape =
      initializer(model, "shape", onnx::TensorProto::INT64, {2});
  shape->add_int64_data(3);
  shape->add_int64_data(4);
  onnx::TensorProto *ext =
      initializer(model, "ext", onnx::TensorProto::FLOAT, {2});
  ext->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [key, value] :
       {std::pair<const char *, const char *>{"location", "weights.data"},
        {"offset", "4"},
        {"length", "8"}}) {
    onnx::StringStringEntryProto *entry = ext->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  float external[3] = {0, 1.5f, 2.5f};
  EXPECT_TRUE(
      writeFileAtomic(dir.file("weights.data"),
                      std::string(reinterpret_cast<char *>(external), 12))
          .ok());
  initializer(model, "count", onnx::TensorProto::INT64, {1})->add_int64_data(0);
  EXPECT_TRUE(
      writeFileAtomic(dir.file("model.onnx"), model.SerializeAsString()).ok());
  return dir.file("model.onnx");
}

TEST(OnnxExport, ReplacesInitializersWithTrainedValues) {
  TempDir source, out;
  std::string model = writeModel(source);
  std::vector<Variable> variables = {
      variable("fc/w:0", plan::F32, {2, 2}),
      variable("b", plan::F32, {2}),
      variable("count", plan::I32, {1}),
      variable("fc/w:0.exp_avg", plan::F32, {2, 2}),
      variable("optimizer.step", plan::I64, {}),
  };
  HostTensor count(plan::I32, {1});
  count.as<int32_t>()[0] = -7;
  std::map<std::string, HostTensor> tensors = {
      {"fc/w:0", floats({2, 2}, {1, 2, 3, 4})},
      {"b", floats({2}, {0.5f, -1})},
      {"count", count},
  };
  Expected<OnnxExportSummary> summary =
      exportOnnx(model, out.file("trained.onnx"), variables, tensors);
  ASSERT_TRUE(summary.ok()) << summary.error().message();
  EXPECT_EQ(summary->replaced,
            (std::vector<std::string>{"fc/w:0", "b", "count"}));
  EXPECT_EQ(summary->optimizerState,
            (std::vector<std::string>{"fc/w:0.exp_avg", "optimizer.step"}));

  Expected<std::string> bytes = readFile(out.file("trained.onnx"));
  ASSERT_TRUE(bytes.ok());
  onnx::ModelProto trained;
  ASSERT_TRUE(trained.ParseFromString(*bytes));
  const onnx::TensorProto &w = find(trained, "fc/w:0");
  EXPECT_EQ(w.float_data_size(), 0);
  EXPECT_EQ(raw<float>(w), (std::vector<float>{1, 2, 3, 4}));
  const onnx::TensorProto &b = find(trained, "b");
  EXPECT_EQ(b.data_type(), onnx::TensorProto::FLOAT16);
  std::vector<uint16_t> half = raw<uint16_t>(b);
  ASSERT_EQ(half.size(), 2u);
  EXPECT_EQ(halfToFloat(half[0]), 0.5f);
  EXPECT_EQ(halfToFloat(half[1]), -1.f);
  EXPECT_EQ(raw<int64_t>(find(trained, "count")), std::vector<int64_t>{-7});
  // Untouched, but external data is inlined.
  EXPECT_EQ(find(trained, "shape").int64_data_size(), 2);
  const onnx::TensorProto &ext = find(trained, "ext");
  EXPECT_NE(ext.data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(ext.external_data_size(), 0);
  EXPECT_EQ(raw<float>(ext), (std::vector<float>{1.5f, 2.5f}));
}

TEST(OnnxExport, Errors) {
  TempDir source, out;
  std::string model = writeModel(source);
  std::vector<Variable> variables = {
      variable("fc/w:0", plan::F32, {4}),
      variable("ghost", plan::F32, {3}),
      variable("ghost.exp_avg", plan::F32, {3}),
      variable("b", plan::F32, {2}),
  };
  std::map<std::string, HostTensor> tensors = {
      {"fc/w:0", floats({4}, {1, 2, 3, 4})},
  };
  Expected<OnnxExportSummary> summary =
      exportOnnx(model, out.file("trained.onnx"), variables, tensors);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.error().message(),
            "cannot export ONNX: initializer 'fc/w:0' is f32[2,2] but "
            "variable 'fc/w:0' f32[4] has another shape\n"
            "cannot export ONNX: no value for variable 'b' f32[2]\n"
            "cannot export ONNX: variables without an initializer in '" +
                model + "': 'ghost' f32[3], 'ghost.exp_avg' f32[3]");
  EXPECT_FALSE(std::filesystem::exists(out.file("trained.onnx")));

  summary = exportOnnx(source.file("none.onnx"), out.file("t.onnx"), {}, {});
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.error().message().find("cannot export ONNX: cannot read"),
            std::string::npos);
  ASSERT_TRUE(
      writeFileAtomic(source.file("bad.onnx"), "\xff\xff garbage").ok());
  summary = exportOnnx(source.file("bad.onnx"), out.file("t.onnx"), {}, {});
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.error().message().find("is not an ONNX model"),
            std::string::npos);
}

} // namespace
