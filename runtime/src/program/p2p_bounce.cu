// runtime/src/program/p2p_bounce.cu: cuco/program/impl/p2p_bounce.h, linked into every CUDA
// harness's candidate (a cuco runtime unit: nothing here depends on the program's own macros).
#define CUCO_PROGRAM_RUNTIME_UNIT 1

#include <cuco/program/impl/p2p_bounce.h>

#include <cstddef>
#include <utility>
#include <vector>

#include <cuco/codesign/collectives.h>
#include <cuco/program/impl/candidate_state.h>
#include <cuco/program/impl/projection.h>

namespace cuco_program::p2p {
namespace {

struct State {
  struct Copy {
    void* dst;
    const void* src;
    size_t bytes;
    cudaStream_t stream;
  };
  std::vector<std::pair<void*, size_t>> pool;  // plain buffers, the k-th for the k-th bounced call
  size_t next = 0;                              // of the iteration (the same every iteration)
  int64_t iteration = -1;
  int group_depth = 0;
  std::vector<Copy> after_group;  // receives' copies out, issued when the group ends
};
// Per thread, as NCCL's groups are: where a program runs a thread per GPU, the other GPUs' threads
// (their GPU work skipped) open and close their groups while the rank's own thread is inside one.
// Shared, their counts made the own thread's group end early or late, and its received parts were
// copied out after the harness read them (the probe a2a_initall_threads at two GPUs: a rank's
// output wrong from about its 200th timed iteration on, bench/results/2026-11-30-s46-h200x2).
State& P() {
  static thread_local State s;
  return s;
}

// Whether [p, p + bytes) lies in one of this iteration's harness buffers (only inside an iteration).
bool InHarnessBuffer(const void* p, size_t bytes) {
  candidate_detail::Side& s = candidate_detail::S();
  if (!s.iterating || s.io == nullptr) return false;
  const auto* a = static_cast<const unsigned char*>(p);
  for (int i = 0; i < s.io->size(); ++i) {
    const cuco::Buffer& b = s.io->at(i);
    const auto* base = static_cast<const unsigned char*>(b.ptr);
    if (a >= base && a + bytes <= base + b.bytes) return true;
  }
  return false;
}

// The next plain buffer of at least `bytes` (null when cudaMalloc fails).
void* Plain(size_t bytes) {
  State& st = P();
  const int64_t it = cuco_program::iteration();
  if (it != st.iteration) st.iteration = it, st.next = 0;
  if (st.next == st.pool.size()) st.pool.push_back({nullptr, 0});
  auto& [ptr, size] = st.pool[st.next++];
  if (size < bytes) {
    if (ptr != nullptr) cudaFree(ptr);
    ptr = nullptr;
    size = 0;
    if (cudaMalloc(&ptr, bytes) != cudaSuccess) return nullptr;
    size = bytes;
  }
  return ptr;
}

}  // namespace

ncclResult_t GroupStart() {
  ++P().group_depth;
  return ::ncclGroupStart();
}

ncclResult_t GroupEnd() {
  State& st = P();
  const ncclResult_t r = ::ncclGroupEnd();
  if (st.group_depth > 0 && --st.group_depth == 0) {
    for (const State::Copy& c : st.after_group)
      if (cudaMemcpyAsync(c.dst, c.src, c.bytes, cudaMemcpyDeviceToDevice, c.stream) != cudaSuccess) return ncclUnhandledCudaError;
    st.after_group.clear();
  }
  return r;
}

int GroupDepth() { return P().group_depth; }

ncclResult_t Send(const void* buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream) {
  if (proj::IsForeign(comm)) return ncclSuccess;  // another GPU's communicator (projection.h)
  const size_t bytes = count * cuco::codesign::coll_detail::type_size(type);
  if (!InHarnessBuffer(buf, bytes)) return ::ncclSend(buf, count, type, peer, comm, stream);
  void* plain = Plain(bytes);
  if (plain == nullptr || cudaMemcpyAsync(plain, buf, bytes, cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
    return ncclUnhandledCudaError;
  return ::ncclSend(plain, count, type, peer, comm, stream);
}

ncclResult_t Recv(void* buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream) {
  if (proj::IsForeign(comm)) return ncclSuccess;
  const size_t bytes = count * cuco::codesign::coll_detail::type_size(type);
  if (!InHarnessBuffer(buf, bytes)) return ::ncclRecv(buf, count, type, peer, comm, stream);
  void* plain = Plain(bytes);
  if (plain == nullptr) return ncclUnhandledCudaError;
  const ncclResult_t r = ::ncclRecv(plain, count, type, peer, comm, stream);
  if (r != ncclSuccess) return r;
  State& st = P();
  if (st.group_depth > 0) {
    st.after_group.push_back({buf, plain, bytes, stream});
    return ncclSuccess;
  }
  return cudaMemcpyAsync(buf, plain, bytes, cudaMemcpyDeviceToDevice, stream) == cudaSuccess ? ncclSuccess
                                                                                            : ncclUnhandledCudaError;
}

}  // namespace cuco_program::p2p
