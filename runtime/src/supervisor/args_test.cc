#include "supervisor/args.h"

#include <gtest/gtest.h>

namespace cuco::supervisor {
namespace {

bool Parse(std::vector<std::string> a, Args* out, std::string* err) {
  a.insert(a.begin(), "supervisor");
  std::vector<char*> argv;
  for (auto& s : a) argv.push_back(s.data());
  return ParseArgs(static_cast<int>(argv.size()), argv.data(), out, err);
}

TEST(SupervisorArgs, ParsesAStage) {
  Args a;
  std::string err;
  ASSERT_TRUE(Parse({"--stage", "bench", "--metrics-dir", "m", "--candidate", "c", "--log-dir", "l", "--world", "2",
                     "--size", "M=64", "--iters", "30", "--candidate-env", "PATH=/bin",
                     "--timed-seconds", "0.5", "--max-iters", "640"},
                    &a, &err))
      << err;
  EXPECT_EQ(a.world, 2);
  EXPECT_EQ(a.sizes.at("M"), 64);
  EXPECT_EQ(a.iters, 30);
  EXPECT_DOUBLE_EQ(a.timed_seconds, 0.5);
  EXPECT_EQ(a.max_iters, 640);
  EXPECT_TRUE(a.sandbox_argv.empty());
  EXPECT_EQ(a.candidate_env, std::vector<std::string>{"PATH=/bin"});
}

TEST(SupervisorArgs, RefusesBadInput) {
  const std::vector<std::string> base = {"--stage", "verify", "--metrics-dir", "m", "--candidate", "c", "--log-dir", "l"};
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--size", "M"}, {"--size", "1x=3"}, {"--world", "0"}, {"--verify-fraction", "2"}, {"--bogus", "1"},
           {"--timing-only"}, {"--iteration-limit", "-1"}, {"--sandbox-argv", "/nonexistent/file"},
           {"--timed-seconds", "-1"}, {"--timed-seconds", "soon"}, {"--max-iters", "-5"}}) {
    Args a;
    std::string err;
    auto argv = base;
    argv.insert(argv.end(), extra.begin(), extra.end());
    EXPECT_FALSE(Parse(argv, &a, &err)) << extra[0];
    EXPECT_FALSE(err.empty());
  }
  Args a;
  std::string err;
  EXPECT_FALSE(Parse({"--stage", "bench"}, &a, &err));  // no metrics dir, candidate, logs
}

}  // namespace
}  // namespace cuco::supervisor
