// cuco/codesign/impl/collective_transport.h: DeviceCollectives' private machinery, included at
// the end of cuco/codesign/collectives.h (not on its own). Places (local, a peer's offset in a
// window), the symmetric-buffer lookup, failures (printed once to stderr, remembered as the
// result the next call returns), the LSA barrier, and the launches of copy_kernel (batches of
// kMaxCopies) and reduce_kernel<T> (sum, prod, max, min, avg over every rank's part).
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <cuco/codesign/collectives.h>

namespace cuco {
namespace codesign {

template <int kLazy>
inline coll_detail::Place BasicDeviceCollectives<kLazy>::local(void* p) {
  coll_detail::Place at;
  at.local = static_cast<char*>(p);
  return at;
}

template <int kLazy>
inline coll_detail::Place BasicDeviceCollectives<kLazy>::peer_at(coll_detail::Place base, int peer, size_t extra) {
  base.peer = peer;
  base.offset += extra;
  return base;
}

template <int kLazy>
inline coll_detail::Copy BasicDeviceCollectives<kLazy>::copy(coll_detail::Place src, coll_detail::Place dst, size_t bytes) {
  coll_detail::Copy c;
  c.src = src;
  c.dst = dst;
  c.bytes = bytes;
  return c;
}

template <int kLazy>
inline bool BasicDeviceCollectives<kLazy>::overlaps(const void* a, const void* b, size_t bytes) {
  const char* x = static_cast<const char*>(a);
  const char* y = static_cast<const char*>(b);
  return x < y + bytes && y < x + bytes;
}

template <int kLazy>
inline ncclResult_t BasicDeviceCollectives<kLazy>::fail(const char* op, const std::string& why, ncclResult_t code) {
  std::fprintf(stderr, "cuco collectives: %s: %s\n", op, why.c_str());
  std::fflush(stderr);
  error_ = code;
  return code;
}

template <int kLazy>
inline cudaError_t BasicDeviceCollectives<kLazy>::report_cuda(const char* op, const char* why, cudaError_t code) {
  std::fprintf(stderr, "cuco collectives: %s: %s\n", op, why);
  std::fflush(stderr);
  return code;
}

template <int kLazy>
inline bool BasicDeviceCollectives<kLazy>::usable(const char* op, ncclComm_t comm) {
  if (ctx_ == nullptr) return fail(op, "init() was not called in setup"), false;
  if (comm != ctx_->comm) return fail(op, "only ctx.comm is supported", ncclInvalidArgument), false;
  return true;
}

template <int kLazy>
inline bool BasicDeviceCollectives<kLazy>::valid_rank(const char* op, int root) {
  if (root < 0 || root >= world()) return fail(op, "root out of range", ncclInvalidArgument), false;
  return true;
}

// The bound harness buffer or buffer of ours that holds p (null: none).
template <int kLazy>
inline const Buffer* BasicDeviceCollectives<kLazy>::find(const void* p) const {
  const char* c = static_cast<const char*>(p);
  for (const std::vector<Buffer>* list : {&bound_, &owned_})
    for (const Buffer& b : *list) {
      const char* base = static_cast<const char*>(b.ptr);
      if (c >= base && c < base + b.bytes) return &b;
    }
  return nullptr;
}

template <int kLazy>
inline bool BasicDeviceCollectives<kLazy>::symmetric(const char* op, const char* what, const void* p, coll_detail::Place* at) {
  const Buffer* b = find(p);
  if (b == nullptr) {
    fail(op, std::string(what) + " buffer is not symmetric: use a harness buffer (bind(io) first) or dc.malloc");
    return false;
  }
  at->window = b->window;
  at->offset = static_cast<size_t>(static_cast<const char*>(p) - static_cast<const char*>(b->ptr));
  return true;
}

template <int kLazy>
inline ncclResult_t BasicDeviceCollectives<kLazy>::barrier(cudaStream_t stream) {
  detail::lsa_barrier_kernel<<<1, 128, 0, stream>>>(dev_comm_, 0);
  return cudaGetLastError() == cudaSuccess ? ncclSuccess : fail("barrier", "launch failed", ncclUnhandledCudaError);
}

template <int kLazy>
inline ncclResult_t BasicDeviceCollectives<kLazy>::launch_copies(const std::vector<coll_detail::Copy>& copies, cudaStream_t stream) {
  for (size_t first = 0; first < copies.size(); first += coll_detail::kMaxCopies) {
    coll_detail::CopyBatch batch;
    uint64_t most = 0;
    for (size_t i = first; i < copies.size() && batch.count < coll_detail::kMaxCopies; ++i) {
      batch.c[batch.count++] = copies[i];
      most = std::max<uint64_t>(most, copies[i].bytes);
    }
    const uint64_t want = (most + 16ull * coll_detail::kThreads * 4 - 1) / (16ull * coll_detail::kThreads * 4);
    const int cap = std::max(1, block_budget() / batch.count);
    const dim3 grid(static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(want, cap))), batch.count);
    coll_detail::copy_kernel<kLazy><<<grid, coll_detail::kThreads, 0, stream>>>(batch);
    if (cudaGetLastError() != cudaSuccess) return fail("copy", "launch failed", ncclUnhandledCudaError);
  }
  return ncclSuccess;
}

// dst = red over ranks q of (`from` at rank q, + offset), `count` elements.
template <int kLazy>
inline ncclResult_t BasicDeviceCollectives<kLazy>::launch_reduce(const char* op, ncclDataType_t type, ncclRedOp_t red, size_t count,
                                                     coll_detail::Place from, size_t offset, coll_detail::Place dst,
                                                     cudaStream_t stream) {
  if (count == 0) return ncclSuccess;
  if (!coll_detail::reducible(red)) return fail(op, "only sum, prod, max, min and avg reductions", ncclInvalidArgument);
  coll_detail::ReduceArgs a;
  a.sources = world();
  a.op = red;
  a.count = count;
  for (int q = 0; q < world(); ++q) a.src[q] = peer_at(from, q, offset);
  a.dst = dst;
  if (!coll_detail::launch_reduce_kernel<kLazy>(type, a, block_budget(), stream))
    return fail(op, "this data type cannot be reduced here (fp8?)", ncclInvalidArgument);
  return cudaGetLastError() == cudaSuccess ? ncclSuccess : fail(op, "launch failed", ncclUnhandledCudaError);
}

}  // namespace codesign
}  // namespace cuco
