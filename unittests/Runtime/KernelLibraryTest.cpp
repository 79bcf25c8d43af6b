//===- KernelLibraryTest.cpp - Loading kernels through dlopen -------------===//

#include "TestSupport.h"

#include "oneflow/Runtime/KernelLibrary.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

TEST(KernelLibrary, LoadsAndCallsKernels) {
  Expected<std::unique_ptr<KernelLibrary>> library =
      KernelLibrary::open(testKernelsPath());
  ASSERT_TRUE(library.ok()) << library.error().message();
  Expected<KernelFn> add = (*library)->lookup("test_add_f32");
  ASSERT_TRUE(add.ok()) << add.error().message();
  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c[4];
  void *args[] = {a, b, c};
  (*add)(args);
  EXPECT_EQ(c[3], 44);
  Expected<std::vector<KernelFn>> all =
      (*library)->lookupAll({"test_copy_f32", "test_scale", "test_copy_f32"});
  ASSERT_TRUE(all.ok()) << all.error().message();
  EXPECT_EQ((*all)[0], (*all)[2]);
}

// Loading kernels shortens how long libomp's and OpenBLAS's idle workers
// spin (they would take the cores the next kernel's threads need), unless
// the user set those variables.
TEST(KernelLibrary, ShortensWorkerSpinningUnlessSet) {
  ::unsetenv("KMP_BLOCKTIME");
  ::unsetenv("OPENBLAS_THREAD_TIMEOUT");
  ASSERT_TRUE(KernelLibrary::open(testKernelsPath()).ok());
  ASSERT_NE(std::getenv("KMP_BLOCKTIME"), nullptr);
  ASSERT_NE(std::getenv("OPENBLAS_THREAD_TIMEOUT"), nullptr);
  EXPECT_STREQ(std::getenv("KMP_BLOCKTIME"), "1");
  EXPECT_STREQ(std::getenv("OPENBLAS_THREAD_TIMEOUT"), "4");
  ::setenv("KMP_BLOCKTIME", "200", 1);
  ::setenv("OPENBLAS_THREAD_TIMEOUT", "28", 1);
  ASSERT_TRUE(KernelLibrary::open(testKernelsPath()).ok());
  EXPECT_STREQ(std::getenv("KMP_BLOCKTIME"), "200");
  EXPECT_STREQ(std::getenv("OPENBLAS_THREAD_TIMEOUT"), "28");
}

TEST(KernelLibrary, MissingLibrary) {
  PlanDir dir;
  Expected<std::unique_ptr<KernelLibrary>> library =
      KernelLibrary::open(dir.file("nope.so"));
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.error().message(),
            "kernel library '" + dir.file("nope.so") + "' does not exist");
}

TEST(KernelLibrary, CorruptLibrary) {
  PlanDir dir;
  dir.write("bad.so", "\x7f"
                      "ELF this is not really an ELF file");
  Expected<std::unique_ptr<KernelLibrary>> library =
      KernelLibrary::open(dir.file("bad.so"));
  ASSERT_FALSE(library.ok());
  EXPECT_NE(library.error().message().find("cannot load kernel library '" +
                                           dir.file("bad.so") + "'"),
            std::string::npos)
      << library.error().message();
}

TEST(KernelLibrary, MissingSymbolsAreAllNamed) {
  Expected<std::unique_ptr<KernelLibrary>> library =
      KernelLibrary::open(testKernelsPath());
  ASSERT_TRUE(library.ok());
  Expected<std::vector<KernelFn>> all = (*library)->lookupAll(
      {"test_add_f32", "matmul_7", "test_copy_f32", "fused_gelu_2"});
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.error().message().find("lacks symbols 'fused_gelu_2', "
                                       "'matmul_7'"),
            std::string::npos)
      << all.error().message();
  Expected<KernelFn> one = (*library)->lookup("matmul_7");
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().message().find("has no symbol 'matmul_7'"),
            std::string::npos);
}

TEST(KernelLibrary, ExecutorReportsKernelProblems) {
  PlanBuilder b;
  int64_t x = b.regst("x"), y = b.regst("y");
  b.input("x", x);
  b.kernel("mystery", "no_such_kernel", {x}, {y});
  b.output("y", y);
  PlanDir dir;
  dir.writePlan(b.plan);
  Expected<std::unique_ptr<Executor>> executor = Executor::load(dir.path());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find("lacks symbol 'no_such_kernel'"),
            std::string::npos)
      << executor.error().message();

  b.plan.set_kernel_library("missing.so");
  dir.writePlan(b.plan);
  executor = Executor::load(dir.path());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().message().find("missing.so' does not exist"),
            std::string::npos)
      << executor.error().message();
}

} // namespace
