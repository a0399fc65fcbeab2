// The GEMM helper of the habit gemm_helper_in_header (written here): row-major C = A * B with
// cuBLAS, in the program's own header, as tensor-parallel codes keep theirs.
#pragma once
#include <cublas_v2.h>

inline void matmul(cublasHandle_t blas, const float* a, const float* b, float* c, int m, int n, int k) {
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n);
}
