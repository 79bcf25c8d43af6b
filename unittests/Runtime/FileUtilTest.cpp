//===- FileUtilTest.cpp - Output names, atomic files, traces --------------===//

#include "TestSupport.h"

#include "oneflow/Runtime/FileUtil.h"
#include "oneflow/Runtime/Trace.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <set>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

TEST(FileUtil, SanitizesOutputNames) {
  EXPECT_EQ(sanitizeFileName("logits"), "logits");
  EXPECT_EQ(sanitizeFileName("dense/add:0"), "dense%2Fadd%3A0");
  EXPECT_EQ(sanitizeFileName("a.b-c_d"), "a.b-c_d");
  EXPECT_EQ(sanitizeFileName("."), "%2E");
  EXPECT_EQ(sanitizeFileName(".."), "%2E.");
  EXPECT_EQ(sanitizeFileName(".hidden"), "%2Ehidden");
  EXPECT_EQ(sanitizeFileName(""), "%");
  EXPECT_EQ(sanitizeFileName("100%"), "100%25");
  EXPECT_EQ(sanitizeFileName("a b\\c\n"), "a%20b%5Cc%0A");
  // Distinct names stay distinct (the escape is reversible).
  std::set<std::string> names;
  for (const char *name : {"a/b", "a:b", "a_b", "a%2Fb", "a b"})
    EXPECT_TRUE(names.insert(sanitizeFileName(name)).second) << name;
}

TEST(FileUtil, LongNamesAreShortenedAndStayDistinct) {
  std::string a(300, '/'), b(300, '/');
  b.back() = ':';
  std::string safeA = sanitizeFileName(a), safeB = sanitizeFileName(b);
  EXPECT_LE(safeA.size(), 200u);
  EXPECT_NE(safeA, safeB);
  // No escape is cut in half before the hash.
  size_t tilde = safeA.find('~');
  ASSERT_NE(tilde, std::string::npos);
  EXPECT_EQ(tilde % 3, 0u);
}

TEST(FileUtil, AtomicWritesLeaveNoTemporaries) {
  PlanDir dir;
  ASSERT_TRUE(writeFileAtomic(dir.file("f.txt"), "one").ok());
  ASSERT_TRUE(writeFileAtomic(dir.file("f.txt"), "two").ok());
  Expected<std::string> text = readFile(dir.file("f.txt"));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "two");
  int files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 2); // kernels.so and f.txt
  Status status = writeFileAtomic(dir.file("no/such/dir/f.txt"), "x");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot write"), std::string::npos);
  EXPECT_FALSE(readFile(dir.path()).ok()); // a directory
  ASSERT_TRUE(makeDirectories(dir.file("a/b/c")).ok());
  EXPECT_FALSE(makeDirectories(dir.file("f.txt")).ok());
}

TEST(Trace, WritesChromeCompleteEvents) {
  std::vector<TraceEvent> events = {
      {"second \"one\"", 0, "comm", 7, 1, 2500, 1000},
      {"first", 0, "compute", 3, 0, 1234567, 89},
  };
  events[1].startNs = 1000;
  std::string json = traceToJson(events);
  EXPECT_EQ(json, "[\n"
                  "{\"name\": \"first\", \"ph\": \"X\", \"ts\": 1.000, "
                  "\"dur\": 0.089, \"pid\": 0, \"tid\": \"compute\", "
                  "\"args\": {\"task\": 3, \"step\": 0}},\n"
                  "{\"name\": \"second \\\"one\\\"\", \"ph\": \"X\", \"ts\": "
                  "2.500, \"dur\": 1.000, \"pid\": 0, \"tid\": \"comm\", "
                  "\"args\": {\"task\": 7, \"step\": 1}}\n"
                  "]\n");
  EXPECT_EQ(traceToJson({}), "[\n]\n");
}

} // namespace
