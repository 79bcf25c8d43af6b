//===- IntegrityTest.cpp - CRC-32C and checksummed weights files ----------===//

#include "RunHelpers.h"

#include "oneflow/Runtime/Crc32c.h"

#include "gtest/gtest.h"

#include <cstring>
#include <random>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

uint32_t crcOf(const std::string &bytes) {
  return crc32c(bytes.data(), bytes.size());
}

// RFC 3720 (iSCSI), appendix B.4, and the common check value.
TEST(Crc32c, KnownAnswers) {
  EXPECT_EQ(crcOf("123456789"), 0xE3069283u);
  EXPECT_EQ(crcOf(""), 0u);
  EXPECT_EQ(crcOf(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crcOf(std::string(32, '\xff')), 0x62A8AB43u);
  std::string up, down;
  for (int i = 0; i < 32; ++i) {
    up += char(i);
    down += char(31 - i);
  }
  EXPECT_EQ(crcOf(up), 0x46DD794Eu);
  EXPECT_EQ(crcOf(down), 0x113FDB5Cu);
  EXPECT_EQ(crc32cPortable("123456789", 9), 0xE3069283u);
  EXPECT_EQ(formatCrc32c(0xE3069283u), "0xe3069283");
  EXPECT_EQ(formatCrc32c(7), "0x00000007");
}

// The instruction and the table agree at every length and alignment, and a
// checksum continues over split buffers.
TEST(Crc32c, HardwareMatchesTableAndChains) {
  std::mt19937 random(7);
  std::string bytes(4096 + 64, '\0');
  for (char &c : bytes)
    c = char(random());
  for (size_t start = 0; start < 16; ++start)
    for (size_t length : {0, 1, 7, 8, 9, 15, 16, 63, 64, 65, 1000, 4096}) {
      const char *p = bytes.data() + start;
      uint32_t whole = crc32c(p, length);
      EXPECT_EQ(whole, crc32cPortable(p, length)) << start << " " << length;
      size_t half = length / 3;
      EXPECT_EQ(crc32c(p + half, length - half, crc32c(p, half)), whole);
      EXPECT_EQ(
          crc32cPortable(p + half, length - half, crc32cPortable(p, half)),
          whole);
    }
}

/// z = (x + a) * b + c, where c is the second half of a whole tensor of 8:
/// a at [0, 16) + padding to 64, b at [64, 68) + padding to 128, the whole
/// of c at [128, 160), each range checksummed as the compiler does.
struct WeightsPlan {
  PlanBuilder b;
  std::string weights;
  int64_t a, scale, c;

  WeightsPlan() {
    int64_t x = b.regst("x"), sum = b.regst("sum"), y = b.regst("y"),
            z = b.regst("z");
    a = b.persistent("a", 0);
    scale = b.persistent("b", 64, plan::F32, {1});
    c = b.persistent("c", 128);
    b.regstById(c).add_weights_shape(8);
    b.regstById(c).add_weights_piece_offsets(4);
    b.input("x", x);
    b.kernel("add", "test_add_f32", {x, a}, {sum});
    b.kernel("scale", "test_scale", {sum, scale}, {y});
    b.kernel("shift", "test_add_f32", {y, c}, {z});
    b.output("z", z);
    auto put = [&](const std::string &bytes, size_t paddedTo) {
      size_t offset = weights.size();
      weights += bytes;
      weights.resize(paddedTo, '\0');
      plan::WeightsChecksum *checksum = b.plan.add_weights_checksums();
      checksum->set_offset(int64_t(offset));
      checksum->set_size(int64_t(weights.size() - offset));
      checksum->set_crc32c(crcOf(weights.substr(offset)));
    };
    put(floatBytes({1, 2, 3, 4}), 64);
    put(floatBytes({2}), 128);
    put(floatBytes({10, 11, 12, 13, 14, 15, 16, 17}), 160);
  }
};

Expected<std::unique_ptr<Executor>> loadFrom(const PlanDir &dir) {
  return Executor::load(dir.path());
}

std::vector<float> runOnce(Executor &executor, const plan::Plan &plan) {
  OutputCollector outputs(plan, 1, /*everyStep=*/true);
  RunOptions options;
  Status status =
      runWithTimeout(executor, options,
                     feedTensors({{{"x", vec({0, 1, 2, 3})}}}), outputs.sink());
  EXPECT_TRUE(status.ok()) << status.message();
  return status.ok() ? values(outputs.output("z", 0)) : std::vector<float>{};
}

TEST(WeightsChecksums, CleanFileLoadsExactly) {
  WeightsPlan p;
  PlanDir dir;
  dir.write("weights.bin", p.weights);
  auto executor = loadOrFail(dir, p.b.plan);
  ASSERT_TRUE(executor);
  // (x + a) * 2 + c: exact in f32.
  EXPECT_EQ(runOnce(*executor, p.b.plan), (std::vector<float>{16, 21, 26, 31}));
}

// Every byte of the file, changed three ways, fails the load with a message
// naming the file and the tensor whose range holds the byte.
TEST(WeightsChecksums, EveryByteFlipIsDetected) {
  WeightsPlan p;
  PlanDir dir;
  dir.writePlan(p.b.plan);
  int detected = 0, positions = 0;
  for (size_t at = 0; at < p.weights.size(); ++at) {
    const char *tensor = at < 64 ? "'a'" : at < 128 ? "'b'" : "'c'";
    ++positions;
    for (unsigned char mask : {0x01, 0x80, 0xFF}) {
      std::string damaged = p.weights;
      damaged[at] = char(damaged[at] ^ mask);
      dir.write("weights.bin", damaged);
      Expected<std::unique_ptr<Executor>> executor = loadFrom(dir);
      ASSERT_FALSE(executor.ok()) << "byte " << at << " ^ " << int(mask);
      const std::string &message = executor.error().message();
      EXPECT_NE(message.find("weights file '" + dir.file("weights.bin") +
                             "' is damaged: the data of regst " + tensor),
                std::string::npos)
          << "byte " << at << ": " << message;
      detected += message.find("CRC-32C") != std::string::npos;
    }
  }
  EXPECT_EQ(positions, 160);
  EXPECT_EQ(detected, 3 * 160);
  // The clean file loads again.
  dir.write("weights.bin", p.weights);
  EXPECT_TRUE(loadFrom(dir).ok());
}

TEST(WeightsChecksums, MissingOrShortEntryIsAnError) {
  WeightsPlan p;
  PlanDir dir;
  dir.write("weights.bin", p.weights);
  plan::Plan shortEntry = p.b.plan;
  shortEntry.mutable_weights_checksums(2)->set_size(8); // less than c's 32
  dir.writePlan(shortEntry);
  Expected<std::unique_ptr<Executor>> executor = loadFrom(dir);
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find(
                "plan's weights_checksums have no entry for bytes [128, 160)"),
            std::string::npos)
      << executor.error().message();

  plan::Plan missing = p.b.plan;
  missing.mutable_weights_checksums()->RemoveLast();
  dir.writePlan(missing);
  executor = loadFrom(dir);
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find("no entry for bytes [128, 160)"),
            std::string::npos);
}

// Plans from before checksums load (unverified, with a warning on stderr).
TEST(WeightsChecksums, PlanWithoutChecksumsLoads) {
  WeightsPlan p;
  p.b.plan.clear_weights_checksums();
  PlanDir dir;
  dir.write("weights.bin", p.weights);
  testing::internal::CaptureStderr();
  auto executor = loadOrFail(dir, p.b.plan);
  std::string warning = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(executor);
  EXPECT_NE(warning.find("warning: the plan records no checksums"),
            std::string::npos)
      << warning;
  EXPECT_EQ(runOnce(*executor, p.b.plan), (std::vector<float>{16, 21, 26, 31}));
}

} // namespace
