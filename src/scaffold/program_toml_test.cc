#include "scaffold/program_toml.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// Program mode runs the program in the same sandbox as a candidate, whose /tmp is its own: the
// absolute paths its arguments name are its `reads` too (a training set under /tmp).
TEST(ProgramToml, ThePathsTheArgumentsNameAreItsReads) {
  ProgramFacts f;
  f.name = "vit";
  f.file = "train_vit.cu";
  f.has_main = true;
  f.program_args = {"/tmp/vitdata/train.csv", "200"};
  const std::string toml = ProgramToml(f);
  EXPECT_NE(toml.find("reads = [\"/tmp/vitdata/train.csv\"]"), std::string::npos) << toml;
  f.program_args = {"200"};
  EXPECT_EQ(ProgramToml(f).find("reads ="), std::string::npos);
}

}  // namespace
}  // namespace cuco::scaffold_internal
