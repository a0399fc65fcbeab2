#include "evaluate/builder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

fs::path CpuWorkloadDir() { return fs::path(CUCO_SOURCE_DIR) / "tests" / "workloads" / "cpu_matmul"; }

class BuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = fs::temp_directory_path() / ("cuco_builder_" + std::to_string(::getpid()));
    fs::remove_all(cache_);
    auto wl = LoadWorkload(CpuWorkloadDir());
    ASSERT_TRUE(wl.ok()) << wl.status().ToString();
    wl_ = *wl;
    tc_.cxx = "g++";
  }
  void TearDown() override { fs::remove_all(cache_); }
  fs::path cache_;
  WorkloadConfig wl_;
  Toolchain tc_;
};

TEST_F(BuilderTest, BuildsOnceThenHitsTheCache) {
  Builder b(cache_, wl_, tc_);
  auto seed = ReadFile(wl_.SeedPath());
  ASSERT_TRUE(seed.ok());
  auto first = b.Build(*seed, 120);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->ok) << first->log;
  EXPECT_FALSE(first->cached);
  EXPECT_TRUE(fs::exists(first->executable));
  auto second = b.Build(*seed, 120);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->ok);
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->executable, first->executable);
  EXPECT_EQ(second->key, first->key);
  // A different candidate is a different key.
  auto other = b.Build(*seed + "\n// changed\n", 120);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->key, first->key);
  EXPECT_FALSE(other->cached);
}

TEST_F(BuilderTest, CompileErrorsKeepDiagnosticsAndAreCached) {
  Builder b(cache_, wl_, tc_);
  auto bad = ReadFile(CpuWorkloadDir() / "candidates" / "compile_error.cc");
  ASSERT_TRUE(bad.ok());
  auto r = b.Build(*bad, 120);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->log.find("error"), std::string::npos) << r->log;
  EXPECT_TRUE(fs::exists(r->log_path));
  auto again = b.Build(*bad, 120);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->ok);
  EXPECT_TRUE(again->cached);
  EXPECT_EQ(again->log, r->log);
}

TEST_F(BuilderTest, MissingCompilerIsUnavailable) {
  wl_.language = "cuda";
  Toolchain none;
  Builder b(cache_, wl_, none);
  auto r = b.Build("int x;", 10);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable);
}

// A workload that links cuDNN or NVSHMEM ([build] libs) on a machine without it: every build fails
// with a message naming what is missing and where to get it, not a compiler error.
TEST_F(BuilderTest, MissingCudnnOrNvshmemFailsEveryBuildWithTheReason) {
  wl_.build_libs = {"cudnn"};
  auto seed = ReadFile(wl_.SeedPath());
  ASSERT_TRUE(seed.ok());
  {
    Builder b(cache_, wl_, tc_);
    auto r = b.Build(*seed, 60);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FALSE(r->ok);
    EXPECT_NE(r->log.find("links \"cudnn\""), std::string::npos) << r->log;
    EXPECT_NE(r->log.find("cuDNN 9 (cudnn.h and libcudnn.so.9)"), std::string::npos) << r->log;
    EXPECT_NE(r->log.find("cuco doctor"), std::string::npos) << r->log;
  }
  tc_.cudnn.found = true;  // cuDNN itself, but no frontend headers
  {
    Builder b(cache_, wl_, tc_);
    auto r = b.Build(*seed, 60);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->ok);
    EXPECT_NE(r->log.find("the cuDNN frontend headers"), std::string::npos) << r->log;
  }
  wl_.build_libs = {"nvshmem"};  // likewise NVSHMEM
  Builder b(cache_, wl_, tc_);
  auto r = b.Build(*seed, 60);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->log.find("lacks NVSHMEM"), std::string::npos) << r->log;
}

}  // namespace
}  // namespace cuco
