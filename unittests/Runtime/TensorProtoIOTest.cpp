//===- TensorProtoIOTest.cpp - ONNX TensorProto inputs --------------------===//

#include "TestSupport.h"

#include "oneflow/Runtime/TensorProtoIO.h"

#include "onnx/onnx_pb.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

Expected<HostTensor> parse(const onnx::TensorProto &proto) {
  return parseTensorProto(proto.SerializeAsString(), "t.pb");
}

onnx::TensorProto tensor(int type, std::vector<int64_t> dims) {
  onnx::TensorProto proto;
  proto.set_name("ignored");
  proto.set_data_type(type);
  for (int64_t dim : dims)
    proto.add_dims(dim);
  return proto;
}

TEST(TensorProto, RawData) {
  onnx::TensorProto proto = tensor(onnx::TensorProto::FLOAT, {2, 2});
  std::vector<float> data = {1, 2, 3, 4};
  proto.set_raw_data(std::string(reinterpret_cast<char *>(data.data()), 16));
  Expected<HostTensor> t = parse(proto);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->dtype, plan::F32);
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(*t), data);

  proto = tensor(onnx::TensorProto::BFLOAT16, {3});
  proto.set_raw_data(std::string("\x01\x02\x03\x04\x05\x06", 6));
  t = parse(proto);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->dtype, plan::BF16);
  EXPECT_EQ(t->as<uint16_t>()[2], 0x0605);
}

TEST(TensorProto, TypedFields) {
  onnx::TensorProto f32 = tensor(onnx::TensorProto::FLOAT, {3});
  for (float v : {1.5f, -2.f, 8.f})
    f32.add_float_data(v);
  Expected<HostTensor> t = parse(f32);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(values(*t), (std::vector<float>{1.5f, -2.f, 8.f}));

  onnx::TensorProto f64 = tensor(onnx::TensorProto::DOUBLE, {2});
  f64.add_double_data(0.25);
  f64.add_double_data(-1e300);
  t = parse(f64);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->dtype, plan::F64);
  EXPECT_EQ(t->as<double>()[1], -1e300);

  onnx::TensorProto i64 = tensor(onnx::TensorProto::INT64, {2, 1});
  i64.add_int64_data(-5);
  i64.add_int64_data(1ll << 40);
  t = parse(i64);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->dtype, plan::I64);
  EXPECT_EQ(t->as<int64_t>()[1], 1ll << 40);

  onnx::TensorProto i32 = tensor(onnx::TensorProto::INT32, {});
  i32.add_int32_data(-7);
  t = parse(i32);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->shape, std::vector<int64_t>{});
  EXPECT_EQ(t->as<int32_t>()[0], -7);

  // float16, bfloat16 and bool: one element per int32_data entry.
  onnx::TensorProto f16 = tensor(onnx::TensorProto::FLOAT16, {2});
  f16.add_int32_data(0x3c00); // 1.0
  f16.add_int32_data(0xc000); // -2.0
  t = parse(f16);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->dtype, plan::F16);
  EXPECT_EQ(t->as<uint16_t>()[0], 0x3c00);
  EXPECT_EQ(t->as<uint16_t>()[1], 0xc000);

  onnx::TensorProto bf16 = tensor(onnx::TensorProto::BFLOAT16, {1});
  bf16.add_int32_data(0x3fc0);
  t = parse(bf16);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->dtype, plan::BF16);
  EXPECT_EQ(values(widenBF16(*t)), std::vector<float>{1.5f});

  onnx::TensorProto b = tensor(onnx::TensorProto::BOOL, {3});
  for (int v : {1, 0, 1})
    b.add_int32_data(v);
  t = parse(b);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->dtype, plan::BOOL);
  EXPECT_EQ(t->data, (std::vector<uint8_t>{1, 0, 1}));
}

std::string errorOf(const onnx::TensorProto &proto) {
  Expected<HostTensor> t = parse(proto);
  EXPECT_FALSE(t.ok());
  return t.ok() ? "" : t.error().message();
}

TEST(TensorProto, Errors) {
  onnx::TensorProto f32 = tensor(onnx::TensorProto::FLOAT, {3});
  f32.add_float_data(1);
  EXPECT_NE(errorOf(f32).find("float_data has 1 values, f32[3] needs 3"),
            std::string::npos);
  f32.set_raw_data("abc");
  EXPECT_NE(errorOf(f32).find("raw_data has 3 bytes, f32[3] needs 12"),
            std::string::npos);
  onnx::TensorProto external = tensor(onnx::TensorProto::FLOAT, {1});
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  EXPECT_NE(errorOf(external).find("external data is not supported"),
            std::string::npos);
  onnx::TensorProto text = tensor(onnx::TensorProto::STRING, {1});
  text.add_string_data("hi");
  EXPECT_NE(errorOf(text).find("unsupported ONNX data type STRING"),
            std::string::npos);
  onnx::TensorProto negative = tensor(onnx::TensorProto::FLOAT, {-1});
  EXPECT_NE(errorOf(negative).find("invalid dims"), std::string::npos);

  Expected<HostTensor> garbage =
      parseTensorProto(std::string("\xff\xff\xff\xff", 4), "t.pb");
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.error().message().find("not an ONNX TensorProto"),
            std::string::npos);
}

TEST(TensorProto, ReadsFiles) {
  PlanDir dir;
  onnx::TensorProto proto = tensor(onnx::TensorProto::INT32, {2});
  proto.add_int32_data(3);
  proto.add_int32_data(4);
  dir.write("t.pb", proto.SerializeAsString());
  Expected<HostTensor> t = readTensorProtoFile(dir.file("t.pb"));
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->as<int32_t>()[1], 4);
  EXPECT_FALSE(readTensorProtoFile(dir.file("missing.pb")).ok());
}

} // namespace
