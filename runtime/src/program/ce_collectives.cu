// runtime/src/program/ce_collectives.cu: cuco/program/impl/ce_collectives.h, linked into every
// CUDA harness's candidate (a cuco runtime unit: nothing here depends on the program's own macros).
#define CUCO_PROGRAM_RUNTIME_UNIT 1

#include <cuco/program/impl/ce_collectives.h>

#include <algorithm>
#include <string>
#include <cstdio>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include <cuco/codesign/collectives.h>
#include <cuco/codesign/lsa.h>
#include <cuco/program/impl/candidate_state.h>
#include <cuco/program/impl/chunk_state.h>

namespace cuco_program::ce {
namespace {

namespace cd = cuco::codesign;
namespace cdd = cuco::codesign::coll_detail;

constexpr int kLazy = 7;  // this unit's own instantiations of the reduction kernel

ncclResult_t Fail(const char* op, const char* why, ncclResult_t code = ncclInvalidUsage) {
  std::fprintf(stderr, "cuco: backend knob \"ce\": %s: %s\n", op, why);
  return code;
}

// One call site's staging: rank q pushes into slot q of `data` here, and announces it in
// flags[q]; flags[W + q] says that q has reduced what this rank pushed into q's slot.
struct StagingSet {
  cd::PeerBuffer data;
  cd::PeerBuffer flags;
  size_t slot_bytes = 0;
  uint32_t epoch = 0;
  uint32_t* flag(int q, int index) const { return reinterpret_cast<uint32_t*>(flags.at(q)) + index; }
};

class CeState {
 public:
  // The staging set of this call with at least `slot_bytes` per slot (header: the n-th call of
  // the iteration; outside the iterations the first call's with the same buffers). COLLECTIVE when
  // it allocates: every rank makes the same calls, so every rank allocates at the same call.
  StagingSet* For(const char* op, const ncclDevComm& dev_comm, const void* send, const void* recv, size_t count,
                  size_t slot_bytes) {
    candidate_detail::Side& s = candidate_detail::S();
    size_t n;
    if (s.io == nullptr) {
      auto [it, fresh] = outside_.try_emplace(std::make_tuple(send, recv, count), sets_.size());
      if (fresh) sets_.push_back(nullptr);
      n = it->second;
    } else {
      if (iteration_ != s.iteration) iteration_ = s.iteration, in_iteration_ = 0;
      if (in_iteration_ == iteration_sets_.size()) {
        iteration_sets_.push_back(sets_.size());
        sets_.push_back(nullptr);
      }
      n = iteration_sets_[in_iteration_++];
    }
    std::unique_ptr<StagingSet>& set = sets_[n];
    if (set == nullptr || set->slot_bytes < slot_bytes) {
      if (set != nullptr && cudaDeviceSynchronize() != cudaSuccess) return nullptr;  // the old one is idle
      auto fresh = std::make_unique<StagingSet>();
      if (!Allocate(op, dev_comm, slot_bytes, fresh.get())) return nullptr;
      set = std::move(fresh);  // the old buffers stay allocated (the harness frees its windows)
    }
    return set.get();
  }

 private:
  static bool Allocate(const char* op, const ncclDevComm& dev_comm, size_t slot_bytes, StagingSet* out) {
    cuco::RankContext& ctx = *candidate_detail::S().ctx;
    const size_t w = static_cast<size_t>(ctx.world_size);
    out->slot_bytes = (slot_bytes + 15) / 16 * 16;
    // Collective: inside the program's open group (its reductions grouped over its GPUs) NCCL
    // would defer the windows' registration to the group's end.
    cuco::Status st = overlap::OutsideGroups([&] {
      cuco::Status s = cd::alloc_peers(ctx, dev_comm, out->slot_bytes * w, &out->data);
      return s.ok() ? cd::alloc_peers(ctx, dev_comm, sizeof(uint32_t) * 2 * w, &out->flags) : s;
    });
    // Every rank's zeroed flags before anyone's first push.
    if (st.ok()) st = cd::lsa_barrier(ctx.stream, dev_comm, 0);
    if (st.ok() && cudaStreamSynchronize(ctx.stream) != cudaSuccess) st = cuco::Status::Error("cudaStreamSynchronize");
    cdd::for_each_reduce_kernel<kLazy>([&](ncclDataType_t, void (*kernel)(cdd::ReduceArgs)) {
      if (st.ok()) st = cd::preload_kernel(kernel);
    });
    if (!st.ok()) std::fprintf(stderr, "cuco: backend knob \"ce\": %s: staging: %s\n", op, st.message().c_str());
    return st.ok();
  }

  std::vector<std::unique_ptr<StagingSet>> sets_;
  std::vector<size_t> iteration_sets_;  // the n-th call of an iteration -> its set
  std::map<std::tuple<const void*, const void*, size_t>, size_t> outside_;
  int64_t iteration_ = -1;
  size_t in_iteration_ = 0;
};

CeState& State() {
  static CeState state;
  return state;
}

// dst = op over `sources` (in rank order) of `count` elements on `stream`.
ncclResult_t LaunchReduce(const char* op, const std::vector<const char*>& sources, void* dst, size_t count,
                          ncclDataType_t type, ncclRedOp_t red, cudaStream_t stream) {
  if (count == 0) return ncclSuccess;
  cdd::ReduceArgs a;
  a.sources = static_cast<int>(sources.size());
  a.op = red;
  a.count = count;
  for (size_t q = 0; q < sources.size(); ++q) a.src[q].local = const_cast<char*>(sources[q]);
  a.dst.local = static_cast<char*>(dst);
  if (!cdd::launch_reduce_kernel<kLazy>(type, a, 2 * candidate_detail::S().ctx->sm_count, stream))
    return Fail(op, "this data type cannot be reduced here (fp8?)", ncclInvalidArgument);
  return cudaGetLastError() == cudaSuccess ? ncclSuccess : Fail(op, "the reduction's launch failed", ncclUnhandledCudaError);
}

// What every exchange refuses: more ranks than one LSA team, and a stream capture (the graph knob's,
// or the program's own: the epochs are host counters a graph would freeze).
ncclResult_t Refusal(const char* op, cudaStream_t stream) {
  if (candidate_detail::S().ctx->world_size > cdd::kMaxSources) return Fail(op, "at most 8 ranks");
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone) {
    candidate_detail::S().graphs.NoteCaptureRefused(std::string("cuco's copy-engine ") + op + " (backend \"ce\")");
    return Fail(op, "not inside a stream capture (the graph knob, or the program's own): its flags count calls on the host");
  }
  return ncclSuccess;
}

// One call's use of its staging set, the protocol every exchange follows on `stream`: Begin takes
// the set and the call's epoch; Push copies `bytes` into slot `rank` at rank `to` (once `to` has
// handed that slot back from the previous call) and announces it; Arrived waits for rank `from`'s
// part and answers where it lies here; Release hands `from`'s slot back once this rank's stream
// has used it.
class Slots {
 public:
  ncclResult_t Begin(const char* op, const ncclDevComm& dev_comm, const void* send, const void* recv, size_t count,
                     size_t slot_bytes) {
    op_ = op;
    set_ = State().For(op, dev_comm, send, recv, count, slot_bytes);
    if (set_ == nullptr) return ncclInternalError;
    epoch_ = ++set_->epoch;
    return ncclSuccess;
  }
  ncclResult_t Push(int to, const void* part, size_t bytes, cudaStream_t stream) const {
    cuco::RankContext& ctx = *candidate_detail::S().ctx;
    const int w = ctx.world_size, r = ctx.rank;
    if (epoch_ > 1 && !ctx.wait_value32(stream, set_->flag(r, w + to), epoch_ - 1).ok())
      return Fail(op_, "waiting for a free slot");
    if (cudaMemcpyAsync(set_->data.at(to, set_->slot_bytes * static_cast<size_t>(r)), part, bytes,
                        cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
      return Fail(op_, "cudaMemcpyAsync to a peer", ncclUnhandledCudaError);
    return ctx.write_value32(stream, set_->flag(to, r), epoch_).ok() ? ncclSuccess : Fail(op_, "announcing a part");
  }
  // Null when the wait could not be queued (said on stderr).
  const char* Arrived(int from, cudaStream_t stream) const {
    cuco::RankContext& ctx = *candidate_detail::S().ctx;
    if (!ctx.wait_value32(stream, set_->flag(ctx.rank, from), epoch_).ok()) {
      Fail(op_, "waiting for a part");
      return nullptr;
    }
    return static_cast<const char*>(set_->data.at(ctx.rank, set_->slot_bytes * static_cast<size_t>(from)));
  }
  ncclResult_t Release(int from, cudaStream_t stream) const {
    cuco::RankContext& ctx = *candidate_detail::S().ctx;
    return ctx.write_value32(stream, set_->flag(from, ctx.world_size + ctx.rank), epoch_).ok()
               ? ncclSuccess
               : Fail(op_, "handing a slot back");
  }

 private:
  const char* op_ = "";
  StagingSet* set_ = nullptr;
  uint32_t epoch_ = 0;
};

// One exchange on `stream`. This rank pushes `push[q]` (part_bytes; null: nothing) into slot
// `rank` at every other rank q; when `dst` is set, it waits for every other rank's part, reduces
// them with `own` in rank order into `dst`, and hands their slots back.
ncclResult_t Exchange(const char* op, const ncclDevComm& dev_comm, const void* send, const void* recv, size_t count,
                      const std::vector<const char*>& push, size_t part_bytes, const char* own, void* dst,
                      size_t part_count, ncclDataType_t type, ncclRedOp_t red, cudaStream_t stream) {
  const cuco::RankContext& ctx = *candidate_detail::S().ctx;
  const int w = ctx.world_size, r = ctx.rank;
  if (!cdd::reducible(red)) return Fail(op, "only sum, prod, max, min and avg reductions", ncclInvalidArgument);
  if (const ncclResult_t no = Refusal(op, stream); no != ncclSuccess) return no;
  if (w == 1) return dst != nullptr ? LaunchReduce(op, {own}, dst, part_count, type, red, stream) : ncclSuccess;
  Slots slots;
  if (const ncclResult_t b = slots.Begin(op, dev_comm, send, recv, count, part_bytes); b != ncclSuccess) return b;
  for (int q = 0; q < w; ++q) {
    if (q == r || push[static_cast<size_t>(q)] == nullptr) continue;
    if (const ncclResult_t p = slots.Push(q, push[static_cast<size_t>(q)], part_bytes, stream); p != ncclSuccess) return p;
  }
  if (dst == nullptr) return ncclSuccess;
  std::vector<const char*> sources(static_cast<size_t>(w));
  for (int q = 0; q < w; ++q) {
    sources[static_cast<size_t>(q)] = q == r ? own : slots.Arrived(q, stream);
    if (sources[static_cast<size_t>(q)] == nullptr) return ncclInternalError;
  }
  const ncclResult_t reduced = LaunchReduce(op, sources, dst, part_count, type, red, stream);
  if (reduced != ncclSuccess) return reduced;
  for (int q = 0; q < w; ++q)
    if (q != r)
      if (const ncclResult_t h = slots.Release(q, stream); h != ncclSuccess) return h;
  return ncclSuccess;
}

size_t Bytes(size_t count, ncclDataType_t type) { return count * cdd::type_size(type); }

// An all-gather's exchange, in steps over its Slots: Begin takes them; Push sends this rank's part
// to rank `to`; Take waits for rank `from`'s part, copies it into its place in `recv` and hands the
// slot back.
class GatherExchange {
 public:
  ncclResult_t Begin(const ncclDevComm& dev_comm, const void* send, void* recv, size_t count, ncclDataType_t type) {
    part_bytes_ = Bytes(count, type);
    send_ = static_cast<const char*>(send);
    recv_ = static_cast<char*>(recv);
    return slots_.Begin("ncclAllGather", dev_comm, send, recv, count, part_bytes_);
  }
  ncclResult_t Push(int to, cudaStream_t stream) const { return slots_.Push(to, send_, part_bytes_, stream); }
  ncclResult_t Take(int from, cudaStream_t stream) const {
    const char* part = slots_.Arrived(from, stream);
    if (part == nullptr) return ncclInternalError;
    if (cudaMemcpyAsync(recv_ + part_bytes_ * static_cast<size_t>(from), part, part_bytes_, cudaMemcpyDeviceToDevice,
                        stream) != cudaSuccess)
      return Fail("ncclAllGather", "cudaMemcpyAsync of an arrived part", ncclUnhandledCudaError);
    return slots_.Release(from, stream);
  }

 private:
  Slots slots_;
  size_t part_bytes_ = 0;
  const char* send_ = nullptr;
  char* recv_ = nullptr;
};

// The gather knob's steps of one all-gather (AllGatherStep): the exchange step 1 began.
GatherExchange& Stepped() {
  static GatherExchange g;
  return g;
}

}  // namespace

ncclResult_t AllGather(const ncclDevComm& dev_comm, const void* send, void* recv, size_t send_count,
                       ncclDataType_t type, cudaStream_t stream) {
  if (const ncclResult_t no = Refusal("ncclAllGather", stream); no != ncclSuccess) return no;
  const cuco::RankContext& ctx = *candidate_detail::S().ctx;
  const int w = ctx.world_size, r = ctx.rank;
  const size_t part = Bytes(send_count, type);
  char* own = static_cast<char*>(recv) + part * static_cast<size_t>(r);
  if (part == 0) return ncclSuccess;
  if (own != send && cudaMemcpyAsync(own, send, part, cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
    return Fail("ncclAllGather", "cudaMemcpyAsync of this rank's part", ncclUnhandledCudaError);
  if (w == 1) return ncclSuccess;
  GatherExchange x;
  if (const ncclResult_t b = x.Begin(dev_comm, send, recv, send_count, type); b != ncclSuccess) return b;
  for (int step = 1; step < w; ++step)
    if (const ncclResult_t p = x.Push((r + step) % w, stream); p != ncclSuccess) return p;
  for (int step = 1; step < w; ++step)
    if (const ncclResult_t t = x.Take((r - step + w) % w, stream); t != ncclSuccess) return t;
  return ncclSuccess;
}

ncclResult_t AllGatherStep(const ncclDevComm& dev_comm, const void* send, void* recv, size_t send_count,
                           ncclDataType_t type, int step, cudaStream_t stream) {
  if (const ncclResult_t no = Refusal("ncclAllGather", stream); no != ncclSuccess) return no;
  const cuco::RankContext& ctx = *candidate_detail::S().ctx;
  const int w = ctx.world_size, r = ctx.rank;
  if (step < 1 || step >= w) return Fail("ncclAllGather", "a step is 1 to the world size - 1", ncclInvalidArgument);
  if (Bytes(send_count, type) == 0) return ncclSuccess;
  GatherExchange& x = Stepped();
  if (step == 1)
    if (const ncclResult_t b = x.Begin(dev_comm, send, recv, send_count, type); b != ncclSuccess) return b;
  const ncclResult_t p = x.Push((r + step) % w, stream);
  return p != ncclSuccess ? p : x.Take((r - step + w) % w, stream);
}

ncclResult_t AllReduce(const ncclDevComm& dev_comm, const void* send, void* recv, size_t count, ncclDataType_t type,
                       ncclRedOp_t op, cudaStream_t stream) {
  const int w = candidate_detail::S().ctx->world_size;
  const std::vector<const char*> push(static_cast<size_t>(w), static_cast<const char*>(send));
  return Exchange("ncclAllReduce", dev_comm, send, recv, count, push, Bytes(count, type), static_cast<const char*>(send),
                  recv, count, type, op, stream);
}

ncclResult_t Reduce(const ncclDevComm& dev_comm, const void* send, void* recv, size_t count, ncclDataType_t type,
                    ncclRedOp_t op, int root, cudaStream_t stream) {
  const cuco::RankContext& ctx = *candidate_detail::S().ctx;
  if (root < 0 || root >= ctx.world_size) return Fail("ncclReduce", "the root is not a rank", ncclInvalidArgument);
  std::vector<const char*> push(static_cast<size_t>(ctx.world_size), nullptr);
  push[static_cast<size_t>(root)] = static_cast<const char*>(send);
  const bool at_root = ctx.rank == root;
  return Exchange("ncclReduce", dev_comm, send, recv, count, push, Bytes(count, type), static_cast<const char*>(send),
                  at_root ? recv : nullptr, count, type, op, stream);
}

ncclResult_t ReduceScatter(const ncclDevComm& dev_comm, const void* send, void* recv, size_t recv_count,
                           ncclDataType_t type, ncclRedOp_t op, cudaStream_t stream) {
  const cuco::RankContext& ctx = *candidate_detail::S().ctx;
  const size_t segment = Bytes(recv_count, type);
  std::vector<const char*> push(static_cast<size_t>(ctx.world_size));
  for (int q = 0; q < ctx.world_size; ++q)
    push[static_cast<size_t>(q)] = static_cast<const char*>(send) + segment * static_cast<size_t>(q);
  return Exchange("ncclReduceScatter", dev_comm, send, recv, recv_count, push, segment,
                  static_cast<const char*>(send) + segment * static_cast<size_t>(ctx.rank), recv, recv_count, type, op,
                  stream);
}

}  // namespace cuco_program::ce
