// cuco/program/impl/address_ranges.h: address ranges by their start, [begin, begin + bytes): the
// program's allocations (projection.h, reference_engine.h) and its pinned host memory (pinned_host.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace cuco_program {

// In `ranges` (begin -> bytes): the bytes from `at` to the end of the range holding it; 0 when none does.
inline size_t BytesFrom(const std::map<uintptr_t, size_t>& ranges, uintptr_t at) {
  auto it = ranges.upper_bound(at);
  if (it == ranges.begin()) return 0;
  --it;
  return at < it->first + it->second ? it->first + it->second - at : 0;
}

}  // namespace cuco_program
