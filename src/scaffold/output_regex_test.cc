// FindPrints and the output regexes guessed from them: time lines with their unit, verdict words
// in formats or in literals printed through %s, iostream chains read as formats.
#include "scaffold/output_regex.h"

#include <gtest/gtest.h>

#include <regex>

#include "scaffold/prints.h"
#include "scaffold/program_text.h"

namespace cuco::scaffold_internal {
namespace {

std::vector<PrintCall> Prints(const std::string& source) { return FindPrints(StripComments(source)); }

TEST(PrintsTest, PrintfCallsAndStreamChainsInLineOrder) {
  const auto p = Prints(
      "std::cout << \"N = \" << n << std::endl;\n"
      "printf(\"Time: %.3f \" \"ms\\n\", t);  // printf(\"not this\")\n"
      "fprintf(stderr, \"%s\\n\", ok ? \"PASS\" : \"FAIL\");\n");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].callee, "cout");
  EXPECT_EQ(p[0].format, "N = %g\n");
  EXPECT_EQ(p[0].line, 1);
  EXPECT_EQ(p[1].callee, "printf");
  EXPECT_EQ(p[1].format, "Time: %.3f ms\n");  // adjacent literals joined, escapes decoded
  EXPECT_EQ(p[1].line, 2);
  EXPECT_EQ(p[2].format, "%s\n");
  EXPECT_EQ(p[2].literals, (std::vector<std::string>{"PASS", "FAIL"}));
}

TEST(OutputRegexTest, TimeRegexMatchesTheLineAndCapturesTheNumber) {
  auto g = GuessTimeRegex(Prints("printf(\"rank %d: avg time %8.3f ms (%d iters)\\n\", r, t, n);"));
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->unit, "ms");
  EXPECT_EQ(g->line, 1);
  std::smatch m;
  const std::string line = "rank 0: avg time    1.250 ms (20 iters)";
  ASSERT_TRUE(std::regex_search(line, m, std::regex(g->regex))) << g->regex;
  EXPECT_EQ(m[1].str(), "1.250");
}

TEST(OutputRegexTest, TimeUnitsAndNoTime) {
  auto us = GuessTimeRegex(Prints("printf(\"Elapsed: %f us\\n\", t);"));
  ASSERT_TRUE(us.has_value());
  EXPECT_EQ(us->unit, "us");
  auto unitless = GuessTimeRegex(Prints("printf(\"latency=%g\\n\", t);"));
  ASSERT_TRUE(unitless.has_value());
  EXPECT_EQ(unitless->unit, "");
  EXPECT_FALSE(GuessTimeRegex(Prints("printf(\"time %d\\n\", n);")).has_value());  // not a floating conversion
  EXPECT_FALSE(GuessTimeRegex(Prints("printf(\"bandwidth %f GB/s\\n\", b);")).has_value());
  // A time step counts steps (gpritam/CUDA-aware-MPI's `"Time step = " << TimeStep`).
  EXPECT_FALSE(GuessTimeRegex(Prints("std::cout << \"Time step = \" << TimeStep << std::endl;")).has_value());
  EXPECT_FALSE(GuessTimeRegex(Prints("printf(\"timestep %g\\n\", ts);")).has_value());
  EXPECT_FALSE(GuessTimeRegex(Prints("printf(\"max_time_step: %f\\n\", dt);")).has_value());
  EXPECT_TRUE(GuessTimeRegex(Prints("printf(\"time per step: %f ms\\n\", t);")).has_value());
}

// A unit in the time's label (teju85/nccl-bench's `time-ms=%f`, `elapsed_us: %f`, `Time (s): %f`)
// is the time's unit; a label that only ends in a letter is not one.
TEST(OutputRegexTest, AUnitInTheLabelIsTheTimesUnit) {
  EXPECT_EQ(GuessTimeRegex(Prints("printf(\"Result: rank=%d time-ms=%f\\n\", r, et);"))->unit, "ms");
  EXPECT_EQ(GuessTimeRegex(Prints("printf(\"elapsed_us: %f\\n\", t);"))->unit, "us");
  EXPECT_EQ(GuessTimeRegex(Prints("printf(\"Time (s): %f\\n\", t);"))->unit, "s");
  EXPECT_EQ(GuessTimeRegex(Prints("printf(\"times: %f\\n\", t);"))->unit, "");
}

// No time word: a floating conversion a time unit follows is the time, labelled by what comes
// before it; a line with a time word wins wherever it is.
TEST(OutputRegexTest, AUnitAloneMarksTheTime) {
  auto g = GuessTimeRegex(Prints("printf(\"%.1f GB/s\\n\", bw);\nprintf(\"ring step: %.3f ms\\n\", t);"));
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->unit, "ms");
  EXPECT_EQ(g->line, 2);
  std::smatch m;
  const std::string line = "ring step: 0.412 ms";
  ASSERT_TRUE(std::regex_search(line, m, std::regex(g->regex))) << g->regex;
  EXPECT_EQ(m[1].str(), "0.412");
  auto word = GuessTimeRegex(Prints("printf(\"step: %.3f ms\\n\", t);\nprintf(\"time %f s\\n\", t);"));
  ASSERT_TRUE(word.has_value());
  EXPECT_EQ(word->line, 2);
  // Two times in one print, neither labelled by a time word: which is the program's is not known.
  EXPECT_FALSE(GuessTimeRegex(Prints("printf(\"%dx%d: 1 GPU: %8.4f s, %d GPUs: %8.4f s\\n\", nx, ny, t1, n, tn);")));
}

TEST(OutputRegexTest, VerdictInTheFormatOrThroughPercentS) {
  auto in_format = GuessVerdictRegex(Prints("puts(\"Check: PASSED\");"), true);
  ASSERT_TRUE(in_format.has_value());
  EXPECT_EQ(in_format->regex, "Check:\\s*PASSED");
  auto through_s = Prints("printf(\"Verification: %s\\n\", ok ? \"PASS\" : \"FAIL (mismatch)\");");
  auto pass = GuessVerdictRegex(through_s, true);
  auto fail = GuessVerdictRegex(through_s, false);
  ASSERT_TRUE(pass.has_value());
  ASSERT_TRUE(fail.has_value());
  EXPECT_EQ(pass->regex, "Verification:\\s*PASS");
  EXPECT_EQ(fail->regex, "Verification:\\s*FAIL");
  EXPECT_FALSE(GuessVerdictRegex(Prints("printf(\"done\\n\");"), true).has_value());
  // goldenrye/nccl-examples' broadcast: "Broadcast validation succeeded!" or "... failed!".
  auto succeeded = GuessVerdictRegex(Prints("if (ok) printf(\"Broadcast validation succeeded!\\n\");"), true);
  ASSERT_TRUE(succeeded.has_value());
  EXPECT_TRUE(std::regex_search("Broadcast validation succeeded!", std::regex(succeeded->regex))) << succeeded->regex;
}

TEST(OutputRegexTest, RegexForEscapesSpecialsAndLoosensSpaces) {
  EXPECT_EQ(RegexFor("a.b (c)"), "a\\.b\\s*\\(c\\)");
  EXPECT_EQ(RegexFor("x  "), "x\\s*");
  EXPECT_TRUE(std::regex_search("t[0] = 1+2", std::regex(RegexFor("t[0] =  1+2"))));
}

}  // namespace
}  // namespace cuco::scaffold_internal
