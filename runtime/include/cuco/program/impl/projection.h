// cuco/program/impl/projection.h: a program that drives every GPU from one process
// (ncclCommInitAll, or ncclCommInitRank for each GPU inside a group), run by the harness with one
// rank per process (candidate side) or per thread (reference side). cuco init defines
// CUCO_PROGRAM_PROJECTED for such a program. Every rank runs the program's whole host code and does
// only its own GPU's part of it: rank r does what the program gives GPU r.
//   - cudaSetDevice(d) selects GPU d of the program on the calling thread (the rank's real GPU when
//     d is the rank); cudaGetDevice answers it and cudaGetDeviceCount the world size;
//   - while another GPU is selected, the program's CUDA and library calls do nothing and return
//     success (the guards cuco init writes after the includes: CUCO_PROGRAM_GUARD), its kernel
//     launches do not run (cuco init writes `if (!cuco_program::proj::Own()) {} else` before each),
//     and streams and events it creates are foreign handles;
//   - ncclCommInitAll and ncclCommInitRank give the rank's GPU the harness's communicator and every
//     other GPU a foreign one; an NCCL call on a foreign communicator does nothing;
//   - memory is the GPU's it was allocated for: cudaMalloc while another GPU is selected gives a
//     foreign handle, and a copy, set or free (CUCO_PROGRAM_GUARD_MEM) runs when it touches no
//     foreign handle and either the rank's GPU is selected or it touches the rank's own allocation:
//     with unified addressing a program may fill every GPU's buffer without selecting each GPU.
// A program that runs a thread per GPU (CUCO_PROGRAM_THREADS as well) starts all its threads in
// every rank's process (candidate side); each selects its GPU, so only the rank's own thread does GPU
// work and serves the harness's iterations, while the others wait in serve() for the end (cuco init
// renames std::thread and pthread_create to cuco's, program.h, so that each thread knows its rank).
// The reference runs one copy of such a program, as it runs itself: each of its threads is the rank
// of the GPU it selects (reference_engine.h), and its globals are one copy's.
// Without CUCO_PROGRAM_PROJECTED every call is the rank's own (Own() is always true).
// Copies between GPUs outside NCCL (cudaMemcpyPeer) cannot be split by rank: cuco init refuses them.
// No GPU is another's peer (peer_access.h): enabling peer access does nothing.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>

#include <cuco/program/impl/address_ranges.h>
#include <cuco/program/program.h>

namespace cuco_program::proj {

// cuco's own program units (runtime/src/program/) are compiled once for every program: they must
// not depend on how this one was made, so there none of these exist (a use fails to compile).
#ifndef CUCO_PROGRAM_RUNTIME_UNIT
#ifdef CUCO_PROGRAM_PROJECTED
inline constexpr bool kProjected = true;
#else
inline constexpr bool kProjected = false;
#endif
#ifdef CUCO_PROGRAM_THREADS
inline constexpr bool kThreads = true;  // a thread per GPU (reference side: one copy, its threads the ranks)
#else
inline constexpr bool kThreads = false;
#endif

// The program's selected GPU on this thread (CUDA's default: 0).
inline thread_local int t_device = 0;

// Whether work the calling thread issues now is this rank's.
inline bool Own() { return !kProjected || t_device == cuco_program::rank(); }
#endif  // CUCO_PROGRAM_RUNTIME_UNIT

// Handles of another GPU's communicators, streams and events: never dereferenced, never a real
// address (the top bits are not those of a user-space pointer).
inline constexpr uintptr_t kForeignTag = 0xC0C0000000000000ull;
inline constexpr uintptr_t kForeignMask = 0xFFFF000000000000ull;
template <class H>
H Foreign(uintptr_t index) {
  return reinterpret_cast<H>(kForeignTag | index);
}
template <class T>
bool IsForeign(const T& handle) {
  if constexpr (std::is_pointer_v<T>)
    return (reinterpret_cast<uintptr_t>(handle) & kForeignMask) == kForeignTag;
  else
    return false;
}

// Another GPU's allocation (cudaMalloc while it is selected): a foreign handle in *p; the offsets a
// program adds to it keep its tag.
template <class T>
void ForeignAllocation(T** p) {
  static std::atomic<uintptr_t> next{1};
  *p = reinterpret_cast<T*>(kForeignTag | (next.fetch_add(1) << 32));
}

// In an allocation map (base -> bytes): the bytes from an address to its allocation's end
// (address_ranges.h; the reference's AllocationBytes and InOwnAllocation below).
using cuco_program::BytesFrom;

// The rank's own allocations, [begin, begin + bytes) by rank (both sides' cudaMalloc note them).
struct OwnAllocations {
  std::mutex mu;
  std::map<int, std::map<uintptr_t, size_t>> by_rank;
};
inline OwnAllocations& Allocations() {
  static OwnAllocations a;
  return a;
}
inline void NoteOwn(int rank, const void* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(Allocations().mu);
  Allocations().by_rank[rank][reinterpret_cast<uintptr_t>(p)] = bytes;
}
inline void ForgetOwn(int rank, const void* p) {
  std::lock_guard<std::mutex> lock(Allocations().mu);
  Allocations().by_rank[rank].erase(reinterpret_cast<uintptr_t>(p));
}
// Whether `arg` points into one of `rank`'s own allocations (false for anything not a pointer).
template <class T>
bool InOwnAllocation(int rank, const T& arg) {
  if constexpr (std::is_pointer_v<T>) {
    std::lock_guard<std::mutex> lock(Allocations().mu);
    return BytesFrom(Allocations().by_rank[rank], reinterpret_cast<uintptr_t>(arg)) > 0;
  } else {
    return false;
  }
}

#ifndef CUCO_PROGRAM_RUNTIME_UNIT
// Whether a memory call (copy, set, free) with these arguments is this rank's: it touches no
// foreign handle, and the rank's GPU is selected or it touches the rank's own allocation.
template <class... A>
bool OwnMemoryCall(const A&... args) {
  if ((IsForeign(args) || ...)) return false;
  return Own() || (InOwnAllocation(cuco_program::rank(), args) || ...);
}

// cudaMalloc(p, bytes, ...) as the program sees it: another GPU's is a foreign handle, the rank's
// own is noted for OwnMemoryCall.
template <class Call, class T, class... R>
auto Allocate(Call call, T** p, size_t bytes, R... rest) -> decltype(call(p, bytes, rest...)) {
  using Status = decltype(call(p, bytes, rest...));
  if (!Own()) {
    ForeignAllocation(p);
    return Status();
  }
  const Status st = call(p, bytes, rest...);
  if (st == Status()) NoteOwn(cuco_program::rank(), *p, bytes);
  return st;
}
#endif  // CUCO_PROGRAM_RUNTIME_UNIT

// True when the communicator of an NCCL call (its second-to-last argument: `..., comm, stream)`)
// is another GPU's.
template <class... A>
bool ForeignCall(const A&... args) {
  if constexpr (sizeof...(A) >= 2)
    return IsForeign(std::get<sizeof...(A) - 2>(std::tie(args...)));
  else
    return false;
}

}  // namespace cuco_program::proj

// The guard cuco init writes for each CUDA or library call of a projected program: `name` runs only
// while the rank's GPU is selected; otherwise the call's value is its type's zero (success).
//   #define cublasSgemm_v2(...) CUCO_PROGRAM_GUARD(cublasSgemm_v2, __VA_ARGS__)
// (a macro's name is not expanded again inside its own expansion: the inner `name` is the real one).
#define CUCO_PROGRAM_GUARD(name, ...) \
  (cuco_program::proj::Own() ? name(__VA_ARGS__) : decltype(name(__VA_ARGS__))())
// The same for a copy, set or free: it runs when it is the rank's by its pointers (OwnMemoryCall).
#define CUCO_PROGRAM_GUARD_MEM(name, ...) \
  (cuco_program::proj::OwnMemoryCall(__VA_ARGS__) ? name(__VA_ARGS__) : decltype(name(__VA_ARGS__))())
// The same for an allocation (cudaMalloc, cudaMallocAsync, cudaMallocManaged, ncclMemAlloc): another
// GPU's gets a foreign handle (Allocate).
#define CUCO_PROGRAM_GUARD_ALLOC(name, ...) \
  cuco_program::proj::Allocate([&](auto... cuco_a) { return name(cuco_a...); }, __VA_ARGS__)
// The same for an NCCL call: it runs unless its communicator is another GPU's (zero: ncclSuccess).
#define CUCO_PROGRAM_GUARD_COMM(name, ...) \
  (cuco_program::proj::ForeignCall(__VA_ARGS__) ? decltype(name(__VA_ARGS__))() : name(__VA_ARGS__))
