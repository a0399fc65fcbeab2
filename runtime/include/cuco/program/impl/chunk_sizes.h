// cuco/program/impl/chunk_sizes.h: the chunk_sizes knob of cuco/program/codesign.h, how the chunks
// knob cuts a GEMM's columns (chunk_overlap.h). "even" (the default): equal chunks. "tapered": chunk
// p of `parts` holds a share parts - p of parts * (parts + 1) / 2 of the columns (4 chunks: 40%, 30%,
// 20%, 10%), so the last chunk, whose collective no GEMM hides, is the smallest. Plain C++: the
// candidate's file includes it through chunk_overlap.h, and runtime_test tests it.
#pragma once

#include <cstdint>
#include <cstring>

namespace cuco_program {
namespace overlap::detail {

struct ChunkSizesKnob {
  const char* value = nullptr;  // as set_chunk_sizes kept it (a static initialiser may call nothing else)
};
inline ChunkSizesKnob& ChunkSizes() {
  static ChunkSizesKnob knob;
  return knob;
}
// 0: even (or no knob); 1: tapered; -1: anything else (refused by the Producer).
inline int Tapered() {
  const char* v = ChunkSizes().value;
  if (v == nullptr || std::strcmp(v, "even") == 0) return 0;
  return std::strcmp(v, "tapered") == 0 ? 1 : -1;
}

// Column c of n split `parts` ways, evenly or tapered: where part p (0..parts) begins. Each boundary
// is rounded to the nearest multiple of the largest power of two up to 128 that leaves every part
// at least that many columns, so that a part's operands stay aligned as cuBLAS's vectorised kernels
// take them (stop 51 measured unrounded tapered parts 0.26-0.33 ms slower than even ones on
// aicomm_tp_row, whose transposed B starts part c0 c0 floats in: 1638 floats, 8 bytes off 16).
// Tapered needs at least 16 * parts * (parts + 1) / 2 columns, and with fewer it is even; with
// fewer than 16 * parts columns, even is unrounded.
inline int PartBegin(int n, int parts, int p, bool tapered = false) {
  const int64_t total = static_cast<int64_t>(parts) * (parts + 1) / 2;
  auto alignment = [n](int64_t shares) {  // the rounding that keeps the smallest of `shares` parts whole
    int64_t align = 128;
    while (align >= 8 && n < 2 * align * shares) align /= 2;
    return align;
  };
  if (p <= 0) return 0;
  if (p >= parts) return n;
  int64_t align = alignment(total), exact = 0;
  if (tapered && align >= 8) {
    const int64_t before = static_cast<int64_t>(p) * parts - static_cast<int64_t>(p) * (p - 1) / 2;  // parts 0..p-1
    exact = static_cast<int64_t>(n) * before / total;
  } else {
    align = alignment(parts);
    exact = static_cast<int64_t>(n) * p / parts;
    if (align < 8) return static_cast<int>(exact);
  }
  return static_cast<int>((exact + align / 2) / align * align);
}

}  // namespace overlap::detail

// Sets the chunk_sizes knob ("even" | "tapered"); returns true. Called from a static initialiser of
// generation 0.
inline bool set_chunk_sizes(const char* value) {
  overlap::detail::ChunkSizes().value = value;
  return true;
}

}  // namespace cuco_program
