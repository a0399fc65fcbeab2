#include "search/selection.h"

#include <gtest/gtest.h>

#include <map>

namespace cuco {
namespace {

std::vector<Scored> Pool() { return {{1, 4.0, 0}, {2, 1.0, 0}, {3, 2.0, 0}, {4, 8.0, 0}}; }

TEST(Selection, RankByTimeFastestFirst) {
  auto r = RankByTime({{5, 2.0, 0}, {3, 1.0, 0}, {4, 2.0, 0}});
  EXPECT_EQ(r[0].id, 3);
  EXPECT_EQ(r[1].id, 4);  // ties: older id first
  EXPECT_EQ(r[2].id, 5);
}

TEST(Selection, PowerLawWeights) {
  SelectionParams p;
  p.kind = "power_law";
  p.exploitation = 1.0;
  auto w = SelectionWeights(RankByTime(Pool()), p);
  const double z = 1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4;
  EXPECT_NEAR(w[0], 1 / z, 1e-12);
  EXPECT_NEAR(w[3], 0.25 / z, 1e-12);
  p.exploitation = 0;  // uniform
  for (double x : SelectionWeights(RankByTime(Pool()), p)) EXPECT_NEAR(x, 0.25, 1e-12);
}

TEST(Selection, BeamOnlyTheBest) {
  SelectionParams p;
  p.kind = "beam";
  p.beam_width = 2;
  auto w = SelectionWeights(RankByTime(Pool()), p);
  EXPECT_NEAR(w[0], 0.5, 1e-12);
  EXPECT_NEAR(w[1], 0.5, 1e-12);
  EXPECT_EQ(w[2], 0);
  Rng rng(1);
  for (int i = 0; i < 50; ++i) {
    int64_t id = SelectParent(Pool(), p, rng);
    EXPECT_TRUE(id == 2 || id == 3) << id;
  }
}

TEST(Selection, FitnessWeightedFavoursFastAndPenalisesChildren) {
  SelectionParams p;
  p.kind = "fitness_weighted";
  p.lambda = 10;
  auto ranked = RankByTime(Pool());
  auto w = SelectionWeights(ranked, p);
  EXPECT_GT(w[0], w[1]);
  EXPECT_GT(w[1], w[2]);
  EXPECT_GT(w[2], w[3]);
  ranked[0].children = 9;
  auto w2 = SelectionWeights(ranked, p);
  EXPECT_LT(w2[0], w[0] / 2);
}

TEST(Selection, DeterministicAndNeverEmpty) {
  SelectionParams p;
  Rng a(42), b(42);
  std::map<int64_t, int> counts;
  for (int i = 0; i < 400; ++i) {
    int64_t x = SelectParent(Pool(), p, a);
    EXPECT_EQ(x, SelectParent(Pool(), p, b));
    ++counts[x];
  }
  EXPECT_GT(counts[2], counts[4]);  // the fastest is drawn more than the slowest
  EXPECT_EQ(counts.size(), 4u);     // but every one can be drawn
  Rng r(1);
  EXPECT_EQ(SelectParent({}, p, r), 0);
}

}  // namespace
}  // namespace cuco
