// attention_cp candidate file. seed.cu is the honest host-driven baseline; generation 0 of the
// search (gen0.cu) is composed from cuco's co-design blocks (cuco/codesign.h,
// cuco/codesign/attention.h).
//
// Context-parallel attention on W ranks. The sequence of S tokens is sharded contiguously: rank r
// holds tokens [r L, (r+1) L), L = S / W, as q [L][HQ][D], k [L][HKV][D], v [L][HKV][D] (bf16,
// token-major, dense; D = 128) and must produce o [L][HQ][D] (bf16): its queries attending to the
// keys of ALL ranks, softmax(q k^T / sqrt(D)) v, with GQA (query head h reads KV head
// h / (HQ / HKV)) and, when CAUSAL = 1, only keys at global positions <= the query's.
//
// Only the code inside the EVOLVE block (between its two marker comments) may change; everything
// else, these includes in particular, is frozen and the same in every candidate of this workload.
// The harness contract is runtime/include/cuco/harness.h.
#include <cuco/harness.h>
#include <cuco/codesign.h>
#include <cuco/codesign/attention.h>
#include <cuco/codesign/cudnn_attention.h>

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
// Generation 0: ring attention. Step t (0..W-1) attends the K/V block of rank src = (r - t) mod W
// (keys at global positions [src L, (src+1) L)) into an fp32 running output and LSE
// (attention_forward with accumulate = t > 0), while the block for step t+1 travels; a final
// attention_merge(acc, empty) writes the bf16 output. Step 0 is the rank's own block: no wait.
// CAUSAL: blocks wholly in the future (src > r) are neither moved nor attended, so rank r attends
// r + 1 blocks (the diagonal one masked, the others unmasked); rank W-1 does the most work (no
// load balancing yet: with the contiguous input layout that needs moving queries or outputs
// between ranks, left to the search). A rank with a single block writes bf16 directly.
//
// ZIGZAG (strategy = zigzag, causal): load balancing. With contiguous shards rank r attends
// r + 1/2 blocks' worth of keys, so rank W-1 sets the pace. Query chunk c (L/2 tokens, global
// order, held by rank c/2) is computed by rank z(c) = c < W ? c : 2W-1-c, so every rank computes
// chunks r and 2W-1-r: 2W half-chunk units each, the same everywhere. NCCL on a side stream
// all-gathers K and V, then moves the query chunks to the ranks computing them; a rank's
// chunk whose keys are all its own (rank 0's first) is attended meanwhile; the foreign outputs go
// back to their owners' output buffers in a final group. Non-causal: the sequential scheme (the
// work is balanced already). With backend = ce the same moves are copy-engine pushes into
// per-source slots of symmetric buffers, each released by a flag: K and V into every peer's
// gathered K/V (own block copied locally), a query chunk into the computing rank's slot, an
// output into its owner's slot (the owner copies it into its output). No NCCL call on any stream.
//
// Knobs (workload.toml [[knobs]]):
//   strategy  ring | sequential (the seed's all-gather, then one attention) | zigzag (above)
//   backend   how a K/V block travels in the ring (zigzag: how every move travels, above):
//             nccl  ncclSend / ncclRecv to the neighbours on a side stream, forwarded hop by hop
//                   through two receive buffers (step t+1's block arrives while step t attends)
//             ce    copy engine: every rank pushes its own block directly into a per-source slot of
//                   each peer that needs it (ring order: the peer that needs it first goes first),
//                   then releases the peer's flag; the attention stream waits on the flag
//   wait_mode spin | wait_value (ce: how the attention stream waits for a flag)
//   kernel    cudnn (cuDNN's fused SDPA, codesign/cudnn_attention.h) | cuco (attention.h's kernel)
//   zig_first foreign | held (zigzag ce: which of a rank's chunks goes first after one whose keys
//             are all local: the one whose output travels home, or the one whose queries are here)
//   zig_pieces 1 | 2 | 4 (zigzag ce: a foreign chunk attended in that many query pieces, each
//             pushed home once done, so only the last piece's push is left after the attention)
//   comm_priority, block_m (attention CTA rows, kernel = cuco), part (bench only: compute alone =
//   the ring's attention launches on the local block; comm alone = the strategy's transfers alone).
namespace {

namespace cd = cuco::codesign;

constexpr const char* kStrategy = "ring";       // cuco:knob strategy
constexpr const char* kBackend = "nccl";        // cuco:knob backend
constexpr const char* kWaitMode = "spin";       // cuco:knob wait_mode
constexpr const char* kCommPriority = "high";   // cuco:knob comm_priority
constexpr int kBlockM = 128;                    // cuco:knob block_m
constexpr const char* kKernel = "cudnn";        // cuco:knob kernel
constexpr const char* kZigFirst = "foreign";    // cuco:knob zig_first
constexpr int kZigPieces = 1;                   // cuco:knob zig_pieces
constexpr const char* kPart = "none";           // cuco:knob part

constexpr bool kSequential = cd::text_is(kStrategy, "sequential");
constexpr bool kZigzag = cd::text_is(kStrategy, "zigzag");
static_assert(kSequential || kZigzag || cd::text_is(kStrategy, "ring"), "unknown strategy");
constexpr bool kPartCompute = cd::text_is(kPart, "compute");
constexpr bool kPartComm = cd::text_is(kPart, "comm");
constexpr bool kViaNccl = cd::text_is(kBackend, "nccl");
constexpr bool kViaCe = cd::text_is(kBackend, "ce");
constexpr bool kCudnn = cd::text_is(kKernel, "cudnn");
static_assert(kCudnn || cd::text_is(kKernel, "cuco"), "unknown kernel");
static_assert(kViaNccl || kViaCe, "unknown backend");
constexpr bool kZigHeldFirst = cd::text_is(kZigFirst, "held");
static_assert(kZigHeldFirst || cd::text_is(kZigFirst, "foreign"), "unknown zig_first");
static_assert(kZigPieces >= 1, "zig_pieces must be at least 1");
constexpr cd::WaitMode kWait = cd::wait_mode_from(kWaitMode);
constexpr int kD = 128;
constexpr int kEvRecv = 0;    // + t: step t's block has arrived (nccl)
constexpr int kEvAttn = 16;   // + t: step t's attention is done (nccl: its buffer may be reused)
constexpr int kEvStart = 40;  // the iteration's start on ctx.stream

struct State {
  int64_t s = 0, l = 0, hq = 0, hkv = 0;
  size_t block = 0;  // elements of one rank's K (or V) block: L * HKV * D
  bool causal = true;
  int rank = 0, w = 1;
  uint32_t epoch = 0;
  __nv_bfloat16* k_all = nullptr;  // sequential: [S][HKV][D]
  __nv_bfloat16* v_all = nullptr;
  __nv_bfloat16* ring_k[2] = {nullptr, nullptr};  // nccl ring: receive buffers, step t uses [t % 2]
  __nv_bfloat16* ring_v[2] = {nullptr, nullptr};
  float* acc = nullptr;  // [L][HQ][D] fp32 running output
  float* lse = nullptr;  // [HQ][L]
  ncclDevComm dev_comm{};
  cd::PeerBuffer slots;  // ce: K slots [W][block], then V slots [W][block]: slot q = rank q's block
  cd::PeerBuffer flags;  // ce: W epochs: flag q = rank q's block has arrived
  cd::CudnnAttention* cudnn = nullptr;  // kernel = cudnn
  __nv_bfloat16* zig_q[2] = {nullptr, nullptr};  // zigzag: the query chunks received (chunk r, 2W-1-r)
  __nv_bfloat16* zig_o[2] = {nullptr, nullptr};  // zigzag: their outputs, before they go home
  // zigzag nccl: the outgoing query chunks and the incoming outputs in plain device memory (the
  // harness's q and o are NCCL windows; send/recv between a window and cudaMalloc memory hung on
  // 2x H200, NCCL 2.28.9, while cudaMalloc on both sides ran).
  __nv_bfloat16* zig_sq[2] = {nullptr, nullptr};
  __nv_bfloat16* zig_ro[2] = {nullptr, nullptr};
  size_t zig_chunk_bytes = 0;   // zigzag: one query (or output) chunk
  size_t zig_q_off = 0;         // zigzag ce: in slots, the 2 received query chunks, then
  size_t zig_o_off = 0;         //   the 2 outputs of this rank's own chunks computed elsewhere
};

// zigzag ce: flag indices in State::flags (K/V of rank q; query chunk i arrived; output j arrived).
int zig_flag_kv(int q) { return q; }
int zig_flag_q(int w, int i) { return w + i; }
int zig_flag_o(int w, int j) { return w + 2 + j; }

// zigzag: the rank that computes query chunk c (of 2W), and the number of tokens in a chunk.
int zig_rank(int c, int w) { return c < w ? c : 2 * w - 1 - c; }
bool zigzag_on(const State& s) { return kZigzag && s.causal && s.w > 1; }
// zigzag: chunk c's queries and output live on this rank (held), whichever rank computes it.
bool zig_held(const State& s, int c) { return c / 2 == s.rank; }
// zigzag: chunk c can be attended before any key arrives: held here, and its keys [0, (c+1) L/2)
// all this rank's own (only rank 0's first chunk).
bool zig_early(const State& s, int c) { return zig_held(s, c) && (c + 1) * (s.l / 2) <= (s.rank + 1) * s.l && s.rank == 0; }

// One attention_forward with the chosen kernel.
cuco::Status forward(const State& s, const cd::AttentionArgs& a, cudaStream_t stream) {
  return kCudnn ? s.cudnn->forward(a, stream) : cd::attention_forward(a, stream);
}

// The local queries (at global position rank L) over the keys k, v ([sk][HKV][D], key 0 at k_offset).
cd::AttentionArgs args_for(const State& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                           int64_t sk, int64_t k_offset, bool causal) {
  cd::AttentionArgs a;
  a.q = q;
  a.k = k;
  a.v = v;
  a.sq = s.l;
  a.sk = sk;
  a.hq = static_cast<int>(s.hq);
  a.hkv = static_cast<int>(s.hkv);
  a.causal = causal;
  a.q_offset = static_cast<int64_t>(s.rank) * s.l;
  a.k_offset = k_offset;
  a.block_m = kBlockM;
  return a;
}

// Attention of the local queries over rank src's block (k, v) as ring step `step` of `n_steps`.
cuco::Status attend(const State& s, cudaStream_t stream, const __nv_bfloat16* q, const __nv_bfloat16* k,
                    const __nv_bfloat16* v, int src, int step, int n_steps, void* out) {
  // Earlier blocks are wholly visible; only the diagonal one is masked.
  cd::AttentionArgs a = args_for(s, q, k, v, s.l, static_cast<int64_t>(src) * s.l, s.causal && src == s.rank);
  if (n_steps == 1) {
    a.o = out;
    a.o_dtype = cd::AttnDtype::kBf16;
    return forward(s, a, stream);
  }
  a.o = s.acc;
  a.lse = s.lse;
  a.o_dtype = cd::AttnDtype::kFp32;
  a.accumulate = step > 0;
  cuco::Status st = forward(s, a, stream);
  if (!st.ok() || step + 1 < n_steps) return st;
  cd::AttnPartial acc;
  acc.o = s.acc;
  acc.dtype = cd::AttnDtype::kFp32;
  acc.lse = s.lse;
  return cd::attention_merge(stream, s.l, static_cast<int>(s.hq), kD, acc, cd::AttnPartial{}, out, cd::AttnDtype::kBf16,
                             nullptr);
}

// The seed's single attention: the local queries over all S keys (k, v: [S][HKV][D]).
cd::AttentionArgs sequential_args(const State& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                  void* o) {
  cd::AttentionArgs a = args_for(s, q, k, v, s.s, 0, s.causal);
  a.o = o;
  return a;
}

// zigzag: rows [q0, q1) of query chunk c (L/2 tokens at global position c L/2; q, o: the chunk's
// row 0) over every key before row q1 - 1 (k, v: the gathered [S][HKV][D]).
cd::AttentionArgs zigzag_piece_args(const State& s, int c, int64_t q0, int64_t q1, const __nv_bfloat16* q,
                                    const __nv_bfloat16* k, const __nv_bfloat16* v, void* o) {
  const int64_t h = s.l / 2;
  const size_t row = static_cast<size_t>(s.hq) * kD;
  cd::AttentionArgs a = args_for(s, q + q0 * row, k, v, c * h + q1, 0, true);
  a.sq = q1 - q0;
  a.q_offset = c * h + q0;
  a.o = static_cast<__nv_bfloat16*>(o) + q0 * row;
  return a;
}
// zigzag: the whole query chunk c.
cd::AttentionArgs zigzag_args(const State& s, int c, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                              void* o) {
  return zigzag_piece_args(s, c, 0, s.l / 2, q, k, v, o);
}
// zigzag ce: the query pieces chunk c is attended in (zig_pieces when its output travels home,
// else 1); piece p holds rows [h p / n, h (p+1) / n) of the chunk's h rows.
int zig_pieces_of(const State& s, int c) { return zig_held(s, c) ? 1 : kZigPieces; }
// zigzag: the last rank whose keys query chunk c reads (its keys are [0, (c+1) L/2)).
int zig_last_src(const State& s, int c) { return static_cast<int>(((c + 1) * (s.l / 2) - 1) / s.l); }

// zigzag with backend = ce (see the top comment). The harness's barrier at the iteration start orders
// every push after the peer's previous iteration. part = compute: the attention launches alone, on
// whatever the slots hold; part = comm: the moves and waits alone.
cuco::Status zigzag_ce(cuco::RankContext& ctx, State& s, const __nv_bfloat16* q, const __nv_bfloat16* k_in,
                       const __nv_bfloat16* v_in, __nv_bfloat16* out) {
  const int w = s.w, r = s.rank;
  const uint32_t e = ++s.epoch;
  const size_t block_bytes = s.block * sizeof(__nv_bfloat16), cb = s.zig_chunk_bytes;
  const size_t chunk = cb / sizeof(__nv_bfloat16);
  const int mine[2] = {r, 2 * w - 1 - r};
  auto held = [&](int c) { return zig_held(s, c); };
  auto local_q = [&](int c) { return q + static_cast<size_t>(c - 2 * r) * chunk; };
  auto peer_flag = [&](int p, int i) { return reinterpret_cast<uint32_t*>(s.flags.at(p)) + i; };
  const auto* my_flags = static_cast<const uint32_t*>(s.flags.local.ptr);
  cudaStream_t side = ctx.side_stream(0);
  cuco::Status st;
  if (!kPartCompute) {  // 1. K and V to every peer (nearest first), query chunks to the ranks computing them
    cd::follow(ctx, side, ctx.stream, kEvStart);
    for (int i = 1; i < w && st.ok(); ++i) {
      const int p = (r + i) % w;
      st = cd::ce_copy(side, s.slots.at(p, static_cast<size_t>(r) * block_bytes), k_in, block_bytes);
      if (st.ok())
        st = cd::ce_copy_signal(ctx, side, s.slots.at(p, (static_cast<size_t>(w) + r) * block_bytes), v_in, block_bytes,
                                peer_flag(p, zig_flag_kv(r)), e, kWait);
    }
    for (int c = 2 * r; c < 2 * r + 2 && st.ok(); ++c) {
      const int p = zig_rank(c, w);
      if (p == r) continue;
      const int i = c == p ? 0 : 1;  // which of p's two chunks
      st = cd::ce_copy_signal(ctx, side, s.slots.at(p, s.zig_q_off + i * cb), local_q(c), cb, peer_flag(p, zig_flag_q(w, i)), e, kWait);
    }
    if (!st.ok()) return st;
  }
  // 2. The own block into the gathered K/V, then this rank's two chunks: one whose keys are all
  // local first, then foreign before held (zig_first = foreign: a foreign output travels home
  // while the held chunk is attended) or held first (held: only K/V to wait for, no query chunk).
  // Each chunk waits only for the K/V blocks its keys reach; a foreign chunk is attended in
  // zig_pieces query pieces, each pushed home once done (the flag after the last).
  CUCO_CUDA_CHECK(cudaMemcpyAsync(s.k_all + static_cast<size_t>(r) * s.block, k_in, block_bytes,
                                  cudaMemcpyDeviceToDevice, ctx.stream));
  CUCO_CUDA_CHECK(cudaMemcpyAsync(s.v_all + static_cast<size_t>(r) * s.block, v_in, block_bytes,
                                  cudaMemcpyDeviceToDevice, ctx.stream));
  auto turn = [&](int i) { return zig_early(s, mine[i]) ? 0 : held(mine[i]) == kZigHeldFirst ? 1 : 2; };
  const int order[2] = {turn(1) < turn(0) ? 1 : 0, turn(1) < turn(0) ? 0 : 1};
  std::vector<bool> have_kv(w, kPartCompute);  // rank p's K/V waited for
  have_kv[r] = true;
  const int64_t h = s.l / 2;
  const size_t row_bytes = static_cast<size_t>(s.hq) * kD * sizeof(__nv_bfloat16);
  for (const int i : order) {
    const int c = mine[i];
    const bool early = zig_early(s, c);
    for (int p = 0; !early && p <= zig_last_src(s, c) && st.ok(); ++p)
      if (!have_kv[p]) st = cd::wait_flag(ctx, ctx.stream, my_flags + zig_flag_kv(p), e, kWait), have_kv[p] = true;
    if (!held(c) && !kPartCompute && st.ok()) st = cd::wait_flag(ctx, ctx.stream, my_flags + zig_flag_q(w, i), e, kWait);
    if (!st.ok()) return st;
    const __nv_bfloat16* qc = held(c) ? local_q(c) : s.zig_q[i];
    void* oc = held(c) ? static_cast<void*>(out + static_cast<size_t>(c - 2 * r) * chunk) : s.zig_o[i];
    const int n = zig_pieces_of(s, c);
    for (int piece = 0; piece < n; ++piece) {
      const int64_t q0 = h * piece / n, q1 = h * (piece + 1) / n;
      if (!kPartComm) {
        st = forward(s, zigzag_piece_args(s, c, q0, q1, qc, early ? k_in : s.k_all, early ? v_in : s.v_all, oc),
                     ctx.stream);
        if (!st.ok()) return st;
      }
      if (held(c) || kPartCompute) continue;
      const int owner = c / 2, j = c - 2 * owner;  // which of the owner's two chunks
      cd::follow(ctx, side, ctx.stream, kEvAttn + i);
      void* dst = s.slots.at(owner, s.zig_o_off + j * cb + q0 * row_bytes);
      const void* src = reinterpret_cast<const char*>(s.zig_o[i]) + q0 * row_bytes;
      const size_t bytes = (q1 - q0) * row_bytes;
      st = piece + 1 < n ? cd::ce_copy(side, dst, src, bytes)
                         : cd::ce_copy_signal(ctx, side, dst, src, bytes, peer_flag(owner, zig_flag_o(w, j)), e, kWait);
      if (!st.ok()) return st;
    }
  }
  // 3. This rank's chunks computed elsewhere: wait for each, copy it into the output (not in
  // part = compute).
  for (int c = 2 * r; c < 2 * r + 2 && !kPartCompute; ++c) {
    if (zig_rank(c, w) == r) continue;
    const int j = c - 2 * r;
    st = cd::wait_flag(ctx, ctx.stream, my_flags + zig_flag_o(w, j), e, kWait);
    if (!st.ok()) return st;
    CUCO_CUDA_CHECK(cudaMemcpyAsync(out + static_cast<size_t>(j) * chunk,
                                    static_cast<const char*>(s.slots.local.ptr) + s.zig_o_off + j * cb, cb,
                                    cudaMemcpyDeviceToDevice, ctx.stream));
  }
  return cuco::Status::Ok();
}

// kernel = cudnn: runs this rank's attention calls once on zeros, so that cuDNN builds its graphs
// and loads its kernels here, never while a kernel spins on a flag.
cuco::Status warm_cudnn(const State& s, cudaStream_t stream) {
  const bool ring = !kSequential && !kZigzag && s.w > 1;
  const size_t qn = static_cast<size_t>(s.l * s.hq * kD), kvn = ring ? s.block : s.block * s.w;
  __nv_bfloat16 *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
  CUCO_CUDA_CHECK(cudaMalloc(&q, qn * sizeof(__nv_bfloat16)));
  CUCO_CUDA_CHECK(cudaMalloc(&o, qn * sizeof(__nv_bfloat16)));
  CUCO_CUDA_CHECK(cudaMalloc(&k, kvn * sizeof(__nv_bfloat16)));
  CUCO_CUDA_CHECK(cudaMalloc(&v, kvn * sizeof(__nv_bfloat16)));
  for (void* p : {static_cast<void*>(q), static_cast<void*>(k), static_cast<void*>(v)})
    CUCO_CUDA_CHECK(cudaMemset(p, 0, (p == q ? qn : kvn) * sizeof(__nv_bfloat16)));
  cuco::Status st;
  if (ring) {
    const int n_steps = s.causal ? s.rank + 1 : s.w;
    for (int t = 0; t < n_steps && st.ok(); ++t) st = attend(s, stream, q, k, v, (s.rank - t + s.w) % s.w, t, n_steps, o);
  } else if (zigzag_on(s)) {
    for (int c : {s.rank, 2 * s.w - 1 - s.rank}) {
      const int n = kViaCe ? zig_pieces_of(s, c) : 1;  // the shapes zigzag_ce launches
      for (int piece = 0; piece < n && st.ok(); ++piece)
        st = forward(s, zigzag_piece_args(s, c, s.l / 2 * piece / n, s.l / 2 * (piece + 1) / n, q, k, v, o), stream);
    }
  } else {
    st = forward(s, sequential_args(s, q, k, v, o), stream);
  }
  CUCO_CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaFree(q);
  cudaFree(o);
  cudaFree(k);
  cudaFree(v);
  return st;
}

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  s->s = sizes.get("S");
  s->hq = sizes.get("HQ");
  s->hkv = sizes.get("HKV");
  s->causal = sizes.get("CAUSAL") != 0;
  s->rank = ctx.rank;
  s->w = ctx.world_size;
  if (sizes.get("D") != kD) return cuco::Status::Error("D must be 128");
  if (s->s % s->w != 0) return cuco::Status::Error("S must be divisible by the world size");
  s->l = s->s / s->w;
  s->block = static_cast<size_t>(s->l * s->hkv * kD);
  if (kCudnn) s->cudnn = new cd::CudnnAttention();
  const size_t block_bytes = s->block * sizeof(__nv_bfloat16);
  const bool ring = !kSequential && !kZigzag && s->w > 1;
  if (zigzag_on(*s)) {
    if (s->l % 2 != 0) return cuco::Status::Error("strategy zigzag needs an even number of tokens per rank (S / W)");
    const size_t chunk_bytes = static_cast<size_t>(s->l / 2 * s->hq * kD) * sizeof(__nv_bfloat16);
    s->zig_chunk_bytes = chunk_bytes;
    if (kViaCe) {  // slots: K [W][block], V [W][block], 2 query chunks in, 2 outputs in
      ncclDevCommRequirements reqs;
      std::memset(&reqs, 0, sizeof reqs);
      reqs.lsaBarrierCount = 1;
      cuco::Status st = ctx.create_dev_comm(reqs, &s->dev_comm);  // collective
      s->zig_q_off = 2 * block_bytes * s->w;
      s->zig_o_off = s->zig_q_off + 2 * chunk_bytes;
      if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, s->zig_o_off + 2 * chunk_bytes, &s->slots);
      if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, sizeof(uint32_t) * (s->w + 4), &s->flags);
      if (st.ok()) st = cd::preload_flag_kernels();  // before any kernel spins on a flag
      if (!st.ok()) return st;
      char* base = static_cast<char*>(s->slots.local.ptr);
      s->k_all = reinterpret_cast<__nv_bfloat16*>(base);
      s->v_all = reinterpret_cast<__nv_bfloat16*>(base + block_bytes * s->w);
      for (int i = 0; i < 2; ++i) {
        s->zig_q[i] = reinterpret_cast<__nv_bfloat16*>(base + s->zig_q_off + i * chunk_bytes);
        CUCO_CUDA_CHECK(cudaMalloc(&s->zig_o[i], chunk_bytes));
      }
    } else {
      for (int i = 0; i < 2; ++i) {
        CUCO_CUDA_CHECK(cudaMalloc(&s->zig_q[i], chunk_bytes));
        CUCO_CUDA_CHECK(cudaMalloc(&s->zig_o[i], chunk_bytes));
        CUCO_CUDA_CHECK(cudaMalloc(&s->zig_sq[i], chunk_bytes));
        CUCO_CUDA_CHECK(cudaMalloc(&s->zig_ro[i], chunk_bytes));
        CUCO_CUDA_CHECK(cudaMemset(s->zig_q[i], 0, chunk_bytes));  // part = compute attends these as they are
      }
    }
    ctx.side_stream(0, cd::text_is(kCommPriority, "high") ? -100 : 0);
  }
  if (!ring && !(zigzag_on(*s) && kViaCe)) {
    CUCO_CUDA_CHECK(cudaMalloc(&s->k_all, block_bytes * s->w));
    CUCO_CUDA_CHECK(cudaMalloc(&s->v_all, block_bytes * s->w));
    CUCO_CUDA_CHECK(cudaMemset(s->k_all, 0, block_bytes * s->w));  // part = compute attends these as they are
    CUCO_CUDA_CHECK(cudaMemset(s->v_all, 0, block_bytes * s->w));
  } else if (ring) {  // (zigzag ce has its slots and flags from above: never replace them here)
    const size_t acc_elems = static_cast<size_t>(s->l * s->hq * kD);
    CUCO_CUDA_CHECK(cudaMalloc(&s->acc, acc_elems * sizeof(float)));
    CUCO_CUDA_CHECK(cudaMalloc(&s->lse, static_cast<size_t>(s->hq * s->l) * sizeof(float)));
    if (kViaNccl) {
      for (int i = 0; i < 2; ++i) {
        CUCO_CUDA_CHECK(cudaMalloc(&s->ring_k[i], block_bytes));
        CUCO_CUDA_CHECK(cudaMalloc(&s->ring_v[i], block_bytes));
      }
    } else {
      ncclDevCommRequirements reqs;
      std::memset(&reqs, 0, sizeof reqs);
      reqs.lsaBarrierCount = 1;
      cuco::Status st = ctx.create_dev_comm(reqs, &s->dev_comm);  // collective
      if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, 2 * block_bytes * s->w, &s->slots);
      if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, sizeof(uint32_t) * s->w, &s->flags);
      if (st.ok()) st = cd::preload_flag_kernels();  // before any kernel spins on a flag
      if (!st.ok()) return st;
    }
    ctx.side_stream(0, cd::text_is(kCommPriority, "high") ? -100 : 0);
  }
  // Load the attention kernels now (flags.h: lazy loading must not happen while a kernel spins).
  {
    __nv_bfloat16* dummy = nullptr;
    float* dummy_f = nullptr;
    const size_t n = static_cast<size_t>(s->hq * kD);
    CUCO_CUDA_CHECK(cudaMalloc(&dummy, n * sizeof(__nv_bfloat16)));
    CUCO_CUDA_CHECK(cudaMalloc(&dummy_f, (n + s->hq) * sizeof(float)));
    CUCO_CUDA_CHECK(cudaMemset(dummy, 0, n * sizeof(__nv_bfloat16)));
    cd::AttentionArgs a;
    a.q = a.k = a.v = dummy;
    a.o = dummy_f;
    a.lse = dummy_f + n;
    a.o_dtype = cd::AttnDtype::kFp32;
    a.sq = a.sk = 1;
    a.hq = a.hkv = static_cast<int>(s->hq);
    a.block_m = kBlockM;
    cuco::Status st = forward(*s, a, ctx.stream);
    cd::AttnPartial p;
    p.o = dummy_f;
    p.lse = dummy_f + n;
    if (st.ok()) st = cd::attention_merge(ctx.stream, 1, static_cast<int>(s->hq), kD, p, cd::AttnPartial{}, dummy,
                                          cd::AttnDtype::kBf16, nullptr);
    CUCO_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    cudaFree(dummy);
    cudaFree(dummy_f);
    if (!st.ok()) return st;
  }
  if (kCudnn && !kPartComm)
    if (cuco::Status st = warm_cudnn(*s, ctx.stream); !st.ok()) return st;
  CUCO_CUDA_CHECK(cudaDeviceSynchronize());
  return cuco::Status::Ok();
}

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  const auto* q = static_cast<const __nv_bfloat16*>(io.in("q").ptr);
  const auto* k_in = static_cast<const __nv_bfloat16*>(io.in("k").ptr);
  const auto* v_in = static_cast<const __nv_bfloat16*>(io.in("v").ptr);
  void* o = io.out("o").ptr;
  const int w = s->w, r = s->rank;
  const size_t block_bytes = s->block * sizeof(__nv_bfloat16);

  if (zigzag_on(*s)) {
    const int64_t h = s->l / 2;
    const size_t chunk = static_cast<size_t>(h * s->hq * kD);  // elements of one chunk's q (or o)
    const int mine[2] = {r, 2 * w - 1 - r};                     // the chunks this rank computes
    auto held = [&](int c) { return zig_held(*s, c); };
    auto local_q = [&](int c) { return q + static_cast<size_t>(c - 2 * r) * chunk; };
    auto* out = static_cast<__nv_bfloat16*>(o);
    cudaStream_t side = ctx.side_stream(0);
    if (kViaCe) return zigzag_ce(ctx, *s, q, k_in, v_in, out);
    if (!kPartCompute) {  // 1. K and V gathered, query chunks to the ranks that compute them
      cd::follow(ctx, side, ctx.stream, kEvStart);
      CUCO_NCCL_CHECK(ncclGroupStart());
      CUCO_NCCL_CHECK(ncclAllGather(k_in, s->k_all, s->block, ncclBfloat16, ctx.comm, side));
      CUCO_NCCL_CHECK(ncclAllGather(v_in, s->v_all, s->block, ncclBfloat16, ctx.comm, side));
      CUCO_NCCL_CHECK(ncclGroupEnd());
      for (int c = 2 * r; c < 2 * r + 2; ++c)  // outgoing chunks into plain memory first (see State)
        if (zig_rank(c, w) != r)
          CUCO_CUDA_CHECK(cudaMemcpyAsync(s->zig_sq[c - 2 * r], local_q(c), chunk * sizeof(__nv_bfloat16),
                                          cudaMemcpyDeviceToDevice, side));
      CUCO_NCCL_CHECK(ncclGroupStart());
      for (int c = 2 * r; c < 2 * r + 2; ++c)
        if (zig_rank(c, w) != r) CUCO_NCCL_CHECK(ncclSend(s->zig_sq[c - 2 * r], chunk, ncclBfloat16, zig_rank(c, w), ctx.comm, side));
      for (int i = 0; i < 2; ++i)
        if (!held(mine[i])) CUCO_NCCL_CHECK(ncclRecv(s->zig_q[i], chunk, ncclBfloat16, mine[i] / 2, ctx.comm, side));
      CUCO_NCCL_CHECK(ncclGroupEnd());
      ctx.record_event(kEvRecv, side);
    }
    if (kPartComm) {  // the outputs' way home, from whatever the buffers hold
      ctx.wait_event(ctx.stream, kEvRecv);
    } else {
      // 2. A held chunk whose keys are all this rank's own (before the gather lands), then the rest.
      bool waited = kPartCompute;
      for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < 2; ++i) {
          const int c = mine[i];
          const bool early = zig_early(*s, c);
          if (early != (pass == 0)) continue;
          if (!early && !waited) ctx.wait_event(ctx.stream, kEvRecv), waited = true;
          const __nv_bfloat16* qc = held(c) ? local_q(c) : s->zig_q[i];
          void* oc = held(c) ? static_cast<void*>(out + static_cast<size_t>(c - 2 * r) * chunk) : s->zig_o[i];
          // (part = compute: the gather buffers as they are, zeros or the last iteration's keys)
          cuco::Status st = forward(*s, zigzag_args(*s, c, qc, early ? k_in : s->k_all, early ? v_in : s->v_all, oc), ctx.stream);
          if (!st.ok()) return st;
        }
      if (!waited) ctx.wait_event(ctx.stream, kEvRecv);
    }
    if (!kPartCompute) {  // 3. Foreign outputs home, then into their owners' output buffers.
      CUCO_NCCL_CHECK(ncclGroupStart());
      for (int i = 0; i < 2; ++i)
        if (!held(mine[i])) CUCO_NCCL_CHECK(ncclSend(s->zig_o[i], chunk, ncclBfloat16, mine[i] / 2, ctx.comm, ctx.stream));
      for (int c = 2 * r; c < 2 * r + 2; ++c)
        if (zig_rank(c, w) != r)
          CUCO_NCCL_CHECK(ncclRecv(s->zig_ro[c - 2 * r], chunk, ncclBfloat16, zig_rank(c, w), ctx.comm, ctx.stream));
      CUCO_NCCL_CHECK(ncclGroupEnd());
      for (int c = 2 * r; c < 2 * r + 2; ++c)
        if (zig_rank(c, w) != r)
          CUCO_CUDA_CHECK(cudaMemcpyAsync(out + static_cast<size_t>(c - 2 * r) * chunk, s->zig_ro[c - 2 * r],
                                          chunk * sizeof(__nv_bfloat16), cudaMemcpyDeviceToDevice, ctx.stream));
    }
    return cuco::Status::Ok();
  }

  if (kSequential || kZigzag || w == 1) {  // the seed's scheme (zigzag: when not causal)
    if (!kPartCompute && w > 1) {
      CUCO_NCCL_CHECK(ncclGroupStart());
      CUCO_NCCL_CHECK(ncclAllGather(k_in, s->k_all, s->block, ncclBfloat16, ctx.comm, ctx.stream));
      CUCO_NCCL_CHECK(ncclAllGather(v_in, s->v_all, s->block, ncclBfloat16, ctx.comm, ctx.stream));
      CUCO_NCCL_CHECK(ncclGroupEnd());
    }
    if (kPartComm) return cuco::Status::Ok();
    return forward(*s, sequential_args(*s, q, w == 1 ? k_in : s->k_all, w == 1 ? v_in : s->v_all, o), ctx.stream);
  }

  const int n_steps = s->causal ? r + 1 : w;  // step t attends src = (r - t) mod w; causal: t <= r
  auto src_of = [&](int t) { return (r - t + w) % w; };

  if (kPartCompute) {  // the ring's attention launches alone, on the local block
    for (int t = 0; t < n_steps; ++t) {
      cuco::Status st = attend(*s, ctx.stream, q, k_in, v_in, src_of(t), t, n_steps, o);
      if (!st.ok()) return st;
    }
    return cuco::Status::Ok();
  }

  cudaStream_t side = ctx.side_stream(0);
  const int next = (r + 1) % w, prev = (r - 1 + w) % w;

  if (kViaNccl) {
    // Comm step c (0..w-2) sends step c's block to next and receives step c+1's block from prev.
    // Causal: a block is forwarded only while the receiver needs it (src <= receiver).
    auto sends = [&](int c) { return !s->causal || (c <= r && r < w - 1); };
    auto recvs = [&](int c) { return !s->causal || c + 1 <= r; };
    for (int t = 0; t < w; ++t) {
      if (t <= w - 2 && (sends(t) || recvs(t))) {
        // Receiving into buffer (t+1) % 2 overwrites step t-1's block: wait for its attention.
        if (t >= 2 && !kPartComm && t - 1 < n_steps) ctx.wait_event(side, kEvAttn + t - 1);
        if (t == 0 && sends(0)) {  // the own block leaves from plain memory (the harness's k, v are NCCL
          // windows; window-to-cudaMalloc send/recv hung on 2x H200, NCCL 2.28.9). Buffer 0 is free
          // until step 1 receives into it, after this send in stream order.
          CUCO_CUDA_CHECK(cudaMemcpyAsync(s->ring_k[0], k_in, s->block * sizeof(__nv_bfloat16), cudaMemcpyDeviceToDevice, side));
          CUCO_CUDA_CHECK(cudaMemcpyAsync(s->ring_v[0], v_in, s->block * sizeof(__nv_bfloat16), cudaMemcpyDeviceToDevice, side));
        }
        const __nv_bfloat16* sk = s->ring_k[t % 2];
        const __nv_bfloat16* sv = s->ring_v[t % 2];
        CUCO_NCCL_CHECK(ncclGroupStart());
        if (sends(t)) {
          CUCO_NCCL_CHECK(ncclSend(sk, s->block, ncclBfloat16, next, ctx.comm, side));
          CUCO_NCCL_CHECK(ncclSend(sv, s->block, ncclBfloat16, next, ctx.comm, side));
        }
        if (recvs(t)) {
          CUCO_NCCL_CHECK(ncclRecv(s->ring_k[(t + 1) % 2], s->block, ncclBfloat16, prev, ctx.comm, side));
          CUCO_NCCL_CHECK(ncclRecv(s->ring_v[(t + 1) % 2], s->block, ncclBfloat16, prev, ctx.comm, side));
        }
        CUCO_NCCL_CHECK(ncclGroupEnd());
        ctx.record_event(kEvRecv + t + 1, side);
      }
      if (kPartComm || t >= n_steps) continue;
      if (t >= 1) ctx.wait_event(ctx.stream, kEvRecv + t);
      const __nv_bfloat16* k = t == 0 ? k_in : s->ring_k[t % 2];
      const __nv_bfloat16* v = t == 0 ? v_in : s->ring_v[t % 2];
      cuco::Status st = attend(*s, ctx.stream, q, k, v, src_of(t), t, n_steps, o);
      if (!st.ok()) return st;
      ctx.record_event(kEvAttn + t, ctx.stream);
    }
    return cuco::Status::Ok();
  }

  // ce: push this rank's own block into slot r of every peer that needs it, nearest first. The
  // harness's barrier at the iteration start orders this after every peer's previous iteration.
  const uint32_t e = ++s->epoch;
  cd::follow(ctx, side, ctx.stream, kEvStart);  // (the inputs are ready at the iteration's start)
  for (int i = 1; i < w; ++i) {
    const int peer = (r + i) % w;
    if (s->causal && peer < r) continue;  // a block wholly in the peer's future
    char* k_dst = s->slots.at(peer, static_cast<size_t>(r) * block_bytes);
    char* v_dst = s->slots.at(peer, (static_cast<size_t>(w) + r) * block_bytes);
    auto* flag = reinterpret_cast<uint32_t*>(s->flags.at(peer)) + r;
    cuco::Status st = cd::ce_copy(side, k_dst, k_in, block_bytes);
    if (st.ok()) st = cd::ce_copy_signal(ctx, side, v_dst, v_in, block_bytes, flag, e, kWait);
    if (!st.ok()) return st;
  }
  if (kPartComm) {  // wait for every block this rank receives, on the side stream
    for (int t = 1; t < n_steps; ++t) {
      cuco::Status st = cd::wait_flag(ctx, side, static_cast<const uint32_t*>(s->flags.local.ptr) + src_of(t), e, kWait);
      if (!st.ok()) return st;
    }
    return cuco::Status::Ok();
  }
  const auto* slots = static_cast<const __nv_bfloat16*>(s->slots.local.ptr);
  for (int t = 0; t < n_steps; ++t) {
    const int src = src_of(t);
    const __nv_bfloat16* k = k_in;
    const __nv_bfloat16* v = v_in;
    if (t >= 1) {
      cuco::Status st = cd::wait_flag(ctx, ctx.stream, static_cast<const uint32_t*>(s->flags.local.ptr) + src, e, kWait);
      if (!st.ok()) return st;
      k = slots + static_cast<size_t>(src) * s->block;
      v = slots + (static_cast<size_t>(w) + src) * s->block;
    }
    cuco::Status st = attend(*s, ctx.stream, q, k, v, src, t, n_steps, o);
    if (!st.ok()) return st;
  }
  return cuco::Status::Ok();
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  const bool in_slots = s->zig_q_off > 0;  // zigzag ce: k_all, v_all and zig_q live in the slots
  if (s->k_all && !in_slots) cudaFree(s->k_all);
  if (s->v_all && !in_slots) cudaFree(s->v_all);
  for (int i = 0; i < 2; ++i) {
    if (s->ring_k[i]) cudaFree(s->ring_k[i]);
    if (s->ring_v[i]) cudaFree(s->ring_v[i]);
  }
  if (s->acc) cudaFree(s->acc);
  if (s->lse) cudaFree(s->lse);
  for (int i = 0; i < 2; ++i) {
    if (s->zig_q[i] && !in_slots) cudaFree(s->zig_q[i]);
    if (s->zig_sq[i]) cudaFree(s->zig_sq[i]);
    if (s->zig_ro[i]) cudaFree(s->zig_ro[i]);
    if (s->zig_o[i]) cudaFree(s->zig_o[i]);
  }
  delete s->cudnn;
  delete s;  // slots / flags are harness-owned symmetric buffers
}
// EVOLVE-BLOCK-END
