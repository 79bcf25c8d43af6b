//===- NpyIOTest.cpp - .npy reading and writing ---------------------------===//

#include "TestSupport.h"

#include "oneflow/Runtime/NpyIO.h"

#include "gtest/gtest.h"

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

/// A tensor of `dtype` and `shape` with bytes 0, 1, 2, ... (bool: 0/1).
HostTensor pattern(plan::DataType dtype, std::vector<int64_t> shape) {
  HostTensor tensor(dtype, std::move(shape));
  for (size_t i = 0; i < tensor.data.size(); ++i)
    tensor.data[i] = dtype == plan::BOOL ? i % 2 : uint8_t(i * 7);
  return tensor;
}

/// A hand-made .npy: version, header dict, raw data.
std::string npy(const std::string &dict, const std::string &data,
                int major = 1) {
  std::string header = dict + "\n";
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(0);
  size_t width = major == 1 ? 2 : 4;
  for (size_t i = 0; i < width; ++i)
    out += char((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string parseError(const std::string &bytes) {
  Expected<HostTensor> tensor = parseNpy(bytes, "t.npy");
  EXPECT_FALSE(tensor.ok());
  return tensor.ok() ? "" : tensor.error().message();
}

struct DtypeCase {
  plan::DataType dtype;
  const char *descr;
};
class NpyRoundTrip : public testing::TestWithParam<DtypeCase> {};

TEST_P(NpyRoundTrip, EveryDtypeAndRank) {
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{}, {5}, {2, 3}, {2, 0, 4}, {3, 1, 2, 2}}) {
    HostTensor tensor = pattern(GetParam().dtype, shape);
    Expected<std::string> bytes = encodeNpy(tensor);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    // NumPy's layout: 64-byte aligned data, the descr spelled out.
    EXPECT_EQ((bytes->size() - tensor.data.size()) % 64, 0u);
    EXPECT_NE(bytes->find(GetParam().descr), std::string::npos);
    Expected<HostTensor> back = parseNpy(*bytes, "t.npy");
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_EQ(back->dtype, tensor.dtype);
    EXPECT_EQ(back->shape, tensor.shape);
    EXPECT_EQ(back->data, tensor.data);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, NpyRoundTrip,
                         testing::Values(DtypeCase{plan::F32, "'<f4'"},
                                         DtypeCase{plan::F64, "'<f8'"},
                                         DtypeCase{plan::F16, "'<f2'"},
                                         DtypeCase{plan::I32, "'<i4'"},
                                         DtypeCase{plan::I64, "'<i8'"},
                                         DtypeCase{plan::BOOL, "'|b1'"}),
                         [](const testing::TestParamInfo<DtypeCase> &info) {
                           return std::string(dataTypeName(info.param.dtype));
                         });

TEST(Npy, ShapesAreSpelledLikeNumPy) {
  Expected<std::string> bytes = encodeNpy(vec({1, 2}));
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(bytes->find("'shape': (2,), }"), std::string::npos);
  bytes = encodeNpy(HostTensor(plan::F32, {2, 3}));
  EXPECT_NE(bytes->find("'shape': (2, 3), }"), std::string::npos);
  bytes = encodeNpy(HostTensor(plan::F32, {}));
  EXPECT_NE(bytes->find("'shape': (), }"), std::string::npos);
}

TEST(Npy, ReadsVersion2AndKeyOrderVariants) {
  std::string data(24, '\x01');
  Expected<HostTensor> tensor = parseNpy(
      npy("{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<f4\"}",
          data, 2),
      "t.npy");
  ASSERT_TRUE(tensor.ok()) << tensor.error().message();
  EXPECT_EQ(tensor->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensor->dtype, plan::F32);
  tensor =
      parseNpy(npy("{'descr': '<i8', 'fortran_order': False, 'shape': (3L,)}",
                   std::string(24, '\0'), 3),
               "t.npy");
  ASSERT_TRUE(tensor.ok()) << tensor.error().message();
  EXPECT_EQ(tensor->dtype, plan::I64);
}

TEST(Npy, Errors) {
  const std::string f32x2 = "{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (2,), }";
  EXPECT_NE(parseError("PK\x03\x04 not numpy")
                .find("not a .npy file (bad "
                      "magic)"),
            std::string::npos);
  EXPECT_NE(parseError(npy(f32x2, std::string(4, '\0')))
                .find("truncated data: f32[2] needs 8 bytes, the file has 4"),
            std::string::npos);
  EXPECT_NE(parseError(npy(f32x2, std::string(12, '\0')))
                .find("4 unexpected bytes after the data"),
            std::string::npos);
  EXPECT_NE(parseError(npy(f32x2, "").substr(0, 20))
                .find("truncated .npy "
                      "header"),
            std::string::npos);
  EXPECT_NE(parseError(npy("{'descr': '<f4', 'fortran_order': True, "
                           "'shape': (2, 2), }",
                           std::string(16, '\0')))
                .find("Fortran-order arrays are not supported"),
            std::string::npos);
  EXPECT_NE(parseError(npy("{'descr': '>f4', 'fortran_order': False, "
                           "'shape': (2,), }",
                           std::string(8, '\0')))
                .find("unsupported dtype '>f4'"),
            std::string::npos);
  EXPECT_NE(parseError(npy("{'descr': '<c8', 'fortran_order': False, "
                           "'shape': (2,), }",
                           std::string(16, '\0')))
                .find("unsupported dtype '<c8'"),
            std::string::npos);
  EXPECT_NE(parseError(npy("{'descr': '<f4', 'shape': (2,), }", ""))
                .find("needs descr, fortran_order and shape"),
            std::string::npos);
  EXPECT_NE(parseError(npy("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (2, x), }",
                           ""))
                .find("malformed .npy header"),
            std::string::npos);
  EXPECT_NE(parseError(std::string("\x93NUMPY\x07\x00", 8) + "xx")
                .find("unsupported .npy version 7.0"),
            std::string::npos);
  // bf16 has no NumPy dtype: writers widen it first.
  EXPECT_FALSE(encodeNpy(HostTensor(plan::BF16, {2})).ok());
}

TEST(Npy, FilesAreWrittenAtomically) {
  PlanDir dir;
  HostTensor tensor = pattern(plan::I32, {3, 2});
  ASSERT_TRUE(writeNpyFile(dir.file("out.npy"), tensor).ok());
  Expected<HostTensor> back = readNpyFile(dir.file("out.npy"));
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->data, tensor.data);
  Status status = writeNpyFile(dir.file("missing-dir/out.npy"), tensor);
  EXPECT_FALSE(status.ok());
  Expected<HostTensor> missing = readNpyFile(dir.file("nope.npy"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("No such file"), std::string::npos);
}

TEST(Tensor, WidensBF16Exactly) {
  HostTensor bf16(plan::BF16, {2});
  bf16.as<uint16_t>()[0] = 0x3fc0; // 1.5
  bf16.as<uint16_t>()[1] = 0xc040; // -3
  HostTensor wide = widenBF16(bf16);
  EXPECT_EQ(wide.dtype, plan::F32);
  EXPECT_EQ(values(wide), (std::vector<float>{1.5f, -3.f}));
}

TEST(Tensor, LeadingEntriesCutAnyAxis) {
  HostTensor t(plan::I64, {2, 3, 2});
  for (int64_t i = 0; i < 12; ++i)
    t.as<int64_t>()[i] = i;
  auto entries = [](const HostTensor &h) {
    return std::vector<int64_t>(h.as<int64_t>(),
                                h.as<int64_t>() + h.numElements());
  };
  HostTensor rows = leadingEntries(t, 0, 1);
  EXPECT_EQ(rows.shape, (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(entries(rows), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  HostTensor middle = leadingEntries(t, 1, 2);
  EXPECT_EQ(middle.shape, (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(entries(middle), (std::vector<int64_t>{0, 1, 2, 3, 6, 7, 8, 9}));
  // Counts are clamped to the dimension; none leaves an empty tensor.
  EXPECT_EQ(leadingEntries(t, 2, 5).shape, t.shape);
  HostTensor none = leadingEntries(t, 0, -3);
  EXPECT_EQ(none.shape, (std::vector<int64_t>{0, 3, 2}));
  EXPECT_EQ(none.numElements(), 0);
}

TEST(Tensor, DescribesAndChecksInputs) {
  EXPECT_EQ(describeTensor(plan::F32, {8, 64}), "f32[8,64]");
  EXPECT_EQ(describeTensor(plan::BOOL, {}), "bool[]");
  plan::TensorDesc desc;
  desc.set_dtype(plan::F32);
  desc.add_shape(8);
  desc.add_shape(64);
  Status status =
      checkInputTensor("x", desc, HostTensor(plan::F32, {8, 32}), "x.npy");
  EXPECT_EQ(status.message(),
            "input 'x': expected f32[8,64], got f32[8,32] from x.npy");
  EXPECT_TRUE(
      checkInputTensor("x", desc, HostTensor(plan::F32, {8, 64}), "x.npy")
          .ok());
  EXPECT_EQ(numElements({-1}), -1);
  EXPECT_EQ(numElements({1ll << 40, 1ll << 40}), -1);
  EXPECT_EQ(tensorBytes(plan::F64, {2, 3}), 48);
}

} // namespace
