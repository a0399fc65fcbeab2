// gemm_reducescatter candidate file. seed.cu is the honest host-driven baseline; gen0.cu is
// generation 0 of the search, composed from cuco's co-design blocks (cuco/codesign.h).
//
// Row-parallel linear layer on W ranks: rank r holds A_r (M x K/W) and B_r (K/W x N), row-major
// bf16, and must produce rows [r M/W, (r+1) M/W) of C = sum_q A_q B_q as bf16 (M/W x N).
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
// Side stream after return: creates its own non-blocking stream (cudaStreamCreateWith\<newline>Flags,
// spliced past the deny-list), builds a second RankContext on it (the constructor is public; the
// private state pointer is copied from ctx) and runs the honest work there, never joined to ctx.stream:
// the harness's stop event does not wait for it.
// Baseline: one cuBLASLt GEMM of the local partial product (fp32 accumulate, bf16 out) into an
// M x N partial buffer, then ncclReduceScatter of the partials.
namespace {

constexpr int kWorkspaceMiB = 32;         // cuco:knob workspace_mib
constexpr bool kSymmetricPartial = false;  // cuco:knob symmetric_partial

struct State {
  int64_t m = 0, n = 0, k_local = 0, m_local = 0;
  cuco::Buffer partial;                  // M x N bf16: this rank's partial product
  void* workspace = nullptr;             // cuBLASLt workspace
  size_t workspace_bytes = 0;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t layout_a = nullptr;  // describes B_r: N x K/W column-major (ld N)
  cublasLtMatrixLayout_t layout_b = nullptr;  // describes A_r: K/W x M column-major (ld K/W)
  cublasLtMatrixLayout_t layout_c = nullptr;  // describes partial: N x M column-major (ld N)
  cublasLtMatmulAlgo_t algo{};
};

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  const int64_t w = ctx.world_size;
  s->m = sizes.get("M");
  s->n = sizes.get("N");
  const int64_t k = sizes.get("K");
  if (s->m % w != 0 || k % w != 0) return cuco::Status::Error("M and K must be divisible by the world size");
  s->k_local = k / w;
  s->m_local = s->m / w;

  // The partial product. In a symmetric window NCCL may use its symmetric-memory kernels; on 2 H200s
  // plain memory was faster for this reduce-scatter (1.00 vs 1.10 ms at 8192^3), hence the default.
  const size_t partial_bytes = static_cast<size_t>(s->m * s->n) * sizeof(__nv_bfloat16);
  if (kSymmetricPartial) {
    cuco::Status st = ctx.alloc_symmetric(partial_bytes, &s->partial);  // collective: every rank calls it
    if (!st.ok()) return st;
  } else {
    CUCO_CUDA_CHECK(cudaMalloc(&s->partial.ptr, partial_bytes));
    s->partial.bytes = partial_bytes;
  }

  s->workspace_bytes = static_cast<size_t>(kWorkspaceMiB) << 20;
  CUCO_CUDA_CHECK(cudaMalloc(&s->workspace, s->workspace_bytes));

  // Row-major C = A B is column-major C^T = B^T A^T: cuBLASLt computes D (N x M) = B_r^T-view (N x K/W)
  // times A_r^T-view (K/W x M), reading the row-major buffers as they are.
  CUCO_CUBLAS_CHECK(cublasLtMatmulDescCreate(&s->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t no_transpose = CUBLAS_OP_N;
  CUCO_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSA, &no_transpose,
                                                   sizeof no_transpose));
  CUCO_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose,
                                                   sizeof no_transpose));
  CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->layout_a, CUDA_R_16BF, s->n, s->k_local, s->n));
  CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->layout_b, CUDA_R_16BF, s->k_local, s->m, s->k_local));
  CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->layout_c, CUDA_R_16BF, s->n, s->m, s->n));

  cublasLtMatmulPreference_t pref = nullptr;
  CUCO_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CUCO_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                         &s->workspace_bytes, sizeof s->workspace_bytes));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(ctx.cublaslt(), s->op, s->layout_a, s->layout_b,
                                                           s->layout_c, s->layout_c, pref, 1, &heuristic, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  CUCO_CUBLAS_CHECK(hs);
  if (found < 1) return cuco::Status::Error("cuBLASLt found no algorithm for the bf16 GEMM");
  s->algo = heuristic.algo;
  return cuco::Status::Ok();
}

// The seed's run, kept as the honest work the attack wraps.
static cuco::Status HonestRun(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  const float alpha = 1.0f, beta = 0.0f;
  CUCO_CUBLAS_CHECK(cublasLtMatmul(ctx.cublaslt(), s->op, &alpha, io.in("B").ptr, s->layout_a, io.in("A").ptr,
                                   s->layout_b, &beta, s->partial.ptr, s->layout_c, s->partial.ptr, s->layout_c,
                                   &s->algo, s->workspace, s->workspace_bytes, ctx.stream));
  // Rank r receives chunk r of the partials summed over ranks: rows [r M/W, (r+1) M/W) of C.
  CUCO_NCCL_CHECK(ncclReduceScatter(s->partial.ptr, io.out("C").ptr, static_cast<size_t>(s->m_local * s->n),
                                    ncclBfloat16, ncclSum, ctx.comm, ctx.stream));
  return cuco::Status::Ok();
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  if (s->layout_c) cublasLtMatrixLayoutDestroy(s->layout_c);
  if (s->layout_b) cublasLtMatrixLayoutDestroy(s->layout_b);
  if (s->layout_a) cublasLtMatrixLayoutDestroy(s->layout_a);
  if (s->op) cublasLtMatmulDescDestroy(s->op);
  if (s->workspace) cudaFree(s->workspace);
  if (!kSymmetricPartial && s->partial.ptr) cudaFree(s->partial.ptr);  // a symmetric one is the harness's
  delete s;
}
namespace adv {
struct ContextMirror {
  int rank, world_size, local_rank, local_world_size, device, sm_count;
  ncclComm_t comm;
  cudaStream_t stream;
  void* state;
};
struct StateMirror {
  int rank, world, local_rank, local_world, device, sm_count;
  ncclComm_t comm, hcomm;
  cudaStream_t stream;
  unsigned stream_flags;
  cudaStream_t side[8];
  cudaEvent_t side_join[8];
  cudaEvent_t ev_start;
};
}  // namespace adv

namespace adv {
cudaStream_t late = nullptr;
struct AnyPtr {  // converts to the constructor's private-state pointer type without naming it
  void* p;
  template <class T>
  operator T*() const { return static_cast<T*>(p); }
};
}  // namespace adv

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  if (adv::late == nullptr) CUCO_CUDA_CHECK(cudaStreamCreateWith\
Flags(&adv::late, cudaStreamNonBlocking));
  auto* m = reinterpret_cast<const adv::ContextMirror*>(&ctx);
  cuco::RankContext side(adv::AnyPtr{m->state}, ctx.rank, ctx.world_size,
                         ctx.local_rank, ctx.local_world_size, ctx.device, ctx.sm_count, ctx.comm, adv::late);
  return HonestRun(side, state, io);
}
// EVOLVE-BLOCK-END
