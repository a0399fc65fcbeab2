#include "workload/evolve_blocks.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

const std::string kSeed =
    "#include <a.h>\n"           // 1
    "int frozen1;\n"             // 2
    "// EVOLVE-BLOCK-START\n"    // 3
    "int x = 1;\n"               // 4
    "// EVOLVE-BLOCK-END\n"      // 5
    "int frozen2;\n"             // 6
    "// EVOLVE-BLOCK-START\n"    // 7
    "int y = 2;\n"               // 8
    "// EVOLVE-BLOCK-END\n"      // 9
    "int frozen3;\n";            // 10

TEST(EvolveBlocks, SplitsAndJoins) {
  auto s = SplitEvolveBlocks(kSeed, "seed.cu");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->blocks.size(), 2u);
  EXPECT_EQ(s->blocks[0].start_line, 3);
  EXPECT_EQ(s->blocks[0].end_line, 5);
  EXPECT_EQ(s->blocks[0].body, "int x = 1;\n");
  EXPECT_EQ(s->blocks[1].body, "int y = 2;\n");
  EXPECT_EQ(s->frozen.size(), 3u);
  EXPECT_EQ(s->frozen_first_line, (std::vector<int>{1, 5, 9}));
  auto joined = JoinEvolveBlocks(*s, {"int x = 1;\n", "int y = 2;\n"});
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(*joined, kSeed);
  auto changed = JoinEvolveBlocks(*s, {"int x = 7;", ""});
  ASSERT_TRUE(changed.ok());
  EXPECT_NE(changed->find("int x = 7;\n// EVOLVE-BLOCK-END"), std::string::npos);
  EXPECT_FALSE(JoinEvolveBlocks(*s, {"a"}).ok());
}

TEST(EvolveBlocks, UnbalancedAndNestedAreErrorsWithLines) {
  auto nested = SplitEvolveBlocks("a\n// EVOLVE-BLOCK-START\n// EVOLVE-BLOCK-START\n", "f.cu");
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(nested.status().message(), "f.cu:3: nested EVOLVE-BLOCK-START (the block opened at line 2 is still open)");
  auto stray_end = SplitEvolveBlocks("a\nb\n// EVOLVE-BLOCK-END\n", "f.cu");
  ASSERT_FALSE(stray_end.ok());
  EXPECT_EQ(stray_end.status().message(), "f.cu:3: EVOLVE-BLOCK-END without a matching EVOLVE-BLOCK-START");
  auto unclosed = SplitEvolveBlocks("a\n// EVOLVE-BLOCK-START\nx\n", "f.cu");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_EQ(unclosed.status().message(), "f.cu:2: EVOLVE-BLOCK-START is never closed by EVOLVE-BLOCK-END");
  auto none = SplitEvolveBlocks("int a;\n", "f.cu");
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(SplitEvolveBlocks("int a;\n", "f.cu", /*require_blocks=*/false).ok());
}

TEST(EvolveBlocks, MarkersAndWellFormedBlocks) {
  const std::string one = std::string("a\n") + kEvolveStartLine + "\nb\n" + kEvolveEndLine + "\nc\n";
  EXPECT_EQ(one, "a\n// EVOLVE-BLOCK-START\nb\n// EVOLVE-BLOCK-END\nc\n");
  EXPECT_TRUE(HasEvolveMarker(one));
  EXPECT_TRUE(HasEvolveBlocks(one));
  const std::string open = std::string("a\n") + kEvolveStartLine + "\nb\n";  // never closed
  EXPECT_TRUE(HasEvolveMarker(open));
  EXPECT_FALSE(HasEvolveBlocks(open));
  EXPECT_FALSE(HasEvolveMarker("int main() {}\n"));
  EXPECT_FALSE(HasEvolveBlocks(""));
  EXPECT_EQ(std::string(kEvolveBlockStart).rfind(kEvolveMarker, 0), 0u);
  EXPECT_EQ(std::string(kEvolveBlockEnd).rfind(kEvolveMarker, 0), 0u);
}

TEST(FrozenCheck, AcceptsChangedBlocks) {
  std::string cand = kSeed;
  cand.replace(cand.find("int x = 1;"), 10, "int x = 1;\nint z = 3;\nint w = 4;");
  EXPECT_TRUE(CheckFrozenCode(kSeed, "seed.cu", cand, "cand.cu").ok());
}

TEST(FrozenCheck, NamesFirstDifferingLine) {
  std::string cand = kSeed;
  // Grow block 1 by two lines, then edit frozen2 (seed line 6, candidate line 8).
  cand.replace(cand.find("int x = 1;"), 10, "int x = 1;\nint z = 3;\nint w = 4;");
  cand.replace(cand.find("int frozen2;"), 12, "int frozen2 = 5;");
  Status s = CheckFrozenCode(kSeed, "seed.cu", cand, "cand.cu");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "cand.cu:8: frozen code differs from the seed (seed.cu:6): candidate has \"int frozen2 = 5;\", seed has "
            "\"int frozen2;\"");
}

TEST(FrozenCheck, CatchesEditedIncludeAndDroppedBlock) {
  std::string cand = kSeed;
  cand.replace(0, 14, "#include <b.h>");
  Status s = CheckFrozenCode(kSeed, "seed.cu", cand, "cand.cu");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cand.cu:1: frozen code differs"), std::string::npos) << s.message();

  std::string one_block = "#include <a.h>\nint frozen1;\n// EVOLVE-BLOCK-START\nint x;\n// EVOLVE-BLOCK-END\n";
  s = CheckFrozenCode(kSeed, "seed.cu", one_block, "cand.cu");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("has 1 EVOLVE blocks, the seed seed.cu has 2"), std::string::npos) << s.message();

  std::string trailing = kSeed + "int extra;\n";
  s = CheckFrozenCode(kSeed, "seed.cu", trailing, "cand.cu");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cand.cu:11: frozen code differs from the seed (seed.cu:11): candidate adds \"int extra;\""),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace cuco
