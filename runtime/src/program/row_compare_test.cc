#include <cuco/program/impl/row_compare.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace cuco_program::ref {
namespace {

// Two outputs of 5 and 3 elements; rows of 2 elements through them.
struct TwoOutputs {
  std::vector<std::vector<double>> got{{1, 2, 3, 4, 5}, {6, 7, 8}};
  std::vector<std::vector<double>> want{{1, 2, 3, 4, 5}, {6, 7, 8}};
  OutputSpans spans{{5, 3}};
  std::vector<std::pair<size_t, int64_t>> read;  // every element read, (output, index)
  std::vector<std::pair<size_t, int64_t>> skipped;  // elements not compared (left alone)
  RowFigures Compare(const std::vector<int64_t>& rows) {
    return CompareRows(spans, rows, 2, [&](size_t k, int64_t j, double* g, double* w) {
      if (std::find(skipped.begin(), skipped.end(), std::make_pair(k, j)) != skipped.end()) return false;
      read.emplace_back(k, j);
      *g = got[k][static_cast<size_t>(j)];
      *w = want[k][static_cast<size_t>(j)];
      return true;
    });
  }
};

TEST(RowCompare, LocatesElementsAcrossOutputs) {
  OutputSpans s({5, 0, 3});
  size_t k = 9;
  int64_t j = 9;
  s.Locate(4, &k, &j);
  EXPECT_EQ(k, 0u);
  EXPECT_EQ(j, 4);
  s.Locate(5, &k, &j);  // the empty output holds nothing
  EXPECT_EQ(k, 2u);
  EXPECT_EQ(j, 0);
  EXPECT_EQ(s.total(), 8);
}

TEST(RowCompare, PiecesSplitARowAtTheEndOfAnOutput) {
  OutputSpans s({5, 0, 3});
  std::vector<std::vector<int64_t>> pieces;
  ForEachPiece(s, {2, 0, 9}, 2, [&](size_t k, int64_t j, int64_t n) { pieces.push_back({static_cast<int64_t>(k), j, n}); });
  // Row 2 is elements 4 (output 0) and 5 (output 2, past the empty one); row 9 lies past the end.
  const std::vector<std::vector<int64_t>> expect{{0, 4, 1}, {2, 0, 1}, {0, 0, 2}};
  EXPECT_EQ(pieces, expect);
}

TEST(RowCompare, ReadsOnlyTheSampledRows) {
  TwoOutputs t;
  t.got[1][0] = 6.5;  // row 2 spans both outputs: elements 4 (output 0) and 5 (output 1)
  const RowFigures f = t.Compare({2});
  EXPECT_EQ(f.elements, 2);
  const std::vector<std::pair<size_t, int64_t>> expect{{0, 4}, {1, 0}};
  EXPECT_EQ(t.read, expect);
  EXPECT_DOUBLE_EQ(f.d2, 0.25);
  EXPECT_DOUBLE_EQ(f.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(f.r2, 25 + 36);
}

TEST(RowCompare, AWrongElementOutsideTheRowsIsNotSeen) {
  TwoOutputs t;
  t.got[0][0] = 100;
  EXPECT_EQ(t.Compare({1, 3}).d2, 0);
  EXPECT_GT(t.Compare({0}).d2, 0);
}

TEST(RowCompare, AnElementNotComparedCountsForNothing) {
  TwoOutputs t;
  t.got[0][1] = std::numeric_limits<double>::quiet_NaN();  // the program leaves it alone: poison stays
  t.want[0][1] = std::numeric_limits<double>::quiet_NaN();
  t.skipped = {{0, 1}};
  const RowFigures f = t.Compare({0});
  EXPECT_EQ(f.elements, 1);
  EXPECT_EQ(f.nonfinite, 0);
  EXPECT_EQ(f.want_nonfinite_at, -1);
  EXPECT_DOUBLE_EQ(f.r2, 1);
}

TEST(RowCompare, TheLastRowStopsAtTheEnd) {
  TwoOutputs t;
  const RowFigures f = t.Compare({3, 4});  // row 3: elements 6 and 7; row 4 lies past the end
  EXPECT_EQ(f.elements, 2);
}

TEST(RowCompare, CountsNonFiniteCandidateValuesApart) {
  TwoOutputs t;
  t.got[0][1] = std::numeric_limits<double>::quiet_NaN();
  const RowFigures f = t.Compare({0});
  EXPECT_EQ(f.nonfinite, 1);
  EXPECT_EQ(f.elements, 2);
  EXPECT_EQ(f.d2, 0);
}

TEST(RowCompare, StopsAtANonFiniteReferenceValue) {
  TwoOutputs t;
  t.want[1][2] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(t.Compare({0, 3}).want_nonfinite_at, 7);
  EXPECT_EQ(t.Compare({0}).want_nonfinite_at, -1);
}

}  // namespace
}  // namespace cuco_program::ref
