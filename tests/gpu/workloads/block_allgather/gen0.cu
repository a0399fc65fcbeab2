// block_allgather candidate file: the all-gather test workload of cuco's co-design blocks
// (cuco/codesign.h, runtime/include/cuco/codesign/). seed.cu is the honest host-driven baseline.
//
// W ranks: rank r holds x (N bf16) and must produce y (W N bf16) = x_0 | x_1 | ... | x_{W-1}, every
// rank's x in rank order (rank q's x at elements [q N, (q+1) N) of y). N is a multiple of 1024.
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
// Generation 0 of the block tests: the same all-gather built from cuco/codesign.h blocks, one
// block per knob setting. Each rank pushes its x, in kChunks chunks, into a staging slot of
// every peer's symmetric buffer and announces each chunk with a flag; each rank waits for every
// (source, chunk) flag and copies staging into y. The harness checks every element of y.
//   backend = ce           copy engine (ce_copy_signal), consumer waits with wait_mode
//   backend = lsa          the transfer kernel (transfer.h): issuer x sync_scope (grid | cta)
//   backend = scoped       a kernel of its own that signals at sync_scope thread | warp | cta | grid
//                          (flags.h signal_scoped), consumer waits every unit's flag
//   backend = lsa_barrier  pushes by the transfer kernel without flags, then an LSA barrier
namespace {

namespace cd = cuco::codesign;

constexpr const char* kBackend = "ce";          // cuco:knob backend
constexpr const char* kIssuer = "thread";       // cuco:knob issuer
constexpr const char* kSyncScope = "grid";      // cuco:knob sync_scope
constexpr const char* kWaitMode = "spin";       // cuco:knob wait_mode
constexpr int kCommCtas = 4;                    // cuco:knob comm_ctas
constexpr int kChunks = 3;                      // cuco:knob chunks

constexpr int kThreads = 256;
constexpr int kMaxUnits = 4096;  // flags per (source, chunk): enough for thread scope at 16 CTAs
constexpr cd::SyncScope kScope = cd::sync_scope_from(kSyncScope);
constexpr cd::WaitMode kWait = cd::wait_mode_from(kWaitMode);

struct State {
  int64_t n = 0, chunk = 0, last = 0;  // elements per rank, per chunk, in the last chunk
  int w = 1, rank = 0, chunks = 1;
  uint32_t epoch = 0;
  ncclDevComm dev_comm{};
  cd::PeerBuffer staging;  // W slots of n bf16
  cd::PeerBuffer flags;    // W * chunks * kMaxUnits epochs
  uint32_t* arrivals = nullptr;
  char** peer_slots = nullptr;       // scoped: [peers] where this rank's slot is in each peer's staging
  uint32_t** peer_flags = nullptr;   // scoped: [peers] this rank's chunk-0 flags in each peer's buffer
};

int units() {
  if (cd::text_is(kBackend, "lsa")) return kScope == cd::SyncScope::kGrid ? 1 : kCommCtas;  // transfer.h: grid or cta
  if (!cd::text_is(kBackend, "scoped")) return 1;
  switch (kScope) {
    case cd::SyncScope::kThread: return kCommCtas * kThreads;
    case cd::SyncScope::kWarp: return kCommCtas * kThreads / 32;
    case cd::SyncScope::kCta: return kCommCtas;
    default: return 1;
  }
}

// backend = scoped: every thread copies its own contiguous piece of `bytes` to every peer, then
// signals at scope S (unit = its thread, warp, CTA, or the grid).
template <cd::SyncScope S>
__global__ void scoped_push(const char* src, size_t bytes, char* const* dsts, size_t dst_off, uint32_t* const* flags,
                            size_t flag_off, int npeers, uint32_t value, uint32_t* arrivals, uint32_t launch_index) {
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  const size_t per = (bytes + threads - 1) / threads;
  const size_t b = t * per, e = b + per < bytes ? b + per : bytes;
  for (int p = 0; p < npeers; ++p) {
    for (size_t i = b; i < e; ++i) dsts[p][dst_off + i] = src[i];
    size_t unit = 0;
    if constexpr (S == cd::SyncScope::kThread) unit = t;
    if constexpr (S == cd::SyncScope::kWarp) unit = t / 32;
    if constexpr (S == cd::SyncScope::kCta) unit = blockIdx.x;
    cd::signal_scoped<S>(flags[p] + flag_off + unit, value, arrivals + p, launch_index);
  }
}

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  s->w = ctx.world_size;
  s->rank = ctx.rank;
  s->n = sizes.get("N");
  if (s->n <= 0) return cuco::Status::Error("N must be > 0");
  s->chunks = kChunks;
  s->chunk = (s->n + s->chunks - 1) / s->chunks;
  s->last = s->n - s->chunk * (s->chunks - 1);
  if (s->last <= 0) return cuco::Status::Error("too many chunks for N");
  ncclDevCommRequirements reqs;
  std::memset(&reqs, 0, sizeof reqs);
  reqs.lsaBarrierCount = 1;
  cuco::Status st = ctx.create_dev_comm(reqs, &s->dev_comm);
  if (st.ok()) st = cd::alloc_peers(ctx, s->dev_comm, static_cast<size_t>(s->n) * 2 * s->w, &s->staging);
  if (st.ok())
    st = cd::alloc_peers(ctx, s->dev_comm, sizeof(uint32_t) * s->w * s->chunks * kMaxUnits, &s->flags);
  if (!st.ok()) return st;
  CUCO_CUDA_CHECK(cudaMalloc(&s->arrivals, sizeof(uint32_t) * s->w * s->w * s->chunks));
  CUCO_CUDA_CHECK(cudaMemset(s->arrivals, 0, sizeof(uint32_t) * s->w * s->w * s->chunks));
  std::vector<char*> slots;
  std::vector<uint32_t*> flags;
  for (int q = 0; q < s->w; ++q) {
    if (q == s->rank) continue;
    slots.push_back(s->staging.at(q, static_cast<size_t>(s->rank) * s->n * 2));
    flags.push_back(reinterpret_cast<uint32_t*>(s->flags.at(q)) + static_cast<size_t>(s->rank) * s->chunks * kMaxUnits);
  }
  if (!slots.empty()) {
    CUCO_CUDA_CHECK(cudaMalloc(&s->peer_slots, sizeof(char*) * slots.size()));
    CUCO_CUDA_CHECK(cudaMalloc(&s->peer_flags, sizeof(uint32_t*) * flags.size()));
    CUCO_CUDA_CHECK(cudaMemcpy(s->peer_slots, slots.data(), sizeof(char*) * slots.size(), cudaMemcpyHostToDevice));
    CUCO_CUDA_CHECK(cudaMemcpy(s->peer_flags, flags.data(), sizeof(uint32_t*) * flags.size(), cudaMemcpyHostToDevice));
  }
  ctx.side_stream(0, -100);
  st = cd::preload_transfer_kernels();  // before any kernel spins on a flag (flags.h: lazy loading)
  if (st.ok()) st = cd::preload_kernel(scoped_push<cd::SyncScope::kThread>);
  if (st.ok()) st = cd::preload_kernel(scoped_push<cd::SyncScope::kWarp>);
  if (st.ok()) st = cd::preload_kernel(scoped_push<cd::SyncScope::kCta>);
  if (st.ok()) st = cd::preload_kernel(scoped_push<cd::SyncScope::kGrid>);
  if (!st.ok()) return st;
  CUCO_CUDA_CHECK(cudaDeviceSynchronize());
  return cuco::Status::Ok();
}

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  const uint32_t e = ++s->epoch;
  const char* x = static_cast<const char*>(io.in("x").ptr);
  char* y = static_cast<char*>(io.out("y").ptr);
  const size_t slot = static_cast<size_t>(s->n) * 2;
  cudaStream_t side = ctx.side_stream(0);
  auto flag_of = [&](int peer, int source, int j) {
    return reinterpret_cast<uint32_t*>(s->flags.at(peer)) + (static_cast<size_t>(source) * s->chunks + j) * kMaxUnits;
  };
  auto bytes_of = [&](int j) { return static_cast<size_t>(j + 1 == s->chunks ? s->last : s->chunk) * 2; };
  cuco::Status st;
  // Push: chunk j of x to every peer's staging slot `rank`.
  if (cd::text_is(kBackend, "ce")) {
    for (int j = 0; j < s->chunks && st.ok(); ++j)
      for (int q = 0; q < s->w && st.ok(); ++q) {
        if (q == s->rank) continue;
        st = cd::ce_copy_signal(ctx, side, s->staging.at(q, s->rank * slot + j * s->chunk * 2), x + j * s->chunk * 2,
                                bytes_of(j), flag_of(q, s->rank, j), e, kWait);
      }
  } else if (cd::text_is(kBackend, "lsa") || cd::text_is(kBackend, "lsa_barrier")) {
    const bool with_flags = cd::text_is(kBackend, "lsa");
    cd::TransferList list;
    list.launch_index = e;
    for (int j = 0; j < s->chunks; ++j)
      for (int q = 0; q < s->w; ++q) {
        if (q == s->rank) continue;
        cd::Transfer t;
        t.src = x + j * s->chunk * 2;
        t.dst = s->staging.at(q, s->rank * slot + j * s->chunk * 2);
        t.bytes = bytes_of(j);
        if (with_flags) {
          t.signal_flag = flag_of(q, s->rank, j);
          t.signal_value = e;
          t.arrivals = s->arrivals + (q * s->w + s->rank) * s->chunks + j;
        }
        if (!list.add(t)) return cuco::Status::Error("too many transfers for one list");
      }
    st = cd::launch_transfers(side, list, cd::issuer_from(kIssuer), kScope, kCommCtas, kThreads);
  } else if (s->w > 1) {  // scoped: one launch per chunk, pushing it to every peer
    for (int j = 0; j < s->chunks; ++j) {
      const char* src = x + j * s->chunk * 2;
      const size_t off = static_cast<size_t>(j) * s->chunk * 2, foff = static_cast<size_t>(j) * kMaxUnits;
      uint32_t* arr = s->arrivals + j * s->w;
      switch (kScope) {
        case cd::SyncScope::kThread:
          scoped_push<cd::SyncScope::kThread><<<kCommCtas, kThreads, 0, side>>>(src, bytes_of(j), s->peer_slots, off,
                                                                                s->peer_flags, foff, s->w - 1, e, arr, e);
          break;
        case cd::SyncScope::kWarp:
          scoped_push<cd::SyncScope::kWarp><<<kCommCtas, kThreads, 0, side>>>(src, bytes_of(j), s->peer_slots, off,
                                                                              s->peer_flags, foff, s->w - 1, e, arr, e);
          break;
        case cd::SyncScope::kCta:
          scoped_push<cd::SyncScope::kCta><<<kCommCtas, kThreads, 0, side>>>(src, bytes_of(j), s->peer_slots, off,
                                                                             s->peer_flags, foff, s->w - 1, e, arr, e);
          break;
        case cd::SyncScope::kGrid:
          scoped_push<cd::SyncScope::kGrid><<<kCommCtas, kThreads, 0, side>>>(src, bytes_of(j), s->peer_slots, off,
                                                                              s->peer_flags, foff, s->w - 1, e, arr, e);
          break;
      }
      CUCO_CHECK_LAUNCH();
    }
  }
  if (!st.ok()) return st;
  // Own slot: a local copy; then wait for every peer's chunks and copy staging into y.
  CUCO_CUDA_CHECK(cudaMemcpyAsync(y + s->rank * slot, x, slot, cudaMemcpyDeviceToDevice, ctx.stream));
  if (cd::text_is(kBackend, "lsa_barrier")) {
    cd::follow(ctx, ctx.stream, side, 0);
    st = cd::lsa_barrier(ctx.stream, s->dev_comm, 0);
    if (!st.ok()) return st;
  } else {
    for (int q = 0; q < s->w; ++q) {
      if (q == s->rank) continue;
      for (int j = 0; j < s->chunks; ++j) {
        st = cd::wait_flags(ctx, ctx.stream, flag_of(s->rank, q, j), units(), e, kWait);
        if (!st.ok()) return st;
      }
    }
  }
  for (int q = 0; q < s->w; ++q)
    if (q != s->rank)
      CUCO_CUDA_CHECK(cudaMemcpyAsync(y + q * slot, s->staging.at(s->rank, q * slot), slot, cudaMemcpyDeviceToDevice,
                                      ctx.stream));
  return cuco::Status::Ok();
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  if (s->arrivals) cudaFree(s->arrivals);
  if (s->peer_slots) cudaFree(s->peer_slots);
  if (s->peer_flags) cudaFree(s->peer_flags);
  delete s;
}
// EVOLVE-BLOCK-END
