#include <cuco/program/impl/chunk_bounds.h>

#include <vector>

#include <gtest/gtest.h>

namespace cuco_program::overlap::detail {
namespace {

TEST(ChunkBounds, EvenIsTheOldSplit) {
  EXPECT_EQ(PartBounds(8192, 4, kEven), (std::vector<int>{0, 2048, 4096, 6144, 8192}));
  EXPECT_EQ(PartBounds(10, 4, kEven), (std::vector<int>{0, 2, 5, 7, 10}));
}

TEST(ChunkBounds, TaperedSplitsShrinkOnWholeTiles) {
  // halving 8:4:2:1 of 8192 columns on 128-column tiles: 4352, 2176, 1152, 512 columns
  EXPECT_EQ(PartBounds(8192, 4, kHalving), (std::vector<int>{0, 4352, 6528, 7680, 8192}));
  // linear 4:3:2:1: 3328, 2432, 1664, 768
  EXPECT_EQ(PartBounds(8192, 4, kLinear), (std::vector<int>{0, 3328, 5760, 7424, 8192}));
  EXPECT_EQ(PartBounds(8192, 2, kHalving), PartBounds(8192, 2, kLinear));
}

TEST(ChunkBounds, EveryChunkKeepsAColumnWhenNarrow) {
  for (int taper : {kEven, kLinear, kHalving})
    for (int parts : {2, 4, 8})
      for (int n = parts; n < 300; ++n) {
        const std::vector<int> b = PartBounds(n, parts, taper);
        ASSERT_EQ(b.size(), static_cast<size_t>(parts) + 1);
        EXPECT_EQ(b.front(), 0);
        EXPECT_EQ(b.back(), n);
        for (int p = 0; p < parts; ++p) EXPECT_LT(b[p], b[p + 1]) << "n " << n << " parts " << parts << " taper " << taper;
      }
}

TEST(ChunkBounds, TaperValues) {
  EXPECT_EQ(TaperOf("even"), kEven);
  EXPECT_EQ(TaperOf("linear"), kLinear);
  EXPECT_EQ(TaperOf("halving"), kHalving);
  EXPECT_EQ(TaperOf("tapered"), -1);
  EXPECT_EQ(TaperOf(nullptr), -1);
}

}  // namespace
}  // namespace cuco_program::overlap::detail
