// gemm_allgather candidate file. seed.cu is the honest host-driven baseline; generation 0 of the
// search is composed from cuco's co-design blocks (cuco/codesign.h).
//
// Column-parallel linear layer on W ranks: rank r holds A_r (M/W x K, row-major bf16: rows
// [r M/W, (r+1) M/W) of the full A) and B (K x N, row-major bf16: this rank's column shard of the
// weight), and must produce C = all_gather(A) B = [A_0; A_1; ...; A_{W-1}] B as bf16 (M x N,
// row-major, fp32 accumulation).
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
// Generation 0: the all-gather pipelined under the GEMM.
//
// Rank r first multiplies its own rows of A (already local) while every rank pushes its shard,
// chunk by chunk (kChunks chunks of M/W/kChunks rows), into every peer's gather buffer; then it
// multiplies each peer's rows chunk by chunk as they arrive (peers in ring order r+1, r+2, ...).
// Only chunks that have not arrived by the time the GEMM needs them cost time.
//
// Knobs (workload.toml [[knobs]]): backend = how a shard chunk travels
//   nccl  ncclAllGather of chunk j of every shard on a side stream, into a per-chunk staging buffer
//   ce    copy engine: cudaMemcpyAsync into each peer's window, then a flag per chunk
//   lsa   an SM communication kernel pushes the chunks over NVLink (comm_ctas, issuer, sync_scope)
// chunks, comm_ctas, issuer, sync_scope, wait_mode, comm_priority, gemm_sm_margin as in
// gemm_reducescatter. strategy = sequential is the seed's scheme; part = compute / comm time the
// GEMM alone / the all-gather alone for the overlap bound (cuco bench only).
namespace {

namespace cd = cuco::codesign;

constexpr const char* kStrategy = "push";       // cuco:knob strategy
constexpr const char* kBackend = "ce";          // cuco:knob backend
constexpr int kChunks = 4;                      // cuco:knob chunks
constexpr int kCommCtas = 16;                   // cuco:knob comm_ctas
constexpr const char* kIssuer = "thread";       // cuco:knob issuer
constexpr const char* kSyncScope = "grid";      // cuco:knob sync_scope
constexpr const char* kWaitMode = "spin";       // cuco:knob wait_mode
constexpr const char* kCommPriority = "high";   // cuco:knob comm_priority
constexpr int kGemmSmMargin = 0;                // cuco:knob gemm_sm_margin
constexpr const char* kPart = "none";           // cuco:knob part
constexpr int kGemmAlgos = 1;                   // cuco:knob gemm_algos
constexpr int kWorkspaceMiB = 32;

constexpr bool kSequential = cd::text_is(kStrategy, "sequential");
constexpr bool kPartCompute = cd::text_is(kPart, "compute");
constexpr bool kPartComm = cd::text_is(kPart, "comm");
constexpr bool kViaNccl = cd::text_is(kBackend, "nccl");
constexpr bool kViaCe = cd::text_is(kBackend, "ce");
constexpr bool kViaLsa = cd::text_is(kBackend, "lsa");
static_assert(kViaNccl || kViaCe || kViaLsa, "unknown backend");
constexpr cd::WaitMode kWait = cd::wait_mode_from(kWaitMode);
constexpr int kThreads = 512;
constexpr int kFollowEvent = cuco::RankContext::kMaxEvents - 1;
constexpr int kMaxScopeFlags = 64;

struct State {
  int64_t m = 0, n = 0, k = 0, m_local = 0, rows = 0;
  int w = 1, rank = 0, chunks = 1;
  uint32_t epoch = 0;
  cd::RowMajorGemm gemm;
  ncclDevComm dev_comm{};
  cd::PeerBuffer gather;    // ce / lsa: W slots of M/W x K: slot q holds rank q's shard
  cd::PeerBuffer flags;     // W * chunks * kMaxScopeFlags epochs: (source rank, chunk) arrived
  void* stage = nullptr;    // nccl: chunks x (W x rows x K) staging; sequential / parts: M x K
  uint32_t* arrivals = nullptr;
};

size_t row_offset(const State& s, int block, int chunk) {  // rows
  return static_cast<size_t>(block) * s.m_local + static_cast<size_t>(chunk) * s.rows;
}
int flag_index(const State& s, int source, int chunk) { return (source * s.chunks + chunk) * kMaxScopeFlags; }
int scope_flags() { return cd::text_is(kSyncScope, "grid") ? 1 : kCommCtas; }

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  s->w = ctx.world_size;
  s->rank = ctx.rank;
  s->m = sizes.get("M");
  s->n = sizes.get("N");
  s->k = sizes.get("K");
  if (s->m % s->w != 0) return cuco::Status::Error("M must be divisible by the world size");
  s->m_local = s->m / s->w;
  s->chunks = kChunks;
  while (s->chunks > 1 && s->m_local % s->chunks != 0) --s->chunks;
  s->rows = s->m_local / s->chunks;
  const bool overlap = !kSequential && !kPartCompute && !kPartComm && s->w > 1;
  const int margin = overlap && kViaLsa ? kGemmSmMargin : 0;
  cuco::Status st = s->gemm.init(ctx.cublaslt(), s->n, s->k, s->k, s->n, s->n, static_cast<size_t>(kWorkspaceMiB) << 20,
                                 margin > 0 ? ctx.sm_count - margin : 0);
  if (!st.ok()) return st;
  s->gemm.set_algorithm_search(kGemmAlgos);
  const size_t shard_bytes = static_cast<size_t>(s->m_local * s->k) * sizeof(__nv_bfloat16);
  if (!overlap || kViaNccl) {
    CUCO_CUDA_CHECK(cudaMalloc(&s->stage, shard_bytes * s->w));  // M x K, or chunks x (W x rows x K)
    if (kPartCompute && !kSequential && s->w > 1) {  // the push's GEMM shapes
      st = s->gemm.prepare(s->m_local, false);
      return st.ok() ? s->gemm.prepare(s->rows, false) : st;
    }
    if (!overlap) return s->gemm.prepare(s->m, false);
  } else {
    ncclDevCommRequirements reqs;
    std::memset(&reqs, 0, sizeof reqs);
    reqs.lsaBarrierCount = 1;
    st = ctx.create_dev_comm(reqs, &s->dev_comm);  // collective
    if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, shard_bytes * s->w, &s->gather);
    if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, sizeof(uint32_t) * s->w * s->chunks * kMaxScopeFlags, &s->flags);
    if (!st.ok()) return st;
    if (kViaLsa) {
      const size_t n = sizeof(uint32_t) * s->w * s->w * s->chunks;
      CUCO_CUDA_CHECK(cudaMalloc(&s->arrivals, n));
      CUCO_CUDA_CHECK(cudaMemset(s->arrivals, 0, n));
    }
  }
  ctx.side_stream(0, cd::text_is(kCommPriority, "high") ? -100 : 0);
  st = s->gemm.prepare(s->m_local, false);
  if (st.ok()) st = s->gemm.prepare(s->rows, false);
  if (!st.ok()) return st;
  if (st.ok()) st = cd::preload_transfer_kernels();  // before any kernel spins on a flag
  if (!st.ok()) return st;
  CUCO_CUDA_CHECK(cudaDeviceSynchronize());
  return cuco::Status::Ok();
}

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  const auto* A = static_cast<const __nv_bfloat16*>(io.in("A").ptr);
  const void* B = io.in("B").ptr;
  auto* C = static_cast<__nv_bfloat16*>(io.out("C").ptr);
  const size_t shard_elems = static_cast<size_t>(s->m_local * s->k);
  if (kPartCompute && !kSequential && s->w > 1) {  // the push's GEMMs alone: own rows, then each peer chunk
    cuco::Status st = s->gemm.run(ctx.stream, A, B, C + row_offset(*s, s->rank, 0) * s->n, s->m_local);
    for (int j = 0; j < s->chunks && st.ok(); ++j)
      for (int i = 1; i < s->w && st.ok(); ++i) {
        const int src = (s->rank + i) % s->w;
        st = s->gemm.run(ctx.stream, static_cast<const __nv_bfloat16*>(s->stage) + row_offset(*s, src, j) * s->k, B,
                         C + row_offset(*s, src, j) * s->n, s->rows);
      }
    return st;
  }
  if (kSequential || kPartCompute || kPartComm || s->w == 1) {
    if (!kPartCompute)
      CUCO_NCCL_CHECK(ncclAllGather(A, s->stage, shard_elems, ncclBfloat16, ctx.comm, ctx.stream));
    if (!kPartComm) return s->gemm.run(ctx.stream, s->stage, B, C, s->m);
    return cuco::Status::Ok();
  }
  const uint32_t e = ++s->epoch;
  cudaStream_t side = ctx.side_stream(0);
  const size_t chunk_elems = static_cast<size_t>(s->rows * s->k);
  auto* gather = reinterpret_cast<__nv_bfloat16*>(s->gather.local.ptr);
  auto* my_flags = static_cast<uint32_t*>(s->flags.local.ptr);
  auto* stage = static_cast<__nv_bfloat16*>(s->stage);

  // Communication first, on the side stream: every chunk of this rank's shard to every peer.
  if (kViaNccl) {
    cd::follow(ctx, side, ctx.stream, kFollowEvent);  // (the inputs are ready at the iteration's start)
    for (int j = 0; j < s->chunks; ++j) {
      CUCO_NCCL_CHECK(ncclAllGather(A + static_cast<size_t>(j) * chunk_elems, stage + j * chunk_elems * s->w,
                                    chunk_elems, ncclBfloat16, ctx.comm, side));
      ctx.record_event(j, side);
    }
  } else if (kViaCe) {
    for (int j = 0; j < s->chunks; ++j)
      for (int i = 1; i < s->w; ++i) {
        const int peer = (s->rank + s->w - i) % s->w;  // the rank that needs us soonest goes first
        auto* dst = reinterpret_cast<__nv_bfloat16*>(s->gather.at(peer)) + row_offset(*s, s->rank, j) * s->k;
        auto* flag = reinterpret_cast<uint32_t*>(s->flags.at(peer)) + flag_index(*s, s->rank, j);
        cuco::Status st = cd::ce_copy_signal(ctx, side, dst, A + static_cast<size_t>(j) * chunk_elems,
                                             chunk_elems * sizeof(__nv_bfloat16), flag, e, kWait);
        if (!st.ok()) return st;
      }
  } else {
    cd::TransferList list;
    list.launch_index = e;
    for (int j = 0; j < s->chunks; ++j)
      for (int i = 1; i < s->w; ++i) {
        const int peer = (s->rank + s->w - i) % s->w;
        if (list.count == cd::kMaxTransfers) {
          cuco::Status st = cd::launch_transfers(side, list, cd::issuer_from(kIssuer), cd::sync_scope_from(kSyncScope),
                                                 kCommCtas, kThreads);
          if (!st.ok()) return st;
          list.count = 0;
        }
        cd::Transfer t;
        t.src = A + static_cast<size_t>(j) * chunk_elems;
        t.dst = reinterpret_cast<__nv_bfloat16*>(s->gather.at(peer)) + row_offset(*s, s->rank, j) * s->k;
        t.bytes = chunk_elems * sizeof(__nv_bfloat16);
        t.signal_flag = reinterpret_cast<uint32_t*>(s->flags.at(peer)) + flag_index(*s, s->rank, j);
        t.signal_value = e;
        t.arrivals = s->arrivals + (peer * s->w + s->rank) * s->chunks + j;
        list.add(t);
      }
    cuco::Status st = cd::launch_transfers(side, list, cd::issuer_from(kIssuer), cd::sync_scope_from(kSyncScope),
                                           kCommCtas, kThreads);
    if (!st.ok()) return st;
  }

  // Own rows first: no communication needed.
  cuco::Status st = s->gemm.run(ctx.stream, A, B, C + row_offset(*s, s->rank, 0) * s->n, s->m_local);
  if (!st.ok()) return st;
  for (int j = 0; j < s->chunks; ++j)
    for (int i = 1; i < s->w; ++i) {
      const int src = (s->rank + i) % s->w;  // ring order: the rank that pushes to us first
      const __nv_bfloat16* a = nullptr;
      if (kViaNccl) {
        if (i == 1) ctx.wait_event(ctx.stream, j);
        a = stage + j * chunk_elems * s->w + static_cast<size_t>(src) * chunk_elems;
      } else {
        const int fi = flag_index(*s, src, j);
        st = kViaLsa ? cd::wait_flags(ctx, ctx.stream, my_flags + fi, scope_flags(), e, kWait)
                     : cd::wait_flag(ctx, ctx.stream, my_flags + fi, e, kWait);
        if (!st.ok()) return st;
        a = gather + row_offset(*s, src, j) * s->k;
      }
      st = s->gemm.run(ctx.stream, a, B, C + row_offset(*s, src, j) * s->n, s->rows);
      if (!st.ok()) return st;
    }
  return cuco::Status::Ok();
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  s->gemm.destroy();
  if (s->stage) cudaFree(s->stage);
  if (s->arrivals) cudaFree(s->arrivals);
  delete s;  // gather / flags are harness-owned symmetric buffers
}
// EVOLVE-BLOCK-END
