// cuco/codesign/lsa.h: symmetric buffers with their peers' addresses (NCCL device API, LSA).
//
// alloc_peers() allocates a buffer in an NCCL symmetric window (collective: every rank, same
// order, same bytes) and looks up, once, the address at which every rank of the LSA team maps
// it (ncclGetLsaPointer). Those addresses serve SM loads/stores (transfer kernels, a GEMM that
// writes to a peer) and copy engines (cudaMemcpyAsync) alike. The candidate's ranks must form
// one LSA team (one NVLink domain): alloc_peers fails otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <cuco/harness.h>

namespace cuco {
namespace codesign {

struct PeerBuffer {
  Buffer local;              // this rank's buffer (window registered on ctx.comm)
  std::vector<char*> peer;   // peer[q] = where rank q's buffer is mapped here (peer[rank] == local)
  char* at(int q, size_t offset = 0) const { return peer[static_cast<size_t>(q)] + offset; }
};

namespace detail {
static __global__ void lsa_pointers_kernel(ncclWindow_t w, int n, void** out) {
  for (int p = threadIdx.x; p < n; p += blockDim.x) out[p] = ncclGetLsaPointer(w, 0, p);
}
static __global__ void lsa_barrier_kernel(ncclDevComm dc, int index) {
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), dc, ncclTeamTagLsa{}, index);
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
}
}  // namespace detail

// COLLECTIVE. Allocates `bytes` (zeroed) in a symmetric window and fills out->peer. Synchronous
// (call it in setup). `dev_comm` must come from ctx.create_dev_comm on the same ranks.
inline Status alloc_peers(RankContext& ctx, const ncclDevComm& dev_comm, size_t bytes, PeerBuffer* out) {
  if (dev_comm.lsaSize != ctx.world_size || dev_comm.rank != ctx.rank)
    return Status::Error("alloc_peers: every rank must be in one LSA team (one NVLink domain)");
  Status s = ctx.alloc_symmetric(bytes, &out->local);
  if (!s.ok()) return s;
  CUCO_CUDA_CHECK(cudaMemsetAsync(out->local.ptr, 0, bytes, ctx.stream));
  void** d = nullptr;
  CUCO_CUDA_CHECK(cudaMalloc(&d, sizeof(void*) * ctx.world_size));
  detail::lsa_pointers_kernel<<<1, 32, 0, ctx.stream>>>(out->local.window, ctx.world_size, d);
  CUCO_CHECK_LAUNCH();
  std::vector<void*> h(static_cast<size_t>(ctx.world_size));
  CUCO_CUDA_CHECK(cudaMemcpyAsync(h.data(), d, sizeof(void*) * h.size(), cudaMemcpyDeviceToHost, ctx.stream));
  CUCO_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  CUCO_CUDA_CHECK(cudaFree(d));
  out->peer.clear();
  for (void* p : h) out->peer.push_back(static_cast<char*>(p));
  out->peer[static_cast<size_t>(ctx.rank)] = static_cast<char*>(out->local.ptr);
  cudaFuncAttributes attributes{};
  CUCO_CUDA_CHECK(cudaFuncGetAttributes(&attributes, detail::lsa_barrier_kernel));  // flags.h: lazy loading
  return Status::Ok();
}

// Enqueues an LSA barrier across the team on `stream` (barrier `index` < lsaBarrierCount of the
// dev comm's requirements): work after it on every rank sees work before it on every rank.
inline Status lsa_barrier(cudaStream_t stream, const ncclDevComm& dev_comm, int index) {
  detail::lsa_barrier_kernel<<<1, 128, 0, stream>>>(dev_comm, index);
  CUCO_CHECK_LAUNCH();
  return Status::Ok();
}

}  // namespace codesign
}  // namespace cuco
