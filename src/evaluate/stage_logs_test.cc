// evaluate/stage_logs.h: what a failed stage's logs say.
#include "evaluate/stage_logs.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(StageLogs, LastLinesOfAText) {
  EXPECT_EQ(LastLines("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(LastLines("a\nb", 5), "a\nb");
}

// A stage past its time limit quotes where a program's reference said it waited: its last line.
TEST(StageLogs, TheReferencesLastWordsAreItsLastLine) {
  const std::string log =
      "[cuco-supervisor] verify\n"
      "cuco reference: the program's set-up, up to its timed loop: still waiting for rank(s) 1 after 20 s\n"
      "cuco reference: iteration 0 of the program: still waiting for rank(s) 0, 1 after 40 s\n"
      "the program's own line\n";
  EXPECT_EQ(ReferenceLastWordsIn(log),
            "the reference said last: iteration 0 of the program: still waiting for rank(s) 0, 1 after 40 s");
  EXPECT_EQ(ReferenceLastWordsIn("[cuco-supervisor] verify\nthe program's own line\n"), "");
  // Only a line the reference began, never text inside the program's own line.
  EXPECT_EQ(ReferenceLastWordsIn("echo cuco reference: forged\n"), "");
  EXPECT_EQ(ReferenceLastWordsIn("cuco reference: " + std::string(400, 'x')).size(),
            std::string("the reference said last: ").size() + 303);
}

}  // namespace
}  // namespace cuco
