#include <cuco/program/impl/emulated_spans.h>

#include <gtest/gtest.h>

namespace cuco_program::emu {
namespace {

TEST(EmulatedSpans, BytesEachRankReadsAndWrites) {
  // count 2 of 4-byte elements, 2 ranks, root 0
  EXPECT_EQ(SpansOf(Kind::kAllGather, 2, 4, 1, 2, 0).recv, 16u);
  EXPECT_EQ(SpansOf(Kind::kAllGather, 2, 4, 1, 2, 0).send, 8u);
  EXPECT_EQ(SpansOf(Kind::kReduceScatter, 2, 4, 0, 2, 0).send, 16u);
  EXPECT_EQ(SpansOf(Kind::kReduceScatter, 2, 4, 0, 2, 0).recv, 8u);
  EXPECT_EQ(SpansOf(Kind::kAlltoAll, 2, 4, 0, 2, 0).recv, 16u);
  EXPECT_EQ(SpansOf(Kind::kBroadcast, 2, 4, 1, 2, 0).send, 0u) << "only the root's send buffer is read";
  EXPECT_EQ(SpansOf(Kind::kGather, 2, 4, 1, 2, 0).recv, 0u) << "only the root receives";
  EXPECT_EQ(SpansOf(Kind::kGather, 2, 4, 0, 2, 0).recv, 16u);
  EXPECT_EQ(SpansOf(Kind::kRecv, 3, 8, 0, 2, 0).recv, 24u);
}

// flashmoe_sym's habit: ncclAllGather(counts, recv_counts, world_size, ...) with recv_counts of
// world_size ints: fits at one rank, 8 bytes short at two.
TEST(EmulatedSpans, AReceiveBufferTooSmallForTheWorldSizeIsRefusedWithBothSizes) {
  EXPECT_EQ(TooSmall(Kind::kAllGather, 1, 4, 0, 1, 0, 4, 4), "");
  const std::string why = TooSmall(Kind::kAllGather, 2, 4, 0, 2, 0, 8, 8);
  EXPECT_NE(why.find("ncclAllGather"), std::string::npos) << why;
  EXPECT_NE(why.find("writes 16 bytes at its receive buffer (2 ranks x 2 x 4 bytes)"), std::string::npos) << why;
  EXPECT_NE(why.find("has 8 bytes"), std::string::npos) << why;
  EXPECT_NE(TooSmall(Kind::kReduceScatter, 4, 4, 1, 2, 0, 16, 16).find("reads 32 bytes at its send buffer"),
            std::string::npos);
  EXPECT_EQ(TooSmall(Kind::kAllGather, 2, 4, 0, 2, 0, 0, 0), "") << "pointers cuco knows no allocation of: unchecked";
  EXPECT_EQ(TooSmall(Kind::kAllReduce, 4, 4, 0, 2, 0, 16, 16), "");
}

}  // namespace
}  // namespace cuco_program::emu
