#include <cuco/program/impl/chunk_sizes.h>

#include <gtest/gtest.h>

namespace cuco_program::overlap::detail {
namespace {

TEST(ChunkSizes, EvenOrTaperedElseRefused) {
  EXPECT_EQ(Tapered(), 0) << "no knob: even";
  set_chunk_sizes("tapered");
  EXPECT_EQ(Tapered(), 1);
  set_chunk_sizes("even");
  EXPECT_EQ(Tapered(), 0);
  for (const char* bad : {"", "Tapered", "4"}) {
    set_chunk_sizes(bad);
    EXPECT_EQ(Tapered(), -1) << bad;
  }
  set_chunk_sizes(nullptr);
}

// 4 tapered parts of 1000 columns: 400, 300, 200, 100; even: 250 each. Too few columns to taper
// without an empty part: even.
TEST(ChunkSizes, PartBoundaries) {
  std::vector<int> tapered, even;
  for (int p = 0; p <= 4; ++p) tapered.push_back(PartBegin(1000, 4, p, true)), even.push_back(PartBegin(1000, 4, p));
  EXPECT_EQ(tapered, (std::vector<int>{0, 400, 700, 900, 1000}));
  EXPECT_EQ(even, (std::vector<int>{0, 250, 500, 750, 1000}));
  EXPECT_EQ(PartBegin(9, 4, 1, true), PartBegin(9, 4, 1));
  for (int parts : {2, 4, 8})
    for (int n : {36, 37, 1023, 4096}) {
      int last = 0;
      for (int p = 1; p <= parts; ++p) {
        const int b = PartBegin(n, parts, p, true);
        EXPECT_GT(b, last) << n << " columns, " << parts << " parts: part " << p - 1 << " empty";
        last = b;
      }
      EXPECT_EQ(last, n);
    }
}

}  // namespace
}  // namespace cuco_program::overlap::detail
