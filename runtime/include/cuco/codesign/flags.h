// cuco/codesign/flags.h: readiness flags between GPUs and streams.
//
// A flag is a uint32_t in device memory holding an epoch: the candidate counts its iterations
// (1, 2, ...) and "chunk j of iteration e is ready" is flag[j] >= e (compared modulo 2^32, so
// flags never need resetting). Flags a peer writes live in a symmetric window (ctx.alloc_symmetric)
// and are written through the peer's LSA pointer; flags only this GPU touches may live anywhere.
//
// Memory ordering: every signal is a release at system scope after the data it announces, every
// wait an acquire at system scope, so data written (by SMs or by a copy engine earlier in stream
// order) before a signal is visible to whoever observed the flag.
//
// Lazy loading: CUDA loads a kernel's module on its first launch (CUDA_MODULE_LOADING=LAZY, the
// default), and loading waits for the kernels already running. A kernel that spins on a flag
// which a not-yet-loaded kernel would set therefore never finishes. Load every kernel that takes
// part in signalling before the first iteration: preload_flag_kernels() / preload_transfer_kernels()
// for the blocks' own, preload_kernel(&my_kernel) for a candidate's, and RowMajorGemm::prepare
// runs each GEMM plan once.
//
// Scopes (SyncScope): a signal announces the completion of one thread's writes (kThread), of a
// warp's (kWarp: __syncwarp, then lane 0 releases), of a CTA's (kCta: __syncthreads, then thread 0
// releases) or of a whole grid's (kGrid: each CTA arrives on a counter; the last one releases).
#pragma once

#include <cstdint>

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cuco/codesign/design.h>
#include <cuco/harness.h>

namespace cuco {
namespace codesign {

__device__ __forceinline__ bool epoch_reached(uint32_t value, uint32_t target) {
  return static_cast<int32_t>(value - target) >= 0;
}

__device__ __forceinline__ void flag_release(uint32_t* flag, uint32_t value) {
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*flag).store(value, cuda::memory_order_release);
}

__device__ __forceinline__ uint32_t flag_acquire(const uint32_t* flag) {
  return cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*const_cast<uint32_t*>(flag))
      .load(cuda::memory_order_acquire);
}

// Spins (one thread) until *flag reaches `target`.
__device__ __forceinline__ void flag_wait(const uint32_t* flag, uint32_t target) {
  while (!epoch_reached(flag_acquire(flag), target)) __nanosleep(64);
}

// Every thread of the scope calls this after its writes; one thread of the scope releases `flag`.
// kGrid: `arrivals` is a device counter only this grid uses for this flag, never reset; the grid's
// `launch_index`-th use (1, 2, ...) releases once arrivals reach launch_index * gridDim.x.
template <SyncScope S>
__device__ __forceinline__ void signal_scoped(uint32_t* flag, uint32_t value, uint32_t* arrivals = nullptr,
                                              uint32_t launch_index = 0) {
  if constexpr (S == SyncScope::kThread) {
    __threadfence_system();
    flag_release(flag, value);
  } else if constexpr (S == SyncScope::kWarp) {
    __syncwarp();
    if ((threadIdx.x & 31) == 0) {
      __threadfence_system();
      flag_release(flag, value);
    }
  } else if constexpr (S == SyncScope::kCta) {
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      flag_release(flag, value);
    }
  } else {
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      const uint32_t before = atomicAdd(arrivals, 1u);
      if (before + 1 == launch_index * gridDim.x) {
        __threadfence_system();
        flag_release(flag, value);
      }
    }
  }
}

namespace detail {

static __global__ void signal_flag_kernel(uint32_t* flag, uint32_t value) {
  __threadfence_system();
  flag_release(flag, value);
}

static __global__ void wait_flag_kernel(const uint32_t* flag, uint32_t target) { flag_wait(flag, target); }

}  // namespace detail

// Loads a kernel now (see "Lazy loading" above).
template <typename Kernel>
inline Status preload_kernel(Kernel* kernel) {
  cudaFuncAttributes attributes{};
  CUCO_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return Status::Ok();
}

inline Status preload_flag_kernels() {
  Status s = preload_kernel(detail::signal_flag_kernel);
  if (s.ok()) s = preload_kernel(detail::wait_flag_kernel);
  return s;
}

// Enqueues on `stream`: after all earlier work on it, set *flag = value (system-scope release).
// `flag` may be a peer's (an LSA pointer into a peer's window). The `mode` overload chooses how:
// kSpinKernel launches a one-thread kernel, which needs a free SM slot (behind a kernel that
// fills every SM it waits for that kernel to end); kStreamWaitValue is ctx.write_value32 (the
// front end writes it, no SM). Without ctx: the kernel.
inline Status signal_flag(cudaStream_t stream, uint32_t* flag, uint32_t value) {
  detail::signal_flag_kernel<<<1, 1, 0, stream>>>(flag, value);
  CUCO_CHECK_LAUNCH();
  return Status::Ok();
}
inline Status signal_flag(RankContext& ctx, cudaStream_t stream, uint32_t* flag, uint32_t value, WaitMode mode) {
  if (mode == WaitMode::kStreamWaitValue) return ctx.write_value32(stream, flag, value);
  return signal_flag(stream, flag, value);
}

// Enqueues on `stream`: later work on it starts only once *flag has reached `target`.
// kSpinKernel: a one-thread kernel polls it (one SM slot while waiting); kStreamWaitValue:
// ctx.wait_value32 (the front end waits, no SM), so only the `ctx` overload takes it.
inline Status wait_flag(RankContext& ctx, cudaStream_t stream, const uint32_t* flag, uint32_t target, WaitMode mode) {
  if (mode == WaitMode::kStreamWaitValue) return ctx.wait_value32(stream, flag, target);
  detail::wait_flag_kernel<<<1, 1, 0, stream>>>(flag, target);
  CUCO_CHECK_LAUNCH();
  return Status::Ok();
}
inline Status wait_flag(cudaStream_t stream, const uint32_t* flag, uint32_t target, WaitMode mode) {
  if (mode == WaitMode::kStreamWaitValue)
    return Status::Error("wait_flag: WaitMode::kStreamWaitValue goes through the harness: "
                         "wait_flag(ctx, stream, flag, target, mode)");
  detail::wait_flag_kernel<<<1, 1, 0, stream>>>(flag, target);
  CUCO_CHECK_LAUNCH();
  return Status::Ok();
}

}  // namespace codesign
}  // namespace cuco
