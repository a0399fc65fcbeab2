#include <cuco/program/impl/chunk_bounds.h>

#include <gtest/gtest.h>

#include <vector>

namespace cuco_program::overlap::detail {
namespace {

// 4096 columns in 4: 1024 each. Where the columns are no multiple, each boundary goes to a multiple
// of up to 128 columns that leaves every part at least that many; too few columns: unrounded.
TEST(ChunkBounds, EqualPartsAtAlignedBoundaries) {
  std::vector<int> even;
  for (int p = 0; p <= 4; ++p) even.push_back(PartBegin(4096, 4, p));
  EXPECT_EQ(even, (std::vector<int>{0, 1024, 2048, 3072, 4096}));
  EXPECT_EQ(PartBegin(1000, 4, 1), 256);  // 250, to the nearest multiple of 64 (1000 < 2 * 128 * 4)
  EXPECT_EQ(PartBegin(40, 4, 1), 10);     // too few columns to round
  for (int parts : {2, 4, 8})
    for (int n : {7, 36, 40, 100, 1000, 1023, 4096, 5000, 16384}) {
      if (n < parts) continue;
      int last = 0;
      for (int p = 1; p <= parts; ++p) {
        const int b = PartBegin(n, parts, p);
        EXPECT_GT(b, last) << n << " columns, " << parts << " parts: part " << p - 1 << " empty";
        last = b;
      }
      EXPECT_EQ(last, n);
    }
}

}  // namespace
}  // namespace cuco_program::overlap::detail
