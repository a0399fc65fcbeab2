// cuco/program/impl/chunk_state.h: what the chunks knob's two halves share on the calling thread
// (chunk_overlap.h says how they meet): the GEMM stand-ins and Producer, in the candidate's file,
// record a split GEMM's chunks; the program's collectives (runtime/src/program/, compiled once for
// every program) take them and issue a part per chunk on a side stream. Nothing here may depend on
// the program's own macros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/harness.h>
#include <cuco/program/impl/candidate_state.h>

namespace cuco_program::candidate_detail {

// `p` advanced by `bytes`.
inline const char* At(const void* p, size_t bytes) { return static_cast<const char*>(p) + bytes; }
inline char* At(void* p, size_t bytes) { return static_cast<char*>(p) + bytes; }

}  // namespace cuco_program::candidate_detail

namespace cuco_program::overlap {
namespace detail {

// The column ranges of a split GEMM's output, as byte ranges of it; chunk i's harness event
// (ChunkEvent(i)) is recorded on `stream` after it.
struct Chunks {
  const void* buffer = nullptr;
  size_t bytes = 0;
  cudaStream_t stream = nullptr;
  std::vector<std::pair<size_t, size_t>> ranges;  // [begin, end) bytes from `buffer`
};

struct ThreadState {
  int chunks = 1;               // the armed Producer's knob value (1: nothing is split)
  const void* armed = nullptr;  // the buffer whose next GEMM is split; null when none
  uint64_t producer = 0;        // which Producer armed it
  uint64_t next_producer = 0;
  bool bad_value = false;       // the knob's value was not one of 1, 2, 4, 8
  Chunks made;                  // the last split GEMM's chunks, until a collective takes them
  bool wait_deferred = false;   // the program's wait before the collective was skipped (Producer::SkipsWait)
  Chunks taken;                 // the chunks the last collective took (TakeChunks' answer)
  std::map<cudaStream_t, int> side;  // program stream -> its side's number (SideStreamIndex, JoinEvent)
  int group_depth = 0;               // the program's NCCL groups open on this thread (comm::GroupStart)
  bool group_sends = false;          // the open group holds a send or receive (PointToPointInGroup)
  std::vector<cudaStream_t> join_after_group;  // streams whose join waits for the group's end
};

inline ThreadState& T() {
  static thread_local ThreadState t;
  return t;
}

// The harness's events and side streams this knob uses, from the top of their ranges (the program's
// own take theirs from the bottom, candidate_shims.h): chunk i's event, and per program stream one
// side stream and the event that joins it back.
inline constexpr int kMaxChunks = 8;
inline int ChunkEvent(int i) { return cuco::RankContext::kMaxEvents - 1 - i; }
inline int JoinEvent(int side) { return cuco::RankContext::kMaxEvents - 1 - kMaxChunks - side; }
inline int SideStreamIndex(int side) { return cuco::RankContext::kMaxSideStreams - 1 - side; }

// Says `what` on stderr (the candidate's log) the first time only: once per process and message.
inline void SayOnce(int which, const char* what, int chunks) {
  static bool said[3] = {};
  if (which < 0 || which >= 3 || said[which]) return;
  said[which] = true;
  std::fprintf(stderr, "cuco: chunks knob %d: %s\n", chunks, what);
}

}  // namespace detail

// Whether the program's wait before this collective was skipped (Producer::SkipsWait); cleared.
inline bool TakeDeferredWait() {
  detail::ThreadState& t = detail::T();
  const bool deferred = t.wait_deferred;
  t.wait_deferred = false;
  return deferred;
}

// For a collective on `stream` reading `bytes` from `buffer`: the chunks the last split GEMM made of
// exactly that (taken once; on `stream` or another one, whose order the program gives the collective
// by an event: SideAfterStream then orders the side stream after `stream` too), or null. Any
// collective reading the armed buffer disarms it; in the loop form (chunk_overlap.h) a later pass
// may have armed another GPU's buffer since the split, so the chunks are found by the buffer they
// were made of. Sets *bad when the current Producer was given an invalid knob value.
inline const detail::Chunks* TakeChunks(const void* buffer, size_t bytes, cudaStream_t stream, bool* bad) {
  detail::ThreadState& t = detail::T();
  *bad = t.armed != nullptr && t.bad_value;
  const bool made_of_it = t.made.buffer == buffer && !t.made.ranges.empty();
  if (!made_of_it && (t.armed == nullptr || buffer != t.armed)) return nullptr;
  if (buffer == t.armed) t.armed = nullptr;
  *bad = t.bad_value;
  const detail::Chunks& c = t.made;
  if (c.buffer != buffer || c.bytes != bytes || c.ranges.empty()) {
    if (t.chunks > 1)
      detail::SayOnce(2, "the collective runs whole: no split GEMM made exactly the bytes it reads", t.chunks);
    return nullptr;
  }
  t.taken = std::move(t.made);  // taken once: a later collective on the buffer runs whole
  t.made = detail::Chunks{};
  return &t.taken;
}

// The side stream of the program's `stream` (one each, the device's highest priority); null when
// `stream` has none left.
inline cudaStream_t SideStream(cudaStream_t stream) {
  auto& side = detail::T().side;
  auto it = side.find(stream);
  if (it == side.end()) {
    const int k = static_cast<int>(side.size());
    if (k >= cuco::RankContext::kMaxSideStreams) return nullptr;
    it = side.emplace(stream, k).first;
  }
  return candidate_detail::S().ctx->side_stream(detail::SideStreamIndex(it->second), -1000);
}

// The side stream of `stream` after it waited for chunk `chunk` of the split GEMM; null when
// `stream` has no side stream left.
inline cudaStream_t SideAfter(cudaStream_t stream, int chunk) {
  cudaStream_t s = SideStream(stream);
  if (s != nullptr) candidate_detail::S().ctx->wait_event(s, detail::ChunkEvent(chunk));
  return s;
}

// The side stream of `stream` after what `stream` was given so far: where the split GEMM ran on
// another stream, the chunks' events alone would not order the side after `stream`'s own earlier
// work (a previous collective on the buffer). The side's join event is recorded on `stream` for it
// (JoinSide records it again later: a wait takes the record made before it). False when `stream`
// has no side stream left.
inline bool SideAfterStream(cudaStream_t stream) {
  cudaStream_t s = SideStream(stream);
  if (s == nullptr) return false;
  cuco::RankContext& ctx = *candidate_detail::S().ctx;
  const int side = detail::T().side.at(stream);
  ctx.record_event(detail::JoinEvent(side), stream);
  ctx.wait_event(s, detail::JoinEvent(side));
  return true;
}

// `stream` waits for everything its side stream was given.
inline void JoinSide(cudaStream_t stream) {
  auto& side = detail::T().side;
  auto it = side.find(stream);
  if (it == side.end()) return;
  cuco::RankContext& ctx = *candidate_detail::S().ctx;
  ctx.record_event(detail::JoinEvent(it->second), ctx.side_stream(detail::SideStreamIndex(it->second)));
  ctx.wait_event(stream, detail::JoinEvent(it->second));
}

// The program's NCCL group (comm::GroupStart .. GroupEnd with backend "nccl" or "ce") on this
// thread. NCCL enqueues the calls of a group when it ends, and launches them together, every
// stream of the group after all of them: a chunk's call there would wait for the whole GEMM.
// A chunked collective in a group that holds no send or receive so far therefore issues its parts
// with the group closed (ChunksOutsideGroup); in one that does (a send and its receive must stay in
// one group), it issues them inside and joins its side stream back at the group's end: joined at
// the call, `stream` would wait for none of the chunks' calls.
inline void GroupOpened() { ++detail::T().group_depth; }
inline void GroupClosed() {
  detail::ThreadState& t = detail::T();
  if (t.group_depth == 0 || --t.group_depth > 0) return;
  t.group_sends = false;
  for (cudaStream_t s : t.join_after_group) JoinSide(s);
  t.join_after_group.clear();
}
// A send or receive of the program's on this thread (comm::Send, comm::Recv).
inline void PointToPointInGroup() {
  detail::ThreadState& t = detail::T();
  if (t.group_depth > 0) t.group_sends = true;
}
// Whether a chunked collective issues its parts with the program's groups closed: inside an open
// group that holds no send or receive so far.
inline bool ChunksOutsideGroup() {
  const detail::ThreadState& t = detail::T();
  return t.group_depth > 0 && !t.group_sends;
}
// JoinSide now, or when the open group ends.
inline void JoinSideAfterGroup(cudaStream_t stream) {
  detail::ThreadState& t = detail::T();
  if (t.group_depth == 0) return JoinSide(stream);
  for (cudaStream_t s : t.join_after_group)
    if (s == stream) return;
  t.join_after_group.push_back(stream);
}
// How many of the program's groups are open on this thread.
inline int GroupDepth() { return detail::T().group_depth; }

// Runs `setup`, a collective set-up (the device collectives, a symmetric window) that NCCL would
// defer inside an open group, with the program's open groups closed, and opens them again after.
// What a group held so far is enqueued then: every rank alike, since they make the same calls.
template <class Setup>
auto OutsideGroups(Setup setup) {
  const int open = GroupDepth();
  for (int i = 0; i < open; ++i) ::ncclGroupEnd();
  auto result = setup();
  for (int i = 0; i < open; ++i) ::ncclGroupStart();
  return result;
}

}  // namespace cuco_program::overlap
