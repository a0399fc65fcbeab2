#include "prompts/answer_format.h"
#include "util/testutil.h"

#include <gtest/gtest.h>

#include <string>

namespace cuco {
using testutil::Has;
namespace {

TEST(AnswerFormat, EachKindStartsWithTheSummaryLine) {
  for (const char* kind : {"diff", "rewrite", "crossover"}) {
    const std::string t = AnswerFormatText(kind);
    EXPECT_EQ(t.rfind("Begin your answer with one line:\nSUMMARY: ", 0), 0u) << t;
  }
  EXPECT_TRUE(Has(AnswerFormatText("diff"), "<<<<<<< SEARCH\n<lines copied exactly from the parent>\n=======\n"));
  EXPECT_TRUE(Has(AnswerFormatText("rewrite"), "// EVOLVE-BLOCK-START\n"));
}

TEST(AnswerFormat, OtherKindsAreAskedAsDiffs) {
  EXPECT_EQ(NormalizedMutationKind("rewrite"), "rewrite");
  EXPECT_EQ(NormalizedMutationKind("crossover"), "crossover");
  EXPECT_EQ(NormalizedMutationKind("knobs"), "diff");
  EXPECT_EQ(NormalizedMutationKind(""), "diff");
}

}  // namespace
}  // namespace cuco
