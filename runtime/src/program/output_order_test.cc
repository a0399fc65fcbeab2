#include <cuco/program/impl/output_order.h>

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace cuco_program::ref {
namespace {

TEST(OutputOrder, TheSameRunsAgreeInPlace) {
  size_t moved = 9;
  EXPECT_EQ(CompareRuns({1, 2, 3}, {1, 2, 3}, 0, &moved), RunsAgree::kSame);
  EXPECT_EQ(moved, 0u);
}

TEST(OutputOrder, AFloatSumReorderedByAtomicsAgreesInPlace) {
  size_t moved = 0;
  EXPECT_EQ(CompareRuns({1.0, 2.0, 3.0}, {1.0, 2.0 + 1e-9, 3.0}, 1e-6, &moved), RunsAgree::kSame);
  EXPECT_EQ(moved, 1u);
  // A float atomicAdd of many squares (a residual norm of 5e5) differs in its last bits: within a
  // tenth of fp32's check tolerance it agrees; past it, it differs.
  EXPECT_EQ(CompareRuns({5.0e5}, {5.0e5 + 0.781}, 1e-5, &moved), RunsAgree::kSame);
  EXPECT_EQ(CompareRuns({5.0e5}, {5.0e5 + 0.781}, 1e-6, &moved), RunsAgree::kDiffer);
  // Integers agree only exactly.
  EXPECT_EQ(CompareRuns({1, 2, 3}, {1, 3, 3}, 0, &moved), RunsAgree::kDiffer);
}

TEST(OutputOrder, TokensPackedAtAtomicSlotsAreReordered) {
  // Token ids (ints) and their rows (floats) in another order: the same values.
  size_t moved = 0;
  EXPECT_EQ(CompareRuns({7, 3, 5, 1}, {3, 7, 1, 5}, 0, &moved), RunsAgree::kReordered);
  EXPECT_EQ(moved, 4u);
  EXPECT_EQ(CompareRuns({0.5, -1.25, 2.0, 2.0}, {2.0, 0.5, 2.0, -1.25}, 1e-6, &moved), RunsAgree::kReordered);
}

TEST(OutputOrder, OtherValuesDiffer) {
  size_t moved = 0;
  EXPECT_EQ(CompareRuns({7, 3, 5, 1}, {3, 7, 1, 6}, 0, &moved), RunsAgree::kDiffer);
  EXPECT_EQ(CompareRuns({0.5, 1.0}, {1.0, 0.75}, 1e-6, &moved), RunsAgree::kDiffer);
  EXPECT_EQ(CompareRuns({1, 2}, {1, 2, 3}, 0, &moved), RunsAgree::kDiffer);
}

TEST(OutputOrder, NotANumberSortsLastAndNeverCloses) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {nan, 2, -inf, nan, 1};
  SortValues(&v);
  EXPECT_EQ(v[0], -inf);
  EXPECT_EQ(v[1], 1);
  EXPECT_EQ(v[2], 2);
  EXPECT_TRUE(std::isnan(v[3]) && std::isnan(v[4]));
  size_t moved = 0;
  EXPECT_EQ(CompareRuns({inf, 1}, {1, 2}, 1e-6, &moved), RunsAgree::kDiffer);
  EXPECT_EQ(CompareRuns({nan, 1}, {1, nan}, 1e-6, &moved), RunsAgree::kReordered);
}

}  // namespace
}  // namespace cuco_program::ref
