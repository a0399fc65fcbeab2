// cuco/codesign/transfer.h: an SM-driven communication kernel (the LSA backend's data mover).
//
// A TransferList is a short program for one launch: transfers run in order; each may first wait
// for a flag (e.g. "the GEMM finished chunk j", or a peer's "your input is here"), copies `bytes`
// from src to dst (either may be an LSA pointer into a peer's window, so this is a push or a
// pull over NVLink), then signals a flag at the chosen scope. Launched on a side stream with a
// few CTAs, it runs beside compute kernels: the CTA count is the SMs taken from compute.
//
// Issuer granularity: kThread spreads 16-byte vectors over every thread of the grid; kWarp gives
// each warp one contiguous segment; kCta gives each CTA one contiguous segment. Any sizes and
// offsets work; src and dst with the same address modulo 16 get the vector path for all but <= 30
// bytes.
// Signal scope for a transfer: kGrid releases signal_flag[0] once every CTA has copied its part
// (arrival counter); kCta makes CTA b release signal_flag[b] after its part (a consumer then
// waits for gridDim.x flags: wait_flags); kWarp / kThread are for kernels that call signal_scoped
// themselves, and are treated as kCta here.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include <cuco/codesign/design.h>
#include <cuco/codesign/flags.h>
#include <cuco/harness.h>

namespace cuco {
namespace codesign {

struct Transfer {
  void* dst = nullptr;
  const void* src = nullptr;
  uint64_t bytes = 0;
  const uint32_t* wait_flag = nullptr;  // waited (>= wait_target) by every CTA before copying; null: none
  uint32_t* signal_flag = nullptr;      // released (= signal_value) after copying; null: none
  uint32_t* arrivals = nullptr;         // kGrid: this transfer's own arrival counter (device memory)
  uint32_t wait_target = 0;
  uint32_t signal_value = 0;
};

constexpr int kMaxTransfers = 48;

struct TransferList {
  int count = 0;
  uint32_t launch_index = 0;  // kGrid: 1 on the first launch that uses these counters, then 2, ...
  Transfer t[kMaxTransfers];

  bool add(const Transfer& x) {
    if (count >= kMaxTransfers) return false;
    t[count++] = x;
    return true;
  }
};

namespace detail {

// Copies [begin, end) of 16-byte vectors with `stride` between a worker's vectors, 4 in flight.
__device__ __forceinline__ void copy_vectors(uint4* dst, const uint4* src, uint64_t begin, uint64_t end,
                                             uint64_t stride) {
  uint64_t i = begin;
  for (; i + 3 * stride < end; i += 4 * stride) {
    const uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < end; i += stride) dst[i] = src[i];
}

// Bytes [begin, end) copied one byte per thread of the grid (heads, tails, mismatched alignment).
__device__ __forceinline__ void copy_bytes(char* d, const char* s, uint64_t begin, uint64_t end) {
  for (uint64_t i = begin + blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < end;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x)
    d[i] = s[i];
}

// This thread's share of one transfer under issuer I. When src and dst share their alignment
// modulo 16, the bytes before the first 16-byte boundary and after the last are copied bytewise
// and the rest in 16-byte vectors; otherwise (rare) everything bytewise.
template <Issuer I>
__device__ __forceinline__ void copy_share(const Transfer& x) {
  char* dc = static_cast<char*>(x.dst);
  const char* sc = static_cast<const char*>(x.src);
  const uintptr_t mis = reinterpret_cast<uintptr_t>(dc) & 15;
  if (mis != (reinterpret_cast<uintptr_t>(sc) & 15)) {
    copy_bytes(dc, sc, 0, x.bytes);
    return;
  }
  const uint64_t head = mis == 0 ? 0 : (16 - mis < x.bytes ? 16 - mis : x.bytes);
  const uint64_t n = (x.bytes - head) / 16;  // vectors
  const uint64_t tail0 = head + n * 16;
  copy_bytes(dc, sc, 0, head);
  copy_bytes(dc, sc, tail0, x.bytes);
  uint4* d = reinterpret_cast<uint4*>(dc + head);
  const uint4* s = reinterpret_cast<const uint4*>(sc + head);
  if constexpr (I == Issuer::kThread) {
    copy_vectors(d, s, blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x, n,
                 static_cast<uint64_t>(gridDim.x) * blockDim.x);
  } else if constexpr (I == Issuer::kWarp) {
    const uint64_t warps = static_cast<uint64_t>(gridDim.x) * (blockDim.x / 32);
    const uint64_t warp = blockIdx.x * static_cast<uint64_t>(blockDim.x / 32) + threadIdx.x / 32;
    const uint64_t per = (n + warps - 1) / warps;
    const uint64_t b = warp * per, e = b + per < n ? b + per : n;
    if (b < e) copy_vectors(d, s, b + (threadIdx.x & 31), e, 32);
  } else {
    const uint64_t per = (n + gridDim.x - 1) / gridDim.x;
    const uint64_t b = blockIdx.x * per, e = b + per < n ? b + per : n;
    if (b < e) copy_vectors(d, s, b + threadIdx.x, e, blockDim.x);
  }
}

template <Issuer I, SyncScope S>
__global__ void __launch_bounds__(1024) transfer_kernel(TransferList list) {
  for (int k = 0; k < list.count; ++k) {
    const Transfer& x = list.t[k];
    if (x.wait_flag != nullptr) {
      if (threadIdx.x == 0) flag_wait(x.wait_flag, x.wait_target);
      __syncthreads();
    }
    copy_share<I>(x);
    if (x.signal_flag == nullptr) {
      __syncthreads();
      continue;
    }
    if constexpr (S == SyncScope::kGrid)
      signal_scoped<SyncScope::kGrid>(x.signal_flag, x.signal_value, x.arrivals, list.launch_index);
    else
      signal_scoped<SyncScope::kCta>(x.signal_flag + blockIdx.x, x.signal_value);
  }
}

static __global__ void wait_flags_kernel(const uint32_t* flags, int count, uint32_t target) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) flag_wait(flags + i, target);
}

template <Issuer I>
inline void launch_for_scope(SyncScope s, const TransferList& list, int ctas, int threads, cudaStream_t stream) {
  if (s == SyncScope::kGrid)
    transfer_kernel<I, SyncScope::kGrid><<<ctas, threads, 0, stream>>>(list);
  else
    transfer_kernel<I, SyncScope::kCta><<<ctas, threads, 0, stream>>>(list);
}

}  // namespace detail

// Loads every instantiation of the transfer kernel and the flag kernels (flags.h: lazy loading).
inline Status preload_transfer_kernels() {
  Status s = preload_flag_kernels();
  if (s.ok()) s = preload_kernel(detail::wait_flags_kernel);
  if (s.ok()) s = preload_kernel(detail::transfer_kernel<Issuer::kThread, SyncScope::kGrid>);
  if (s.ok()) s = preload_kernel(detail::transfer_kernel<Issuer::kThread, SyncScope::kCta>);
  if (s.ok()) s = preload_kernel(detail::transfer_kernel<Issuer::kWarp, SyncScope::kGrid>);
  if (s.ok()) s = preload_kernel(detail::transfer_kernel<Issuer::kWarp, SyncScope::kCta>);
  if (s.ok()) s = preload_kernel(detail::transfer_kernel<Issuer::kCta, SyncScope::kGrid>);
  if (s.ok()) s = preload_kernel(detail::transfer_kernel<Issuer::kCta, SyncScope::kCta>);
  return s;
}

// Launches the transfer kernel: `ctas` CTAs of `threads` threads (a multiple of 32, <= 1024).
inline Status launch_transfers(cudaStream_t stream, const TransferList& list, Issuer issuer, SyncScope scope,
                               int ctas, int threads) {
  if (ctas < 1 || threads < 32 || threads > 1024 || threads % 32 != 0)
    return Status::Error("launch_transfers: need ctas >= 1 and threads a multiple of 32 in [32, 1024]");
  if (list.count == 0) return Status::Ok();
  switch (issuer) {
    case Issuer::kThread: detail::launch_for_scope<Issuer::kThread>(scope, list, ctas, threads, stream); break;
    case Issuer::kWarp: detail::launch_for_scope<Issuer::kWarp>(scope, list, ctas, threads, stream); break;
    case Issuer::kCta: detail::launch_for_scope<Issuer::kCta>(scope, list, ctas, threads, stream); break;
  }
  CUCO_CHECK_LAUNCH();
  return Status::Ok();
}

// Enqueues on `stream`: later work waits until flags[0..count) have all reached `target`
// (the consumer side of kCta-scope transfers; count == 1 for kGrid). kStreamWaitValue: one
// ctx.wait_value32 per flag, so only the `ctx` overload takes it.
inline Status wait_flags(RankContext& ctx, cudaStream_t stream, const uint32_t* flags, int count, uint32_t target,
                         WaitMode mode) {
  if (mode == WaitMode::kStreamWaitValue || count == 1) {
    for (int i = 0; i < count; ++i) {
      Status s = wait_flag(ctx, stream, flags + i, target, mode);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  detail::wait_flags_kernel<<<1, count < 1024 ? ((count + 31) / 32) * 32 : 1024, 0, stream>>>(flags, count, target);
  CUCO_CHECK_LAUNCH();
  return Status::Ok();
}
inline Status wait_flags(cudaStream_t stream, const uint32_t* flags, int count, uint32_t target, WaitMode mode) {
  if (mode == WaitMode::kStreamWaitValue)
    return Status::Error("wait_flags: WaitMode::kStreamWaitValue goes through the harness: "
                         "wait_flags(ctx, stream, flags, count, target, mode)");
  if (count == 1) return wait_flag(stream, flags, target, mode);
  detail::wait_flags_kernel<<<1, count < 1024 ? ((count + 31) / 32) * 32 : 1024, 0, stream>>>(flags, count, target);
  CUCO_CHECK_LAUNCH();
  return Status::Ok();
}

}  // namespace codesign
}  // namespace cuco
