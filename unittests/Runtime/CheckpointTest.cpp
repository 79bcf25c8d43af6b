//===- CheckpointTest.cpp - Variables, checkpoints and their manifest -----===//

#include "RunHelpers.h"

#include "oneflow/Runtime/Checkpoint.h"
#include "oneflow/Runtime/Collectives.h"
#include "oneflow/Runtime/Crc32c.h"
#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Json.h"
#include "oneflow/Runtime/NpyIO.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace fs = std::filesystem;

namespace {

TEST(Json, ParsesWhatTheRuntimeWrites) {
  std::string name = "dense/kernel:0 \"q\" \\ \n\t\x01 é";
  std::string text = "{\"a\": [1, -2.5e3, true, false, null], \"name\": ";
  appendJsonString(text, name);
  text += ", \"big\": 4611686018427387905, \"u\": \"\\u00e9\\ud83d\\ude00\"}";
  Expected<JsonValue> json = parseJson(text);
  ASSERT_TRUE(json.ok()) << json.error().message();
  EXPECT_EQ(json->find("name")->text, name);
  const JsonValue &a = *json->find("a");
  ASSERT_EQ(a.items.size(), 5u);
  EXPECT_TRUE(a.items[0].isInteger());
  EXPECT_EQ(a.items[0].asInteger(), 1);
  EXPECT_FALSE(a.items[1].isInteger());
  EXPECT_EQ(a.items[1].asDouble(), -2500);
  EXPECT_TRUE(a.items[2].boolean);
  EXPECT_EQ(a.items[4].kind, JsonValue::Null);
  EXPECT_EQ(json->find("big")->asInteger(), (int64_t(1) << 62) + 1);
  EXPECT_EQ(json->find("u")->text, "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(json->find("missing"), nullptr);

  for (const char *bad : {"", "{", "[1,]", "{\"a\" 1}", "\"\\x\"", "01",
                          "[1] 2", "\"\\ud800\"", "tru"}) {
    Expected<JsonValue> parsed = parseJson(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_NE(parsed.error().message().find("invalid JSON at byte "),
                std::string::npos);
    }
  }
  EXPECT_EQ(jsonNumber(0.1), "0.1");
  EXPECT_EQ(jsonNumber(3), "3");
  EXPECT_EQ(jsonNumber(30), "30");
  EXPECT_EQ(jsonNumber(1234567), "1234567");
  EXPECT_EQ(jsonNumber(1e20), "1e+20");
  EXPECT_EQ(jsonNumber(1e-7), "1e-07");
  EXPECT_EQ(jsonNumber(double(0.1f)), "0.10000000149011612");
  EXPECT_EQ(jsonNumber(double(0.1f), /*singlePrecision=*/true), "0.1");
  EXPECT_EQ(jsonNumber(std::nan("")), "null");
}

/// copyBlock against element-wise indexing, on random 3-D blocks.
TEST(Variables, CopyBlockMatchesIndexing) {
  std::mt19937 rng(1);
  auto pick = [&](int64_t n) { return int64_t(rng() % uint64_t(n)); };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> whole(3), block(3), offsets(3);
    for (int d = 0; d < 3; ++d) {
      whole[d] = 1 + pick(5);
      block[d] = 1 + pick(whole[d]);
      offsets[d] = pick(whole[d] - block[d] + 1);
    }
    std::vector<int32_t> src(size_t(numElements(whole)));
    for (size_t i = 0; i < src.size(); ++i)
      src[i] = int32_t(i);
    std::vector<int32_t> piece(size_t(numElements(block)), -1);
    copyBlock(piece.data(), block, {0, 0, 0}, src.data(), whole, offsets, block,
              4);
    std::vector<int32_t> back(src.size(), -1);
    copyBlock(back.data(), whole, offsets, piece.data(), block, {0, 0, 0},
              block, 4);
    for (int64_t i = 0; i < block[0]; ++i)
      for (int64_t j = 0; j < block[1]; ++j)
        for (int64_t k = 0; k < block[2]; ++k) {
          int64_t at =
              ((offsets[0] + i) * whole[1] + offsets[1] + j) * whole[2] +
              offsets[2] + k;
          ASSERT_EQ(piece[size_t((i * block[1] + j) * block[2] + k)],
                    int32_t(at));
          ASSERT_EQ(back[size_t(at)], int32_t(at));
        }
    int64_t written = 0;
    for (int32_t value : back)
      written += value >= 0;
    EXPECT_EQ(written, numElements(block));
  }
  // Scalars.
  float a = 1.5f, b = 0;
  copyBlock(&b, {}, {}, &a, {}, {}, {}, 4);
  EXPECT_EQ(b, 1.5f);
}

/// A plan holding variable "dense/kernel:0" f32[2,4] as two pieces (its
/// left half twice: a replica), "bias" (frozen) f32[4] and "scale" bf16[2];
/// weights: kernel = 0..7 row-major, bias = 10..13.
struct VariablePlan {
  PlanBuilder b;
  int64_t left, right, leftAgain, bias, scale;
  VariablePlan() {
    left = b.persistent("kernel left", 0, plan::F32, {2, 2});
    right = b.persistent("kernel right", 16, plan::F32, {2, 2});
    leftAgain = b.persistent("kernel left again", 0, plan::F32, {2, 2});
    bias = b.persistent("bias", 32, plan::F32, {4});
    scale = b.persistent("scale", -1, plan::BF16, {2});
    b.variable(left, "dense/kernel:0", {2, 4}, {0, 0});
    b.variable(right, "dense/kernel:0", {2, 4}, {0, 2});
    b.variable(leftAgain, "dense/kernel:0", {2, 4}, {0, 0});
    b.variable(bias, "bias", {}, {}, /*trainable=*/false);
    b.variable(scale, "scale");
    int64_t y = b.regst("y"), z = b.regst("z");
    b.kernel("add", "test_add_f32", {left, right}, {y});
    b.kernel("add again", "test_add_f32", {leftAgain, bias}, {z});
    b.output("y", y);
    b.output("z", z);
  }
  /// Pieces as stored in the weights file: left = [[0,1],[4,5]], right =
  /// [[2,3],[6,7]].
  std::string weights() const {
    return floatBytes({0, 1, 4, 5, 2, 3, 6, 7, 10, 11, 12, 13});
  }
};

HostTensor tensor(plan::DataType dtype, std::vector<int64_t> shape,
                  std::vector<float> values) {
  HostTensor t(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == plan::BF16)
      t.as<uint16_t>()[i] = floatToBfloat16(values[i]);
    else
      t.as<float>()[i] = values[i];
  }
  return t;
}

std::vector<float> floatsOf(const void *data, int n) {
  const float *f = static_cast<const float *>(data);
  return std::vector<float>(f, f + n);
}

TEST(Variables, GatherAndScatterPieces) {
  VariablePlan p;
  PlanDir dir;
  dir.write("weights.bin", p.weights());
  auto executor = loadOrFail(dir, p.b.plan);
  ASSERT_TRUE(executor);
  std::vector<Variable> variables = planVariables(executor->graph());
  ASSERT_EQ(variables.size(), 3u);
  EXPECT_EQ(variables[0].describe(), "'bias' f32[4]");
  EXPECT_FALSE(variables[0].trainable);
  EXPECT_EQ(variables[1].describe(), "'dense/kernel:0' f32[2,4]");
  EXPECT_TRUE(variables[1].trainable);
  ASSERT_EQ(variables[1].pieces.size(), 3u);
  EXPECT_TRUE(variables[1].pieces[0].gathered);
  EXPECT_TRUE(variables[1].pieces[1].gathered);
  EXPECT_FALSE(variables[1].pieces[2].gathered); // the replica
  EXPECT_EQ(variables[2].describe(), "'scale' bf16[2]");

  std::map<std::string, HostTensor> full =
      gatherVariables(*executor, variables);
  ASSERT_EQ(full.size(), 3u);
  EXPECT_EQ(floatsOf(full["dense/kernel:0"].data.data(), 8),
            (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(floatsOf(full["bias"].data.data(), 4),
            (std::vector<float>{10, 11, 12, 13}));

  full["dense/kernel:0"] =
      tensor(plan::F32, {2, 4}, {8, 9, 10, 11, 12, 13, 14, 15});
  full["scale"] = tensor(plan::BF16, {2}, {0.5, -2});
  ASSERT_TRUE(scatterVariables(*executor, variables, full).ok());
  EXPECT_EQ(floatsOf(executor->persistentData(p.left), 4),
            (std::vector<float>{8, 9, 12, 13}));
  EXPECT_EQ(floatsOf(executor->persistentData(p.right), 4),
            (std::vector<float>{10, 11, 14, 15}));
  EXPECT_EQ(floatsOf(executor->persistentData(p.leftAgain), 4),
            (std::vector<float>{8, 9, 12, 13}));

  full["bias"] = tensor(plan::F32, {5}, {});
  Status status = scatterVariables(*executor, variables, full);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "variable 'bias' f32[4] gets f32[5]");
  full.erase("bias");
  EXPECT_FALSE(scatterVariables(*executor, variables, full).ok());
}

std::vector<std::string> listDir(const std::string &path) {
  std::vector<std::string> names;
  for (const fs::directory_entry &entry : fs::directory_iterator(path))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Saved {
  std::vector<Variable> variables;
  std::map<std::string, HostTensor> tensors;
};

/// The variables of VariablePlan with values derived from `base`.
Saved values(float base) {
  VariablePlan p;
  Expected<PlanGraph> graph = PlanGraph::build(p.b.plan);
  EXPECT_TRUE(graph.ok());
  Saved saved;
  saved.variables = planVariables(*graph);
  saved.tensors["dense/kernel:0"] =
      tensor(plan::F32, {2, 4},
             {base, base + 1, base + 2, base + 3, base + 4, base + 5, base + 6,
              base + 7});
  saved.tensors["bias"] = tensor(plan::F32, {4}, {-base, 1, 2, 3});
  saved.tensors["scale"] = tensor(plan::BF16, {2}, {base + 0.5f, 3});
  return saved;
}

/// Reads checkpoint `path` fully and checks it holds values(base) at `step`.
void expectCheckpoint(const std::string &path, float base, int64_t step) {
  Expected<CheckpointManifest> manifest = readCheckpointManifest(path);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message();
  EXPECT_EQ(manifest->step, step);
  Saved expected = values(base);
  EXPECT_TRUE(checkCheckpoint(path, *manifest, expected.variables).ok());
  Expected<std::map<std::string, HostTensor>> tensors =
      readCheckpointTensors(path, *manifest);
  ASSERT_TRUE(tensors.ok()) << tensors.error().message();
  ASSERT_EQ(tensors->size(), 3u);
  for (const auto &[name, value] : expected.tensors) {
    const HostTensor &read = tensors->at(name);
    EXPECT_EQ(read.describe(), value.describe()) << name;
    EXPECT_EQ(read.data, value.data) << name;
  }
}

TEST(Checkpoint, RoundTrip) {
  TempDir tmp;
  std::string path = tmp.file("run/ckpt"); // The parent is created.
  Saved saved = values(1);
  Status status = writeCheckpoint(path, 12, saved.variables, saved.tensors);
  ASSERT_TRUE(status.ok()) << status.message();
  expectCheckpoint(path, 1, 12);
  EXPECT_EQ(listDir(path),
            (std::vector<std::string>{"bias.npy", "dense%2Fkernel%3A0.npy",
                                      "manifest.json", "scale.npy"}));
  // bf16 is stored as f32; names are kept in the manifest.
  Expected<HostTensor> scale = readNpyFile(path + "/scale.npy");
  ASSERT_TRUE(scale.ok());
  EXPECT_EQ(scale->describe(), "f32[2]");
  Expected<std::string> manifest = readFile(path + "/manifest.json");
  ASSERT_TRUE(manifest.ok());
  // The checksum covers the whole file.
  Expected<std::string> kernelFile = readFile(path + "/dense%2Fkernel%3A0.npy");
  ASSERT_TRUE(kernelFile.ok());
  EXPECT_NE(manifest->find(
                "{\"name\": \"dense/kernel:0\", \"file\": "
                "\"dense%2Fkernel%3A0.npy\", \"dtype\": \"f32\", "
                "\"shape\": [2, 4], \"trainable\": true, "
                "\"crc32c\": \"" +
                formatCrc32c(crc32c(kernelFile->data(), kernelFile->size())) +
                "\"}"),
            std::string::npos)
      << *manifest;
  EXPECT_NE(manifest->find("\"step\": 12"), std::string::npos);

  // Only some tensors.
  Expected<CheckpointManifest> read = readCheckpointManifest(path + "/");
  ASSERT_TRUE(read.ok()) << read.error().message();
  auto some = readCheckpointTensors(path, *read, {"bias"});
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->size(), 1u);

  // Saving again replaces it; no temporary directory is left.
  saved = values(100);
  status = writeCheckpoint(path, 24, saved.variables, saved.tensors);
  ASSERT_TRUE(status.ok()) << status.message();
  expectCheckpoint(path, 100, 24);
  EXPECT_EQ(listDir(tmp.file("run")), std::vector<std::string>{"ckpt"});
}

TEST(Checkpoint, AFailedSaveLeavesTheOldOneIntact) {
  TempDir tmp;
  std::string path = tmp.file("ckpt");
  Saved old = values(1);
  ASSERT_TRUE(writeCheckpoint(path, 5, old.variables, old.tensors).ok());

  // A write fails midway (after 2 of the 4 files), and at the very end.
  Saved next = values(50);
  for (int failAfter : {2, 4}) {
    CheckpointWriteOptions options;
    options.afterFile = [&](int written) {
      return written == failAfter ? Status::error("disk full")
                                  : Status::success();
    };
    Status status =
        writeCheckpoint(path, 9, next.variables, next.tensors, options);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.message(),
              "cannot write checkpoint '" + path + "': disk full");
    expectCheckpoint(path, 1, 5);
    EXPECT_EQ(listDir(tmp.path()), std::vector<std::string>{"ckpt"});
  }

  // A crash midway (the process dies after writing 3 files) leaves the old
  // checkpoint and a temporary directory, which the next save removes.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    CheckpointWriteOptions options;
    options.afterFile = [](int written) {
      if (written == 3)
        _exit(86);
      return Status::success();
    };
    (void)writeCheckpoint(path, 9, next.variables, next.tensors, options);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 86);
  expectCheckpoint(path, 1, 5);
  std::vector<std::string> names = listDir(tmp.path());
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].rfind(".ckpt.tmp.", 0), 0u) << names[0];

  ASSERT_TRUE(writeCheckpoint(path, 9, next.variables, next.tensors).ok());
  expectCheckpoint(path, 50, 9);
  EXPECT_EQ(listDir(tmp.path()), std::vector<std::string>{"ckpt"});
}

TEST(Checkpoint, RefusesToReplaceOtherThings) {
  TempDir tmp;
  Saved saved = values(1);
  fs::create_directories(tmp.file("notes"));
  ASSERT_TRUE(writeFileAtomic(tmp.file("notes/todo.txt"), "keep me").ok());
  Status status =
      writeCheckpoint(tmp.file("notes"), 1, saved.variables, saved.tensors);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("the directory exists and is not a "
                                  "checkpoint (it has no manifest.json); not "
                                  "replacing it"),
            std::string::npos)
      << status.message();
  EXPECT_TRUE(fs::exists(tmp.file("notes/todo.txt")));

  ASSERT_TRUE(writeFileAtomic(tmp.file("file"), "x").ok());
  status = writeCheckpoint(tmp.file("file"), 1, saved.variables, saved.tensors);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("it exists and is not a directory"),
            std::string::npos);

  // An empty directory is fine.
  fs::create_directories(tmp.file("empty"));
  EXPECT_TRUE(
      writeCheckpoint(tmp.file("empty"), 1, saved.variables, saved.tensors)
          .ok());
  EXPECT_EQ(listDir(tmp.path()),
            (std::vector<std::string>{"empty", "file", "notes"}));
}

TEST(Checkpoint, ListsEveryMismatchWithThePlan) {
  TempDir tmp;
  std::string path = tmp.file("ckpt");
  Saved saved = values(1);
  ASSERT_TRUE(writeCheckpoint(path, 3, saved.variables, saved.tensors).ok());
  Expected<CheckpointManifest> manifest = readCheckpointManifest(path);
  ASSERT_TRUE(manifest.ok());

  // The plan: bias has another shape, scale another dtype, "extra" is not
  // in the checkpoint, and the kernel is not in the plan.
  std::vector<Variable> variables = saved.variables;
  variables[0].shape = {5};
  variables[2].dtype = plan::F16;
  variables[1].name = "extra";
  Status status = checkCheckpoint(path, *manifest, variables);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "checkpoint '" + path +
                "': variable 'bias' is f32[4] in the checkpoint but f32[5] in "
                "the plan\n"
                "checkpoint '" +
                path +
                "' lacks variable 'extra' f32[2,4]\n"
                "checkpoint '" +
                path +
                "': variable 'scale' is bf16[2] in the checkpoint but f16[2] "
                "in the plan\n"
                "checkpoint '" +
                path +
                "' holds 'dense/kernel:0' f32[2,4], which is not a variable "
                "of the plan");
}

TEST(Checkpoint, BrokenCheckpoints) {
  TempDir tmp;
  std::string path = tmp.file("ckpt");
  auto manifestError = [&](const std::string &json) {
    fs::create_directories(path);
    EXPECT_TRUE(writeFileAtomic(path + "/manifest.json", json).ok());
    Expected<CheckpointManifest> manifest = readCheckpointManifest(path);
    EXPECT_FALSE(manifest.ok()) << json;
    return manifest.ok() ? std::string() : manifest.error().message();
  };
  EXPECT_NE(readCheckpointManifest(tmp.file("none"))
                .error()
                .message()
                .find("checkpoint '" + tmp.file("none") + "' does not exist"),
            std::string::npos);
  EXPECT_NE(manifestError("{").find("invalid JSON at byte 1"),
            std::string::npos);
  EXPECT_NE(manifestError("{\"format\": \"other\"}")
                .find("not a checkpoint manifest"),
            std::string::npos);
  const std::string head =
      "{\"format\": \"oneflow-checkpoint\", \"version\": 1, \"step\": 1, "
      "\"variables\": [";
  EXPECT_NE(manifestError(head + "{\"name\": \"w\", \"file\": \"../w.npy\", "
                                 "\"dtype\": \"f32\", \"shape\": [1]}]}")
                .find("variable 0: \"file\" must be a file name in the "
                      "directory"),
            std::string::npos);
  EXPECT_NE(manifestError(head + "{\"name\": \"w\", \"file\": \"w.npy\", "
                                 "\"dtype\": \"f8\", \"shape\": [1]}]}")
                .find("\"dtype\" must be one of"),
            std::string::npos);
  EXPECT_NE(manifestError("{\"format\": \"oneflow-checkpoint\", \"version\": "
                          "3}")
                .find("unsupported version"),
            std::string::npos);
  // Version 2 needs each file's checksum, written as formatCrc32c does.
  const std::string head2 =
      "{\"format\": \"oneflow-checkpoint\", \"version\": 2, \"step\": 1, "
      "\"variables\": [{\"name\": \"w\", \"file\": \"w.npy\", "
      "\"dtype\": \"f32\", \"shape\": [1]";
  for (const char *bad : {"", ", \"crc32c\": 12", ", \"crc32c\": \"0x123\"",
                          ", \"crc32c\": \"0x0000000G\""})
    EXPECT_NE(manifestError(head2 + bad + "}]}")
                  .find("variable 0: \"crc32c\" must be the file's CRC-32C"),
              std::string::npos)
        << bad;

  // A tensor file that disagrees with the manifest.
  ASSERT_TRUE(writeFileAtomic(path + "/manifest.json",
                              head + "{\"name\": \"w\", \"file\": \"w.npy\", "
                                     "\"dtype\": \"f32\", \"shape\": [4]}]}")
                  .ok());
  ASSERT_TRUE(writeNpyFile(path + "/w.npy", vec({1, 2, 3})).ok());
  Expected<CheckpointManifest> manifest = readCheckpointManifest(path);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message();
  auto tensors = readCheckpointTensors(path, *manifest);
  ASSERT_FALSE(tensors.ok());
  EXPECT_EQ(tensors.error().message(),
            "checkpoint '" + path +
                "': 'w.npy' holds f32[3] but the manifest says f32[4] for "
                "variable 'w' f32[4]");
}

// Every byte of every tensor file (header and data), changed three ways,
// fails the read with a message naming the file and the variable; the clean
// checkpoint reads back bit-exactly.
TEST(Checkpoint, EveryByteFlipIsDetected) {
  TempDir tmp;
  std::string path = tmp.file("ckpt");
  Saved saved = values(3);
  ASSERT_TRUE(writeCheckpoint(path, 5, saved.variables, saved.tensors).ok());
  Expected<CheckpointManifest> manifest = readCheckpointManifest(path);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message();
  int positions = 0;
  for (const CheckpointEntry &entry : manifest->entries) {
    std::string file = path + "/" + entry.file;
    Expected<std::string> clean = readFile(file);
    ASSERT_TRUE(clean.ok());
    for (size_t at = 0; at < clean->size(); ++at) {
      ++positions;
      for (unsigned char mask : {0x01, 0x80, 0xFF}) {
        std::string damaged = *clean;
        damaged[at] = char(damaged[at] ^ mask);
        ASSERT_TRUE(writeFileAtomic(file, damaged).ok());
        auto tensors = readCheckpointTensors(path, *manifest);
        ASSERT_FALSE(tensors.ok()) << entry.file << " byte " << at;
        EXPECT_NE(tensors.error().message().find(
                      "checkpoint '" + path + "': '" + entry.file +
                      "' is damaged: its CRC-32C is "),
                  std::string::npos)
            << tensors.error().message();
        EXPECT_NE(
            tensors.error().message().find("for variable " + entry.describe()),
            std::string::npos);
      }
    }
    ASSERT_TRUE(writeFileAtomic(file, *clean).ok());
  }
  // Three .npy files: headers of at least 64 bytes, 8 to 32 data bytes.
  EXPECT_GT(positions, 3 * 64);
  expectCheckpoint(path, 3, 5);
}

// Version 1 checkpoints (no checksums) still load, with a warning.
TEST(Checkpoint, VersionOneLoadsUnverified) {
  TempDir tmp;
  std::string path = tmp.file("ckpt");
  fs::create_directories(path);
  ASSERT_TRUE(
      writeFileAtomic(path + "/manifest.json",
                      "{\"format\": \"oneflow-checkpoint\", \"version\": 1, "
                      "\"step\": 1, \"variables\": [{\"name\": \"w\", "
                      "\"file\": \"w.npy\", \"dtype\": \"f32\", "
                      "\"shape\": [4]}]}")
          .ok());
  ASSERT_TRUE(writeNpyFile(path + "/w.npy", vec({1, 2, 3, 4})).ok());
  Expected<CheckpointManifest> manifest = readCheckpointManifest(path);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message();
  EXPECT_FALSE(manifest->verified);
  testing::internal::CaptureStderr();
  auto tensors = readCheckpointTensors(path, *manifest);
  std::string warning = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(tensors.ok()) << tensors.error().message();
  EXPECT_EQ(test::values(tensors->at("w")), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_NE(warning.find("has a version 1 manifest, without checksums"),
            std::string::npos)
      << warning;
}

} // namespace
