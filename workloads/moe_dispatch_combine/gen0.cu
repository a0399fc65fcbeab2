// moe_dispatch_combine candidate file. seed.cu is the honest host-driven baseline; generation 0 of
// the search (gen0.cu) is composed from cuco's co-design blocks (cuco/codesign.h).
//
// One DeepSeek-V3 MoE layer under expert parallelism on W ranks (W = ctx.world_size, 1..8).
// Sizes: T tokens per rank, H hidden, F expert intermediate, E_PER_RANK experts per rank (E =
// E_PER_RANK W in all; global expert e lives on rank e / E_PER_RANK as local expert
// e % E_PER_RANK), TOPK experts per token (SKEW only shapes the routing inputs).
// Inputs per rank: "x" [T, H] bf16; "topk_ids" [T, TOPK] int32 (distinct global experts per
// token); "topk_weights" [T, TOPK] f32 (sum to 1); "w1" [E_PER_RANK, H, 2F] bf16 (this rank's
// experts; columns 0..F-1 gate, F..2F-1 up); "w2" [E_PER_RANK, F, H] bf16.
// Output per rank: "y" [T, H] bf16, y[t] = sum_k topk_weights[t,k] FFN_{topk_ids[t,k]}(x[t]),
// FFN_e(v) = (silu(v W1gate_e) * (v W1up_e)) W2_e, silu(z) = z / (1 + exp(-z)).
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

// Shared by every candidate of this workload (frozen: outside the EVOLVE block): the routing
// metadata, permute (dispatch), SwiGLU and combine kernels and the GEMM shapes they plan.
namespace {

namespace cd = cuco::codesign;
using bf16 = __nv_bfloat16;

constexpr int kMaxRanks = 8;
constexpr int kWorkspaceMiB = 32;
constexpr int kGemmPad = 128;  // GEMM rows are padded up to a multiple of this (inside the block):
                               // at most T / 128 + 2 distinct shapes, all planned and loaded in setup

// Per-expert positions of this rank's tokens, one CTA per global expert e (1024 threads):
// pos[t K + k] = how many tokens t' < t of this rank chose e (where topk_ids[t][k] == e), so the
// rows a rank sends to expert e are numbered 0..cnt[e)-1 in token order; cnt[e] = the total.
__global__ void __launch_bounds__(1024) route_meta_kernel(const int32_t* ids, int64_t T, int K, int32_t* pos,
                                                          int32_t* cnt) {
  __shared__ int warp_sums[32];
  __shared__ int base;
  const int e = static_cast<int>(blockIdx.x);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  if (threadIdx.x == 0) base = 0;
  __syncthreads();
  for (int64_t t0 = 0; t0 < T; t0 += blockDim.x) {
    const int64_t t = t0 + threadIdx.x;
    int slot = -1;
    if (t < T)
      for (int k = 0; k < K; ++k)
        if (ids[t * K + k] == e) slot = k;
    const unsigned ballot = __ballot_sync(0xffffffffu, slot >= 0);
    if (lane == 0) warp_sums[warp] = __popc(ballot);
    __syncthreads();
    int before = 0, total = 0;
    for (int w = 0; w < warps; ++w) {
      before += w < warp ? warp_sums[w] : 0;
      total += warp_sums[w];
    }
    if (slot >= 0) pos[t * K + slot] = base + before + __popc(ballot & ((1u << lane) - 1u));
    __syncthreads();
    if (threadIdx.x == 0) base += total;
    __syncthreads();
  }
  if (threadIdx.x == 0) cnt[e] = base;
}

// Moves token rows to their expert's block: for every (t, k) whose expert lives on a rank d in
// `dest_mask` and whose position p = pos[t K + k] is in [p0, p1), row x[t] goes to
// base[d] + (le * le_stride + p) * H (le = the expert's local index on d). One CTA per (t, k) at a
// time, 16-byte vectors. With `flag[d]` set, the grid's last CTA releases flag[d] = epoch on every
// d of the mask after all rows are stored (system scope; arrivals: this launch's own counter,
// never reset, the launch_index-th use of it).
struct DispatchArgs {
  const uint4* x = nullptr;
  const int32_t* ids = nullptr;
  const int32_t* pos = nullptr;
  int64_t T = 0, le_stride = 0, p0 = 0, p1 = 0;
  int K = 0, epr = 0, vpr = 0;  // vpr: 16-byte vectors per row (H / 8)
  unsigned dest_mask = 0;
  uint4* base[kMaxRanks] = {};
  uint32_t* flag[kMaxRanks] = {};
  uint32_t* arrivals = nullptr;
  uint32_t epoch = 0, launch_index = 0;
};

__global__ void __launch_bounds__(256) dispatch_kernel(DispatchArgs a) {
  const int64_t entries = a.T * a.K;
  for (int64_t i = blockIdx.x; i < entries; i += gridDim.x) {
    const int e = a.ids[i];
    const int d = e / a.epr, le = e % a.epr;
    const int64_t p = a.pos[i];
    if (((a.dest_mask >> d) & 1u) == 0 || p < a.p0 || p >= a.p1) continue;
    const uint4* src = a.x + (i / a.K) * a.vpr;
    uint4* dst = a.base[d] + (le * a.le_stride + p) * a.vpr;
    for (int v = threadIdx.x; v < a.vpr; v += blockDim.x) dst[v] = src[v];
  }
  if (a.arrivals == nullptr) return;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    const uint32_t before = atomicAdd(a.arrivals, 1u);
    if (before + 1 == a.launch_index * gridDim.x) {
      __threadfence_system();
      for (int d = 0; d < kMaxRanks; ++d)
        if (((a.dest_mask >> d) & 1u) != 0 && a.flag[d] != nullptr) cd::flag_release(a.flag[d], a.epoch);
    }
  }
}

// act[m][f] = bf16(silu(h[m][f]) * h[m][F + f]) from the gate|up GEMM's bf16 output h [m, 2F].
// The activation is rounded to bf16 once here (the down GEMM's input).
__global__ void swiglu_kernel(const bf16* h, bf16* act, int64_t m, int64_t F) {
  const int64_t n = m * F;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i / F, f = i % F;
    const float g = __bfloat162float(h[r * 2 * F + f]);
    const float u = __bfloat162float(h[r * 2 * F + F + f]);
    act[i] = __float2bfloat16_rn(g / (1.0f + __expf(-g)) * u);
  }
}

// y[t] = sum_k w[t,k] row(t, k) for t in [t0, t1), fp32 sums, one bf16 rounding; row(t, k) of
// expert e = ids[t K + k] on rank d = e / epr is base[d] + (le le_stride + pos[t K + k]) H
// (base[d] may be a peer's LSA pointer: the combine then pulls over NVLink).
struct CombineArgs {
  const uint4* base[kMaxRanks] = {};
  const int32_t* ids = nullptr;
  const int32_t* pos = nullptr;
  const float* w = nullptr;
  uint4* y = nullptr;
  int64_t t0 = 0, t1 = 0, le_stride = 0;
  int K = 0, epr = 0, vpr = 0;
};

__global__ void __launch_bounds__(256) combine_kernel(CombineArgs a) {
  for (int64_t t = a.t0 + blockIdx.x; t < a.t1; t += gridDim.x) {
    for (int v = threadIdx.x; v < a.vpr; v += blockDim.x) {
      float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int k = 0; k < a.K; ++k) {
        const int e = a.ids[t * a.K + k];
        const int d = e / a.epr, le = e % a.epr;
        const uint4 q = a.base[d][(le * a.le_stride + a.pos[t * a.K + k]) * a.vpr + v];
        const float wk = a.w[t * a.K + k];
        const __nv_bfloat162* p2 = reinterpret_cast<const __nv_bfloat162*>(&q);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float2 f = __bfloat1622float2(p2[j]);
          acc[2 * j] += wk * f.x;
          acc[2 * j + 1] += wk * f.y;
        }
      }
      uint4 out;
      __nv_bfloat162* o2 = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
      for (int j = 0; j < 4; ++j) o2[j] = __floats2bfloat162_rn(acc[2 * j], acc[2 * j + 1]);
      a.y[t * a.vpr + v] = out;
    }
  }
}

// The two GEMMs of one expert on m rows of one block (in: [m, H] rows of tokens; out: [m, H]),
// through the scratch h [m, 2F] and act [m, F].
struct Ffn {
  cd::RowMajorGemm up, down;  // up: [m,H] x [H,2F]; down: [m,F] x [F,H]
  bf16* h = nullptr;
  bf16* act = nullptr;
  int64_t H = 0, F = 0, cap = 0;  // cap: rows of the scratch

  cuco::Status init(cuco::RankContext& ctx, int64_t H_, int64_t F_, int64_t cap_) {
    H = H_;
    F = F_;
    cap = cap_;
    CUCO_CUDA_CHECK(cudaMalloc(&h, static_cast<size_t>(cap * 2 * F) * sizeof(bf16)));
    CUCO_CUDA_CHECK(cudaMalloc(&act, static_cast<size_t>(cap * F) * sizeof(bf16)));
    cuco::Status st = up.init(ctx.cublaslt(), 2 * F, H, H, 2 * F, 2 * F, static_cast<size_t>(kWorkspaceMiB) << 20);
    if (st.ok()) st = down.init(ctx.cublaslt(), H, F, F, H, H, static_cast<size_t>(kWorkspaceMiB) << 20);
    return st;
  }
  // Plans and loads both GEMMs for m rows (setup only).
  cuco::Status prepare(int64_t m) {
    cuco::Status st = up.prepare(m, false);
    if (st.ok()) st = down.prepare(m, false);
    return st;
  }
  cuco::Status run(cudaStream_t s, const bf16* in, const bf16* w1, const bf16* w2, bf16* out, int64_t m) {
    if (m <= 0) return cuco::Status::Ok();
    cuco::Status st = up.run(s, in, w1, h, m);
    if (!st.ok()) return st;
    const int64_t n = m * F;
    swiglu_kernel<<<static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, 4096)), 256, 0, s>>>(h, act, m, F);
    CUCO_CHECK_LAUNCH();
    return down.run(s, act, w2, out, m);
  }
  void destroy() {
    up.destroy();
    down.destroy();
    if (h) cudaFree(h);
    if (act) cudaFree(act);
    h = act = nullptr;
  }
};

// Rows of a GEMM over `rows` valid rows of a block segment of `room` rows: padded up to a
// multiple of kGemmPad, never past the segment (the padding rows compute garbage nobody reads).
int64_t gemm_rows(int64_t rows, int64_t room) {
  if (rows <= 0) return 0;
  return std::min(room, (rows + kGemmPad - 1) / kGemmPad * kGemmPad);
}

// Every GEMM row count gemm_rows can give for segments of `room` rows.
std::vector<int64_t> gemm_shapes(int64_t room) {
  std::vector<int64_t> v;
  for (int64_t m = kGemmPad; m < room; m += kGemmPad) v.push_back(m);
  v.push_back(room);
  return v;
}

}  // namespace

// EVOLVE-BLOCK-START
// Generation 0: dispatch, expert FFNs and combine overlapped.
//
// Layouts (every rank): recv / out [E_PER_RANK][W src][T][H] bf16: block (le, src) holds, in token
// order, src's tokens routed to local expert le (row p = the p-th such token, p = pos[t K + k]
// from route_meta_kernel) and, in out, their FFN outputs; ret [E_PER_RANK][W d][T][H]: the outputs
// of this rank's tokens returned by rank d. Because a sender numbers its own rows (pos), it knows
// where they land on the receiver without knowing the receiver's other counts: the counts are only
// needed for the GEMM and transfer sizes.
//
// Strategies (knob strategy):
//   local_first  the paper's two-stream strategy: side stream 0 sends the remote tokens while
//                ctx.stream runs the FFNs of this rank's own tokens (block src = rank), then the
//                remote blocks as they arrive, then the return and the combine;
//   chunked      each block split into `chunks` row chunks, processed chunk-major (own block first
//                within a chunk): chunk c's dispatch is in flight during chunk c-1's FFNs, chunk c's
//                return and combine (tokens [c R, (c+1) R), whose rows are all in chunks <= c since
//                pos <= t) during chunk c+1's FFNs; only the last chunk's return + combine is exposed
//                (and the last combine takes every SM);
//   interleaved  local_first without its exposed return: the FFNs of the own block's first half of
//                experts hide the dispatch; then the remote blocks expert by expert, each expert's
//                outputs sent back as soon as it is done (hidden behind the next expert); then the
//                own block's other experts, which hide the last return; then one combine;
//   sequential   the seed's order on ctx.stream only.
// Backends (knob backend): nccl (grouped ncclSend/ncclRecv on side stream 0, permute kernel first;
// ctx.stream follows each chunk's group through a harness event; the return groups on the same
// stream, the combine follows them), ce (permute kernel, cudaMemcpyAsync into the peer's symmetric
// recv block + epoch flag on side stream 0; outputs copied back into the source's symmetric ret
// block + flag on side stream 1), lsa (a comm_ctas-CTA kernel on side stream 0 reads x and stores
// each row straight into the peer's recv block over NVLink, permutation fused, then releases the
// peer's flag at grid scope; the receiver signals "chunk c of your outputs is done" after its
// GEMMs; the combine kernel pulls the outputs from the peers' out blocks over NVLink).
// Counts (knob counts): host = one ncclAllGather of the per-expert counts and a host sync at the
// start (exact sizes; the bubble is the tiny metadata kernel + all-gather); bound = none: every
// segment is computed/moved at its T / chunks rows upper bound (no host sync at all: exact when
// every token goes to every expert, E <= TOPK, as in the issue's anchor).
//
// Synchronisation: flags hold the iteration's epoch (never reset); disp flags [W src][C] and ret
// flags [W d][C] live in a symmetric window and are written by the peer after its data (copy
// engine: signal kernel after the copies in stream order; lsa: system-scope release by the last
// CTA of the dispatch kernel, or by a signal kernel after the GEMMs in stream order). Streams of one
// rank are ordered by harness events (follow). Every kernel that spins or signals, and every GEMM
// shape, is loaded in setup (flags.h, lazy loading). The harness drains every rank and barriers
// between iterations, so no block is rewritten while a peer still reads it.
// FP8 = 1 (size): fp8 dispatch. Each iteration first quantises x (codesign/fp8_blocks.h): wire rows
// (e4m3 values + 128-block scales, ~52% of a bf16 row) are what every backend moves, into wire
// blocks (trecv, same [E_PER_RANK][W][T] layout), dequantised into recv right after they arrive;
// the own rows take the round trip locally. The return stays bf16.
// part = compute / comm times the FFNs alone / the two all-to-all-v alone (bench only).
namespace {

constexpr const char* kStrategy = "chunked";  // cuco:knob strategy
constexpr const char* kBackend = "lsa";       // cuco:knob backend
constexpr int kChunks = 4;                    // cuco:knob chunks
constexpr const char* kCounts = "host";       // cuco:knob counts
constexpr int kCommCtas = 32;                 // cuco:knob comm_ctas
constexpr const char* kWaitMode = "spin";     // cuco:knob wait_mode
constexpr const char* kCommPriority = "high";  // cuco:knob comm_priority
constexpr const char* kPart = "none";         // cuco:knob part
constexpr int kGemmAlgos = 1;                 // cuco:knob gemm_algos
constexpr const char* kMoveKernels = "ilp";     // cuco:knob move_kernels

constexpr bool kSequential = cd::text_is(kStrategy, "sequential");
constexpr bool kLocalFirst = cd::text_is(kStrategy, "local_first");
constexpr bool kChunked = cd::text_is(kStrategy, "chunked");
constexpr bool kInterleaved = cd::text_is(kStrategy, "interleaved");
constexpr bool kViaNccl = cd::text_is(kBackend, "nccl");
constexpr bool kViaCe = cd::text_is(kBackend, "ce");
constexpr bool kViaLsa = cd::text_is(kBackend, "lsa");
constexpr bool kHostCounts = cd::text_is(kCounts, "host");
constexpr bool kPartCompute = cd::text_is(kPart, "compute");
constexpr bool kPartComm = cd::text_is(kPart, "comm");
constexpr bool kIlp = cd::text_is(kMoveKernels, "ilp");
static_assert(kIlp || cd::text_is(kMoveKernels, "frozen"), "unknown move_kernels");
constexpr int kMaxTopK = 16;  // move_kernels = ilp: rows one thread loads at once in the combine
static_assert(kSequential || kLocalFirst || kChunked || kInterleaved, "unknown strategy");
static_assert(kViaNccl || kViaCe || kViaLsa, "unknown backend");
static_assert(kHostCounts || cd::text_is(kCounts, "bound"), "unknown counts");
static_assert(kPartCompute || kPartComm || cd::text_is(kPart, "none"), "unknown part");
static_assert(kChunks >= 1 && kChunks <= 16 && kCommCtas >= 1, "bad knob");
constexpr cd::WaitMode kWait = cd::wait_mode_from(kWaitMode);
constexpr bool kPart_ = kPartCompute || kPartComm;
constexpr int kC = kChunked && !kPart_ ? kChunks : 1;  // chunks actually used
constexpr int kEvDisp = 0;                             // events kEvDisp + c: chunk c's dispatch group (nccl)
constexpr int kFollowEvent = cuco::RankContext::kMaxEvents - 1;  // record, then wait at once

struct State {
  int64_t T = 0, H = 0, F = 0, epr = 0, K = 0, R = 0;
  int W = 1, rank = 0;
  bool symmetric = false;  // recv / out / ret / flags in symmetric windows (ce, lsa with W > 1)
  uint32_t epoch = 0;
  Ffn ffn;
  ncclDevComm dev_comm{};
  cd::PeerBuffer recv_p, out_p, ret_p, flags_p;
  bf16 *send = nullptr, *recv = nullptr, *out = nullptr, *ret = nullptr;
  int32_t *pos = nullptr, *cnt = nullptr, *all_cnt = nullptr, *host_cnt = nullptr;
  uint32_t* arrivals = nullptr;  // lsa: one grid-arrival counter per chunk's dispatch kernel
  // Rows in flight: bf16 rows, or with FP8 wire rows of trow bf16 units (x_wire: this rank's x
  // quantised; x_rt: its round trip, the own rows' FFN input; tsend / trecv: wire blocks).
  bool fp8 = false;
  int64_t trow = 0;
  bf16 *x_wire = nullptr, *x_rt = nullptr, *tsend = nullptr, *trecv = nullptr;
  cd::PeerBuffer trecv_p;

  int64_t seg(int c) const { return std::min(R, T - c * R); }  // rows of chunk c of a block
  // Valid rows of chunk c of a block of `total` valid rows; with bound counts, the segment.
  int64_t rows(int64_t total, int c) const {
    if (!kHostCounts) return seg(c);
    return std::max<int64_t>(0, std::min(total - c * R, seg(c)));
  }
  int64_t gemm_m(int64_t total, int c) const { return kHostCounts ? gemm_rows(rows(total, c), seg(c)) : seg(c); }
  // host_cnt[src][e]: rank src's rows for global expert e (host counts only).
  int64_t count(int src, int64_t e) const {
    return kHostCounts ? static_cast<int64_t>(host_cnt[src * epr * W + e]) : T;
  }
  size_t block(int64_t le, int src, int64_t row) const {  // element offset in recv / out / ret
    return static_cast<size_t>(((le * W + src) * T + row) * H);
  }
  size_t tblock(int64_t le, int src, int64_t row) const {  // element offset in trecv (rows in flight)
    return static_cast<size_t>(((le * W + src) * T + row) * trow);
  }
  uint32_t* disp_flag(int on, int src, int c) const {  // on rank `on`
    return reinterpret_cast<uint32_t*>(flags_p.at(on)) + src * kC + c;
  }
  uint32_t* ret_flag(int on, int d, int c) const {
    return reinterpret_cast<uint32_t*>(flags_p.at(on)) + W * kC + d * kC + c;
  }
  // interleaved: on rank `on`, "rank d's expert le has sent back (or finished) on's rows".
  uint32_t* ret_expert_flag(int on, int d, int64_t le) const {
    return reinterpret_cast<uint32_t*>(flags_p.at(on)) + 2 * W * kC + d * epr + le;
  }
};

// wire: the rows in flight (x, or with FP8 its wire rows); else the rows an FFN reads (x, or its
// FP8 round trip).
DispatchArgs dispatch_args(const State& s, const cuco::IO& io, bool wire) {
  DispatchArgs a;
  const void* x = !s.fp8 ? io.in("x").ptr : wire ? static_cast<const void*>(s.x_wire) : static_cast<const void*>(s.x_rt);
  a.x = static_cast<const uint4*>(x);
  a.ids = static_cast<const int32_t*>(io.in("topk_ids").ptr);
  a.pos = s.pos;
  a.T = s.T;
  a.K = static_cast<int>(s.K);
  a.epr = static_cast<int>(s.epr);
  a.vpr = static_cast<int>((wire ? s.trow : s.H) / 8);
  a.p0 = 0;
  a.p1 = s.T;
  return a;
}

// move_kernels = ilp: dispatch_kernel's permute for launches without flags, one warp per (t, k)
// entry with 4 independent 16-byte loads in flight per thread before their stores.
__global__ void __launch_bounds__(256) permute_ilp_kernel(DispatchArgs a) {
  const int64_t entries = a.T * a.K;
  const int warps = static_cast<int>(blockDim.x / 32), lane = static_cast<int>(threadIdx.x & 31);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(warps) + threadIdx.x / 32; i < entries;
       i += static_cast<int64_t>(gridDim.x) * warps) {
    const int e = a.ids[i];
    const int d = e / a.epr, le = e % a.epr;
    const int64_t p = a.pos[i];
    if (((a.dest_mask >> d) & 1u) == 0 || p < a.p0 || p >= a.p1) continue;
    const uint4* src = a.x + (i / a.K) * a.vpr;
    uint4* dst = a.base[d] + (le * a.le_stride + p) * a.vpr;
    for (int v0 = lane; v0 < a.vpr; v0 += 32 * 4) {
      uint4 q[4];
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (v0 + 32 * u < a.vpr) q[u] = src[v0 + 32 * u];
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (v0 + 32 * u < a.vpr) dst[v0 + 32 * u] = q[u];
    }
  }
}

// move_kernels = ilp: combine_kernel with the token's K row addresses and weights in shared
// memory and all K rows of a vector loaded before any is summed (same order: same bits).
__global__ void __launch_bounds__(256) combine_ilp_kernel(CombineArgs a) {
  __shared__ const uint4* rows[kMaxTopK];
  __shared__ float wts[kMaxTopK];
  for (int64_t t = a.t0 + blockIdx.x; t < a.t1; t += gridDim.x) {
    __syncthreads();
    if (threadIdx.x < a.K) {
      const int k = static_cast<int>(threadIdx.x);
      const int e = a.ids[t * a.K + k];
      const int d = e / a.epr, le = e % a.epr;
      rows[k] = a.base[d] + (le * a.le_stride + a.pos[t * a.K + k]) * a.vpr;
      wts[k] = a.w[t * a.K + k];
    }
    __syncthreads();
    for (int v = threadIdx.x; v < a.vpr; v += blockDim.x) {
      uint4 q[kMaxTopK];
#pragma unroll
      for (int k = 0; k < kMaxTopK; ++k)
        if (k < a.K) q[k] = rows[k][v];
      float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
      for (int k = 0; k < kMaxTopK; ++k) {
        if (k >= a.K) break;
        const __nv_bfloat162* p2 = reinterpret_cast<const __nv_bfloat162*>(&q[k]);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float2 f = __bfloat1622float2(p2[j]);
          acc[2 * j] += wts[k] * f.x;
          acc[2 * j + 1] += wts[k] * f.y;
        }
      }
      uint4 out;
      __nv_bfloat162* o2 = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
      for (int j = 0; j < 4; ++j) o2[j] = __floats2bfloat162_rn(acc[2 * j], acc[2 * j + 1]);
      a.y[t * a.vpr + v] = out;
    }
  }
}

cuco::Status launch_dispatch(cudaStream_t stream, const DispatchArgs& a, int64_t ctas) {
  if (kIlp && a.arrivals == nullptr) {
    permute_ilp_kernel<<<static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((a.T * a.K + 7) / 8, ctas))), 256, 0,
                         stream>>>(a);
    CUCO_CHECK_LAUNCH();
    return cuco::Status::Ok();
  }
  dispatch_kernel<<<static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(a.T * a.K, ctas))), 256, 0, stream>>>(a);
  CUCO_CHECK_LAUNCH();
  return cuco::Status::Ok();
}

// Rows of every remote destination packed into tsend [W d][E_PER_RANK][T][trow] (nccl, ce, comm part).
cuco::Status pack_remote(cuco::RankContext& ctx, const State& s, const cuco::IO& io, cudaStream_t stream) {
  DispatchArgs a = dispatch_args(s, io, true);
  a.le_stride = s.T;
  a.dest_mask = ((1u << s.W) - 1u) & ~(1u << s.rank);
  for (int d = 0; d < s.W; ++d)
    a.base[d] = reinterpret_cast<uint4*>(s.tsend + static_cast<size_t>(d * s.epr * s.T * s.trow));
  return launch_dispatch(stream, a, int64_t{ctx.sm_count} * 8);
}

// This rank's own rows into its own recv blocks (src = rank).
cuco::Status pack_local(cuco::RankContext& ctx, const State& s, const cuco::IO& io, cudaStream_t stream) {
  DispatchArgs a = dispatch_args(s, io, false);
  a.le_stride = s.W * s.T;
  a.dest_mask = 1u << s.rank;
  a.base[s.rank] = reinterpret_cast<uint4*>(s.recv + s.block(0, s.rank, 0));
  return launch_dispatch(stream, a, int64_t{ctx.sm_count} * 8);
}

// One grouped ncclSend/ncclRecv with every peer: chunk c of the dispatch (back = false) or of the
// return (back = true); only local expert only_le's blocks when only_le >= 0 (the same on every rank).
cuco::Status nccl_exchange(cuco::RankContext& ctx, const State& s, int c, bool back, cudaStream_t stream,
                           int64_t only_le = -1) {
  const int r = s.rank;
  const size_t row0 = static_cast<size_t>(c * s.R);
  CUCO_NCCL_CHECK(ncclGroupStart());
  for (int j = 1; j < s.W; ++j) {
    const int d = (r + j) % s.W;
    for (int64_t le = 0; le < s.epr; ++le) {
      if (only_le >= 0 && le != only_le) continue;
      const bf16* src = nullptr;
      bf16* dst = nullptr;
      int64_t n_send = 0, n_recv = 0;
      if (!back) {  // my rows for d's expert le; d's rows for my expert le (rows in flight: trow long)
        src = s.tsend + static_cast<size_t>((d * s.epr + le) * s.T + static_cast<int64_t>(row0)) * s.trow;
        dst = s.trecv + s.tblock(le, d, static_cast<int64_t>(row0));
        n_send = s.rows(s.count(r, d * s.epr + le), c);
        n_recv = s.rows(s.count(d, r * s.epr + le), c);
      } else {  // d's rows' outputs of my expert le; my rows' outputs of d's expert le
        src = s.out + s.block(le, d, static_cast<int64_t>(row0));
        dst = s.ret + s.block(le, d, static_cast<int64_t>(row0));
        n_send = s.rows(s.count(d, r * s.epr + le), c);
        n_recv = s.rows(s.count(r, d * s.epr + le), c);
      }
      const int64_t len = back ? s.H : s.trow;
      if (n_send > 0) CUCO_NCCL_CHECK(ncclSend(src, static_cast<size_t>(n_send * len), ncclBfloat16, d, ctx.comm, stream));
      if (n_recv > 0) CUCO_NCCL_CHECK(ncclRecv(dst, static_cast<size_t>(n_recv * len), ncclBfloat16, d, ctx.comm, stream));
    }
  }
  CUCO_NCCL_CHECK(ncclGroupEnd());
  return cuco::Status::Ok();
}

// The combine of tokens [t0, t1) on `stream` with `ctas` CTAs: every rank's expert outputs for
// them, weighted (own outputs from out, peers' from ret, or with lsa straight from their out).
cuco::Status launch_combine(const State& s, const cuco::IO& io, cudaStream_t stream, int64_t t0, int64_t t1,
                            int64_t ctas) {
  CombineArgs cb;
  for (int d = 0; d < s.W; ++d) {
    const bf16* base = d == s.rank ? s.out + s.block(0, s.rank, 0)
                       : kViaLsa   ? reinterpret_cast<const bf16*>(s.out_p.at(d, s.block(0, s.rank, 0) * sizeof(bf16)))
                                   : s.ret + s.block(0, d, 0);
    cb.base[d] = reinterpret_cast<const uint4*>(base);
  }
  cb.ids = static_cast<const int32_t*>(io.in("topk_ids").ptr);
  cb.pos = s.pos;
  cb.w = static_cast<const float*>(io.in("topk_weights").ptr);
  cb.y = static_cast<uint4*>(io.out("y").ptr);
  cb.t0 = t0;
  cb.t1 = t1;
  cb.le_stride = s.W * s.T;
  cb.K = static_cast<int>(s.K);
  cb.epr = static_cast<int>(s.epr);
  cb.vpr = static_cast<int>(s.H / 8);
  const auto grid = static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(t1 - t0, ctas)));
  if constexpr (kIlp)
    combine_ilp_kernel<<<grid, 256, 0, stream>>>(cb);
  else
    combine_kernel<<<grid, 256, 0, stream>>>(cb);
  CUCO_CHECK_LAUNCH();
  return cuco::Status::Ok();
}

cuco::Status ffn_block(State& s, const cuco::IO& io, cudaStream_t stream, int64_t le, int src, int c) {
  const auto* w1 = static_cast<const bf16*>(io.in("w1").ptr) + static_cast<size_t>(le * s.H * 2 * s.F);
  const auto* w2 = static_cast<const bf16*>(io.in("w2").ptr) + static_cast<size_t>(le * s.F * s.H);
  const size_t off = s.block(le, src, c * s.R);
  return s.ffn.run(stream, s.recv + off, w1, w2, s.out + off, s.gemm_m(s.count(src, s.rank * s.epr + le), c));
}

// ce: this rank's expert le's outputs for src's rows of chunk c copied back into src's ret block.
cuco::Status return_block_ce(const State& s, cudaStream_t stream, int64_t le, int src, int c) {
  const int64_t n = s.rows(s.count(src, s.rank * s.epr + le), c);
  if (n <= 0) return cuco::Status::Ok();
  return cd::ce_copy(stream, s.ret_p.at(src, s.block(le, s.rank, c * s.R) * sizeof(bf16)), s.out + s.block(le, src, c * s.R),
                     static_cast<size_t>(n * s.H) * sizeof(bf16));
}

// FP8: src's chunk c, just arrived in trecv, dequantised into recv (every local expert's block).
cuco::Status unpack_arrived(State& s, cudaStream_t stream, int src, int c) {
  if (!s.fp8) return cuco::Status::Ok();
  for (int64_t le = 0; le < s.epr; ++le)
    CUCO_CUDA_CHECK(cd::fp8_unpack_rows(stream, s.trecv + s.tblock(le, src, c * s.R),
                                        s.rows(s.count(src, s.rank * s.epr + le), c), s.H,
                                        s.recv + s.block(le, src, c * s.R)));
  return cuco::Status::Ok();
}

// strategy = interleaved, from the point where the dispatch has been issued (see the top comment).
cuco::Status run_interleaved(cuco::RankContext& ctx, State& s, const cuco::IO& io, uint32_t e) {
  const int W = s.W, r = s.rank;
  const int64_t epr = s.epr;
  cudaStream_t ms = ctx.stream, comm0 = ctx.side_stream(0), comm1 = ctx.side_stream(1), comb = ctx.side_stream(2);
  const int64_t half = (epr + 1) / 2;  // own experts before the remote blocks; the rest after
  cuco::Status st;
  for (int64_t le = 0; le < half && st.ok(); ++le) st = ffn_block(s, io, ms, le, r, 0);
  if (!st.ok()) return st;
  bool arrived[kMaxRanks] = {};
  for (int64_t le = 0; le < epr && W > 1; ++le) {
    for (int j = 1; j < W; ++j) {
      const int src = (r + j) % W;
      if (!arrived[src]) {  // src's rows must have arrived
        if constexpr (kViaNccl) {
          if (j == 1) ctx.wait_event(ms, kEvDisp);
        } else {
          st = cd::wait_flag(ctx, ms, s.disp_flag(r, src, 0), e, kWait);
        }
        if (st.ok()) st = unpack_arrived(s, ms, src, 0);
        arrived[src] = true;
      }
      if (st.ok()) st = ffn_block(s, io, ms, le, src, 0);
      if (!st.ok()) return st;
      if constexpr (kViaCe) {  // this expert's outputs for src's rows straight back, then src's flag
        cd::follow(ctx, comm1, ms, kFollowEvent);
        st = return_block_ce(s, comm1, le, src, 0);
        if (st.ok()) st = cd::signal_flag(ctx, comm1, s.ret_expert_flag(src, r, le), e, kWait);
      } else if constexpr (kViaLsa) {  // src pulls them in its combine: tell it they are done
        st = cd::signal_flag(ctx, ms, s.ret_expert_flag(src, r, le), e, kWait);
      }
      if (!st.ok()) return st;
    }
    if constexpr (kViaNccl) {  // expert le's return to every peer (the same group order on every rank)
      cd::follow(ctx, comm0, ms, kFollowEvent);
      st = nccl_exchange(ctx, s, 0, true, comm0, le);
      if (!st.ok()) return st;
    }
  }
  for (int64_t le = half; le < epr && st.ok(); ++le) st = ffn_block(s, io, ms, le, r, 0);
  if (!st.ok()) return st;
  // One combine, after every peer's every expert.
  cd::follow(ctx, comb, ms, kFollowEvent);
  if (W > 1) {
    if constexpr (kViaNccl) {
      cd::follow(ctx, comb, comm0, kFollowEvent);
    } else {
      for (int j = 1; j < W && st.ok(); ++j)
        st = cd::wait_flags(ctx, comb, s.ret_expert_flag(r, (r + j) % W, 0), static_cast<int>(epr), e, kWait);
      if (!st.ok()) return st;
    }
  }
  return launch_combine(s, io, comb, 0, s.T, int64_t{ctx.sm_count} * 8);
}

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  s->W = ctx.world_size;
  s->rank = ctx.rank;
  s->T = sizes.get("T");
  s->H = sizes.get("H");
  s->F = sizes.get("F");
  s->epr = sizes.get("E_PER_RANK");
  s->K = sizes.get("TOPK");
  if (s->W > kMaxRanks) return cuco::Status::Error("at most 8 ranks");
  if (kIlp && sizes.get("TOPK") > kMaxTopK) return cuco::Status::Error("move_kernels = ilp: TOPK at most 16");
  if (s->T < kC) return cuco::Status::Error("T must be >= chunks");
  s->R = (s->T + kC - 1) / kC;
  if (s->T - (kC - 1) * s->R <= 0) return cuco::Status::Error("T is too small for this many chunks");
  const int64_t E = s->epr * s->W;
  const size_t blocks_bytes = static_cast<size_t>(s->epr * s->W * s->T * s->H) * sizeof(bf16);
  s->fp8 = sizes.get_or("FP8", 0) != 0;
  s->trow = s->fp8 ? cd::wire_row_bytes(s->H) / 2 : s->H;
  const size_t tblocks_bytes = static_cast<size_t>(s->epr * s->W * s->T * s->trow) * sizeof(bf16);
  s->symmetric = s->W > 1 && !kViaNccl && !kPart_;
  if (s->symmetric) {  // collective: every rank, same order, same bytes
    ncclDevCommRequirements reqs;
    std::memset(&reqs, 0, sizeof reqs);
    reqs.lsaBarrierCount = 1;
    cuco::Status st = ctx.create_dev_comm(reqs, &s->dev_comm);
    if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, blocks_bytes, &s->recv_p);
    if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, blocks_bytes, &s->out_p);
    if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, blocks_bytes, &s->ret_p);
    if (st.ok() && s->fp8) st = cd::alloc_peers(ctx, s->dev_comm, tblocks_bytes, &s->trecv_p);
    if (st.ok())
      st = cd::alloc_peers(ctx, s->dev_comm, sizeof(uint32_t) * (2 * s->W * kC + s->W * s->epr), &s->flags_p);
    if (!st.ok()) return st;
    s->recv = static_cast<bf16*>(s->recv_p.local.ptr);
    s->out = static_cast<bf16*>(s->out_p.local.ptr);
    s->ret = static_cast<bf16*>(s->ret_p.local.ptr);
    if (s->fp8) s->trecv = static_cast<bf16*>(s->trecv_p.local.ptr);
  } else {
    CUCO_CUDA_CHECK(cudaMalloc(&s->recv, blocks_bytes));
    CUCO_CUDA_CHECK(cudaMalloc(&s->out, blocks_bytes));
    CUCO_CUDA_CHECK(cudaMalloc(&s->ret, blocks_bytes));
    if (s->fp8) CUCO_CUDA_CHECK(cudaMalloc(&s->trecv, tblocks_bytes));
  }
  if (!s->fp8) s->trecv = s->recv;
  if (!kViaLsa || kPart_) CUCO_CUDA_CHECK(cudaMalloc(&s->send, tblocks_bytes));
  s->tsend = s->send;
  if (s->fp8) {
    if (s->H % cd::kFp8Block != 0) return cuco::Status::Error("FP8 = 1 needs H a multiple of 128");
    CUCO_CUDA_CHECK(cudaMalloc(&s->x_wire, static_cast<size_t>(s->T * s->trow) * sizeof(bf16)));
    CUCO_CUDA_CHECK(cudaMalloc(&s->x_rt, static_cast<size_t>(s->T * s->H) * sizeof(bf16)));
  }
  if (kViaLsa && s->symmetric) {
    CUCO_CUDA_CHECK(cudaMalloc(&s->arrivals, sizeof(uint32_t) * kC));
    CUCO_CUDA_CHECK(cudaMemset(s->arrivals, 0, sizeof(uint32_t) * kC));
  }
  CUCO_CUDA_CHECK(cudaMalloc(&s->pos, static_cast<size_t>(s->T * s->K) * sizeof(int32_t)));
  CUCO_CUDA_CHECK(cudaMalloc(&s->cnt, static_cast<size_t>(E) * sizeof(int32_t)));
  CUCO_CUDA_CHECK(cudaMalloc(&s->all_cnt, static_cast<size_t>(s->W * E) * sizeof(int32_t)));
  CUCO_CUDA_CHECK(cudaMallocHost(&s->host_cnt, static_cast<size_t>(s->W * E) * sizeof(int32_t)));
  const int prio = cd::text_is(kCommPriority, "high") ? -100 : 0;
  for (int i = 0; i < 3; ++i) ctx.side_stream(i, prio);  // created now, outside the timer
  // Every GEMM shape this configuration can run, planned and loaded now.
  cuco::Status st = s->ffn.init(ctx, s->H, s->F, s->R);
  s->ffn.up.set_algorithm_search(kGemmAlgos);
  s->ffn.down.set_algorithm_search(kGemmAlgos);
  std::vector<int64_t> shapes;
  for (int64_t room : {s->seg(0), s->seg(kC - 1)}) {
    std::vector<int64_t> v = kHostCounts ? gemm_shapes(room) : std::vector<int64_t>{room};
    shapes.insert(shapes.end(), v.begin(), v.end());
  }
  std::sort(shapes.begin(), shapes.end());
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
  for (int64_t m : shapes)
    if (st.ok()) st = s->ffn.prepare(m);
  if (st.ok()) st = cd::preload_transfer_kernels();  // flag kernels: before any kernel spins on a flag
  if (st.ok()) st = cd::preload_kernel(route_meta_kernel);
  if (st.ok()) st = cd::preload_kernel(dispatch_kernel);
  if (st.ok()) st = cd::preload_kernel(swiglu_kernel);
  if (st.ok()) st = cd::preload_kernel(combine_kernel);
  if (st.ok() && kIlp) st = cd::preload_kernel(permute_ilp_kernel);
  if (st.ok() && kIlp) st = cd::preload_kernel(combine_ilp_kernel);
  if (st.ok()) st = cd::preload_kernel(cd::detail::fp8_pack_rows_kernel);
  if (st.ok()) st = cd::preload_kernel(cd::detail::fp8_unpack_rows_kernel);
  if (!st.ok()) return st;
  if (kHostCounts)  // collective, every rank: loads NCCL's all-gather before any iteration
    CUCO_NCCL_CHECK(ncclAllGather(s->cnt, s->all_cnt, static_cast<size_t>(E), ncclInt32, ctx.comm, ctx.stream));
  CUCO_CUDA_CHECK(cudaDeviceSynchronize());
  return cuco::Status::Ok();
}

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  const uint32_t e = ++s->epoch;
  const int W = s->W, r = s->rank;
  const int64_t T = s->T, H = s->H, K = s->K, epr = s->epr, E = epr * W;
  const auto* ids = static_cast<const int32_t*>(io.in("topk_ids").ptr);
  cudaStream_t ms = ctx.stream;
  const bool overlap = !kSequential && !kPart_;
  cudaStream_t comm0 = overlap ? ctx.side_stream(0) : ms;  // dispatch (and nccl's return)
  cudaStream_t comm1 = overlap ? ctx.side_stream(1) : ms;  // ce's return copies
  cudaStream_t comb = overlap ? ctx.side_stream(2) : ms;   // combine

  // Routing metadata; counts exchanged and read on the host (host counts only).
  route_meta_kernel<<<static_cast<unsigned>(E), 1024, 0, ms>>>(ids, T, static_cast<int>(K), s->pos, s->cnt);
  CUCO_CHECK_LAUNCH();
  if (s->fp8 && !kPartCompute)  // wire rows for the peers, the round trip for the own rows
    CUCO_CUDA_CHECK(cd::fp8_pack_rows(ms, static_cast<const bf16*>(io.in("x").ptr), T, H, s->x_wire, s->x_rt));
  if (kHostCounts) {
    CUCO_NCCL_CHECK(ncclAllGather(s->cnt, s->all_cnt, static_cast<size_t>(E), ncclInt32, ctx.comm, ms));
    CUCO_CUDA_CHECK(cudaMemcpyAsync(s->host_cnt, s->all_cnt, static_cast<size_t>(W * E) * sizeof(int32_t),
                                    cudaMemcpyDeviceToHost, ms));
    CUCO_CUDA_CHECK(cudaStreamSynchronize(ms));
  }

  if constexpr (kPartComm) {  // the two all-to-all-v alone
    cuco::Status st = pack_remote(ctx, *s, io, ms);
    if (st.ok() && W > 1) st = nccl_exchange(ctx, *s, 0, false, ms);
    if (st.ok() && W > 1) st = nccl_exchange(ctx, *s, 0, true, ms);
    return st;
  }
  if constexpr (kPartCompute) {  // every block's FFN alone
    for (int64_t le = 0; le < epr; ++le)
      for (int src = 0; src < W; ++src) {
        cuco::Status st = ffn_block(*s, io, ms, le, src, 0);
        if (!st.ok()) return st;
      }
    return cuco::Status::Ok();
  }

  // Dispatch: own rows locally on ctx.stream; remote rows on comm0, chunk by chunk.
  cuco::Status st = pack_local(ctx, *s, io, ms);
  if (!st.ok()) return st;
  if (W > 1) {
    if (comm0 != ms) cd::follow(ctx, comm0, ms, kFollowEvent);  // after the metadata (and counts)
    if (!kViaLsa) {
      st = pack_remote(ctx, *s, io, comm0);
      if (!st.ok()) return st;
    }
    for (int c = 0; c < kC; ++c) {
      if constexpr (kViaNccl) {
        st = nccl_exchange(ctx, *s, c, false, comm0);
        if (!st.ok()) return st;
        ctx.record_event(kEvDisp + c, comm0);
      } else if constexpr (kViaCe) {
        for (int j = 1; j < W; ++j) {
          const int d = (r + j) % W;
          for (int64_t le = 0; le < epr; ++le) {
            const int64_t n = s->rows(s->count(r, d * epr + le), c);
            if (n <= 0) continue;
            const bf16* src = s->tsend + static_cast<size_t>((d * epr + le) * T + c * s->R) * s->trow;
            bf16* dst = reinterpret_cast<bf16*>(s->fp8 ? s->trecv_p.at(d) : s->recv_p.at(d)) + s->tblock(le, r, c * s->R);
            st = cd::ce_copy(comm0, dst, src, static_cast<size_t>(n * s->trow) * sizeof(bf16));
            if (!st.ok()) return st;
          }
          st = cd::signal_flag(ctx, comm0, s->disp_flag(d, r, c), e, kWait);
          if (!st.ok()) return st;
        }
      } else {
        DispatchArgs a = dispatch_args(*s, io, true);
        a.le_stride = W * T;
        a.dest_mask = ((1u << W) - 1u) & ~(1u << r);
        a.p0 = c * s->R;
        a.p1 = c * s->R + s->seg(c);
        for (int d = 0; d < W; ++d) {
          if (d == r) continue;
          a.base[d] = reinterpret_cast<uint4*>((s->fp8 ? s->trecv_p.at(d) : s->recv_p.at(d)) + s->tblock(0, r, 0) * sizeof(bf16));
          a.flag[d] = s->disp_flag(d, r, c);
        }
        a.arrivals = s->arrivals + c;
        a.epoch = e;
        a.launch_index = e;
        st = launch_dispatch(comm0, a, kCommCtas);
        if (!st.ok()) return st;
      }
    }
  }

  // FFNs chunk-major, own block first; each remote block's outputs go back as soon as they exist;
  // chunk c's combine follows. (interleaved: its own order, run_interleaved.)
  for (int c = 0; c < kC && !kInterleaved; ++c) {
    for (int j = 0; j < W; ++j) {
      const int src = (r + j) % W;
      if (src != r) {  // src's rows of chunk c must have arrived
        if constexpr (kViaNccl) {
          if (j == 1) ctx.wait_event(ms, kEvDisp + c);
        } else {
          st = cd::wait_flag(ctx, ms, s->disp_flag(r, src, c), e, kWait);
          if (!st.ok()) return st;
        }
        st = unpack_arrived(*s, ms, src, c);
        if (!st.ok()) return st;
      }
      for (int64_t le = 0; le < epr; ++le) {
        st = ffn_block(*s, io, ms, le, src, c);
        if (!st.ok()) return st;
      }
      if (src == r) continue;
      if constexpr (kViaCe) {  // outputs back into src's ret blocks, then src's flag
        if (comm1 != ms) cd::follow(ctx, comm1, ms, kFollowEvent);
        for (int64_t le = 0; le < epr; ++le) {
          st = return_block_ce(*s, comm1, le, src, c);
          if (!st.ok()) return st;
        }
        st = cd::signal_flag(ctx, comm1, s->ret_flag(src, r, c), e, kWait);
        if (!st.ok()) return st;
      } else if constexpr (kViaLsa) {  // src pulls them: tell it they are done
        st = cd::signal_flag(ctx, ms, s->ret_flag(src, r, c), e, kWait);
        if (!st.ok()) return st;
      }
    }
    if constexpr (kViaNccl) {
      if (W > 1) {
        if (comm0 != ms) cd::follow(ctx, comm0, ms, kFollowEvent);
        st = nccl_exchange(ctx, *s, c, true, comm0);
        if (!st.ok()) return st;
      }
    }
    // Combine tokens [c R, c R + seg(c)): their rows are in chunks <= c of every block.
    if (comb != ms) cd::follow(ctx, comb, ms, kFollowEvent);
    if constexpr (kViaNccl) {
      if (comb != comm0 && W > 1) cd::follow(ctx, comb, comm0, kFollowEvent);
    } else {
      for (int j = 1; j < W; ++j) {
        st = cd::wait_flag(ctx, comb, s->ret_flag(r, (r + j) % W, c), e, kWait);
        if (!st.ok()) return st;
      }
    }
    const int64_t ctas = c == kC - 1 || comb == ms ? int64_t{ctx.sm_count} * 8 : int64_t{kCommCtas};
    st = launch_combine(*s, io, comb, c * s->R, c * s->R + s->seg(c), ctas);
    if (!st.ok()) return st;
  }
  if constexpr (kInterleaved) return run_interleaved(ctx, *s, io, e);
  return cuco::Status::Ok();
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  s->ffn.destroy();
  if (!s->symmetric)
    for (void* p : {static_cast<void*>(s->recv), static_cast<void*>(s->out), static_cast<void*>(s->ret)})
      if (p) cudaFree(p);
  if (s->fp8 && !s->symmetric && s->trecv) cudaFree(s->trecv);
  for (void* p : {static_cast<void*>(s->x_wire), static_cast<void*>(s->x_rt)})
    if (p) cudaFree(p);
  for (void* p : {static_cast<void*>(s->send), static_cast<void*>(s->pos), static_cast<void*>(s->cnt),
                  static_cast<void*>(s->all_cnt), static_cast<void*>(s->arrivals)})
    if (p) cudaFree(p);
  if (s->host_cnt) cudaFreeHost(s->host_cnt);
  delete s;  // symmetric buffers are the harness's
}
// EVOLVE-BLOCK-END
