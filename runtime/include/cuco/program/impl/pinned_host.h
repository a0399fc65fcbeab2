// cuco/program/impl/pinned_host.h: the program's pinned host memory, by address, on both sides.
// A program may hand host memory it pinned (cudaMallocHost, cudaHostAlloc, cudaHostRegister) where
// device memory could go: an MPI buffer that is a class's member (`up1.array_h`, made in the class's
// constructor), which cuco init binds like device memory. Its size is known only where it was made:
// the stand-ins (pinned_host_shims.h) note every such range here, and a bind of a pointer into one is
// a host bind of the bytes from there to the range's end (program.h, Binder::Typed).
// Thread-safe: the reference's ranks are threads of one process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include <cuco/program/impl/address_ranges.h>

namespace cuco_program::pinned {

struct Ranges {
  std::mutex mu;
  std::map<uintptr_t, size_t> bytes_at;  // [begin, begin + bytes) of each pinned range
};
inline Ranges& R() {
  static Ranges r;
  return r;
}

inline void Note(const void* p, size_t bytes) {
  if (p == nullptr || bytes == 0) return;
  std::lock_guard<std::mutex> lock(R().mu);
  R().bytes_at[reinterpret_cast<uintptr_t>(p)] = bytes;
}
inline void Forget(const void* p) {
  std::lock_guard<std::mutex> lock(R().mu);
  R().bytes_at.erase(reinterpret_cast<uintptr_t>(p));
}
// The bytes from `p` to the end of the pinned range holding it; 0 where none does.
inline size_t BytesFrom(const void* p) {
  std::lock_guard<std::mutex> lock(R().mu);
  return cuco_program::BytesFrom(R().bytes_at, reinterpret_cast<uintptr_t>(p));
}

}  // namespace cuco_program::pinned
