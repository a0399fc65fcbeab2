#include "search/budget_flags.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

RunConfig DefaultRunConfig() {
  auto c = ParseRunConfig("", "(defaults)");
  EXPECT_TRUE(c.ok());
  return *c;
}

// `--max-candidates 60` stopping at 21 because of max_generations = 10 (issue 31): given alone, a
// count limit lifts the other one, and says so.
TEST(BudgetFlags, ACountLimitGivenAloneBinds) {
  RunConfig cfg = DefaultRunConfig();
  cfg.max_generations = 10;
  BudgetFlags flags;
  flags.max_candidates = 60;
  auto change = ApplyBudgetFlags(flags, &cfg);
  ASSERT_TRUE(change.ok()) << change.status().message();
  EXPECT_EQ(cfg.max_candidates, 60);
  EXPECT_EQ(cfg.max_generations, 0);
  ASSERT_EQ(change->lifts.size(), 1u);
  EXPECT_NE(change->lifts[0].find("lifts max_generations = 10"), std::string::npos) << change->lifts[0];
  auto toml = RecordBudgetChange("[budget]\nmax_candidates = 5\n", "c.toml", *change, cfg);
  ASSERT_TRUE(toml.ok()) << toml.status().message();
  EXPECT_EQ(*toml, "[budget]\nmax_generations = 0\nmax_candidates = 60\n");  // replaced in place, added first
  EXPECT_EQ(RaiseBudgetFlag("max_candidates", cfg), "--max-candidates 120");
}

TEST(BudgetFlags, ABadDurationNamesItsFlag) {
  RunConfig cfg = DefaultRunConfig();
  BudgetFlags flags;
  flags.time_budget = "soon";
  auto change = ApplyBudgetFlags(flags, &cfg);
  ASSERT_FALSE(change.ok());
  EXPECT_EQ(change.status().message().rfind("--time-budget: ", 0), 0u) << change.status().message();
}

}  // namespace
}  // namespace cuco
