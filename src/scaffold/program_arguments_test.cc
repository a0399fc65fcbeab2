#include "scaffold/program_arguments.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// argv[1] after a usage check that returns, argv[3] read bare: both needed. argv[2] behind
// `argc > 2`, argv[4] in a ternary on argc and argv[5] with a default the analysis found: not.
TEST(ArgumentsWithoutDefault, TheReadsNothingGuardsOrBacks) {
  const std::string raw =
      "// argv[7] in a comment\n"
      "int main(int argc, char** argv) {\n"
      "  if (argc < 2) { printf(\"usage: %s n\", argv[0]); return 1; }\n"
      "  int n = atoi(argv[1]);\n"
      "  if (argc > 2) {\n    m = atoi(argv[2]);\n  }\n"
      "  int k = atoi(argv[3]);\n"
      "  int q = argc > 4 ? atoi(argv[4]) : 8;\n"
      "  int w = atoi(argv[5]);\n"
      "  const char* s = \"argv[6]\";\n"
      "  return n + k + atoi(argv[1]);\n"
      "}\n";
  FoundConstant five;
  five.argv_index = 5;
  const std::vector<ArgumentRead> reads = ArgumentsWithoutDefault(raw, {five});
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(reads[0].index, 1);
  EXPECT_EQ(reads[0].line, 4);
  EXPECT_EQ(reads[0].statement, "int n = atoi(argv[1]);");
  EXPECT_EQ(reads[1].index, 3);
  EXPECT_EQ(reads[1].line, 8);
}

TEST(SplitProgramArguments, WordsAndRefusals) {
  std::vector<std::string> args;
  std::string error;
  ASSERT_TRUE(SplitProgramArguments("  4 --seq 128 ", &args, &error));
  EXPECT_EQ(args, (std::vector<std::string>{"4", "--seq", "128"}));
  std::vector<std::string> bad;
  EXPECT_FALSE(SplitProgramArguments("4 \"x y\"", &bad, &error));
  EXPECT_NE(error.find("--args"), std::string::npos);
}

// A rank read by position (`int rank = atoi(argv[3]);`), given a number: the harness passes each
// rank's own there. A count of ranks, a local rank, a root or an argument given as a word is not one.
TEST(RankFromArguments, ARankReadByPositionAndGivenANumber) {
  const std::vector<std::string> args = {"127.0.0.1", "10000", "0"};
  EXPECT_EQ(RankFromArguments("int nrank = 2;\nint rank = atoi(argv[3]);\n", args), 3);
  EXPECT_EQ(RankFromArguments("myRank = std::stoi(argv[3]);\n", args), 3);
  EXPECT_EQ(RankFromArguments("int rank = argc > 3 ? atoi(argv[3]) : 0;\n", args), 3);  // as a GPU count is read
  EXPECT_EQ(RankFromArguments("int nranks = atoi(argv[3]);\n", args), 0);
  EXPECT_EQ(RankFromArguments("int local_rank = atoi(argv[3]);\n", args), 0);
  EXPECT_EQ(RankFromArguments("int root_rank = atoi(argv[3]);\n", args), 0);
  EXPECT_EQ(RankFromArguments("int rank = atoi(argv[1]);\n", args), 0);  // given "127.0.0.1"
  EXPECT_EQ(RankFromArguments("int rank = atoi(argv[4]);\n", args), 0);  // not given
  EXPECT_EQ(RankFromArguments("int port = atoi(argv[2]);\n", args), 0);
}

}  // namespace
}  // namespace cuco::scaffold_internal
