#include "search/budget.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

RunConfig Limits(int max_candidates, int max_generations, double max_wall_s, double max_dollars) {
  RunConfig c;
  c.max_candidates = max_candidates;
  c.max_generations = max_generations;
  c.max_wall_s = max_wall_s;
  c.max_dollars = max_dollars;
  return c;
}

TEST(BudgetEta, TheFirstLimitToBindGivesTheEstimate) {
  BudgetUse u;
  u.counted = 10;
  u.wall_s = 60;
  u.session_done = 10;
  u.session_s = 60;  // 10 candidates a minute
  u.generation = 2;
  u.slots_left = 1;
  u.per_generation = 4;
  // 40 candidates left: 4 minutes; 3 more generations of 4 + 1 slot: 13 candidates, 78 s.
  BudgetEta e = EstimateBudgetEta(Limits(50, 5, 0, 0), u);
  EXPECT_EQ(e.limit, "max_generations");
  EXPECT_NEAR(e.seconds, 78, 1e-9);
  // A wall limit 30 s away binds first.
  e = EstimateBudgetEta(Limits(50, 5, 90, 0), u);
  EXPECT_EQ(e.limit, "max_wall_s");
  EXPECT_NEAR(e.seconds, 30, 1e-9);
  // $1 spent in 60 s of a $2 budget: 60 s.
  u.dollars = 1;
  e = EstimateBudgetEta(Limits(50, 0, 0, 2), u);
  EXPECT_EQ(e.limit, "max_dollars");
  EXPECT_NEAR(e.seconds, 60, 1e-9);
}

TEST(BudgetEta, NoRateNoEstimate) {
  BudgetUse u;  // nothing finished yet
  u.session_s = 5;
  EXPECT_LT(EstimateBudgetEta(Limits(50, 10, 0, 10), u).seconds, 0);
  u.wall_s = 5;
  BudgetEta e = EstimateBudgetEta(Limits(50, 10, 3600, 10), u);  // the clock needs no rate
  EXPECT_EQ(e.limit, "max_wall_s");
  EXPECT_NEAR(e.seconds, 3595, 1e-9);
}

TEST(SpentBudgetKey, NamesTheLimitOfEveryBudgetStopAndNothingElse) {
  RunConfig c = Limits(3, 2, 60, 1.5);
  EXPECT_EQ(SpentBudgetKey(BudgetReason(c, nullptr, 3, 0, 0)), "max_candidates");
  EXPECT_EQ(SpentBudgetKey(BudgetReason(c, nullptr, 0, 2, 0)), "max_dollars");
  EXPECT_EQ(SpentBudgetKey(BudgetReason(c, nullptr, 0, 0, 61)), "max_wall_s");
  EXPECT_EQ(SpentBudgetKey("budget: max_generations (2) done"), "max_generations");
  const std::atomic<bool> interrupted{true};
  EXPECT_EQ(SpentBudgetKey(BudgetReason(c, &interrupted, 3, 0, 0)), "");
  EXPECT_EQ(SpentBudgetKey("the proposer has nothing new: every knob value tried"), "");
  EXPECT_EQ(SpentBudgetKey("budget: max_candidatesX (3) reached"), "");
}

}  // namespace
}  // namespace cuco
