// cuco/program/impl/chunk_bounds.h: where the chunks knob (cuco/program/codesign.h) cuts a GEMM's
// columns (chunk_overlap.h): equal chunks, each boundary rounded so a part's operands stay aligned
// as cuBLAS's vectorised kernels take them. Plain C++: the candidate's file includes it through
// chunk_overlap.h, and runtime_test tests it.
//
// Unequal chunks were measured three times and dropped (docs/your-own-program.md, stops 49, 51 and
// 52): on aicomm_tp_row, chunks shrinking so that the exposed last collective moves the least were
// slower than equal ones at every backend and count, aligned or not.
#pragma once

#include <cstdint>

namespace cuco_program::overlap::detail {

// Column c of n split `parts` ways: where part p (0..parts) begins. Each boundary is rounded to the
// nearest multiple of the largest power of two up to 128 that leaves every part at least that many
// columns; with fewer than 16 * parts columns the boundaries are unrounded.
inline int PartBegin(int n, int parts, int p) {
  if (p <= 0) return 0;
  if (p >= parts) return n;
  int64_t align = 128;
  while (align >= 8 && n < 2 * align * parts) align /= 2;
  const int64_t exact = static_cast<int64_t>(n) * p / parts;
  if (align < 8) return static_cast<int>(exact);
  return static_cast<int>((exact + align / 2) / align * align);
}

}  // namespace cuco_program::overlap::detail
