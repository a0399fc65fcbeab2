// cuco/program/impl/row_compare.h: the reference's comparison of one rank's outputs (reference.h
// check). The outputs are laid one after the other; a row is a run of `row_elements` elements
// through them. Only the elements of the rows asked for are read: a sampled check of a 64 MiB output
// reads its 32 sampled rows, not 16 M values (the whole output was copied and converted on every
// timed check, about 0.45 s each, which made most of a program's bench).
// Plain C++: tested on the host (row_compare_test.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace cuco_program::ref {

// Where each output begins in the concatenation, from the outputs' element counts.
class OutputSpans {
 public:
  explicit OutputSpans(const std::vector<int64_t>& counts) : counts_(counts) {
    int64_t at = 0;
    for (int64_t n : counts) begins_.push_back(at), at += n;
    total_ = at;
  }
  int64_t total() const { return total_; }
  size_t outputs() const { return counts_.size(); }
  int64_t begin(size_t output) const { return begins_[output]; }
  int64_t count(size_t output) const { return counts_[output]; }
  // The output holding element i (0 <= i < total()) and i's index within it.
  void Locate(int64_t i, size_t* output, int64_t* index) const {
    const size_t k = static_cast<size_t>(std::upper_bound(begins_.begin(), begins_.end(), i) - begins_.begin()) - 1;
    *output = k;
    *index = i - begins_[k];
  }

 private:
  std::vector<int64_t> counts_, begins_;
  int64_t total_ = 0;
};

// Calls piece(output, index, count) for each run of elements of `rows` within one output, in row
// order: what to read of each output (a row across the end of an output gives two pieces).
template <class Piece>
void ForEachPiece(const OutputSpans& spans, const std::vector<int64_t>& rows, int64_t row_elements, Piece piece) {
  for (int64_t r : rows) {
    const int64_t end = std::min((r + 1) * row_elements, spans.total());
    for (int64_t i = r * row_elements; i < end;) {
      size_t k = 0;
      int64_t j = 0;
      spans.Locate(i, &k, &j);
      const int64_t n = std::min(end - i, spans.count(k) - j);
      piece(k, j, n);
      i += n;
    }
  }
}

struct RowFigures {
  double d2 = 0, r2 = 0, max_abs = 0;  // sum of squared differences, of squared reference values; max |diff|
  int64_t nonfinite = 0;               // candidate elements not finite (left out of d2)
  int64_t elements = 0;                // elements compared
  int64_t want_nonfinite_at = -1;      // the first reference element not finite (the comparison stops there)
};

// Compares the elements of `rows` (any order; rows past the end are empty). values(output, index,
// &got, &want) reads one element of each side, or returns false for an element not compared (one
// the program leaves alone: left_alone.h).
template <class Values>
RowFigures CompareRows(const OutputSpans& spans, const std::vector<int64_t>& rows, int64_t row_elements, Values values) {
  RowFigures f;
  ForEachPiece(spans, rows, row_elements, [&](size_t k, int64_t j0, int64_t n) {
    if (f.want_nonfinite_at >= 0) return;
    for (int64_t j = j0; j < j0 + n; ++j) {
      double got = 0, want = 0;
      if (!values(k, j, &got, &want)) continue;
      if (!std::isfinite(want)) {
        f.want_nonfinite_at = spans.begin(k) + j;
        return;
      }
      ++f.elements;
      if (!std::isfinite(got)) {
        ++f.nonfinite;
        continue;
      }
      const double d = got - want;
      f.d2 += d * d;
      f.r2 += want * want;
      f.max_abs = std::max(f.max_abs, std::fabs(d));
    }
  });
  return f;
}

}  // namespace cuco_program::ref
