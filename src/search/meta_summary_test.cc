#include "search/meta_summary.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(MetaSummary, SaysWhatWasTriedAndWhatToTryNext) {
  std::vector<Knob> knobs = {{"order", {"ijk", "ikj"}, "ijk", ""}, {"unroll", {"1", "4", "8"}, "1", ""}};
  std::vector<SummaryItem> items = {
      {1, "ok", 2.0, {{"order", "ijk"}, {"unroll", "1"}}, "seed", ""},
      {2, "ok", 1.0, {{"order", "ikj"}, {"unroll", "1"}}, "knobs", ""},
      {3, "wrong_result", -1, {{"order", "ikj"}, {"unroll", "4"}}, "knobs", "verify: rel L2 0.7"},
  };
  const std::string s = MetaSummary(items, knobs, 2.0, 1);
  EXPECT_EQ(s, MetaSummary(items, knobs, 2.0, 1));  // deterministic
  EXPECT_NE(s.find("3 candidates evaluated"), std::string::npos) << s;
  EXPECT_NE(s.find("Best so far: #2 1 ms, order=ikj unroll=1"), std::string::npos) << s;
  EXPECT_NE(s.find("order=ikj: 2 tried, 1 ok, best 1 ms (#2, 2.00x); failures: wrong_result 1"), std::string::npos) << s;
  EXPECT_NE(s.find("unroll=8: never tried"), std::string::npos) << s;
  EXPECT_NE(s.find("wrong_result: #3: verify: rel L2 0.7"), std::string::npos) << s;
  EXPECT_NE(s.find("set unroll=8 (never tried)"), std::string::npos) << s;
  EXPECT_NE(s.find("from the best (#2), set unroll=8"), std::string::npos) << s;
  EXPECT_EQ(s.find("from the best (#2), set order=ijk"), std::string::npos) << s;  // ijk/1 is #1: tried
}

TEST(MetaSummary, NothingYet) {
  const std::string s = MetaSummary({}, {}, -1, 0);
  EXPECT_NE(s.find("No candidate has passed yet"), std::string::npos) << s;
}

}  // namespace
}  // namespace cuco
