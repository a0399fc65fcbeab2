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
// Baseline: ncclAllGather of every rank's A_r into an M x K buffer, then one cuBLASLt GEMM
// (fp32 accumulate, bf16 out) of the gathered A with this rank's B, both on ctx.stream.
namespace {

constexpr int kWorkspaceMiB = 32;         // cuco:knob workspace_mib
constexpr bool kSymmetricGather = false;  // cuco:knob symmetric_gather

struct State {
  int64_t m = 0, n = 0, k = 0, m_local = 0;
  cuco::Buffer gathered;                 // M x K bf16: all_gather(A), row-major
  void* workspace = nullptr;             // cuBLASLt workspace
  size_t workspace_bytes = 0;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t layout_a = nullptr;  // describes B: N x K column-major (ld N)
  cublasLtMatrixLayout_t layout_b = nullptr;  // describes the gathered A: K x M column-major (ld K)
  cublasLtMatrixLayout_t layout_c = nullptr;  // describes C: N x M column-major (ld N)
  cublasLtMatmulAlgo_t algo{};
};

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  const int64_t w = ctx.world_size;
  s->m = sizes.get("M");
  s->n = sizes.get("N");
  s->k = sizes.get("K");
  if (s->m % w != 0) return cuco::Status::Error("M must be divisible by the world size");
  s->m_local = s->m / w;

  // The gathered A. In a symmetric window NCCL may use its symmetric-memory all-gather kernels
  // (A_r, the send buffer, is in a harness window already); which is faster is not measured yet,
  // so plain memory is the default, as in gemm_reducescatter.
  const size_t gathered_bytes = static_cast<size_t>(s->m * s->k) * sizeof(__nv_bfloat16);
  if (kSymmetricGather) {
    cuco::Status st = ctx.alloc_symmetric(gathered_bytes, &s->gathered);  // collective: every rank calls it
    if (!st.ok()) return st;
  } else {
    CUCO_CUDA_CHECK(cudaMalloc(&s->gathered.ptr, gathered_bytes));
    s->gathered.bytes = gathered_bytes;
  }

  s->workspace_bytes = static_cast<size_t>(kWorkspaceMiB) << 20;
  CUCO_CUDA_CHECK(cudaMalloc(&s->workspace, s->workspace_bytes));

  // Row-major C = A B is column-major C^T = B^T A^T: cuBLASLt computes D (N x M) = B^T-view (N x K)
  // times A^T-view (K x M), reading the row-major buffers as they are.
  CUCO_CUBLAS_CHECK(cublasLtMatmulDescCreate(&s->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t no_transpose = CUBLAS_OP_N;
  CUCO_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSA, &no_transpose,
                                                   sizeof no_transpose));
  CUCO_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose,
                                                   sizeof no_transpose));
  CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->layout_a, CUDA_R_16BF, s->n, s->k, s->n));
  CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->layout_b, CUDA_R_16BF, s->k, s->m, s->k));
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

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  // Rank q's M/W x K rows land at rows [q M/W, (q+1) M/W) of the gathered A.
  CUCO_NCCL_CHECK(ncclAllGather(io.in("A").ptr, s->gathered.ptr, static_cast<size_t>(s->m_local * s->k),
                                ncclBfloat16, ctx.comm, ctx.stream));
  const float alpha = 1.0f, beta = 0.0f;
  CUCO_CUBLAS_CHECK(cublasLtMatmul(ctx.cublaslt(), s->op, &alpha, io.in("B").ptr, s->layout_a, s->gathered.ptr,
                                   s->layout_b, &beta, io.out("C").ptr, s->layout_c, io.out("C").ptr, s->layout_c,
                                   &s->algo, s->workspace, s->workspace_bytes, ctx.stream));
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
  if (!kSymmetricGather && s->gathered.ptr) cudaFree(s->gathered.ptr);  // a symmetric one is the harness's
  delete s;
}
// EVOLVE-BLOCK-END
