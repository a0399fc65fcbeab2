// cuco/program/impl/mpi_strided.h: the geometry of a strided MPI datatype (MPI_Type_vector,
// impl/mpi_datatypes.h) and its packing in host memory (impl/mpi_p2p.h packs device memory with
// cudaMemcpy2D). Plain C++: runtime/src/program/mpi_strided_test.cc tests it without a GPU.
#pragma once

#include <cstring>

namespace cuco_program::mpi {

// `count` blocks of `block_bytes`, `stride_bytes` apart (>= block_bytes).
struct StridedType {
  long long count = 0, block_bytes = 0, stride_bytes = 0;
  long long packed() const { return count * block_bytes; }
  long long extent() const { return count > 0 ? (count - 1) * stride_bytes + block_bytes : 0; }
};

// `n` items of `s` at `base` (each its extent after the last) to (`pack`) or from `packed`
// (n * s.packed() bytes), in host memory.
inline void MoveStridedHost(unsigned char* base, const StridedType& s, long long n, unsigned char* packed, bool pack) {
  for (long long k = 0; k < n; ++k)
    for (long long b = 0; b < s.count; ++b) {
      unsigned char* block = base + k * s.extent() + b * s.stride_bytes;
      unsigned char* flat = packed + k * s.packed() + b * s.block_bytes;
      if (pack) std::memcpy(flat, block, static_cast<size_t>(s.block_bytes));
      else std::memcpy(block, flat, static_cast<size_t>(s.block_bytes));
    }
}

}  // namespace cuco_program::mpi
