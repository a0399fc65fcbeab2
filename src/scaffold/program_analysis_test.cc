#include "scaffold/program_analysis.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace cuco {
namespace {

namespace fs = std::filesystem;

class MainFileFirstTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cuco_main_first_" + std::to_string(::getpid()));
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(root_ / name) << text;
    return (root_ / name).string();
  }
  fs::path root_;
};

// nccl-tests' layout typed as `hypercube.cu common.cu timer.cc`: main is in common.cu, which moves
// first, the others keeping their order; a file defining main first, or two defining one, stay as given.
TEST_F(MainFileFirstTest, TheOneFileDefiningMainMovesFirst) {
  const std::string coll = Write("hypercube.cu", "// int main() { in a comment }\nvoid run() { helper.main(); }\n");
  const std::string common = Write("common.cu", "int main(int argc, char* argv[]) {\n  return run();\n}\n");
  const std::string timer = Write("timer.cc", "int main_timer() { return 0; }\n");
  std::vector<std::string> files = {coll, common, timer};
  const std::string said = MainFileFirst(&files);
  EXPECT_EQ(files, std::vector<std::string>({common, coll, timer}));
  EXPECT_NE(said.find("hypercube.cu defines no main; " + common), std::string::npos) << said;
  EXPECT_EQ(MainFileFirst(&files), "");
  const std::string other = Write("other.cu", "int main(void)\n{\n  return 0;\n}\n");
  std::vector<std::string> two = {coll, common, other};
  EXPECT_EQ(MainFileFirst(&two), "");
  EXPECT_EQ(two, std::vector<std::string>({coll, common, other}));
}

}  // namespace
}  // namespace cuco
