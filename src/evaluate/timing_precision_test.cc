#include "evaluate/timing_precision.h"

#include <gtest/gtest.h>

#include "evaluate/outcome.h"

namespace cuco {
namespace {

TEST(MedianConfidenceInterval, TwentyTimesGiveTheSixthAndFifteenth) {
  std::vector<double> t;
  for (int i = 20; i >= 1; --i) t.push_back(i);  // unsorted on purpose
  auto m = MedianConfidenceInterval(t);
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->lo, 6);  // the textbook pair for n = 20: x(6), x(15)
  EXPECT_DOUBLE_EQ(m->hi, 15);
  EXPECT_NEAR(m->coverage, 0.9586, 1e-4);
}

TEST(MedianConfidenceInterval, SteadyTimesAreKnownExactlyAndFewTimesSayTheirCoverage) {
  auto steady = MedianConfidenceInterval(std::vector<double>(20, 0.5));
  ASSERT_TRUE(steady);
  EXPECT_DOUBLE_EQ(steady->lo, 0.5);
  EXPECT_DOUBLE_EQ(steady->hi, 0.5);
  auto few = MedianConfidenceInterval({3, 1, 2});
  ASSERT_TRUE(few);
  EXPECT_DOUBLE_EQ(few->lo, 1);
  EXPECT_DOUBLE_EQ(few->hi, 3);
  EXPECT_NEAR(few->coverage, 0.75, 1e-12);
  EXPECT_FALSE(MedianConfidenceInterval({}));
}

TEST(MedianConfidenceInterval, TwoModesLeaveTheMedianImprecise) {
  // The iterations of a program that waits on its host: half at 0.35 ms, half at 1.0 ms.
  std::vector<double> t;
  for (int i = 0; i < 40; ++i) t.push_back(i % 2 ? 0.35 : 1.0);
  auto m = MedianConfidenceInterval(t);
  ASSERT_TRUE(m);
  TimingFigures f;
  f.median_ms = 0.675;
  f.median_lo_ms = m->lo;
  f.median_hi_ms = m->hi;
  EXPECT_DOUBLE_EQ(m->lo, 0.35);
  EXPECT_DOUBLE_EQ(m->hi, 1.0);
  EXPECT_TRUE(f.Imprecise());
  EXPECT_NEAR(f.Precision(), 0.65 / (2 * 0.675), 1e-12);
  EvalRecord r;
  r.status = EvalStatus::kOk;
  r.timing = f;
  EXPECT_NE(r.Summary().find("IMPRECISE timing: the median is known only to +-48.1%"), std::string::npos) << r.Summary();
  EXPECT_NE(r.Summary().find("(95% interval 0.3500-1.0000 ms)"), std::string::npos) << r.Summary();
  EXPECT_TRUE(r.ToJson()["timing"]["imprecise"].get<bool>());
  EXPECT_EQ(r.ToJson()["timing"]["median_interval_ms"], nlohmann::json({0.35, 1.0}));
  f.median_lo_ms = 0.670;  // within +-1%
  f.median_hi_ms = 0.680;
  EXPECT_FALSE(f.Imprecise());
  f.median_lo_ms = f.median_hi_ms = 0;  // unknown: not flagged
  EXPECT_FALSE(f.Imprecise());
}

TEST(RetimeIterations, EnoughToReachThePrecisionWithinTheLimits) {
  // +-3% after 20: (3/2)^2 * 1.2 = 2.7 times, but never under 4 times.
  EXPECT_EQ(RetimeIterations(0.03, 20, 5, 4, 300), 80);
  // +-5% after 20: 20 * 1.2 * 6.25 = 150.
  EXPECT_EQ(RetimeIterations(0.05, 20, 5, 4, 300), 150);
  // +-25% after 80: far more than the cap.
  EXPECT_EQ(RetimeIterations(0.25, 80, 5, 4, 300), kMaxRetimeIters);
  // A slow first run (0.8 s an iteration, set-up counted): what fits in 60 s.
  EXPECT_EQ(RetimeIterations(0.25, 20, 5, 20, 300), 70);
  // A short stage limit: half of it (30 s at 0.16 s an iteration).
  EXPECT_EQ(RetimeIterations(0.25, 20, 5, 4, 60), 182);
  // Nothing twice as long fits: no second bench.
  EXPECT_EQ(RetimeIterations(0.25, 20, 5, 100, 300), 0);
  EXPECT_EQ(RetimeIterations(0.25, 0, 5, 4, 300), 0);
}

}  // namespace
}  // namespace cuco
