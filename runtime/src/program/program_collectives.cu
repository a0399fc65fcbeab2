// runtime/src/program/program_collectives.cu: the backend and chunks knobs' collectives of
// cuco/program/codesign.h (its comm:: calls). Each of the program's NCCL calls goes to host NCCL
// ("nccl"), to the device-initiated drop-in ("lsa"), staging a buffer peers read into symmetric
// memory when it is not, or, for the reducing calls and all-gathers, to the copy engines ("ce",
// ce_collectives.cu).
// A cuco runtime unit, linked into every CUDA harness's candidate and compiled once for every
// program: nothing here depends on the program's own macros.
#define CUCO_PROGRAM_RUNTIME_UNIT 1

#include <cuco/program/codesign.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/codesign/collectives.h>
#include <cuco/program/impl/candidate_state.h>
#include <cuco/program/impl/ce_collectives.h>
#include <cuco/program/impl/chunk_state.h>
#include <cuco/program/impl/gather_overlap.h>
#include <cuco/program/impl/p2p_bounce.h>
#include <cuco/program/impl/projection.h>

namespace cuco_program {
namespace candidate_detail {
namespace {

class ProgramCollectives {
 public:
  // The device collectives, set up on first use (COLLECTIVE: every rank makes the same calls in the
  // same order, so every rank gets here at the same call) and bound to this iteration's buffers.
  // `mailbox_bytes_per_peer`: the send/recv mailbox the first use sets up (the copy engines' calls
  // use only the device communicator, and ask for none). Null, with the reason printed, when they
  // cannot be used (named by `backend`, the knob's value that asked for them).
  cuco::codesign::DeviceCollectives* Device(size_t mailbox_bytes_per_peer, const char* backend) {
    Side& s = S();
    if (!ready_) {
      // Collective: inside the program's open group (its first "ce" reduction there) NCCL would
      // defer it to the group's end.
      const cuco::Status st = overlap::OutsideGroups([&] { return dc_.init(*s.ctx, mailbox_bytes_per_peer); });
      if (!st.ok()) {
        std::fprintf(stderr, "cuco: backend knob \"%s\": setting up the device collectives: %s\n", backend,
                     st.message().c_str());
        return nullptr;
      }
      ready_ = true;
    }
    const int blocks = CommBlockBudget();  // the comm_ctas knob (comm_ctas_knob.h)
    if (blocks < 0) {
      std::fprintf(stderr, "cuco: comm_ctas knob \"%s\" is neither \"all\" nor a block count\n", CommCtas().value);
      return nullptr;
    }
    dc_.limit_blocks(blocks);
    if (s.io == nullptr) {  // the program's own set-up or warm-up, before the harness's first iteration
      if (bound_iteration_ != kOutsideIterations) {
        dc_.unbind();
        bound_iteration_ = kOutsideIterations;
        next_stage_ = 0;
      }
    } else if (bound_iteration_ != s.iteration) {
      dc_.bind(*s.io);
      bound_iteration_ = s.iteration;
      next_stage_ = 0;
    }
    return &dc_;
  }

  // `bytes` of `p` where every peer can read them: `p` itself when it is symmetric already, else
  // the next staging buffer of this iteration (`copy`: with p's bytes copied in on `stream`; the
  // n-th staged call of every iteration uses staging buffer n). Outside the harness's iterations
  // (the program's warm-up loop, which has no iteration boundary) a call staging the same pointer
  // as an earlier one reuses its buffer. Null when that fails.
  const void* Readable(const void* p, size_t bytes, bool copy, cudaStream_t stream) {
    if (bytes == 0 || dc_.holds(p, bytes)) return p;
    size_t n = next_stage_;
    if (bound_iteration_ == kOutsideIterations) {
      n = 0;
      while (n < next_stage_ && staged_from_[n] != p) ++n;
      if (n == next_stage_) ++next_stage_;
    } else {
      ++next_stage_;
    }
    if (n == stages_.size()) {
      stages_.push_back(cuco::Buffer{});
      staged_from_.push_back(nullptr);
    }
    staged_from_[n] = p;
    cuco::Buffer& b = stages_[n];
    if (b.bytes < bytes) {  // grows collectively: every rank stages the same calls with the same sizes
      const cuco::Status st = overlap::OutsideGroups([&] { return dc_.alloc_symmetric(*S().ctx, bytes, &b); });
      if (!st.ok()) {
        std::fprintf(stderr, "cuco: backend knob \"lsa\": staging %zu bytes: %s\n", bytes, st.message().c_str());
        return nullptr;
      }
    }
    if (copy && cudaMemcpyAsync(b.ptr, p, bytes, cudaMemcpyDeviceToDevice, stream) != cudaSuccess) return nullptr;
    return b.ptr;
  }

 private:
  static constexpr int64_t kOutsideIterations = -2;
  cuco::codesign::DeviceCollectives dc_;
  bool ready_ = false;
  int64_t bound_iteration_ = -1;
  std::vector<cuco::Buffer> stages_;
  std::vector<const void*> staged_from_;  // per staging buffer: the pointer it last staged
  size_t next_stage_ = 0;
};

ProgramCollectives& Collectives() {
  static ProgramCollectives c;
  return c;
}

enum Backend { kUnknown = -1, kNccl = 0, kLsa = 1, kCe = 2 };

// The device collectives' send/recv mailbox per peer: "lsa" sends through it; "ce" sends none (its
// sends stay on host NCCL), and sets up the least init takes.
size_t MailboxBytesFor(Backend be) { return be == kCe ? 16 : size_t(256) << 20; }

// The backend knob's value (kUnknown, printed, for anything else).
Backend BackendOf(const char* backend, const char* op) {
  if (backend != nullptr && std::strcmp(backend, "lsa") == 0) return kLsa;
  if (backend != nullptr && std::strcmp(backend, "nccl") == 0) return kNccl;
  if (backend != nullptr && std::strcmp(backend, "ce") == 0) return kCe;
  std::fprintf(stderr, "cuco: %s: backend knob \"%s\" is none of \"nccl\", \"lsa\" and \"ce\"\n", op,
               backend ? backend : "(null)");
  return kUnknown;
}

size_t Bytes(size_t count, ncclDataType_t type) { return count * cuco::codesign::coll_detail::type_size(type); }

// The chunks knob (chunk_overlap.h): when the last split GEMM on `stream` made exactly `bytes` of
// `send`, `part(begin, end, side)` issues the collective for each chunk's bytes on the side stream
// once that chunk is made, and `stream` then waits for them all. Nullopt: the caller runs it whole,
// after the program's wait for the device where that was skipped for the chunks (SkipsWait); a
// collective the part knob skips ("compute": the program without its communication) needs no wait,
// so that part is what the chunked GEMM costs alone.
template <class Part>
std::optional<ncclResult_t> OverChunks(const void* send, size_t bytes, size_t elem, ncclComm_t comm,
                                       cudaStream_t stream, Part part) {
  const bool deferred = overlap::TakeDeferredWait();
  auto whole = [&]() -> std::optional<ncclResult_t> {
    if (deferred && cudaDeviceSynchronize() != cudaSuccess) return ncclUnhandledCudaError;
    return std::nullopt;
  };
  if (SkipCommunication()) return std::nullopt;
  if (proj::IsForeign(comm)) return whole();
  bool bad = false;
  const overlap::detail::Chunks* c = overlap::TakeChunks(send, bytes, stream, &bad);
  if (bad) return ncclInvalidArgument;
  if (c == nullptr) return whole();
  for (const auto& [b0, b1] : c->ranges)
    if (b0 % elem != 0 || b1 % elem != 0) return whole();  // the GEMM's columns split elements
  const bool outside = overlap::ChunksOutsideGroup();
  auto parts = [&] {
    // The GEMM ran on another stream (the program's event orders the collective after it).
    if (c->stream != stream && !overlap::SideAfterStream(stream)) {
      std::fprintf(stderr, "cuco: chunks knob: no side stream left for the program's stream\n");
      return ncclInvalidUsage;
    }
    for (size_t i = 0; i < c->ranges.size(); ++i) {
      cudaStream_t side = overlap::SideAfter(stream, static_cast<int>(i));
      if (side == nullptr) {
        std::fprintf(stderr, "cuco: chunks knob: no side stream left for the program's stream\n");
        return ncclInvalidUsage;
      }
      const ncclResult_t r = part(c->ranges[i].first, c->ranges[i].second, side);
      if (r != ncclSuccess) return r;
    }
    if (outside) overlap::JoinSide(stream);  // the parts are enqueued: the groups are closed
    else overlap::JoinSideAfterGroup(stream);
    return ncclSuccess;
  };
  // Inside the program's group each chunk's call would wait for the whole GEMM (chunk_state.h).
  if (outside) return overlap::OutsideGroups(parts);
  return parts();
}

}  // namespace
}  // namespace candidate_detail

namespace comm {

// Each call: host NCCL for "nccl"; for "lsa", the device collective with every buffer peers read
// made readable first (the root's buffer at the root; a non-root passes the staging buffer at the
// same place, uncopied, so the root's is found at the same offset); for "ce", the copy engines'
// (ce_collectives.h) where the call reduces or all-gathers, and host NCCL for every other call.
// A call on another GPU's communicator (projection.h) does nothing, and so does every call of the
// part knob's "compute" (part_knob.h).
#define CUCO_PROGRAM_BACKEND_WITH(op, nccl_call, ce_call)                         \
  if (cuco_program::proj::IsForeign(comm) || candidate_detail::SkipCommunication()) return ncclSuccess; \
  const candidate_detail::Backend be = candidate_detail::BackendOf(backend, op);    \
  if (be == candidate_detail::kUnknown) return ncclInvalidArgument;                 \
  if (be == candidate_detail::kNccl) return nccl_call;                              \
  [[maybe_unused]] auto& pc = candidate_detail::Collectives();                      \
  auto* dc = pc.Device(candidate_detail::MailboxBytesFor(be), backend);             \
  if (dc == nullptr) return ncclInvalidUsage;                                       \
  if (be == candidate_detail::kCe) return ce_call
// A call "ce" leaves to host NCCL: its own NCCL call, without setting up the device collectives.
#define CUCO_PROGRAM_BACKEND(op, nccl_call)                                         \
  if (cuco_program::proj::IsForeign(comm) || candidate_detail::SkipCommunication()) return ncclSuccess; \
  const candidate_detail::Backend be = candidate_detail::BackendOf(backend, op);    \
  if (be == candidate_detail::kUnknown) return ncclInvalidArgument;                 \
  if (be == candidate_detail::kNccl || be == candidate_detail::kCe) return nccl_call; \
  [[maybe_unused]] auto& pc = candidate_detail::Collectives();                      \
  auto* dc = pc.Device(candidate_detail::MailboxBytesFor(be), backend);             \
  if (dc == nullptr) return ncclInvalidUsage

ncclResult_t AllReduce(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                              ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  const size_t elem = candidate_detail::Bytes(1, type);
  if (auto r = candidate_detail::OverChunks(send, count * elem, elem, comm, stream, [&](size_t b0, size_t b1, cudaStream_t side) {
        return AllReduce(backend, candidate_detail::At(send, b0), candidate_detail::At(recv, b0), (b1 - b0) / elem, type,
                         op, comm, side);
      }))
    return *r;
  CUCO_PROGRAM_BACKEND_WITH("ncclAllReduce", ::ncclAllReduce(send, recv, count, type, op, comm, stream),
                          ce::AllReduce(dc->dev_comm(), send, recv, count, type, op, stream));
  const void* from = pc.Readable(send, candidate_detail::Bytes(count, type), true, stream);
  return from == nullptr ? ncclInternalError : dc->all_reduce(from, recv, count, type, op, comm, stream);
}

ncclResult_t AllGather(const char* backend, const void* send, void* recv, size_t send_count,
                              ncclDataType_t type, ncclComm_t comm, cudaStream_t stream) {
  // Kept for the GEMM that reads it (the chunks knob's consumer form, gather_overlap.h).
  if (!proj::IsForeign(comm) && !candidate_detail::SkipCommunication() &&
      overlap::DeferGather(backend, send, recv, send_count, type, comm, stream))
    return ncclSuccess;
  CUCO_PROGRAM_BACKEND_WITH("ncclAllGather", ::ncclAllGather(send, recv, send_count, type, comm, stream),
                            ce::AllGather(dc->dev_comm(), send, recv, send_count, type, stream));
  const void* from = pc.Readable(send, candidate_detail::Bytes(send_count, type), true, stream);
  return from == nullptr ? ncclInternalError : dc->all_gather(from, recv, send_count, type, comm, stream);
}

ncclResult_t Reduce(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                           ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream);

// Split by the chunks knob, a reduce-scatter is one reduce per part of a chunk that lies in one
// rank's segment, to that rank.
ncclResult_t ReduceScatter(const char* backend, const void* send, void* recv, size_t recv_count,
                                  ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  const size_t elem = candidate_detail::Bytes(1, type), segment = recv_count * elem;
  const size_t world = static_cast<size_t>(candidate_detail::S().ctx->world_size);
  if (auto r = candidate_detail::OverChunks(send, segment * world, elem, comm, stream, [&](size_t b0, size_t b1, cudaStream_t side) {
        for (size_t i = b0 / segment; i < world && i * segment < b1; ++i) {
          const size_t lo = std::max(b0, i * segment), hi = std::min(b1, (i + 1) * segment);
          const ncclResult_t rr = Reduce(backend, candidate_detail::At(send, lo), candidate_detail::At(recv, lo - i * segment),
                                         (hi - lo) / elem, type, op, static_cast<int>(i), comm, side);
          if (rr != ncclSuccess) return rr;
        }
        return ncclSuccess;
      }))
    return *r;
  CUCO_PROGRAM_BACKEND_WITH("ncclReduceScatter", ::ncclReduceScatter(send, recv, recv_count, type, op, comm, stream),
                          ce::ReduceScatter(dc->dev_comm(), send, recv, recv_count, type, op, stream));
  const void* from = pc.Readable(send, segment * world, true, stream);
  return from == nullptr ? ncclInternalError : dc->reduce_scatter(from, recv, recv_count, type, op, comm, stream);
}

ncclResult_t Broadcast(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                              int root, ncclComm_t comm, cudaStream_t stream) {
  CUCO_PROGRAM_BACKEND("ncclBroadcast", ::ncclBroadcast(send, recv, count, type, root, comm, stream));
  const void* from = pc.Readable(send, candidate_detail::Bytes(count, type), candidate_detail::S().ctx->rank == root, stream);
  return from == nullptr ? ncclInternalError : dc->broadcast(from, recv, count, type, root, comm, stream);
}

ncclResult_t Bcast(const char* backend, void* buffer, size_t count, ncclDataType_t type, int root,
                          ncclComm_t comm, cudaStream_t stream) {
  return Broadcast(backend, buffer, buffer, count, type, root, comm, stream);
}

ncclResult_t Reduce(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                           ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  CUCO_PROGRAM_BACKEND_WITH("ncclReduce", ::ncclReduce(send, recv, count, type, op, root, comm, stream),
                          ce::Reduce(dc->dev_comm(), send, recv, count, type, op, root, stream));
  const void* from = pc.Readable(send, candidate_detail::Bytes(count, type), true, stream);
  return from == nullptr ? ncclInternalError : dc->reduce(from, recv, count, type, op, root, comm, stream);
}

ncclResult_t AlltoAll(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                             ncclComm_t comm, cudaStream_t stream) {
  CUCO_PROGRAM_BACKEND("ncclAlltoAll", ::ncclAlltoAll(send, recv, count, type, comm, stream));
  const size_t bytes = candidate_detail::Bytes(count, type) * static_cast<size_t>(candidate_detail::S().ctx->world_size);
  const void* from = pc.Readable(send, bytes, true, stream);
  return from == nullptr ? ncclInternalError : dc->all_to_all(from, recv, count, type, comm, stream);
}

ncclResult_t Gather(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                           int root, ncclComm_t comm, cudaStream_t stream) {
  CUCO_PROGRAM_BACKEND("ncclGather", ::ncclGather(send, recv, count, type, root, comm, stream));
  const void* from = pc.Readable(send, candidate_detail::Bytes(count, type), true, stream);
  return from == nullptr ? ncclInternalError : dc->gather(from, recv, count, type, root, comm, stream);
}

ncclResult_t Scatter(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                            int root, ncclComm_t comm, cudaStream_t stream) {
  CUCO_PROGRAM_BACKEND("ncclScatter", ::ncclScatter(send, recv, count, type, root, comm, stream));
  const size_t bytes = candidate_detail::Bytes(count, type) * static_cast<size_t>(candidate_detail::S().ctx->world_size);
  const void* from = pc.Readable(send, bytes, candidate_detail::S().ctx->rank == root, stream);
  return from == nullptr ? ncclInternalError : dc->scatter(from, recv, count, type, root, comm, stream);
}

// Sends push into the receiver's mailbox: no buffer needs to be symmetric.
ncclResult_t Send(const char* backend, const void* buffer, size_t count, ncclDataType_t type, int peer,
                         ncclComm_t comm, cudaStream_t stream) {
  overlap::PointToPointInGroup();
  CUCO_PROGRAM_BACKEND("ncclSend", p2p::Send(buffer, count, type, peer, comm, stream));
  return dc->send(buffer, count, type, peer, comm, stream);
}

ncclResult_t Recv(const char* backend, void* buffer, size_t count, ncclDataType_t type, int peer,
                         ncclComm_t comm, cudaStream_t stream) {
  overlap::PointToPointInGroup();
  CUCO_PROGRAM_BACKEND("ncclRecv", p2p::Recv(buffer, count, type, peer, comm, stream));
  return dc->recv(buffer, count, type, peer, comm, stream);
}

namespace {
// The program's NCCL group ("nccl", "ce"), counted on this thread (chunk_state.h: the chunked
// collectives in it join their side streams once NCCL has enqueued them, at its end).
ncclResult_t StartNcclGroup() {
  overlap::GroupOpened();
  return p2p::GroupStart();
}
ncclResult_t EndNcclGroup() {
  const ncclResult_t r = p2p::GroupEnd();
  overlap::GroupClosed();
  return r;
}
}  // namespace

ncclResult_t GroupStart(const char* backend) {
  constexpr ncclComm_t comm = nullptr;
  CUCO_PROGRAM_BACKEND("ncclGroupStart", StartNcclGroup());
  return dc->group_start();
}

ncclResult_t GroupEnd(const char* backend) {
  constexpr ncclComm_t comm = nullptr;
  CUCO_PROGRAM_BACKEND("ncclGroupEnd", EndNcclGroup());
  return dc->group_end();
}

#undef CUCO_PROGRAM_BACKEND
#undef CUCO_PROGRAM_BACKEND_WITH

}  // namespace comm

namespace overlap {

ncclResult_t IssueKeptWhole(const detail::KeptGather& g) {
  return comm::AllGather(g.backend, g.send, g.recv, g.count, g.type, g.comm, g.stream);
}

// One step of the exchange: for "ce", the copy engines' step (ce_collectives.h); for "nccl", a send
// and a receive in one group (sends through p2p_bounce.h, as the program's own: a harness buffer is
// never handed to NCCL unregistered on one side only).
ncclResult_t IssueKeptStep(const detail::KeptGather& g, int step, cudaStream_t side) {
  if (candidate_detail::BackendOf(g.backend, "ncclAllGather") == candidate_detail::kCe) {
    auto* dc = candidate_detail::Collectives().Device(candidate_detail::MailboxBytesFor(candidate_detail::kCe), g.backend);
    return dc == nullptr ? ncclInvalidUsage : ce::AllGatherStep(dc->dev_comm(), g.send, g.recv, g.count, g.type, step, side);
  }
  const int world = candidate_detail::S().ctx->world_size, rank = candidate_detail::S().ctx->rank;
  const int to = (rank + step) % world, from = (rank - step + world) % world;
  const size_t part = candidate_detail::Bytes(g.count, g.type);
  ncclResult_t r = p2p::GroupStart();
  if (r == ncclSuccess) r = p2p::Send(g.send, g.count, g.type, to, g.comm, side);
  if (r == ncclSuccess) r = p2p::Recv(candidate_detail::At(g.recv, part * static_cast<size_t>(from)), g.count, g.type, from, g.comm, side);
  const ncclResult_t end = p2p::GroupEnd();
  return r != ncclSuccess ? r : end;
}

}  // namespace overlap
}  // namespace cuco_program
