// cuco/program/impl/chunk_bounds.h: where the chunks knob (chunk_overlap.h) splits a GEMM's n
// output columns, for the taper knob's shape. Plain C++: no CUDA, so it is tested on the host.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace cuco_program::overlap::detail {

enum Taper { kEven = 0, kLinear = 1, kHalving = 2 };

// The taper knob's value; -1 for anything else.
inline int TaperOf(const char* v) {
  if (v == nullptr) return -1;
  if (std::strcmp(v, "even") == 0) return kEven;
  if (std::strcmp(v, "linear") == 0) return kLinear;
  if (std::strcmp(v, "halving") == 0) return kHalving;
  return -1;
}

// Where each of `parts` column ranges of n begins (parts + 1 entries, the last n), for `taper`.
// Every range holds at least one column (n >= parts). "even" is n * p / parts; a tapered split
// puts its boundaries on multiples of the widest power-of-two granule (at most 128 columns, a
// GEMM's widest tile) that its narrowest chunk still holds, so the chunks keep whole tiles.
inline std::vector<int> PartBounds(int n, int parts, int taper) {
  std::vector<int> b(static_cast<size_t>(parts) + 1, n);
  std::vector<int64_t> weight(static_cast<size_t>(parts), 1);
  for (int p = 0; p < parts; ++p)
    if (taper == kLinear) weight[p] = parts - p;
    else if (taper == kHalving) weight[p] = int64_t{1} << (parts - 1 - p);
  int64_t total = 0;
  for (int64_t w : weight) total += w;
  int64_t granule = taper == kEven ? 1 : 128;
  while (granule > 1 && n < granule * total) granule /= 2;
  int64_t sum = 0;
  for (int p = 0; p < parts; ++p) {
    const int64_t exact = static_cast<int64_t>(n) * sum / total;
    int64_t at = (exact + granule / 2) / granule * granule;
    if (p > 0) at = std::max<int64_t>(at, b[p - 1] + 1);
    b[p] = static_cast<int>(std::min<int64_t>(at, n - (parts - p)));
    sum += weight[p];
  }
  b[0] = 0;
  return b;
}

}  // namespace cuco_program::overlap::detail
