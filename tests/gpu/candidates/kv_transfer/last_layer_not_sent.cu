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
// PLANTED BUG (expected: wrong_result): the last layer's K/V never travels (the decode rank lays out stale data).
// Baseline, host-driven, everything on ctx.stream: rank 0 runs the L layer GEMMs (cuBLASLt, one
// per layer) into a contiguous [L, S, N] buffer, then one ncclSend of all of it; rank 1 receives
// it with one ncclRecv into a staging buffer of the same shape, then one kernel scatters it into
// the paged cache through the page table.
namespace {

namespace cd = cuco::codesign;

constexpr int kWorkspaceMiB = 32;
constexpr int kLayoutThreads = 256;
constexpr int kPrefill = 0;
constexpr int kDecode = 1;

struct State {
  int64_t L = 0, S = 0, H = 0, KVH = 0, D = 0, P = 0, N = 0, pages = 0;
  int rank = 0;
  cd::RowMajorGemm gemm;
  void* kv = nullptr;  // [L, S, N] bf16: rank 0 the GEMM outputs, rank 1 the received copy
};

// One CTA per (layer, logical page) at a time; thread v moves 16 bytes (8 values of one head row).
// cache[l][page_table[p]][head][t][:] = kv[l][p P + t][head D : head D + D], head = kv KVH + h.
__global__ void page_layout_kernel(const uint4* kv, uint4* cache, const int32_t* page_table, int64_t units,
                                   int64_t pages, int64_t S, int P, int heads, int vpr) {
  const int per_unit = heads * P * vpr;   // 16-byte vectors of one page of one layer
  const int64_t row = static_cast<int64_t>(heads) * vpr;  // vectors of one token's K/V row
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t l = u / pages, p = u % pages;
    const uint4* src = kv + (l * S + p * P) * row;
    uint4* dst = cache + (l * pages + page_table[p]) * per_unit;
    for (int v = threadIdx.x; v < per_unit; v += blockDim.x) {
      const int head = v / (P * vpr), r = v % (P * vpr);
      dst[v] = src[static_cast<int64_t>(r / vpr) * row + head * vpr + r % vpr];
    }
  }
}

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  if (ctx.world_size != 2) return cuco::Status::Error("kv_transfer needs exactly 2 ranks");
  s->rank = ctx.rank;
  s->L = sizes.get("L");
  s->S = sizes.get("S");
  s->H = sizes.get("H");
  s->KVH = sizes.get("KVH");
  s->D = sizes.get("D");
  s->P = sizes.get("P");
  s->N = 2 * s->KVH * s->D;
  s->pages = s->S / s->P;
  CUCO_CUDA_CHECK(cudaMalloc(&s->kv, static_cast<size_t>(s->L * s->S * s->N) * sizeof(__nv_bfloat16)));
  if (s->rank == kPrefill) {
    cuco::Status st = s->gemm.init(ctx.cublaslt(), s->N, s->H, s->H, s->N, s->N,
                                   static_cast<size_t>(kWorkspaceMiB) << 20);
    if (st.ok()) st = s->gemm.prepare(s->S, false);
    if (!st.ok()) return st;
  }
  return cuco::Status::Ok();
}

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  auto* kv = static_cast<__nv_bfloat16*>(s->kv);
  const size_t total = static_cast<size_t>((s->L - 1) * s->S * s->N);
  if (s->rank == kPrefill) {
    const auto* X = static_cast<const __nv_bfloat16*>(io.in("X").ptr);
    const auto* W = static_cast<const __nv_bfloat16*>(io.in("W").ptr);
    for (int64_t l = 0; l < s->L; ++l) {
      cuco::Status st = s->gemm.run(ctx.stream, X + l * s->S * s->H, W + l * s->H * s->N, kv + l * s->S * s->N, s->S);
      if (!st.ok()) return st;
    }
    CUCO_NCCL_CHECK(ncclSend(kv, total, ncclBfloat16, kDecode, ctx.comm, ctx.stream));
    return cuco::Status::Ok();
  }
  CUCO_NCCL_CHECK(ncclRecv(kv, total, ncclBfloat16, kPrefill, ctx.comm, ctx.stream));
  const int64_t units = s->L * s->pages;
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(units, static_cast<int64_t>(ctx.sm_count) * 8));
  page_layout_kernel<<<grid, kLayoutThreads, 0, ctx.stream>>>(
      static_cast<const uint4*>(s->kv), static_cast<uint4*>(io.out("cache").ptr),
      static_cast<const int32_t*>(io.in("page_table").ptr), units, s->pages, s->S, static_cast<int>(s->P),
      static_cast<int>(2 * s->KVH), static_cast<int>(s->D / 8));
  CUCO_CHECK_LAUNCH();
  return cuco::Status::Ok();
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  s->gemm.destroy();
  if (s->kv) cudaFree(s->kv);
  delete s;
}
// EVOLVE-BLOCK-END
