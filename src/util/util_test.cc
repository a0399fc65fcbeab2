#include <gtest/gtest.h>

#include <filesystem>

#include "util/files.h"
#include "util/sha256.h"
#include "util/status.h"

namespace cuco {
namespace {

TEST(Status, AtLineNamesFileAndLine) {
  Status s = Status::AtLine("w/workload.toml", 12, "bad key");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "w/workload.toml:12: bad key");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
}

TEST(Result, CarriesValueOrStatus) {
  Result<int> good = 3;
  Result<int> bad = Status::NotFound("x");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 3);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kNotFound);
}

TEST(Sha256, KnownVector) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Files, AtomicWriteThenRead) {
  auto dir = std::filesystem::temp_directory_path() / ("cuco_util_test_" + std::to_string(::getpid()));
  ASSERT_TRUE(MakeDirs(dir).ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "f.txt", "hello").ok());
  auto r = ReadFile(dir / "f.txt");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "hello");
  EXPECT_FALSE(ReadFile(dir / "missing").ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cuco
