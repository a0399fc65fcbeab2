// kv_transfer candidate file. seed.cu is the honest host-driven baseline; generation 0 of the
// search is composed from cuco's co-design blocks (cuco/codesign.h).
//
// Disaggregated serving on 2 ranks. Rank 0 (prefill) holds, for each of L layers, the layer's
// input X_l (S x H, row-major bf16; input "X" = [L, S, H]) and its K/V projection W_l
// (H x N, N = 2 KVH D, row-major bf16; input "W" = [L, H, N]; column (kv KVH + h) D + d is
// element d of head h of K (kv = 0) or V (kv = 1)), and computes KV_l = X_l W_l (fp32 accumulate,
// bf16 out). Rank 1 (decode) must end with every layer in its paged KV cache, output "cache" =
// [L][pages][2][KVH][P][D] bf16 in physical page order (pages = S / P):
//   cache[l][page_table[p]][kv][h][t][d] = KV_l[p P + t][(kv KVH + h) D + d]
// "page_table" (int32, [pages], a permutation of [0, pages)) is the same on both ranks. On rank 1,
// X and W have 0 elements; on rank 0, "cache" has 0 elements (rank 0 has nothing to output).
// Sizes: L, S, H, KVH, D, P (P divides S; D and H are multiples of 8).
//
// Only the code inside the EVOLVE block (between its two marker comments) may change; everything
// else, these includes in particular, is frozen and the same in every candidate of this workload.
// The harness contract is runtime/include/cuco/harness.h.
#include <cuco/harness.h>
#include <cuco/codesign.h>

#include <cublasLt.h>
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

// EVOLVE-BLOCK-START
// Generation 0: each chunk of layers travels as soon as its GEMMs are done.
//
// Rank 0 (prefill) runs the layer GEMMs on ctx.stream into a contiguous [L, S, N] buffer, in
// chunks of kLayersPerChunk layers; after each chunk, the side stream (ordered after the chunk's
// GEMMs by a harness event) moves that chunk to rank 1 while the next chunk's GEMMs run. Only the
// last chunk's transfer is exposed.
//
// Knobs (workload.toml [[knobs]]): backend = how a chunk travels
//   nccl  ncclSend (rank 0) / ncclRecv (rank 1) on side stream 0 into rank 1's staging buffer;
//         rank 1's ctx.stream follows each receive (harness event) and runs the page-layout kernel
//         for that chunk while the next one is in flight
//   ce    copy engine: cudaMemcpyAsync of the chunk into rank 1's staging window (LSA pointer),
//         then an epoch flag in rank 1's flag window; rank 1's ctx.stream waits for the flag
//         (wait_mode) and runs the page-layout kernel for that chunk
//   lsa   rank 0's side stream runs a kernel (comm_ctas CTAs; the last chunk on every SM with
//         tail_ctas = all) that reads the finished layers and stores them over NVLink straight into
//         rank 1's paged cache (page-layout transform fused into the copy; the cache's address on
//         rank 1 comes from the output's symmetric window, ncclGetLsaPointer), then releases the
//         chunk's flag at grid scope; rank 1 only waits for the flags
// layers_per_chunk (pipelining depth), comm_priority (side stream priority), gemm_sm_margin (SMs
// the GEMM leaves to the lsa kernel). strategy = sequential is the seed's scheme; part = compute /
// comm time the GEMMs alone / one ncclSend/ncclRecv of all K/V alone for the bound (bench only).
//
// Synchronisation: flags hold the iteration's epoch (never reset); rank 0 writes rank 1's flags
// after the data (copy engine: signal kernel after the copy in stream order; lsa: system-scope
// release by the last CTA). Every kernel that spins or signals is loaded in setup. The harness
// drains both ranks and barriers between iterations, so no buffer is reused while still in use.
namespace {

namespace cd = cuco::codesign;

constexpr const char* kStrategy = "per_layer";  // cuco:knob strategy
constexpr const char* kBackend = "lsa";         // cuco:knob backend
constexpr int kLayersPerChunk = 1;              // cuco:knob layers_per_chunk
constexpr int kCommCtas = 32;                   // cuco:knob comm_ctas
constexpr const char* kTailCtas = "all";        // cuco:knob tail_ctas
constexpr const char* kWaitMode = "spin";       // cuco:knob wait_mode
constexpr const char* kCommPriority = "high";   // cuco:knob comm_priority
constexpr int kGemmSmMargin = 0;                // cuco:knob gemm_sm_margin
constexpr const char* kPart = "none";           // cuco:knob part
constexpr int kWorkspaceMiB = 32;

constexpr bool kSequential = cd::text_is(kStrategy, "sequential");
constexpr bool kPartCompute = cd::text_is(kPart, "compute");
constexpr bool kPartComm = cd::text_is(kPart, "comm");
constexpr bool kViaNccl = cd::text_is(kBackend, "nccl");
constexpr bool kViaCe = cd::text_is(kBackend, "ce");
constexpr bool kViaLsa = cd::text_is(kBackend, "lsa");
static_assert(kViaNccl || kViaCe || kViaLsa, "unknown backend");
static_assert(cd::text_is(kStrategy, "per_layer") || kSequential, "unknown strategy");
static_assert(cd::text_is(kTailCtas, "comm") || cd::text_is(kTailCtas, "all"), "unknown tail_ctas");
static_assert(kLayersPerChunk >= 1 && kCommCtas >= 1, "bad knob");
constexpr bool kTailAll = cd::text_is(kTailCtas, "all");
constexpr cd::WaitMode kWait = cd::wait_mode_from(kWaitMode);
constexpr int kThreads = 512;
constexpr int kFollowEvent = cuco::RankContext::kMaxEvents - 1;  // reused: record, then wait at once
constexpr int kPrefill = 0;
constexpr int kDecode = 1;

struct State {
  int64_t L = 0, S = 0, H = 0, KVH = 0, D = 0, P = 0, N = 0, pages = 0;
  int rank = 0, peer = 1, chunks = 1;
  bool pipelined = false;
  uint32_t epoch = 0;
  cd::RowMajorGemm gemm;
  ncclDevComm dev_comm{};
  cd::PeerBuffer stage;          // ce: [L, S, N] bf16 on both ranks; rank 1's receives the copies
  cd::PeerBuffer flags;          // ce / lsa: one epoch flag per chunk; rank 0 writes rank 1's
  void* kv = nullptr;            // rank 0: [L, S, N] GEMM outputs; rank 1 (nccl, sequential): staging
  uint32_t* arrivals = nullptr;  // lsa, rank 0: one grid arrival counter per chunk (never reset)
};

// What one launch of the page-move kernel does: layers [layer0, layer0 + layers) of K/V, rows of
// N/8 16-byte vectors, from `src` (the chunk's first layer) into the paged cache.
struct PageMove {
  const uint4* src = nullptr;
  uint4* dst = nullptr;           // the cache (layer 0); nullptr: rank `peer`'s cache through `window`
  ncclWindow_t window = nullptr;  // this rank's handle of the cache's symmetric window
  int peer = 0;
  const int32_t* page_table = nullptr;
  int64_t layer0 = 0, layers = 0, pages = 0, S = 0;
  int P = 0, heads = 0, vpr = 0;  // heads = 2 KVH (K heads, then V heads); vpr = D / 8
  uint32_t* flag = nullptr;       // non-null: released (= epoch) at grid scope after the chunk
  uint32_t* arrivals = nullptr;
  uint32_t epoch = 0;
};

// One CTA per (layer, logical page) at a time: a page of one layer is heads * P * vpr vectors,
// contiguous at the destination (cache[l][page_table[p]]); the source is P token rows of the
// layer's K/V. Four 16-byte loads are in flight per thread before their stores.
__global__ void __launch_bounds__(kThreads) page_move_kernel(PageMove m) {
  uint4* cache = m.dst != nullptr ? m.dst : static_cast<uint4*>(ncclGetLsaPointer(m.window, 0, m.peer));
  const int per_unit = m.heads * m.P * m.vpr;
  const int per_head = m.P * m.vpr;
  const int64_t row = static_cast<int64_t>(m.heads) * m.vpr;
  const int64_t units = m.layers * m.pages;
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t li = u / m.pages, p = u % m.pages;
    const uint4* src = m.src + (li * m.S + p * m.P) * row;
    uint4* dst = cache + ((m.layer0 + li) * m.pages + m.page_table[p]) * per_unit;
    for (int v0 = threadIdx.x; v0 < per_unit; v0 += 4 * blockDim.x) {
      uint4 val[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int v = v0 + k * blockDim.x;
        if (v < per_unit) {
          const int head = v / per_head, r = v % per_head;
          val[k] = src[static_cast<int64_t>(r / m.vpr) * row + head * m.vpr + r % m.vpr];
        }
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int v = v0 + k * blockDim.x;
        if (v < per_unit) dst[v] = val[k];
      }
    }
  }
  if (m.flag != nullptr) cd::signal_scoped<cd::SyncScope::kGrid>(m.flag, m.epoch, m.arrivals, m.epoch);
}

PageMove page_move(const State& s, const void* src, int64_t layer0, int64_t layers, const cuco::IO& io) {
  PageMove m;
  m.src = static_cast<const uint4*>(src);
  m.page_table = static_cast<const int32_t*>(io.in("page_table").ptr);
  m.layer0 = layer0;
  m.layers = layers;
  m.pages = s.pages;
  m.S = s.S;
  m.P = static_cast<int>(s.P);
  m.heads = static_cast<int>(2 * s.KVH);
  m.vpr = static_cast<int>(s.D / 8);
  return m;
}

cuco::Status launch_move(cudaStream_t stream, const PageMove& m, int ctas) {
  page_move_kernel<<<static_cast<unsigned>(ctas), kThreads, 0, stream>>>(m);
  CUCO_CHECK_LAUNCH();
  return cuco::Status::Ok();
}

// Decode side: the layout of layers already in local memory into this rank's cache.
cuco::Status local_layout(cuco::RankContext& ctx, const State& s, const cuco::IO& io, const void* src, int64_t layer0,
                          int64_t layers) {
  PageMove m = page_move(s, src, layer0, layers, io);
  m.dst = static_cast<uint4*>(io.out("cache").ptr);
  const int64_t units = layers * s.pages;
  return launch_move(ctx.stream, m, static_cast<int>(std::min<int64_t>(units, static_cast<int64_t>(ctx.sm_count) * 4)));
}

int64_t chunk_first(int c) { return static_cast<int64_t>(c) * kLayersPerChunk; }
int64_t chunk_layers(const State& s, int c) { return std::min<int64_t>(kLayersPerChunk, s.L - chunk_first(c)); }

cuco::Status run_sequential(cuco::RankContext& ctx, State* s, const cuco::IO& io) {
  auto* kv = static_cast<__nv_bfloat16*>(s->kv);
  const size_t total = static_cast<size_t>(s->L * s->S * s->N);
  if (s->rank == kPrefill) {
    if (!kPartComm) {
      const auto* X = static_cast<const __nv_bfloat16*>(io.in("X").ptr);
      const auto* W = static_cast<const __nv_bfloat16*>(io.in("W").ptr);
      for (int64_t l = 0; l < s->L; ++l) {
        cuco::Status st = s->gemm.run(ctx.stream, X + l * s->S * s->H, W + l * s->H * s->N, kv + l * s->S * s->N, s->S);
        if (!st.ok()) return st;
      }
    }
    if (!kPartCompute) CUCO_NCCL_CHECK(ncclSend(kv, total, ncclBfloat16, s->peer, ctx.comm, ctx.stream));
    return cuco::Status::Ok();
  }
  if (kPartCompute) return cuco::Status::Ok();  // the bound's compute part is the prefill GEMMs
  CUCO_NCCL_CHECK(ncclRecv(kv, total, ncclBfloat16, s->peer, ctx.comm, ctx.stream));
  if (kPartComm) return cuco::Status::Ok();
  return local_layout(ctx, *s, io, kv, 0, s->L);
}

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  if (ctx.world_size != 2) return cuco::Status::Error("kv_transfer needs exactly 2 ranks");
  s->rank = ctx.rank;
  s->peer = ctx.rank == kPrefill ? kDecode : kPrefill;
  s->L = sizes.get("L");
  s->S = sizes.get("S");
  s->H = sizes.get("H");
  s->KVH = sizes.get("KVH");
  s->D = sizes.get("D");
  s->P = sizes.get("P");
  s->N = 2 * s->KVH * s->D;
  s->pages = s->S / s->P;
  s->chunks = static_cast<int>((s->L + kLayersPerChunk - 1) / kLayersPerChunk);
  s->pipelined = !kSequential && !kPartCompute && !kPartComm;
  const size_t kv_bytes = static_cast<size_t>(s->L * s->S * s->N) * sizeof(__nv_bfloat16);
  if (s->rank == kPrefill || !s->pipelined || kViaNccl) CUCO_CUDA_CHECK(cudaMalloc(&s->kv, kv_bytes));
  if (s->pipelined && !kViaNccl) {  // collective: both ranks, same order, same bytes
    ncclDevCommRequirements reqs;
    std::memset(&reqs, 0, sizeof reqs);
    reqs.lsaBarrierCount = 1;
    cuco::Status st = ctx.create_dev_comm(reqs, &s->dev_comm);
    if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, sizeof(uint32_t) * s->chunks, &s->flags);
    if (st.ok() && kViaCe) st = cd::alloc_peers(ctx, s->dev_comm, kv_bytes, &s->stage);
    if (!st.ok()) return st;
  }
  if (s->pipelined && kViaLsa && s->rank == kPrefill) {
    CUCO_CUDA_CHECK(cudaMalloc(&s->arrivals, sizeof(uint32_t) * s->chunks));
    CUCO_CUDA_CHECK(cudaMemset(s->arrivals, 0, sizeof(uint32_t) * s->chunks));
  }
  ctx.side_stream(0, cd::text_is(kCommPriority, "high") ? -100 : 0);  // created now, outside the timer
  if (s->rank == kPrefill) {
    const int margin = s->pipelined && kViaLsa ? kGemmSmMargin : 0;
    cuco::Status st = s->gemm.init(ctx.cublaslt(), s->N, s->H, s->H, s->N, s->N,
                                   static_cast<size_t>(kWorkspaceMiB) << 20, margin > 0 ? ctx.sm_count - margin : 0);
    if (st.ok()) st = s->gemm.prepare(s->S, false);
    if (!st.ok()) return st;
  }
  cuco::Status st = cd::preload_transfer_kernels();  // flag kernels: before any kernel spins on a flag
  if (st.ok()) st = cd::preload_kernel(page_move_kernel);
  if (!st.ok()) return st;
  CUCO_CUDA_CHECK(cudaDeviceSynchronize());
  return cuco::Status::Ok();
}

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  if (!s->pipelined) return run_sequential(ctx, s, io);
  const uint32_t e = ++s->epoch;
  cudaStream_t side = ctx.side_stream(0);
  auto* kv = static_cast<__nv_bfloat16*>(s->kv);

  if (s->rank == kPrefill) {
    const auto* X = static_cast<const __nv_bfloat16*>(io.in("X").ptr);
    const auto* W = static_cast<const __nv_bfloat16*>(io.in("W").ptr);
    auto* peer_flags = reinterpret_cast<uint32_t*>(kViaNccl ? nullptr : s->flags.at(s->peer));
    for (int c = 0; c < s->chunks; ++c) {
      const int64_t l0 = chunk_first(c), nl = chunk_layers(*s, c);
      for (int64_t l = l0; l < l0 + nl; ++l) {
        cuco::Status st = s->gemm.run(ctx.stream, X + l * s->S * s->H, W + l * s->H * s->N, kv + l * s->S * s->N, s->S);
        if (!st.ok()) return st;
      }
      cd::follow(ctx, side, ctx.stream, kFollowEvent);  // the chunk's GEMMs are done before it moves
      const size_t off = static_cast<size_t>(l0 * s->S * s->N), count = static_cast<size_t>(nl * s->S * s->N);
      if (kViaNccl) {
        CUCO_NCCL_CHECK(ncclSend(kv + off, count, ncclBfloat16, s->peer, ctx.comm, side));
      } else if (kViaCe) {
        cuco::Status st = cd::ce_copy_signal(ctx, side, s->stage.at(s->peer, off * sizeof(__nv_bfloat16)), kv + off,
                                             count * sizeof(__nv_bfloat16), peer_flags + c, e, kWait);
        if (!st.ok()) return st;
      } else {
        PageMove m = page_move(*s, kv + off, l0, nl, io);
        m.window = io.out("cache").window;  // rank 1's cache, resolved on the device
        m.peer = s->peer;
        m.flag = peer_flags + c;
        m.arrivals = s->arrivals + c;
        m.epoch = e;
        const bool tail = kTailAll && c == s->chunks - 1;  // nothing else runs then: take every SM
        cuco::Status st = launch_move(side, m, tail ? ctx.sm_count : kCommCtas);
        if (!st.ok()) return st;
      }
    }
    return cuco::Status::Ok();
  }

  // Decode rank.
  auto* my_flags = kViaNccl ? nullptr : static_cast<uint32_t*>(s->flags.local.ptr);
  if constexpr (kViaLsa) {
    return cd::wait_flags(ctx, ctx.stream, my_flags, s->chunks, e, kWait);  // then every layer is in place
  } else {
    for (int c = 0; c < s->chunks; ++c) {
      const int64_t l0 = chunk_first(c), nl = chunk_layers(*s, c);
      const size_t off = static_cast<size_t>(l0 * s->S * s->N), count = static_cast<size_t>(nl * s->S * s->N);
      const void* src = nullptr;
      if (kViaNccl) {
        CUCO_NCCL_CHECK(ncclRecv(kv + off, count, ncclBfloat16, s->peer, ctx.comm, side));
        cd::follow(ctx, ctx.stream, side, kFollowEvent);  // ctx.stream: after this chunk's receive
        src = kv + off;
      } else {
        cuco::Status st = cd::wait_flag(ctx, ctx.stream, my_flags + c, e, kWait);
        if (!st.ok()) return st;
        src = reinterpret_cast<const __nv_bfloat16*>(s->stage.local.ptr) + off;
      }
      cuco::Status st = local_layout(ctx, *s, io, src, l0, nl);  // overlaps the next chunk's transfer
      if (!st.ok()) return st;
    }
    return cuco::Status::Ok();
  }
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  s->gemm.destroy();
  if (s->kv) cudaFree(s->kv);
  if (s->arrivals) cudaFree(s->arrivals);
  delete s;  // stage / flags are harness-owned symmetric buffers
}
// EVOLVE-BLOCK-END
