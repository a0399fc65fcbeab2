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

// What main stops without: a test of argc whose arm returns or exits, and an option a message in
// such a block calls required. A test that does not stop main, or that argc shares with another
// condition by `&&`, asks for nothing; neither does a message outside a block.
TEST(ArgumentsMainRequires, ArgcTestsThatStopAndRequiredOptions) {
  const std::string trt =
      "int main(int argc, char** argv) {\n"
      "  if (argc < 2) {\n"
      "    std::cerr << \"Usage: \" << argv[0] << \" --engine <path> [--batch 32]\\n\";\n"
      "    return 1;\n"
      "  }\n"
      "  std::string engine;\n"
      "  for (int i = 1; i < argc; i++) if (std::string(argv[i]) == \"--engine\") engine = argv[++i];\n"
      "  if (engine.empty()) { std::cerr << \"--engine required\\n\"; return 1; }\n"
      "  printf(\"--batch is required for nothing\\n\");\n"
      "}\n";
  const ArgumentsRequired r = ArgumentsMainRequires(trt);
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.count_line, 2);
  EXPECT_EQ(r.count_test, "argc < 2");
  ASSERT_EQ(r.options.size(), 1u);
  EXPECT_EQ(r.options[0].name, "--engine");
  EXPECT_EQ(r.options[0].line, 8);

  EXPECT_EQ(ArgumentsMainRequires("int main(int argc, char** argv) {\n  if (argc != 4 || !ok) { usage(); exit(1); }\n}\n").count, 3);
  EXPECT_EQ(ArgumentsMainRequires("int main(int argc, char** argv) {\n  if (3 > argc) throw 1;\n}\n").count, 2);
  EXPECT_EQ(ArgumentsMainRequires("int main(int argc, char** argv) {\n  if (argc <= 1) return 2;\n}\n").count, 1);
  EXPECT_EQ(ArgumentsMainRequires("int main(int argc, char** argv) {\n  if (argc < 2) { n = 4; } else { return 1; }\n}\n").count, 0);
  EXPECT_EQ(ArgumentsMainRequires("int main(int argc, char** argv) {\n  if (argc < 2 && rank == 0) return 1;\n}\n").count, 0);
  EXPECT_EQ(ArgumentsMainRequires("int main(int argc, char** argv) {\n  if (argc > 1) n = atoi(argv[1]);\n}\n").count, 0);
  const ArgumentsRequired model = ArgumentsMainRequires(
      "int main(int argc, char** argv) {\n  if (!model) {\n    fprintf(stderr, \"missing required argument: -model\\n\");\n"
      "    MPI_Abort(MPI_COMM_WORLD, 1);\n  }\n}\n");
  ASSERT_EQ(model.options.size(), 1u);
  EXPECT_EQ(model.options[0].name, "-model");
  EXPECT_EQ(model.options[0].line, 3);

  // "required" beside no option (Blink-GPU's check of its GPU count) names none.
  EXPECT_TRUE(ArgumentsMainRequires(
                  "int main(int argc, char** argv) {\n  if (nodesize < ncouples) {\n    fprintf(stderr, \"Error: mynode (%s) has "
                  "less gpus (%d) then the required by -p flag (%d)\\n\", h, a, b);\n    MPI_Abort(MPI_COMM_WORLD, 1);\n  }\n}\n")
                  .options.empty());
  EXPECT_EQ(ArgumentsMainRequires("int main(int argc, char** argv) {\n  if (!p) { puts(\"required option --plan\"); exit(1); }\n}\n")
                .options.at(0).name, "--plan");
  EXPECT_TRUE(GivesOption({"--engine", "x.plan"}, "--engine"));
  EXPECT_TRUE(GivesOption({"--engine=x.plan"}, "--engine"));
  EXPECT_FALSE(GivesOption({"--engines", "x"}, "--engine"));
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

// The rank the only argument read with no default: "0" there and at each position before it that
// main does not read. Not where another argument is read with no default, nor where the one read is
// not a rank, nor where an earlier position is read at all.
TEST(RankAloneArguments, OnlyWhereTheRankIsAllMainNeeds) {
  const std::string one = "int main(int argc, char** argv) {\n  if (argc != 2) return 1;\n  int rank = atoi(argv[1]);\n}\n";
  EXPECT_EQ(RankAloneArguments(one, one, {}), std::vector<std::string>({"0"}));
  const std::string second = "int main(int argc, char** argv) {\n  int myRank = atoi(argv[2]);\n}\n";
  EXPECT_EQ(RankAloneArguments(second, second, {}), std::vector<std::string>({"0", "0"}));
  const std::string both = "int main(int argc, char** argv) {\n  int rank = atoi(argv[1]);\n  int n = atoi(argv[2]);\n}\n";
  EXPECT_TRUE(RankAloneArguments(both, both, {}).empty());
  const std::string size = "int main(int argc, char** argv) {\n  int n = atoi(argv[1]);\n}\n";
  EXPECT_TRUE(RankAloneArguments(size, size, {}).empty());
  const std::string earlier =
      "int main(int argc, char** argv) {\n  const char* host = argc > 1 ? argv[1] : \"x\";\n  int rank = atoi(argv[2]);\n}\n";
  EXPECT_TRUE(RankAloneArguments(earlier, earlier, {}).empty());
  const std::string none = "int main(int argc, char** argv) {\n  int rank = argc > 1 ? atoi(argv[1]) : 0;\n}\n";
  EXPECT_TRUE(RankAloneArguments(none, none, {}).empty());
}

}  // namespace
}  // namespace cuco::scaffold_internal
