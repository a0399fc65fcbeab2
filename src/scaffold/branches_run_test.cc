#include "scaffold/branches_run.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

using Lines = std::vector<std::pair<int, int>>;

BranchLines Of(const std::string& code) { return BranchLinesIn(code, 0, code.size(), DefaultsOf(code, {"rank"})); }

// teju85/nccl-bench: one collective per mode, chosen by a string the program sets by `-op`.
TEST(BranchesRun, AnIfChainOnAKnownModeRunsOneArm) {
  const BranchLines b = Of(
      "int main() {\n"                               // 1
      "  std::string op(\"allReduce\");\n"          // 2
      "  if (op == \"allReduce\") {\n"              // 3
      "    ncclAllReduce(in, out);\n"               // 4
      "  } else if (op == \"reduce\") {\n"          // 5
      "    ncclReduce(in, out);\n"                  // 6
      "  } else {\n"                                // 7
      "    abort();\n"                              // 8
      "  }\n"                                       // 9
      "  if (rank == 0) log(out);\n"                // 10
      "}\n");
  EXPECT_EQ(b.not_run, (Lines{{6, 9}, {6, 6}}));  // the outer else (line 5 holds the first arm's brace), the inner then
  EXPECT_EQ(b.conditional, (Lines{{10, 10}}));
}

// A switch over a known value runs the case it names, and the ones it falls into.
TEST(BranchesRun, ASwitchOnAKnownValueRunsItsCase) {
  const BranchLines b = Of(
      "enum Mode { kBw, kLat, kBoth };\n"           // 1
      "int main() {\n"                              // 2
      "  Mode m = kLat;\n"                          // 3
      "  switch (m) {\n"                            // 4
      "    case kBw:\n"                             // 5
      "      bw();\n"                               // 6
      "      break;\n"                              // 7
      "    case kLat:\n"                            // 8
      "      lat();\n"                              // 9
      "    case kBoth:\n"                           // 10
      "      both();\n"                             // 11
      "      break;\n"                              // 12
      "    default:\n"                              // 13
      "      other();\n"                            // 14
      "  }\n"                                       // 15
      "  switch (rank) {\n"                         // 16
      "    case 0: a(); break;\n"                   // 17
      "  }\n"                                       // 18
      "}\n");
  EXPECT_EQ(b.not_run, (Lines{{6, 7}, {14, 14}}));
  EXPECT_EQ(b.conditional, (Lines{{16, 18}}));
}

// What is not known stays conditional: a condition over the rank, an undecided value, a case label
// cuco cannot read.
TEST(BranchesRun, UnknownConditionsStayConditional) {
  const BranchLines b = Of("void f(int k) {\n  if (k > 2) g();\n  switch (k) { case 1: g(); }\n"
                           "  int m = 1;\n  switch (m) { case N: g(); }\n}\n");
  EXPECT_TRUE(b.not_run.empty());
  EXPECT_EQ(b.conditional, (Lines{{2, 2}, {3, 3}, {5, 5}}));
}

}  // namespace
}  // namespace cuco::scaffold_internal
