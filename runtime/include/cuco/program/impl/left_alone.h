// cuco/program/impl/left_alone.h: the elements of an output that the program's own iteration leaves
// alone (reference.h). A benchmark that allocates its receive buffer for its largest collective (an
// all-gather's ranks × size) and times a smaller one (an all-reduce of size) writes part of it by
// design; that part alone is the iteration's output.
//
// The reference runs the iteration twice on the same inputs, the outputs zeroed before the first run
// and filled with 0xFF bytes before the second. An element whose bytes are all 0x00 after the first
// and all 0xFF after the second was not written: a write that depends on the inputs only gives the
// same bytes both times. Such elements are not compared, and the harness allows the poison they hold
// (CheckResult::left_alone in cuco/workload_spec.h).
// Plain C++: tested on the host (left_alone_test.cc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace cuco_program::ref {

// Element runs [begin, end) of one output, in order and apart.
class ElementRuns {
 public:
  const std::vector<std::pair<int64_t, int64_t>>& runs() const { return runs_; }
  int64_t elements() const { return elements_; }
  bool empty() const { return runs_.empty(); }
  bool Contains(int64_t i) const {
    auto it = std::upper_bound(runs_.begin(), runs_.end(), std::make_pair(i, INT64_MAX));
    return it != runs_.begin() && i < std::prev(it)->second;
  }
  // Appends elements [i, i + n) (not below the last one added).
  void Add(int64_t i, int64_t n = 1) {
    if (!runs_.empty() && runs_.back().second == i)
      runs_.back().second += n;
    else
      runs_.push_back({i, i + n});
    elements_ += n;
  }

 private:
  std::vector<std::pair<int64_t, int64_t>> runs_;
  int64_t elements_ = 0;
};

// The elements of `bytes` / `elem_bytes` that hold all 0x00 in `from_zero` (the run that began
// zeroed) and all 0xFF in `from_ones` (the run that began as 0xFF bytes).
inline ElementRuns LeftAlone(const unsigned char* from_zero, const unsigned char* from_ones, size_t bytes,
                             size_t elem_bytes) {
  ElementRuns left;
  if (elem_bytes == 0) return left;
  const bool words = 8 % elem_bytes == 0;  // then 8 bytes at a time where they agree (outputs are GiBs)
  for (size_t e = 0; e + elem_bytes <= bytes;) {
    if (words && e % 8 == 0 && e + 8 <= bytes) {
      uint64_t z = 0, o = 0;
      std::memcpy(&z, from_zero + e, 8);
      std::memcpy(&o, from_ones + e, 8);
      if (z == 0 && o == ~uint64_t{0}) {
        left.Add(static_cast<int64_t>(e / elem_bytes), static_cast<int64_t>(8 / elem_bytes));
        e += 8;
        continue;
      }
    }
    bool alone = true;
    for (size_t b = 0; b < elem_bytes && alone; ++b) alone = from_zero[e + b] == 0x00 && from_ones[e + b] == 0xFF;
    if (alone) left.Add(static_cast<int64_t>(e / elem_bytes));
    e += elem_bytes;
  }
  return left;
}

}  // namespace cuco_program::ref
