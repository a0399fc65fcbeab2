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

// 4 tapered parts of 4096 columns: 40%, 30%, 20%, 10%, each boundary at a multiple of 128
// (1638.4 -> 1664, 2867.2 -> 2816, 3686.4 -> 3712); even: 1024 each. Too few columns to taper
// in aligned parts: even. Even boundaries are rounded likewise where the columns allow.
TEST(ChunkSizes, PartBoundaries) {
  std::vector<int> tapered, even;
  for (int p = 0; p <= 4; ++p) tapered.push_back(PartBegin(4096, 4, p, true)), even.push_back(PartBegin(4096, 4, p));
  EXPECT_EQ(tapered, (std::vector<int>{0, 1664, 2816, 3712, 4096}));
  EXPECT_EQ(even, (std::vector<int>{0, 1024, 2048, 3072, 4096}));
  EXPECT_EQ(PartBegin(1000, 4, 1, true), 416);  // 400, to the nearest multiple of 32 (1000 < 2 * 64 * 10)
  EXPECT_EQ(PartBegin(100, 4, 1, true), PartBegin(100, 4, 1));
  EXPECT_EQ(PartBegin(1000, 4, 1), 256);  // 250, to the nearest multiple of 64 (1000 < 2 * 128 * 4)
  EXPECT_EQ(PartBegin(40, 4, 1), 10);     // too few columns to round
  for (int n : {7, 40, 100, 1000, 4096})
    for (int p = 1; p <= 4; ++p) EXPECT_GT(PartBegin(n, 4, p), PartBegin(n, 4, p - 1)) << n << " columns, part " << p - 1;
  for (int parts : {2, 4, 8})
    for (int n : {36, 37, 1023, 1152, 4096, 5000, 16384}) {
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
