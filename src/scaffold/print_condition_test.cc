#include "scaffold/print_condition.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// The print of `code` whose format (or a literal it prints) holds `word`, judged.
bool Conditional(const std::string& code, const std::string& word) {
  for (const PrintCall& p : FindPrints(code)) {
    bool holds = p.format.find(word) != std::string::npos;
    for (const std::string& literal : p.literals) holds |= literal == word;
    if (holds) return PrintedUnderACondition(code, p);
  }
  ADD_FAILURE() << "no print holds " << word;
  return true;
}

// NCCL's examples end with a print no check guards.
TEST(PrintCondition, ALastPrintOfMainIsUnderNoCondition) {
  const std::string code = "int main() {\n  for (int i = 0; i < 2; ++i) {\n    run(i);\n  }\n"
                           "  printf(\"[MPI Rank %d] Success \\n\", rank);\n  return 0;\n}\n";
  EXPECT_FALSE(Conditional(code, "Success"));
}

// Inside a loop's body is still under no condition; inside an `if`, an `else` or a `switch`, in
// braces or not, it is.
TEST(PrintCondition, BranchesAreConditionsAndLoopsAreNot) {
  EXPECT_FALSE(Conditional("void f() {\n  while (more()) {\n    puts(\"PASSED\");\n  }\n}\n", "PASSED"));
  EXPECT_TRUE(Conditional("void f() {\n  if (errors == 0) {\n    for (;;) {\n      puts(\"PASSED\");\n    }\n  }\n}\n",
                          "PASSED"));
  EXPECT_TRUE(Conditional("void f() {\n  if (bad) puts(\"FAILED\");\n  else puts(\"PASSED\");\n}\n", "PASSED"));
  EXPECT_TRUE(Conditional("void f() {\n  if (bad) { puts(\"x\"); } else {\n  puts(\"PASSED\");\n  }\n}\n", "PASSED"));
  EXPECT_TRUE(Conditional("void f() {\n  switch (r) {\n    case 0: {\n      puts(\"PASSED\");\n    }\n  }\n}\n",
                          "PASSED"));
  EXPECT_TRUE(Conditional("void f() {\n  for (int i = 0; i < n; ++i) if (ok(i)) puts(\"PASSED\");\n}\n", "PASSED"));
  EXPECT_TRUE(Conditional("void f() {\n  std::cout << (ok ? \"PASSED\" : \"x\") << std::endl;\n}\n", "PASSED"));
}

// A block closed before the print does not hold it.
TEST(PrintCondition, AnEarlierBranchDoesNotHoldTheLaterPrint) {
  EXPECT_FALSE(Conditional("int main() {\n  if (rank == 0) {\n    setup();\n  }\n  printf(\"Success\\n\");\n}\n",
                           "Success"));
}

// An error-checking macro's lines, continued or not, are a directive's; the code after it is not.
TEST(PrintCondition, AMacrosContinuedLinesAreItsDirective) {
  const std::string code = "#define CHECK(cmd) do { \\\n  if ((cmd) != 0) { \\\n    printf(\"Failed\\n\"); \\\n"
                           "  } } while (0)\nint main() {\n  printf(\"Failed\\n\");\n}\n";
  EXPECT_TRUE(InDirective(code, 1));
  EXPECT_TRUE(InDirective(code, 3));
  EXPECT_FALSE(InDirective(code, 6));
  EXPECT_FALSE(InDirective(code, 60));
}

}  // namespace
}  // namespace cuco::scaffold_internal
