#include "supervisor/timed_loop.h"

#include <cmath>

#include <gtest/gtest.h>

namespace cuco::supervisor {
namespace {

TEST(WarmupPace, TheFirstIterationIsLeftOut) {
  EXPECT_DOUBLE_EQ(WarmupPaceMs({90, 2, 3, 2.5, 2.2}), 2.5);  // of 2, 3, 2.5, 2.2: the upper middle
  EXPECT_DOUBLE_EQ(WarmupPaceMs({7}), 7);
  EXPECT_DOUBLE_EQ(WarmupPaceMs({}), 0);
}

TEST(SizedTimedIterations, TheSlowestRankFillsTheTimeWithinTheBounds) {
  EXPECT_EQ(SizedTimedIterations({1.7, 1.6}, 0.5, 20, 640), 295);  // 500 ms / 1.7 ms, rounded up
  EXPECT_EQ(SizedTimedIterations({0.1}, 0.5, 20, 640), 640);        // at most the cap
  EXPECT_EQ(SizedTimedIterations({40, 1}, 0.5, 20, 640), 20);       // at least --iters
  EXPECT_EQ(SizedTimedIterations({0.1}, 0.5, 20, 0), 20);           // a cap below --iters: --iters
}

TEST(SizedTimedIterations, AnUnknownPaceOrNoTimeKeepsTheMinimum) {
  EXPECT_EQ(SizedTimedIterations({1.0, 0}, 0.5, 20, 640), 20);
  EXPECT_EQ(SizedTimedIterations({1.0, std::nan("")}, 0.5, 20, 640), 20);
  EXPECT_EQ(SizedTimedIterations({1.0, -3}, 0.5, 20, 640), 20);
  EXPECT_EQ(SizedTimedIterations({1.0}, 0, 20, 640), 20);
  EXPECT_EQ(SizedTimedIterations({}, 0.5, 20, 640), 20);
}

}  // namespace
}  // namespace cuco::supervisor
