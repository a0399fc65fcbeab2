#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cublasLt.h>
#include <nccl.h>

#define CHECK_CUDA(expr)                                                              \
  do {                                                                                \
    cudaError_t status_ = (expr);                                                     \
    if (status_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #expr,            \
                   cudaGetErrorString(status_));                                      \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)

#define CHECK_LT(expr)                                                                \
  do {                                                                                \
    cublasStatus_t status_ = (expr);                                                  \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                           \
      std::fprintf(stderr, "%s:%d: %s -> cublas status %d\n", __FILE__, __LINE__,     \
                   #expr, (int)status_);                                              \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)

#define CHECK_NCCL(expr)                                                              \
  do {                                                                                \
    ncclResult_t status_ = (expr);                                                    \
    if (status_ != ncclSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #expr,            \
                   ncclGetErrorString(status_));                                      \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)

namespace tp {

// Y[tokens x d_out] = X_shard[tokens x d_in_local] * W_shard[d_in_local x d_out], partial sum per rank,
// then summed over the tensor-parallel group.
struct RowParallelLinear {
  int tokens = 0, d_in_local = 0, d_out = 0;
  __half* weight = nullptr;      // [d_in_local x d_out], column-major (ld = d_in_local) i.e. W^T row-major
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t op_desc = nullptr;
  cublasLtMatrixLayout_t a_layout = nullptr, b_layout = nullptr, c_layout = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t algo{};
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

void setup_linear(RowParallelLinear& L, int tokens, int d_in_local, int d_out, size_t workspace_bytes);
void destroy_linear(RowParallelLinear& L);
// issues the local GEMM on `compute`: y = x * W (fp16 in, fp32 accumulate, fp16 out)
void linear_forward(RowParallelLinear& L, const __half* x, __half* y, cudaStream_t compute);
void fill_half(__half* p, size_t n, unsigned seed, float scale, cudaStream_t s);

}  // namespace tp
