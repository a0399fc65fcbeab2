// cuco/codesign/collectives.h: device-initiated drop-ins for host NCCL calls (LSA over NVLink).
//
// `cuco transform` (rule-based) turns a host-driven seed into generation 0 by renaming every NCCL
// call inside the EVOLVE blocks to the method of the same meaning here, with the same arguments
// and the same ncclResult_t result: ncclAllGather -> dc.all_gather, ncclSend -> dc.send,
// ncclGroupEnd -> dc.group_end, ... . Buffers the peers must read move to symmetric memory:
// cudaMalloc -> dc.malloc (same signature), cudaFree -> dc.free. Everything still runs in the
// seed's order on the seed's streams: correctness first; the search then overlaps it.
//
// How each call moves data (W ranks, one LSA team; every transfer is an SM load/store through
// ncclGetLsaPointer, resolved on the device):
//   all_gather, all_to_all, gather, scatter, broadcast: the receiver PULLS from the sender's
//     symmetric send buffer;
//   reduce_scatter, reduce, all_reduce: the receiver pulls every rank's part and reduces it in
//     fp32 (fp64 for doubles, integer types in their own width), sources in rank order, so every
//     rank computes identical bits; an in-place all_reduce is a reduce-scatter then an all-gather;
//   send / recv (grouped or not): the sender PUSHES into the receiver's mailbox slot, the
//     receiver copies out after a barrier.
// Each call is framed by LSA barriers on its stream: the first makes the peers' inputs (all work
// enqueued before the call on their streams) visible, the last keeps a peer from overwriting a
// buffer someone still reads.
//
// Contract (what the rule-based transform relies on; a violation returns an error and prints why):
//   - every rank is in one LSA team (one NVLink domain); `comm` is ctx.comm;
//   - buffers read by peers (send buffers; a broadcast's or scatter's root buffer) are symmetric:
//     harness buffers (bind(io) each iteration) or dc.malloc'd ones, at the same offset on every
//     rank (SPMD code passes the same variable everywhere);
//   - every rank takes part in every call and every group, in the same order (rings, all-to-all
//     and pairwise exchanges do; a group in which some rank has nothing to do would deadlock);
//   - the bytes sent to one peer within one group fit the mailbox slot given to init().
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <cuco/codesign/flags.h>
#include <cuco/codesign/lsa.h>
#include <cuco/harness.h>

#include <cuco/codesign/impl/collective_kernels.h>

namespace cuco {
namespace codesign {

// A class template only so that its kernels and methods compile in the translation units that use
// them (every candidate includes this header through codesign.h); use it as DeviceCollectives.
template <int kLazy = 0>
class BasicDeviceCollectives {
 public:
  // COLLECTIVE, in setup: the device communicator (one LSA barrier), the send/recv mailbox
  // (mailbox_bytes_per_peer for each peer), kernels loaded (flags.h: lazy loading). Idempotent.
  Status init(RankContext& ctx, size_t mailbox_bytes_per_peer = size_t(256) << 20) {
    if (ctx_ != nullptr) return Status::Ok();
    ncclDevCommRequirements reqs;
    std::memset(&reqs, 0, sizeof reqs);
    reqs.lsaBarrierCount = 1;
    Status s = ctx.create_dev_comm(reqs, &dev_comm_);
    if (!s.ok()) return s;
    if (dev_comm_.lsaSize != ctx.world_size || dev_comm_.rank != ctx.rank)
      return Status::Error("cuco collectives: every rank must be in one LSA team (one NVLink domain)");
    if (ctx.world_size > coll_detail::kMaxSources)
      return Status::Error("cuco collectives: at most 8 ranks");
    slot_bytes_ = std::max<size_t>(16, (mailbox_bytes_per_peer + 15) / 16 * 16);
    s = ctx.alloc_symmetric(slot_bytes_ * static_cast<size_t>(ctx.world_size), &mailbox_);
    if (!s.ok()) return s;
    s = preload_kernel(coll_detail::copy_kernel<kLazy>);
    coll_detail::for_each_reduce_kernel<kLazy>([&](ncclDataType_t, void (*kernel)(coll_detail::ReduceArgs)) {
      if (s.ok()) s = preload_kernel(kernel);
    });
    if (s.ok()) s = preload_kernel(detail::lsa_barrier_kernel);
    if (!s.ok()) return s;
    ctx_ = &ctx;
    // A first barrier: every rank's set-up is done before anyone's first iteration.
    s = lsa_barrier(ctx.stream, dev_comm_, 0);
    if (s.ok()) CUCO_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    return s;
  }

  // The harness buffers of this iteration (symmetric windows): call at the start of every run.
  void bind(const IO& io) {
    bound_.clear();
    for (int i = 0; i < io.size(); ++i)
      if (io.at(i).window != nullptr) bound_.push_back(io.at(i));
  }

  // No harness buffers bound (outside the harness's iterations): only ours count as symmetric.
  void unbind() { bound_.clear(); }

  // A symmetric buffer the candidate allocated itself (ctx.alloc_symmetric) that peers may read.
  void add(const Buffer& b) { owned_.push_back(b); }

  // At most `blocks` blocks per kernel of the calls from now on (0: two per SM, the default), so
  // that a collective overlapping compute leaves it the other SMs.
  void limit_blocks(int blocks) { blocks_ = blocks; }

  // Whether [p, p + bytes) lies in one bound harness buffer or one of ours (peers can read it).
  bool holds(const void* p, size_t bytes) const {
    const Buffer* b = find(p);
    return b != nullptr && static_cast<const char*>(p) + bytes <= static_cast<const char*>(b->ptr) + b->bytes;
  }

  // COLLECTIVE: ctx.alloc_symmetric, and the buffer becomes one peers may read through this object.
  Status alloc_symmetric(RankContext& ctx, size_t bytes, Buffer* out) {
    Status s = ctx.alloc_symmetric(bytes, out);
    if (s.ok()) owned_.push_back(*out);
    return s;
  }

  // COLLECTIVE drop-in for cudaMalloc: every rank, same bytes, same order. The harness frees it.
  template <class T> cudaError_t malloc(T** ptr, size_t bytes) {
    if (ctx_ == nullptr) return report_cuda("malloc", "init() was not called first");
    Buffer b;
    Status s = ctx_->alloc_symmetric(bytes, &b);
    if (!s.ok()) return report_cuda("malloc", s.message().c_str(), cudaErrorMemoryAllocation);
    owned_.push_back(b);
    *ptr = reinterpret_cast<T*>(b.ptr);
    return cudaSuccess;
  }

  // Drop-in for cudaFree: nothing for a symmetric buffer of ours (the harness frees it).
  cudaError_t free(void* ptr) {
    for (const Buffer& b : owned_)
      if (b.ptr == ptr) return cudaSuccess;
    return cudaFree(ptr);
  }

  ncclResult_t all_gather(const void* send, void* recv, size_t count, ncclDataType_t type, ncclComm_t comm,
                          cudaStream_t stream) {
    const char* op = "all_gather";
    if (!usable(op, comm)) return error_;
    const size_t bytes = count * coll_detail::type_size(type);
    coll_detail::Place from;
    if (!symmetric(op, "send", send, &from)) return error_;
    std::vector<coll_detail::Copy> copies;
    for (int q = 0; q < world(); ++q) {
      char* to = static_cast<char*>(recv) + static_cast<size_t>(q) * bytes;
      if (q == rank() && to == send) continue;  // in place
      copies.push_back(copy(peer_at(from, q, 0), local(to), bytes));
    }
    return framed(stream, [&] { return launch_copies(copies, stream); });
  }

  ncclResult_t reduce_scatter(const void* send, void* recv, size_t recv_count, ncclDataType_t type, ncclRedOp_t red,
                              ncclComm_t comm, cudaStream_t stream) {
    const char* op = "reduce_scatter";
    if (!usable(op, comm)) return error_;
    const size_t part = recv_count * coll_detail::type_size(type);
    coll_detail::Place from;
    if (!symmetric(op, "send", send, &from)) return error_;
    return framed(stream, [&] {
      return launch_reduce(op, type, red, recv_count, from, static_cast<size_t>(rank()) * part, local(recv), stream);
    });
  }

  ncclResult_t all_reduce(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t red,
                          ncclComm_t comm, cudaStream_t stream) {
    const char* op = "all_reduce";
    if (!usable(op, comm)) return error_;
    const size_t size = coll_detail::type_size(type);
    coll_detail::Place from;
    if (!symmetric(op, "send", send, &from)) return error_;
    if (send != recv) {
      if (overlaps(send, recv, count * size)) return fail(op, "send and recv overlap without being equal");
      return framed(stream, [&] { return launch_reduce(op, type, red, count, from, 0, local(recv), stream); });
    }
    // In place: reduce my part of everyone's buffer into mine, barrier, pull the others' parts.
    const size_t vec = 16 / size;
    const size_t per = ((count + world() - 1) / world() + vec - 1) / vec * vec;
    const size_t begin = std::min(count, per * rank()), end = std::min(count, begin + per);
    ncclResult_t r = barrier(stream);
    if (r == ncclSuccess && end > begin)
      r = launch_reduce(op, type, red, end - begin, from, begin * size, local(static_cast<char*>(recv) + begin * size),
                        stream);
    if (r != ncclSuccess) return r;
    std::vector<coll_detail::Copy> copies;
    for (int q = 0; q < world(); ++q) {
      const size_t b = std::min(count, per * q), e = std::min(count, b + per);
      if (q != rank() && e > b)
        copies.push_back(copy(peer_at(from, q, b * size), local(static_cast<char*>(recv) + b * size), (e - b) * size));
    }
    return framed(stream, [&] { return launch_copies(copies, stream); });
  }

  ncclResult_t broadcast(const void* send, void* recv, size_t count, ncclDataType_t type, int root, ncclComm_t comm,
                         cudaStream_t stream) {
    const char* op = "broadcast";
    if (!usable(op, comm) || !valid_rank(op, root)) return error_;
    const size_t bytes = count * coll_detail::type_size(type);
    std::vector<coll_detail::Copy> copies;
    if (rank() == root) {
      if (send != recv) copies.push_back(copy(local(const_cast<void*>(send)), local(recv), bytes));
    } else {
      coll_detail::Place from;
      if (!symmetric(op, "send (the root's buffer, at the same offset here)", send, &from)) return error_;
      copies.push_back(copy(peer_at(from, root, 0), local(recv), bytes));
    }
    return framed(stream, [&] { return launch_copies(copies, stream); });
  }

  ncclResult_t bcast(void* buffer, size_t count, ncclDataType_t type, int root, ncclComm_t comm, cudaStream_t stream) {
    return broadcast(buffer, buffer, count, type, root, comm, stream);
  }

  ncclResult_t reduce(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t red, int root,
                      ncclComm_t comm, cudaStream_t stream) {
    const char* op = "reduce";
    if (!usable(op, comm) || !valid_rank(op, root)) return error_;
    coll_detail::Place from;
    if (!symmetric(op, "send", send, &from)) return error_;
    if (rank() == root && send != recv && overlaps(send, recv, count * coll_detail::type_size(type)))
      return fail(op, "send and recv overlap without being equal");
    return framed(stream, [&] {
      return rank() == root ? launch_reduce(op, type, red, count, from, 0, local(recv), stream) : ncclSuccess;
    });
  }

  ncclResult_t all_to_all(const void* send, void* recv, size_t count, ncclDataType_t type, ncclComm_t comm,
                          cudaStream_t stream) {
    const char* op = "all_to_all";
    if (!usable(op, comm)) return error_;
    const size_t bytes = count * coll_detail::type_size(type);
    coll_detail::Place from;
    if (!symmetric(op, "send", send, &from)) return error_;
    if (overlaps(send, recv, bytes * world())) return fail(op, "in-place all-to-all is not supported");
    std::vector<coll_detail::Copy> copies;
    for (int q = 0; q < world(); ++q)
      copies.push_back(copy(peer_at(from, q, static_cast<size_t>(rank()) * bytes),
                            local(static_cast<char*>(recv) + static_cast<size_t>(q) * bytes), bytes));
    return framed(stream, [&] { return launch_copies(copies, stream); });
  }

  ncclResult_t gather(const void* send, void* recv, size_t count, ncclDataType_t type, int root, ncclComm_t comm,
                      cudaStream_t stream) {
    const char* op = "gather";
    if (!usable(op, comm) || !valid_rank(op, root)) return error_;
    const size_t bytes = count * coll_detail::type_size(type);
    coll_detail::Place from;
    if (!symmetric(op, "send", send, &from)) return error_;
    std::vector<coll_detail::Copy> copies;
    if (rank() == root)
      for (int q = 0; q < world(); ++q) {
        char* to = static_cast<char*>(recv) + static_cast<size_t>(q) * bytes;
        if (!(q == rank() && to == send)) copies.push_back(copy(peer_at(from, q, 0), local(to), bytes));
      }
    return framed(stream, [&] { return launch_copies(copies, stream); });
  }

  ncclResult_t scatter(const void* send, void* recv, size_t count, ncclDataType_t type, int root, ncclComm_t comm,
                       cudaStream_t stream) {
    const char* op = "scatter";
    if (!usable(op, comm) || !valid_rank(op, root)) return error_;
    const size_t bytes = count * coll_detail::type_size(type);
    coll_detail::Place from;
    if (!symmetric(op, "send (the root's buffer, at the same offset here)", send, &from)) return error_;
    const size_t at = static_cast<size_t>(rank()) * bytes;
    std::vector<coll_detail::Copy> copies;
    if (!(rank() == root && static_cast<const char*>(send) + at == recv))
      copies.push_back(copy(peer_at(from, root, at), local(recv), bytes));
    return framed(stream, [&] { return launch_copies(copies, stream); });
  }

  ncclResult_t group_start() {
    ++group_depth_;
    return ncclSuccess;
  }

  ncclResult_t group_end() {
    if (group_depth_ == 0) return fail("group_end", "no group_start before it");
    if (--group_depth_ > 0) return ncclSuccess;
    return flush_p2p();
  }

  ncclResult_t send(const void* buffer, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                    cudaStream_t stream) {
    return p2p("send", true, const_cast<void*>(buffer), count, type, peer, comm, stream);
  }

  ncclResult_t recv(void* buffer, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream) {
    return p2p("recv", false, buffer, count, type, peer, comm, stream);
  }

  const ncclDevComm& dev_comm() const { return dev_comm_; }

 private:
  // Defined in impl/collective_transport.h (places, failures, barriers, the copy and reduce
  // launches) and impl/collective_mailbox.h (send/recv through the mailbox).
  int rank() const { return ctx_->rank; }
  int world() const { return ctx_->world_size; }
  static coll_detail::Place local(void* p);
  static coll_detail::Place peer_at(coll_detail::Place base, int peer, size_t extra);
  static coll_detail::Copy copy(coll_detail::Place src, coll_detail::Place dst, size_t bytes);
  static bool overlaps(const void* a, const void* b, size_t bytes);
  ncclResult_t fail(const char* op, const std::string& why, ncclResult_t code = ncclInvalidUsage);
  cudaError_t report_cuda(const char* op, const char* why, cudaError_t code = cudaErrorInitializationError);
  bool usable(const char* op, ncclComm_t comm);
  bool valid_rank(const char* op, int root);
  // The bound harness buffer or buffer of ours that holds p, or null.
  const Buffer* find(const void* p) const;
  // Finds the symmetric buffer holding p (find), or fails naming op and what.
  bool symmetric(const char* op, const char* what, const void* p, coll_detail::Place* at);
  ncclResult_t barrier(cudaStream_t stream);
  int block_budget() const { return blocks_ > 0 ? blocks_ : 2 * ctx_->sm_count; }
  template <class Body> ncclResult_t framed(cudaStream_t stream, Body body) {
    ncclResult_t r = barrier(stream);
    if (r == ncclSuccess) r = body();
    if (r == ncclSuccess) r = barrier(stream);
    return r;
  }
  ncclResult_t launch_copies(const std::vector<coll_detail::Copy>& copies, cudaStream_t stream);
  // dst = red over ranks q of (`from` at rank q, + offset), `count` elements.
  ncclResult_t launch_reduce(const char* op, ncclDataType_t type, ncclRedOp_t red, size_t count, coll_detail::Place from,
                             size_t offset, coll_detail::Place dst, cudaStream_t stream);
  ncclResult_t p2p(const char* op, bool is_send, void* buffer, size_t count, ncclDataType_t type, int peer,
                   ncclComm_t comm, cudaStream_t stream);
  // Sends push into the receiver's slot for this rank, at the running offset per peer; receives
  // copy out of this rank's slot for the sender after a barrier.
  ncclResult_t flush_p2p();

  RankContext* ctx_ = nullptr;
  ncclDevComm dev_comm_{};
  Buffer mailbox_;
  size_t slot_bytes_ = 0;
  std::vector<Buffer> bound_, owned_;
  std::vector<coll_detail::PendingP2p> pending_;
  int group_depth_ = 0;
  int blocks_ = 0;  // limit_blocks
  ncclResult_t error_ = ncclInvalidUsage;
};

using DeviceCollectives = BasicDeviceCollectives<>;

}  // namespace codesign
}  // namespace cuco

#include <cuco/codesign/impl/collective_transport.h>
#include <cuco/codesign/impl/collective_mailbox.h>
