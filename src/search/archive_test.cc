#include "search/archive.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(Archive, CellsKeepTheirFastest) {
  Archive a({"backend", "chunks"});
  EXPECT_EQ(a.CellKey({{"backend", "ce"}, {"chunks", "4"}, {"other", "x"}}), "backend=ce,chunks=4");
  EXPECT_EQ(a.CellKey({{"backend", "ce"}}), "backend=ce,chunks=?");
  EXPECT_TRUE(a.Offer(1, 5.0, {{"backend", "ce"}, {"chunks", "4"}}));
  EXPECT_FALSE(a.Offer(2, 6.0, {{"backend", "ce"}, {"chunks", "4"}, {"other", "y"}}));
  EXPECT_TRUE(a.Offer(3, 4.0, {{"backend", "ce"}, {"chunks", "4"}}));
  EXPECT_TRUE(a.Offer(4, 9.0, {{"backend", "lsa"}, {"chunks", "4"}}));
  ASSERT_EQ(a.cells().size(), 2u);
  EXPECT_EQ(a.cells().at("backend=ce,chunks=4").id, 3);
  EXPECT_EQ(a.cells().at("backend=lsa,chunks=4").id, 4);
  EXPECT_EQ(a.size(), 4u);
}

TEST(Archive, EveryFeatureWhenNoneChosen) {
  Archive a;
  EXPECT_EQ(a.CellKey({{"b", "2"}, {"a", "1"}}), "a=1,b=2");
}

TEST(Archive, TopKAndElitePicks) {
  Archive a({"k"});
  a.Offer(1, 3.0, {{"k", "a"}});
  a.Offer(2, 1.0, {{"k", "a"}});
  a.Offer(3, 2.0, {{"k", "b"}});
  a.Offer(4, 5.0, {{"k", "c"}});
  EXPECT_EQ(a.TopK(2), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.TopK(2, {2}), (std::vector<int64_t>{3, 1}));
  Rng rng(3);
  auto picks = a.ElitePicks(5, {3}, rng);
  std::sort(picks.begin(), picks.end());
  EXPECT_EQ(picks, (std::vector<int64_t>{2, 4}));  // elites of cells a and c
  Rng r1(9), r2(9);
  EXPECT_EQ(a.ElitePicks(1, {}, r1), a.ElitePicks(1, {}, r2));
  EXPECT_EQ(a.ElitePicks(1, {}, r1).size(), 1u);
}

}  // namespace
}  // namespace cuco
