// cuco/program/impl/output_order.h: how two runs of the program on the same inputs agree on one of
// its outputs (the reference's determinism check, reference.h). An output whose element order
// depends on the run (tokens packed into their expert's rows at slots an atomicAdd hands out, as
// MoE dispatch does) holds the same values each time, in another order: it is compared without its
// order, both sides' values sorted. Any other difference leaves the program uncheckable.
// Plain C++: tested on the host (output_order_test.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace cuco_program::ref {

enum class RunsAgree {
  kSame,       // element by element
  kReordered,  // the same values, in another order
  kDiffer,
};

// Ascending, every NaN after every number.
inline void SortValues(std::vector<double>* v) {
  std::sort(v->begin(), v->end(), [](double a, double b) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    return na || nb ? (!na && nb) : a < b;
  });
}

// Whether `x` and `y` (the same length) agree element by element: exactly, or to a relative L2 of
// `rel` (floats: a sum whose order float atomics change between runs; 0 for integers). *differ: the
// elements that are not equal.
inline bool AgreeInPlace(const std::vector<double>& x, const std::vector<double>& y, double rel, size_t* differ) {
  size_t n = 0;
  double d2 = 0, r2 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    r2 += x[i] * x[i];
    if (x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) continue;
    ++n;
    d2 += (x[i] - y[i]) * (x[i] - y[i]);  // NaN when either is not finite: never close
  }
  *differ = n;
  return n == 0 || (rel > 0 && std::isfinite(r2) && d2 <= rel * rel * r2);
}

// How two runs' values of one output agree, in place to a relative L2 of `rel` (AgreeInPlace).
// *moved: the elements that differ in place.
inline RunsAgree CompareRuns(const std::vector<double>& x, const std::vector<double>& y, double rel, size_t* moved) {
  if (x.size() != y.size()) return *moved = x.size(), RunsAgree::kDiffer;
  if (AgreeInPlace(x, y, rel, moved)) return RunsAgree::kSame;
  std::vector<double> xs = x, ys = y;
  SortValues(&xs);
  SortValues(&ys);
  size_t unsorted_differ = 0;
  return AgreeInPlace(xs, ys, rel, &unsorted_differ) ? RunsAgree::kReordered : RunsAgree::kDiffer;
}

}  // namespace cuco_program::ref
