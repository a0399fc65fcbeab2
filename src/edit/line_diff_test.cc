#include "edit/line_diff.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// Applies `diff` to `from` with patch(1) and returns the result.
std::string Patch(const std::string& from, const std::string& diff) {
  fs::path dir = fs::temp_directory_path() / ("cuco_diff_" + std::to_string(getpid()));
  fs::create_directories(dir);
  WriteFileAtomic(dir / "a", from);
  WriteFileAtomic(dir / "d", diff);
  std::string cmd = "patch -s -o " + (dir / "b").string() + " " + (dir / "a").string() + " < " + (dir / "d").string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << diff;
  auto out = ReadFile(dir / "b");
  fs::remove_all(dir);
  return out.ok() ? *out : "<no output>";
}

TEST(LineDiff, EqualTextsGiveNothing) { EXPECT_EQ(UnifiedDiff("a\nb\n", "a\nb\n", "x", "y"), ""); }

TEST(LineDiff, OneLineChangedLooksLikeDiffU) {
  std::string a, b;
  for (int i = 1; i <= 10; ++i) {
    a += "line " + std::to_string(i) + "\n";
    b += (i == 5 ? std::string("LINE FIVE") : "line " + std::to_string(i)) + "\n";
  }
  EXPECT_EQ(UnifiedDiff(a, b, "old", "new"),
            "--- old\n+++ new\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+LINE FIVE\n line 6\n line 7\n line 8\n");
}

TEST(LineDiff, InsertionsAtTheEdges) {
  EXPECT_EQ(UnifiedDiff("b\n", "a\nb\n", "o", "n"), "--- o\n+++ n\n@@ -1 +1,2 @@\n+a\n b\n");
  EXPECT_EQ(UnifiedDiff("", "a\n", "o", "n"), "--- o\n+++ n\n@@ -0,0 +1 @@\n+a\n");
  EXPECT_EQ(UnifiedDiff("a\nb", "a\nb\n", "o", "n"),
            "--- o\n+++ n\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
}

TEST(LineDiff, LooseStyleIgnoresLineEndsAndCountsEveryRange) {
  DiffStyle loose;
  loose.mark_missing_newline = false;
  loose.short_ranges = false;
  EXPECT_EQ(UnifiedDiff("b\n", "a\nb\n", "o", "n", loose), "--- o\n+++ n\n@@ -1,1 +1,2 @@\n+a\n b\n");
  EXPECT_EQ(UnifiedDiff("", "a\n", "o", "n", loose), "--- o\n+++ n\n@@ -0,0 +1,1 @@\n+a\n");
  EXPECT_EQ(UnifiedDiff("a\nb", "a\nb\n", "o", "n", loose), "--- o\n+++ n\n");  // differ only in the final newline
  loose.context = 0;
  EXPECT_EQ(UnifiedDiff("a\nb\nc", "a\nB\nc\n", "o", "n", loose), "--- o\n+++ n\n@@ -2,1 +2,1 @@\n-b\n+B\n");
}

TEST(LineDiff, RandomEditsRoundTripThroughPatch) {
  std::mt19937_64 gen(5);
  struct {
    std::mt19937_64* g;
    uint64_t Below(uint64_t n) { return (*g)() % n; }
  } rng{&gen};
  for (int round = 0; round < 30; ++round) {
    std::vector<std::string> lines;
    for (int i = 0; i < 40; ++i) lines.push_back(std::string(1, 'l').append(std::to_string(rng.Below(8))));
    std::string a;
    for (const auto& l : lines) a += l + "\n";
    for (int e = 0; e < 1 + static_cast<int>(rng.Below(6)); ++e) {
      size_t at = rng.Below(lines.size() + 1);
      switch (rng.Below(3)) {
        case 0: lines.insert(lines.begin() + at, "new" + std::to_string(e)); break;
        case 1: if (at < lines.size()) lines.erase(lines.begin() + at); break;
        default: if (at < lines.size()) lines[at] = "changed" + std::to_string(e);
      }
    }
    std::string b;
    for (const auto& l : lines) b += l + "\n";
    std::string d = UnifiedDiff(a, b, "a", "b");
    if (a == b) {
      EXPECT_EQ(d, "");
      continue;
    }
    EXPECT_EQ(Patch(a, d), b) << d;
    // The fallback for huge middles is a valid diff too.
    EXPECT_EQ(Patch(a, UnifiedDiff(a, b, "a", "b", 3, /*max_cells=*/1)), b);
  }
}

}  // namespace
}  // namespace cuco
