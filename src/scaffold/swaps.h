// Pointers a program's timed loop swaps (`std::swap(a, a_new)`: double buffers of a stencil, a
// ring's K/V buffers), so that cuco init binds both by what they hold when the iteration starts: an
// access after a swap reaches the buffer the other name held at the start.
#pragma once

#include <string>
#include <vector>

namespace cuco::scaffold_internal {

struct Swap {
  int line = 0;  // 1-based, in the text searched
  std::string a, b;
};

// The swaps (`swap(x, y)`, `std::swap(x, y)`, and `t = x; x = y; y = t;` through a temporary, its line
// the second statement's) in bytes [begin, end) of `text`, in line order; comments and literals skipped.
std::vector<Swap> SwapsIn(const std::string& text, size_t begin, size_t end);

// The name of the buffer `name` holds at `line`, as named when the iteration started: the swaps
// before `line` undone. `line` 0 (not known): `name` itself.
std::string NameAtStart(const std::string& name, int line, const std::vector<Swap>& swaps);

// Whether `name` is swapped by one of `swaps`.
bool Swapped(const std::string& name, const std::vector<Swap>& swaps);

}  // namespace cuco::scaffold_internal
