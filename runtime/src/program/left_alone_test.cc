#include <cuco/program/impl/left_alone.h>

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace cuco_program::ref {
namespace {

// Two runs of one output of `n` elements of `eb` bytes: from zeroed bytes and from 0xFF bytes,
// with the iteration writing elements [0, written) the same way in both.
struct TwoRuns {
  std::vector<unsigned char> zero, ones;
  TwoRuns(size_t n, size_t eb, size_t written) : zero(n * eb, 0x00), ones(n * eb, 0xFF) {
    for (size_t i = 0; i < written * eb; ++i) zero[i] = ones[i] = static_cast<unsigned char>(i * 7 + 1);
  }
};

TEST(LeftAlone, APrefixWrittenLeavesTheRestAlone) {
  TwoRuns r(100, 4, 30);
  const ElementRuns left = LeftAlone(r.zero.data(), r.ones.data(), r.zero.size(), 4);
  ASSERT_EQ(left.runs().size(), 1u);
  EXPECT_EQ(left.runs()[0], (std::pair<int64_t, int64_t>{30, 100}));
  EXPECT_EQ(left.elements(), 70);
  EXPECT_FALSE(left.Contains(29));
  EXPECT_TRUE(left.Contains(30));
  EXPECT_TRUE(left.Contains(99));
  EXPECT_FALSE(left.Contains(100));
}

TEST(LeftAlone, AWholeOutputWrittenLeavesNothing) {
  for (size_t eb : {1, 2, 4, 8, 12}) {
    TwoRuns r(37, eb, 37);
    EXPECT_TRUE(LeftAlone(r.zero.data(), r.ones.data(), r.zero.size(), eb).empty()) << eb << " bytes";
  }
}

TEST(LeftAlone, WrittenZerosAndOnesAreWrittenAllTheSame) {
  // An element written as 0 in both runs, or as all-ones (-1) in both, was written.
  TwoRuns r(4, 4, 0);
  std::memset(r.ones.data(), 0x00, 4);      // element 0: 0 both times
  std::memset(r.zero.data() + 4, 0xFF, 4);  // element 1: -1 both times
  const ElementRuns left = LeftAlone(r.zero.data(), r.ones.data(), r.zero.size(), 4);
  EXPECT_FALSE(left.Contains(0));
  EXPECT_FALSE(left.Contains(1));
  EXPECT_TRUE(left.Contains(2));
  EXPECT_EQ(left.elements(), 2);
}

TEST(LeftAlone, AnElementWithOneByteWrittenWasWritten) {
  for (size_t eb : {2, 4, 8}) {
    TwoRuns r(16, eb, 0);
    r.zero[5 * eb + eb - 1] = r.ones[5 * eb + eb - 1] = 0x3C;  // the high byte of element 5 only
    const ElementRuns left = LeftAlone(r.zero.data(), r.ones.data(), r.zero.size(), eb);
    EXPECT_FALSE(left.Contains(5)) << eb << " bytes";
    EXPECT_EQ(left.elements(), 15) << eb << " bytes";
    ASSERT_EQ(left.runs().size(), 2u) << eb << " bytes";
  }
}

TEST(LeftAlone, ScatteredWritesGiveRunsInOrder) {
  TwoRuns r(20, 2, 0);
  for (size_t i : {3, 4, 11, 19}) r.zero[2 * i] = r.ones[2 * i] = 0x11;
  const ElementRuns left = LeftAlone(r.zero.data(), r.ones.data(), r.zero.size(), 2);
  const std::vector<std::pair<int64_t, int64_t>> expect{{0, 3}, {5, 11}, {12, 19}};
  EXPECT_EQ(left.runs(), expect);
  EXPECT_EQ(left.elements(), 16);
}

}  // namespace
}  // namespace cuco_program::ref
