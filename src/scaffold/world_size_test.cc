// GuessWorldSize: the world size a program checks for, and numbers too long to be one.
#include "scaffold/world_size.h"

#include <gtest/gtest.h>

#include "scaffold/program_text.h"

namespace cuco::scaffold_internal {
namespace {

WorldGuess Guess(const std::string& raw) {
  const std::string code = StripComments(raw);
  return GuessWorldSize(raw, code, "p.cu", FindConstants(code), WorldSizeVariables(code));
}

TEST(WorldSizeTest, ACheckOfTheSizeVariableWins) {
  const WorldGuess g = Guess("int main() {\n  int world;\n  MPI_Comm_size(MPI_COMM_WORLD, &world);\n"
                             "  if (world != 4) return 1;\n}\n");
  EXPECT_EQ(g.size, 4);
  EXPECT_EQ(g.source, "p.cu:4: `world != 4`");
}

TEST(WorldSizeTest, ANumberTooLongForAnIntIsNoWorldSize) {
  // Was an uncaught std::out_of_range from std::stoi: cuco init aborted.
  const WorldGuess g = Guess("int main() {\n  int world;\n  MPI_Comm_size(MPI_COMM_WORLD, &world);\n"
                             "  if (world == 99999999999) return 1;\n  // mpirun -np 123456789012 ./p\n}\n");
  EXPECT_EQ(g.size, 2);
  EXPECT_EQ(g.source, "");
}

}  // namespace
}  // namespace cuco::scaffold_internal
