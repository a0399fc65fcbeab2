#include <cuco/program/impl/emulated_matching.h>

#include <gtest/gtest.h>

namespace cuco_program::emu {
namespace {

// PARCOACH's CIVL benchmark at two ranks: rank 0 reduces first, rank 1 all-gathers first. The
// reference completed both as one call and the candidate hung in real NCCL for 30 s; now the
// reference refuses, naming both calls.
TEST(EmulatedMatching, RanksMakingDifferentCallsAreRefused) {
  CallKey keys[2] = {KeyOf(Kind::kReduce, 1, 0, 0, 0), KeyOf(Kind::kAllGather, 1, 0, 0, 0)};
  const std::string why = MismatchedCalls(keys, 2);
  EXPECT_NE(why.find("rank 0 calls ncclReduce of count 1"), std::string::npos) << why;
  EXPECT_NE(why.find("rank 1 calls ncclAllGather of count 1"), std::string::npos) << why;
  keys[1] = KeyOf(Kind::kReduce, 1, 0, 0, 1);  // the same call to another root
  EXPECT_NE(MismatchedCalls(keys, 2).find("root 1"), std::string::npos);
  keys[1] = KeyOf(Kind::kReduce, 2, 0, 0, 0);  // another count
  EXPECT_NE(MismatchedCalls(keys, 2), "");
}

// The same call on every rank matches; fields a call does not use (an all-gather's operation and
// root) never make a difference.
TEST(EmulatedMatching, TheSameCallMatches) {
  CallKey keys[3] = {KeyOf(Kind::kAllGather, 8, 7, 0, 0), KeyOf(Kind::kAllGather, 8, 7, 2, 1),
                     KeyOf(Kind::kAllGather, 8, 7, 1, 2)};
  EXPECT_EQ(MismatchedCalls(keys, 3), "");
  CallKey one[1] = {KeyOf(Kind::kReduce, 4, 7, 0, 0)};
  EXPECT_EQ(MismatchedCalls(one, 1), "");
}

// Blink-GPU's multi ping-pong at one rank: its peer is itself and it receives first, which real
// NCCL never completes; the reference said nothing for 120 s and was cut. A send and a receive to
// oneself in one group pair, as do calls to other ranks.
TEST(EmulatedMatching, AReceiveFromItselfWithoutASendIsRefused) {
  EXPECT_NE(UnpairedSelfCalls({Kind::kRecv}, {0}, 0).find("rank 0 receives from itself"), std::string::npos);
  EXPECT_NE(UnpairedSelfCalls({Kind::kSend}, {1}, 1).find("sends to itself"), std::string::npos);
  EXPECT_EQ(UnpairedSelfCalls({Kind::kSend, Kind::kRecv}, {0, 0}, 0), "");
  EXPECT_EQ(UnpairedSelfCalls({Kind::kRecv, Kind::kSend}, {1, 1}, 0), "");
  EXPECT_EQ(UnpairedSelfCalls({Kind::kAllReduce}, {0}, 0), "");
}

}  // namespace
}  // namespace cuco_program::emu
