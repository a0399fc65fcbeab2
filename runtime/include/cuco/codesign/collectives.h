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

namespace cuco {
namespace codesign {

namespace coll_detail {

constexpr int kMaxCopies = 40;   // copies per launch (kernel parameters stay under 4 KiB)
constexpr int kMaxSources = 8;   // ranks one reduction reads
constexpr int kThreads = 512;

// Where bytes are: in a window (rank `peer`'s copy, resolved on the device) or at a local pointer.
struct Place {
  ncclWindow_t window = nullptr;  // null: `local`
  size_t offset = 0;
  int peer = 0;
  char* local = nullptr;
};

__device__ __forceinline__ char* resolve(const Place& p) {
  return p.window != nullptr ? static_cast<char*>(ncclGetLsaPointer(p.window, p.offset, p.peer)) : p.local;
}

struct Copy {
  Place src, dst;
  uint64_t bytes = 0;
};

struct CopyBatch {
  int count = 0;
  Copy c[kMaxCopies];
};

// blockIdx.y picks the copy; the x-blocks share it. 16-byte vectors when everything is aligned.
static __global__ void __launch_bounds__(kThreads) copy_kernel(CopyBatch batch) {
  const Copy& c = batch.c[blockIdx.y];
  const char* src = resolve(c.src);
  char* dst = resolve(c.dst);
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  if (((reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst) | c.bytes) & 15) == 0) {
    const uint4* s = reinterpret_cast<const uint4*>(src);
    uint4* d = reinterpret_cast<uint4*>(dst);
    const uint64_t n = c.bytes / 16;
    for (uint64_t i = first; i < n; i += stride) d[i] = s[i];
  } else {
    for (uint64_t i = first; i < c.bytes; i += stride) dst[i] = src[i];
  }
  __threadfence_system();  // peer stores complete before the barrier that follows
}

// The accumulator of a reduction over T.
template <class T> struct Acc {
  using type = T;
  __device__ static type load(T v) { return v; }
  __device__ static T store(type v) { return v; }
};
template <> struct Acc<__half> {
  using type = float;
  __device__ static float load(__half v) { return __half2float(v); }
  __device__ static __half store(float v) { return __float2half_rn(v); }
};
template <> struct Acc<__nv_bfloat16> {
  using type = float;
  __device__ static float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};
template <> struct Acc<int8_t> {
  using type = int32_t;
  __device__ static int32_t load(int8_t v) { return v; }
  __device__ static int8_t store(int32_t v) { return static_cast<int8_t>(v); }
};
template <> struct Acc<uint8_t> {
  using type = uint32_t;
  __device__ static uint32_t load(uint8_t v) { return v; }
  __device__ static uint8_t store(uint32_t v) { return static_cast<uint8_t>(v); }
};

template <class A> __device__ __forceinline__ A apply(int op, A a, A b) {
  switch (op) {
    case ncclProd: return a * b;
    case ncclMax: return a > b ? a : b;
    case ncclMin: return a < b ? a : b;
    default: return a + b;  // ncclSum, ncclAvg (divided at the end)
  }
}

struct ReduceArgs {
  int sources = 0;
  int op = ncclSum;
  uint64_t count = 0;        // elements
  Place src[kMaxSources];    // each at the first element of its part
  Place dst;
};

// dst[i] = op over sources s of src_s[i], in source order.
template <class T> static __global__ void __launch_bounds__(kThreads) reduce_kernel(ReduceArgs a) {
  using A = typename Acc<T>::type;
  constexpr int kVec = 16 / sizeof(T);
  const T* src[kMaxSources];
  uintptr_t align = 0;
  for (int s = 0; s < a.sources; ++s) {
    src[s] = reinterpret_cast<const T*>(resolve(a.src[s]));
    align |= reinterpret_cast<uintptr_t>(src[s]);
  }
  T* dst = reinterpret_cast<T*>(resolve(a.dst));
  align |= reinterpret_cast<uintptr_t>(dst);
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const uint64_t vectors = (align & 15) == 0 ? a.count / kVec : 0;
  for (uint64_t v = first; v < vectors; v += stride) {
    A acc[kVec];
    for (int s = 0; s < a.sources; ++s) {
      union { uint4 raw; T e[kVec]; } in;
      in.raw = reinterpret_cast<const uint4*>(src[s])[v];
      for (int j = 0; j < kVec; ++j) acc[j] = s == 0 ? Acc<T>::load(in.e[j]) : apply(a.op, acc[j], Acc<T>::load(in.e[j]));
    }
    union { uint4 raw; T e[kVec]; } out;
    for (int j = 0; j < kVec; ++j) {
      if (a.op == ncclAvg) acc[j] = acc[j] / static_cast<A>(a.sources);
      out.e[j] = Acc<T>::store(acc[j]);
    }
    reinterpret_cast<uint4*>(dst)[v] = out.raw;
  }
  for (uint64_t i = vectors * kVec + first; i < a.count; i += stride) {
    A acc = Acc<T>::load(src[0][i]);
    for (int s = 1; s < a.sources; ++s) acc = apply(a.op, acc, Acc<T>::load(src[s][i]));
    if (a.op == ncclAvg) acc = acc / static_cast<A>(a.sources);
    dst[i] = Acc<T>::store(acc);
  }
  __threadfence_system();
}

inline size_t type_size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 1;  // fp8 kinds: copies only (reductions refuse them)
  }
}

struct PendingP2p {
  bool is_send = false;
  char* buffer = nullptr;
  size_t bytes = 0;
  int peer = 0;
  cudaStream_t stream = nullptr;
};

}  // namespace coll_detail

class DeviceCollectives {
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
    s = preload_kernel(coll_detail::copy_kernel);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<float>);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<double>);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<__half>);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<__nv_bfloat16>);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<int8_t>);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<uint8_t>);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<int32_t>);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<uint32_t>);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<int64_t>);
    if (s.ok()) s = preload_kernel(coll_detail::reduce_kernel<uint64_t>);
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

  // A symmetric buffer the candidate allocated itself (ctx.alloc_symmetric) that peers may read.
  void add(const Buffer& b) { owned_.push_back(b); }

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
  int rank() const { return ctx_->rank; }
  int world() const { return ctx_->world_size; }

  static coll_detail::Place local(void* p) {
    coll_detail::Place at;
    at.local = static_cast<char*>(p);
    return at;
  }
  static coll_detail::Place peer_at(coll_detail::Place base, int peer, size_t extra) {
    base.peer = peer;
    base.offset += extra;
    return base;
  }
  static coll_detail::Copy copy(coll_detail::Place src, coll_detail::Place dst, size_t bytes) {
    coll_detail::Copy c;
    c.src = src;
    c.dst = dst;
    c.bytes = bytes;
    return c;
  }
  static bool overlaps(const void* a, const void* b, size_t bytes) {
    const char* x = static_cast<const char*>(a);
    const char* y = static_cast<const char*>(b);
    return x < y + bytes && y < x + bytes;
  }

  ncclResult_t fail(const char* op, const std::string& why, ncclResult_t code = ncclInvalidUsage) {
    std::fprintf(stderr, "cuco collectives: %s: %s\n", op, why.c_str());
    std::fflush(stderr);
    error_ = code;
    return code;
  }
  cudaError_t report_cuda(const char* op, const char* why, cudaError_t code = cudaErrorInitializationError) {
    std::fprintf(stderr, "cuco collectives: %s: %s\n", op, why);
    std::fflush(stderr);
    return code;
  }

  bool usable(const char* op, ncclComm_t comm) {
    if (ctx_ == nullptr) return fail(op, "init() was not called in setup"), false;
    if (comm != ctx_->comm) return fail(op, "only ctx.comm is supported", ncclInvalidArgument), false;
    return true;
  }
  bool valid_rank(const char* op, int root) {
    if (root < 0 || root >= world()) return fail(op, "root out of range", ncclInvalidArgument), false;
    return true;
  }

  // Finds the symmetric buffer holding p: a bound harness buffer or one of ours.
  bool symmetric(const char* op, const char* what, const void* p, coll_detail::Place* at) {
    const char* c = static_cast<const char*>(p);
    for (const std::vector<Buffer>* list : {&bound_, &owned_})
      for (const Buffer& b : *list) {
        const char* base = static_cast<const char*>(b.ptr);
        if (c >= base && c < base + b.bytes) {
          at->window = b.window;
          at->offset = static_cast<size_t>(c - base);
          return true;
        }
      }
    fail(op, std::string(what) + " buffer is not symmetric: use a harness buffer (bind(io) first) or dc.malloc");
    return false;
  }

  ncclResult_t barrier(cudaStream_t stream) {
    detail::lsa_barrier_kernel<<<1, 128, 0, stream>>>(dev_comm_, 0);
    return cudaGetLastError() == cudaSuccess ? ncclSuccess : fail("barrier", "launch failed", ncclUnhandledCudaError);
  }

  template <class Body> ncclResult_t framed(cudaStream_t stream, Body body) {
    ncclResult_t r = barrier(stream);
    if (r == ncclSuccess) r = body();
    if (r == ncclSuccess) r = barrier(stream);
    return r;
  }

  ncclResult_t launch_copies(const std::vector<coll_detail::Copy>& copies, cudaStream_t stream) {
    for (size_t first = 0; first < copies.size(); first += coll_detail::kMaxCopies) {
      coll_detail::CopyBatch batch;
      uint64_t most = 0;
      for (size_t i = first; i < copies.size() && batch.count < coll_detail::kMaxCopies; ++i) {
        batch.c[batch.count++] = copies[i];
        most = std::max<uint64_t>(most, copies[i].bytes);
      }
      const uint64_t want = (most + 16ull * coll_detail::kThreads * 4 - 1) / (16ull * coll_detail::kThreads * 4);
      const int cap = std::max(1, 2 * ctx_->sm_count / batch.count);
      const dim3 grid(static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(want, cap))), batch.count);
      coll_detail::copy_kernel<<<grid, coll_detail::kThreads, 0, stream>>>(batch);
      if (cudaGetLastError() != cudaSuccess) return fail("copy", "launch failed", ncclUnhandledCudaError);
    }
    return ncclSuccess;
  }

  // dst = red over ranks q of (`from` at rank q, + offset), `count` elements.
  ncclResult_t launch_reduce(const char* op, ncclDataType_t type, ncclRedOp_t red, size_t count, coll_detail::Place from,
                             size_t offset, coll_detail::Place dst, cudaStream_t stream) {
    if (count == 0) return ncclSuccess;
    if (red != ncclSum && red != ncclProd && red != ncclMax && red != ncclMin && red != ncclAvg)
      return fail(op, "only sum, prod, max, min and avg reductions", ncclInvalidArgument);
    coll_detail::ReduceArgs a;
    a.sources = world();
    a.op = red;
    a.count = count;
    for (int q = 0; q < world(); ++q) a.src[q] = peer_at(from, q, offset);
    a.dst = dst;
    const uint64_t want = (count + 4ull * coll_detail::kThreads * 8 - 1) / (4ull * coll_detail::kThreads * 8);
    const unsigned grid = static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(want, 2 * ctx_->sm_count)));
    switch (type) {
      case ncclFloat32: coll_detail::reduce_kernel<float><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      case ncclFloat64: coll_detail::reduce_kernel<double><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      case ncclFloat16: coll_detail::reduce_kernel<__half><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      case ncclBfloat16: coll_detail::reduce_kernel<__nv_bfloat16><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      case ncclInt8: coll_detail::reduce_kernel<int8_t><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      case ncclUint8: coll_detail::reduce_kernel<uint8_t><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      case ncclInt32: coll_detail::reduce_kernel<int32_t><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      case ncclUint32: coll_detail::reduce_kernel<uint32_t><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      case ncclInt64: coll_detail::reduce_kernel<int64_t><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      case ncclUint64: coll_detail::reduce_kernel<uint64_t><<<grid, coll_detail::kThreads, 0, stream>>>(a); break;
      default: return fail(op, "this data type cannot be reduced here (fp8?)", ncclInvalidArgument);
    }
    return cudaGetLastError() == cudaSuccess ? ncclSuccess : fail(op, "launch failed", ncclUnhandledCudaError);
  }

  ncclResult_t p2p(const char* op, bool is_send, void* buffer, size_t count, ncclDataType_t type, int peer,
                   ncclComm_t comm, cudaStream_t stream) {
    if (!usable(op, comm) || !valid_rank(op, peer)) return error_;
    coll_detail::PendingP2p p;
    p.is_send = is_send;
    p.buffer = static_cast<char*>(buffer);
    p.bytes = count * coll_detail::type_size(type);
    p.peer = peer;
    p.stream = stream;
    pending_.push_back(p);
    return group_depth_ > 0 ? ncclSuccess : flush_p2p();  // a lone send/recv is a group of one
  }

  // Sends push into the receiver's slot for this rank, at the running offset per peer; receives
  // copy out of this rank's slot for the sender after a barrier.
  ncclResult_t flush_p2p() {
    std::vector<coll_detail::PendingP2p> ops;
    ops.swap(pending_);
    if (ops.empty()) return ncclSuccess;
    const cudaStream_t stream = ops.front().stream;
    std::vector<size_t> sent(static_cast<size_t>(world()), 0), received(static_cast<size_t>(world()), 0);
    std::vector<coll_detail::Copy> pushes, pulls;
    for (const coll_detail::PendingP2p& p : ops) {
      if (p.stream != stream) return fail("group_end", "every send/recv of a group must use one stream");
      size_t& used = p.is_send ? sent[static_cast<size_t>(p.peer)] : received[static_cast<size_t>(p.peer)];
      if (used + p.bytes > slot_bytes_)
        return fail(p.is_send ? "send" : "recv",
                    "more than the mailbox slot (" + std::to_string(slot_bytes_) + " bytes) for one peer in one "
                    "group: pass a larger mailbox_bytes_per_peer to init()");
      if (p.is_send) {
        coll_detail::Place slot;
        slot.window = mailbox_.window;
        slot.offset = static_cast<size_t>(rank()) * slot_bytes_ + used;
        slot.peer = p.peer;
        pushes.push_back(copy(local(p.buffer), slot, p.bytes));
      } else {
        char* box = static_cast<char*>(mailbox_.ptr) + static_cast<size_t>(p.peer) * slot_bytes_ + used;
        pulls.push_back(copy(local(box), local(p.buffer), p.bytes));
      }
      used = (used + p.bytes + 15) / 16 * 16;  // keep every message 16-byte aligned
    }
    ncclResult_t r = barrier(stream);  // receivers are done with the mailbox's previous contents
    if (r == ncclSuccess) r = launch_copies(pushes, stream);
    if (r == ncclSuccess) r = barrier(stream);
    if (r == ncclSuccess) r = launch_copies(pulls, stream);
    return r;
  }

  RankContext* ctx_ = nullptr;
  ncclDevComm dev_comm_{};
  Buffer mailbox_;
  size_t slot_bytes_ = 0;
  std::vector<Buffer> bound_, owned_;
  std::vector<coll_detail::PendingP2p> pending_;
  int group_depth_ = 0;
  ncclResult_t error_ = ncclInvalidUsage;
};

}  // namespace codesign
}  // namespace cuco
