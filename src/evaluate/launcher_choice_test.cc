#include "evaluate/launcher_choice.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace cuco {
namespace {

TEST(LauncherChoice, TheFlagReplacesTheConfiguredLauncher) {
  CascadeOptions o;
  ASSERT_TRUE(ChooseLauncher("local", "slurm", SlurmOptions{}, "/tmp", &o).ok());
  EXPECT_EQ(o.launcher, "local");
  ASSERT_TRUE(ChooseLauncher("", "local", SlurmOptions{}, "/tmp", &o).ok());
  EXPECT_EQ(o.launcher, "local");
}

TEST(LauncherChoice, SlurmWithoutItsCommandsIsAMissingTool) {
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  ::setenv("PATH", "/nonexistent", 1);
  CascadeOptions o;
  Status s = ChooseLauncher("", "slurm", SlurmOptions{}, "/tmp", &o);
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(o.launcher, "slurm");
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("sbatch"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace cuco
