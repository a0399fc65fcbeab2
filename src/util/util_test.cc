#include <gtest/gtest.h>

#include <filesystem>

#include "util/clock.h"
#include "util/text.h"
#include "util/files.h"
#include "util/language_standard.h"
#include "util/quantile.h"
#include "util/sha256.h"
#include "util/status.h"

namespace cuco {
namespace {

TEST(Quantile, LinearBetweenTheNearestTwo) {
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3}, 0.5), 2);
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 10}, 0.5), 2.5);  // an even count: the mean of the middle two
  EXPECT_DOUBLE_EQ(Quantile({0, 10}, 0.1), 1);
  EXPECT_DOUBLE_EQ(Quantile({7}, 0.9), 7);
}

// Older standards (and a C program's) become C++17; the GNU dialect stays for clang, not for nvcc.
TEST(LanguageStandard, AtLeastCpp17) {
  EXPECT_EQ(AtLeastCpp17("-std=c++11", false), "-std=c++17");
  EXPECT_EQ(AtLeastCpp17("-std=gnu++1y", false), "-std=gnu++17");
  EXPECT_EQ(AtLeastCpp17("-std=gnu++14", true), "-std=c++17");
  EXPECT_EQ(AtLeastCpp17("-std=c99", false), "-std=c++17");
  EXPECT_EQ(AtLeastCpp17("-std=c++2a", true), "-std=c++20");
  EXPECT_EQ(AtLeastCpp17("-std=gnu++20", false), "-std=gnu++20");
  EXPECT_EQ(AtLeastCpp17("-O2", true), "-O2");
}

TEST(Clock, FormatTimeInUtc) {
  EXPECT_EQ(FormatTime(1764071258123, "%Y-%m-%dT%H:%M:%SZ", TimeZone::kUtc), "2025-11-25T11:47:38Z");
  EXPECT_EQ(FormatTime(0, "%Y%m%d-%H%M%S", TimeZone::kUtc), "19700101-000000");
  EXPECT_EQ(FormatTime(NowMs(), "%Y%m%d-%H%M%S", TimeZone::kLocal).size(), 15u);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_GE(SecondsSince(start), 0.0);
  EXPECT_NEAR(SecondsSince(start - std::chrono::seconds(3)), 3.0, 1.0);
}

TEST(Clock, FormatDurationForPeople) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(-3), "0s");
  EXPECT_EQ(FormatDuration(59.9), "59s");
  EXPECT_EQ(FormatDuration(245), "4m05s");
  EXPECT_EQ(FormatDuration(7380), "2h03m");
}

TEST(Clock, ParseDurationTakesSecondsMinutesHours) {
  EXPECT_EQ(*ParseDuration("90s"), 90);
  EXPECT_EQ(*ParseDuration("30m"), 1800);
  EXPECT_EQ(*ParseDuration("2h"), 7200);
  EXPECT_EQ(*ParseDuration("1.5h"), 5400);
  EXPECT_EQ(*ParseDuration("3600"), 3600);
  for (const char* bad : {"", "h", "-5", "5 m", "5d", "abc", "inf", "1e999", "2hh"}) {
    auto r = ParseDuration(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("90s, 30m, 2h"), std::string::npos);
    }
  }
}

TEST(Text, ClosestNamesForDidYouMean) {
  EXPECT_EQ(EditDistance("evolv", "evolve"), 1u);
  EXPECT_EQ(EditDistance("stge", "stage"), 1u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  const std::vector<std::string> commands = {"doctor", "eval", "evolve", "bench", "analyze", "init", "transform", "run"};
  EXPECT_EQ(ClosestNames("evolv", commands), (std::vector<std::string>{"evolve"}));
  EXPECT_EQ(ClosestNames("evl", commands), (std::vector<std::string>{"eval"}));
  EXPECT_EQ(ClosestNames("trans", commands), (std::vector<std::string>{"transform"}));
  EXPECT_TRUE(ClosestNames("frobnicate", commands).empty());
  EXPECT_EQ(QuotedAlternatives({"a", "b", "c"}), "'a', 'b' or 'c'");
  EXPECT_EQ(QuotedAlternatives({"a"}), "'a'");
}

TEST(Text, ReplaceAllLeftToRightNeverRescanningWhatItPut) {
  EXPECT_EQ(ReplaceAll("/c/cand-1/x.cc:3: error; /c/cand-1/x.cc:4", "/c/cand-1/x.cc", "candidates/2/candidate.cc"),
            "candidates/2/candidate.cc:3: error; candidates/2/candidate.cc:4");
  EXPECT_EQ(ReplaceAll("aaa", "a", "aa"), "aaaaaa");
  EXPECT_EQ(ReplaceAll("abc", "", "x"), "abc");
  EXPECT_EQ(ReplaceAll("", "a", "b"), "");
}

TEST(Text, LastLine) {
  EXPECT_EQ(LastLine("a\nb\n\n  \n"), "b");
  EXPECT_EQ(LastLine("only"), "only");
  EXPECT_EQ(LastLine(" \n\t"), "");
}

TEST(Status, AtLineNamesFileAndLine) {
  Status s = Status::AtLine("w/workload.toml", 12, "bad key");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "w/workload.toml:12: bad key");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  // Line 0 (no line known) names the file only, never "file:0".
  EXPECT_EQ(Status::AtLine("w/workload.toml", 0, "bad key").message(), "w/workload.toml: bad key");
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

// `-include name`: the folder's file where there is one, else the name for the include search.
TEST(Files, PreIncludedFileIsTheFoldersOrASearchedName) {
  auto dir = std::filesystem::temp_directory_path() / ("cuco_util_pre_" + std::to_string(::getpid()));
  ASSERT_TRUE(MakeDirs(dir).ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "config.h", "#define X 1\n").ok());
  EXPECT_EQ(PreIncludedFile("config.h", dir), (dir / "config.h").string());
  EXPECT_EQ(PreIncludedFile("cstdio", dir), "cstdio");
  EXPECT_EQ(PreIncludedFile("/abs/pre.h", dir), "/abs/pre.h");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cuco

namespace cuco {
namespace {

TEST(Text, TomlStrings) {
  EXPECT_EQ(TomlQuoted("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
  EXPECT_EQ(TomlLiteralOrQuoted("Time:\\s*([0-9.]+)"), "'Time:\\s*([0-9.]+)'");
  EXPECT_EQ(TomlLiteralOrQuoted("it's"), "\"it's\"");
  // Control characters are never written raw (TOML rejects them): a form feed, a bell, DEL.
  EXPECT_EQ(TomlQuoted("a\fe\r\x07\x7f\tz"), "\"a\\fe\\r\\u0007\\u007F\tz\"");
  EXPECT_EQ(TomlLiteralOrQuoted("x\fy"), "\"x\\fy\"");
}

TEST(Text, CapTextCutsAtALineWithANote) {
  EXPECT_EQ(CapText("short", 10), "short");
  std::string long_text;
  for (int i = 0; i < 100; ++i) long_text += "line " + std::to_string(i) + "\n";
  const std::string capped = CapText(long_text, 300);
  EXPECT_LE(capped.size(), 300u);
  EXPECT_NE(capped.find("characters in all; cut here"), std::string::npos);
  EXPECT_EQ(capped.rfind("line 0\n", 0), 0u);
}

}  // namespace
}  // namespace cuco
