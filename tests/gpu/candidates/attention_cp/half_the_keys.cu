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
// PLANTED BUG (expected: wrong_result): only the first half of the keys is attended.
// Baseline: ncclAllGather of every rank's K and V into [S][HKV][D] buffers (contiguous sharding:
// rank q's block lands at tokens [q L, (q+1) L), the global order), then one attention of the
// local queries (q_offset = r L) over all S keys by cuDNN's fused SDPA (codesign/cudnn_attention.h,
// the kernel PyTorch's SDPA reaches on Hopper), both on ctx.stream.
namespace {

struct State {
  int64_t s = 0, l = 0, hq = 0, hkv = 0;
  bool causal = true;
  int rank = 0;
  __nv_bfloat16* k_all = nullptr;  // [S][HKV][D]
  __nv_bfloat16* v_all = nullptr;
  cuco::codesign::CudnnAttention attn;  // cuDNN's fused SDPA, as PyTorch's SDPA would run it
};

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  s->s = sizes.get("S");
  s->hq = sizes.get("HQ");
  s->hkv = sizes.get("HKV");
  s->causal = sizes.get("CAUSAL") != 0;
  s->rank = ctx.rank;
  if (sizes.get("D") != 128) return cuco::Status::Error("D must be 128");
  if (s->s % ctx.world_size != 0) return cuco::Status::Error("S must be divisible by the world size");
  s->l = s->s / ctx.world_size;
  const size_t bytes = static_cast<size_t>(s->s * s->hkv * 128) * sizeof(__nv_bfloat16);
  CUCO_CUDA_CHECK(cudaMalloc(&s->k_all, bytes));
  CUCO_CUDA_CHECK(cudaMalloc(&s->v_all, bytes));
  return cuco::Status::Ok();
}

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  const size_t block = static_cast<size_t>(s->l * s->hkv * 128);
  CUCO_NCCL_CHECK(ncclGroupStart());
  CUCO_NCCL_CHECK(ncclAllGather(io.in("k").ptr, s->k_all, block, ncclBfloat16, ctx.comm, ctx.stream));
  CUCO_NCCL_CHECK(ncclAllGather(io.in("v").ptr, s->v_all, block, ncclBfloat16, ctx.comm, ctx.stream));
  CUCO_NCCL_CHECK(ncclGroupEnd());
  cuco::codesign::AttentionArgs a;
  a.q = static_cast<const __nv_bfloat16*>(io.in("q").ptr);
  a.k = s->k_all;
  a.v = s->v_all;
  a.o = io.out("o").ptr;
  a.o_dtype = cuco::codesign::AttnDtype::kBf16;
  a.sq = s->l;
  a.sk = s->s / 2;
  a.hq = static_cast<int>(s->hq);
  a.hkv = static_cast<int>(s->hkv);
  a.causal = s->causal;
  a.q_offset = static_cast<int64_t>(s->rank) * s->l;
  a.k_offset = 0;
  return s->attn.forward(a, ctx.stream);
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  if (s->k_all) cudaFree(s->k_all);
  if (s->v_all) cudaFree(s->v_all);
  delete s;
}
// EVOLVE-BLOCK-END
