#include <cuco/program/impl/output_digest.h>

#include <vector>

#include <gtest/gtest.h>

namespace cuco_program::ref {
namespace {

using Outputs = std::vector<std::vector<unsigned char>>;

TEST(OutputDigest, TellsOutputsApartByEveryByteAndLength) {
  const Outputs a = {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {10}};
  Outputs b = a;
  EXPECT_EQ(OutputsDigest(a), OutputsDigest(b));
  b[0][8] = 0;  // the tail past the last whole word
  EXPECT_NE(OutputsDigest(a), OutputsDigest(b));
  b = a;
  b[0][3] = 0;  // inside a word
  EXPECT_NE(OutputsDigest(a), OutputsDigest(b));
  // The same bytes split between outputs another way.
  EXPECT_NE(OutputsDigest({{1, 2}, {3}}), OutputsDigest({{1}, {2, 3}}));
}

TEST(OutputDigest, OutputsThatAnswerTheirInputsPass) {
  FirstOutputs first;
  EXPECT_FALSE(SameForAnotherSeed(&first, 7, {{1, 2, 3}}));
  EXPECT_FALSE(SameForAnotherSeed(&first, 7, {{1, 2, 3}}));  // the same seed checked again
  EXPECT_FALSE(SameForAnotherSeed(&first, 8, {{4, 5, 6}}));
  EXPECT_FALSE(SameForAnotherSeed(&first, 9, {{7, 8, 9}}));
}

TEST(OutputDigest, OutputsTheSameForAnotherSeedAreFound) {
  FirstOutputs first;
  EXPECT_FALSE(SameForAnotherSeed(&first, 7, {{1, 2, 3}}));
  EXPECT_TRUE(SameForAnotherSeed(&first, 8, {{1, 2, 3}}));
}

}  // namespace
}  // namespace cuco_program::ref
