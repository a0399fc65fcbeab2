// cuco/codesign/impl/collective_kernels.h: the device side of cuco/codesign/collectives.h (not
// API: its names live in coll_detail). A Place is bytes in a symmetric window at one peer (resolved
// on the device through ncclGetLsaPointer) or at a local pointer; copy_kernel moves a batch of
// Copies (blockIdx.y picks one), reduce_kernel<T> reduces `sources` places element by element in
// source order with Acc<T>'s accumulator (fp32 for halves, the integers' own width), so every
// rank computes identical bits. Both end with __threadfence_system: their peer stores are complete
// before the LSA barrier that follows them.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <cuco/impl/nccl_type_bytes.h>

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
template <int kLazy>
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
template <class T, int kLazy> static __global__ void __launch_bounds__(kThreads) reduce_kernel(ReduceArgs a) {
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

// Whether reduce_kernel computes `red`.
inline bool reducible(ncclRedOp_t red) {
  return red == ncclSum || red == ncclProd || red == ncclMax || red == ncclMin || red == ncclAvg;
}

// The element types reduce_kernel reduces, as its instantiations: f(ncclDataType_t, kernel) for each.
template <int kLazy, class F> inline void for_each_reduce_kernel(F f) {
  f(ncclFloat32, reduce_kernel<float, kLazy>);
  f(ncclFloat64, reduce_kernel<double, kLazy>);
  f(ncclFloat16, reduce_kernel<__half, kLazy>);
  f(ncclBfloat16, reduce_kernel<__nv_bfloat16, kLazy>);
  f(ncclInt8, reduce_kernel<int8_t, kLazy>);
  f(ncclUint8, reduce_kernel<uint8_t, kLazy>);
  f(ncclInt32, reduce_kernel<int32_t, kLazy>);
  f(ncclUint32, reduce_kernel<uint32_t, kLazy>);
  f(ncclInt64, reduce_kernel<int64_t, kLazy>);
  f(ncclUint64, reduce_kernel<uint64_t, kLazy>);
}

// Launches reduce_kernel for `type` over `a` on `stream`, its grid sized for a.count, at most
// `max_blocks` blocks (two per SM unless told fewer); false, launching nothing, for a type it cannot
// reduce (the fp8 kinds).
template <int kLazy> inline bool launch_reduce_kernel(ncclDataType_t type, const ReduceArgs& a, int max_blocks,
                                                      cudaStream_t stream) {
  const uint64_t want = (a.count + 4ull * kThreads * 8 - 1) / (4ull * kThreads * 8);
  const uint64_t most = static_cast<uint64_t>(max_blocks < 0 ? 0 : max_blocks);
  const uint64_t blocks = want < most ? want : most;
  const unsigned grid = static_cast<unsigned>(blocks < 1 ? 1 : blocks);
  bool launched = false;
  for_each_reduce_kernel<kLazy>([&](ncclDataType_t t, void (*kernel)(ReduceArgs)) {
    if (t != type) return;
    kernel<<<grid, kThreads, 0, stream>>>(a);
    launched = true;
  });
  return launched;
}

inline size_t type_size(ncclDataType_t t) {
  const size_t bytes = cuco::NcclTypeBytes(t);
  return bytes ? bytes : 1;  // fp8 kinds: copies only (reductions refuse them)
}

struct PendingP2p {
  bool is_send = false;
  char* buffer = nullptr;
  size_t bytes = 0;
  int peer = 0;
  cudaStream_t stream = nullptr;
};

}  // namespace coll_detail

}  // namespace codesign
}  // namespace cuco
