#include "scaffold/callee_defaults.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

const char* kHelper = R"(template <int ROLE, int DEPTH = 2>
void bench(size_t chunk, int reps = 8) {
  if (ROLE == 0) send(chunk); else recv(chunk);
}
)";

AnalyzedFunction Bench() {
  AnalyzedFunction fn;
  fn.name = "bench";
  fn.params = {"chunk", "reps"};
  return fn;
}

// Every call read under the program's defaults, with `rank` its rank.
ProgramDefaults Program(int) {
  ProgramDefaults d;
  d.rank_vars = {"rank"};
  d.values["n"] = 4096;
  return d;
}

// A template's arguments and the function's, or their defaults, give the parameters' values.
TEST(CalleeDefaults, TemplateAndFunctionArgumentsOrTheirDefaults) {
  const ProgramDefaults d = CalleeDefaults(kHelper, Bench(), {{"1"}, {"n"}}, Program(0));
  EXPECT_EQ(d.values, (std::map<std::string, int64_t>{{"ROLE", 1}, {"DEPTH", 2}, {"chunk", 4096}, {"reps", 8}}));
  EXPECT_TRUE(CalleeDefaults(kHelper, Bench(), {{"rank"}, {}}, Program(0)).rank_vars.count("ROLE"));
}

// Calls in the arms of `if (rank == 0)` giving ROLE 0 and 1 make it a rank; calls in turn leave it
// no one value; a value every call gives is kept, and the program's own names are not the helper's.
TEST(CalleeDefaults, OverCallsARoleChosenByTheRankIsARank) {
  const std::string by_rank = std::string(kHelper) +
                              "void run() {\n  if (rank == 0) bench<0>(n);\n  else bench<1>(n);\n}\n";
  const ProgramDefaults d = DefaultsOverCalls(by_rank, Bench(), Program);
  EXPECT_TRUE(d.rank_vars.count("ROLE"));
  EXPECT_EQ(d.values.at("chunk"), 4096);
  EXPECT_FALSE(d.values.count("n") || d.rank_vars.count("rank"));

  const std::string in_turn = std::string(kHelper) + "void run() {\n  bench<0>(n);\n  bench<1>(64);\n}\n";
  const ProgramDefaults t = DefaultsOverCalls(in_turn, Bench(), Program);
  EXPECT_FALSE(t.rank_vars.count("ROLE") || t.values.count("ROLE") || t.values.count("chunk"));
  EXPECT_EQ(t.values.at("DEPTH"), 2);
}

// A declaration of the helper is not a call of it.
TEST(CalleeDefaults, ADeclarationIsNoCall) {
  const std::string text = "template <int ROLE, int DEPTH = 2> void bench(size_t chunk, int reps = 8);\n" +
                           std::string(kHelper) + "void run() { bench<1>(n); }\n";
  EXPECT_EQ(DefaultsOverCalls(text, Bench(), Program).values.at("ROLE"), 1);
}

}  // namespace
}  // namespace cuco::scaffold_internal
