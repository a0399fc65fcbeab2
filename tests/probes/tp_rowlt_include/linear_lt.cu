#include "row_parallel.h"

namespace tp {

__global__ void fill_half_kernel(__half* p, size_t n, unsigned seed, float scale)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = (unsigned)(i * 747796405u) + seed * 2891336453u;
  x = ((x >> ((x >> 28) + 4)) ^ x) * 277803737u;
  x = (x >> 22) ^ x;
  p[i] = __float2half(scale * ((x & 0xffff) / 65536.0f - 0.5f));
}

void fill_half(__half* p, size_t n, unsigned seed, float scale, cudaStream_t s)
{
  fill_half_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(p, n, seed, scale);
  CHECK_CUDA(cudaGetLastError());
}

void setup_linear(RowParallelLinear& L, int tokens, int d_in_local, int d_out, size_t workspace_bytes)
{
  L.tokens = tokens;
  L.d_in_local = d_in_local;
  L.d_out = d_out;
  L.workspace_bytes = workspace_bytes;
  CHECK_CUDA(cudaMalloc(&L.weight, sizeof(__half) * (size_t)d_in_local * d_out));
  CHECK_CUDA(cudaMalloc(&L.workspace, workspace_bytes));
  CHECK_LT(cublasLtCreate(&L.lt));

  // column-major problem: Y^T[d_out x tokens] = W^T[d_out x d_in_local] * X^T[d_in_local x tokens]
  //   A = weight stored [d_in_local x d_out] col-major -> op(A) = A^T
  //   B = x stored      [d_in_local x tokens] col-major (x row-major [tokens x d_in_local])
  CHECK_LT(cublasLtMatmulDescCreate(&L.op_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  CHECK_LT(cublasLtMatmulDescSetAttribute(L.op_desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
  CHECK_LT(cublasLtMatmulDescSetAttribute(L.op_desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
  CHECK_LT(cublasLtMatrixLayoutCreate(&L.a_layout, CUDA_R_16F, d_in_local, d_out, d_in_local));
  CHECK_LT(cublasLtMatrixLayoutCreate(&L.b_layout, CUDA_R_16F, d_in_local, tokens, d_in_local));
  CHECK_LT(cublasLtMatrixLayoutCreate(&L.c_layout, CUDA_R_16F, d_out, tokens, d_out));

  CHECK_LT(cublasLtMatmulPreferenceCreate(&L.pref));
  CHECK_LT(cublasLtMatmulPreferenceSetAttribute(L.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &L.workspace_bytes, sizeof(L.workspace_bytes)));
  int found = 0;
  CHECK_LT(cublasLtMatmulAlgoGetHeuristic(L.lt, L.op_desc, L.a_layout, L.b_layout, L.c_layout, L.c_layout,
                                          L.pref, 1, &L.algo, &found));
  if (found == 0) {
    std::fprintf(stderr, "no cublasLt algorithm for %d x %d x %d\n", d_out, tokens, d_in_local);
    std::abort();
  }
}

void linear_forward(RowParallelLinear& L, const __half* x, __half* y, cudaStream_t compute)
{
  const float alpha = 1.0f, beta = 0.0f;
  CHECK_LT(cublasLtMatmul(L.lt, L.op_desc, &alpha, L.weight, L.a_layout, x, L.b_layout, &beta,
                          y, L.c_layout, y, L.c_layout, &L.algo.algo, L.workspace, L.workspace_bytes,
                          compute));
}

void destroy_linear(RowParallelLinear& L)
{
  cublasLtMatmulPreferenceDestroy(L.pref);
  cublasLtMatrixLayoutDestroy(L.a_layout);
  cublasLtMatrixLayoutDestroy(L.b_layout);
  cublasLtMatrixLayoutDestroy(L.c_layout);
  cublasLtMatmulDescDestroy(L.op_desc);
  cublasLtDestroy(L.lt);
  cudaFree(L.workspace);
  cudaFree(L.weight);
}

}  // namespace tp
