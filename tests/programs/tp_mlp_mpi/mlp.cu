#include "mlp.h"

#include <vector>

#include "utils.h"

__global__ void bias_gelu_kernel(float* h, const float* bias, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows * cols) return;
  float v = h[i] + bias[i % cols];
  h[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

__global__ void bias_residual_kernel(float* y, const float* z, const float* bias, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows * cols) return;
  y[i] += z[i] + bias[i % cols];
}

// Row-major C[m][n] = A[m][k] * B[k][n] with column-major cuBLAS (computes C^T = B^T A^T).
static void gemm(cublasHandle_t blas, int m, int n, int k, const float* A, const float* B, float* C) {
  const float alpha = 1.f, beta = 0.f;
  CUBLASCHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, n, A, k, &beta, C, n));
}

static void upload_random(float** dst, size_t n, uint64_t seed, float scale) {
  std::vector<float> host(n);
  fill_uniform(host.data(), n, seed, scale);
  CUDACHECK(cudaMalloc(dst, n * sizeof(float)));
  CUDACHECK(cudaMemcpy(*dst, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
}

void alloc_weights(MlpWeights* w, const MlpConfig& cfg, int rank, int world) {
  const size_t ffn_local = cfg.ffn / world;
  const float s1 = 1.f / sqrtf((float)cfg.hidden), s2 = 1.f / sqrtf((float)cfg.ffn);
  upload_random(&w->w1, cfg.layers * cfg.hidden * ffn_local, 1000 + rank, s1);
  upload_random(&w->b1, cfg.layers * ffn_local, 2000 + rank, 0.1f);
  upload_random(&w->w2, cfg.layers * ffn_local * cfg.hidden, 3000 + rank, s2);
  upload_random(&w->b2, (size_t)cfg.layers * cfg.hidden, 4000, 0.1f);  // replicated
}

void free_weights(MlpWeights* w) {
  CUDACHECK(cudaFree(w->w1));
  CUDACHECK(cudaFree(w->b1));
  CUDACHECK(cudaFree(w->w2));
  CUDACHECK(cudaFree(w->b2));
}

void mlp_forward(cublasHandle_t blas, ncclComm_t comm, cudaStream_t stream, const MlpConfig& cfg,
                 int world, const MlpWeights& w, const float* x, float* y, float* h, float* z) {
  const int ffn_local = cfg.ffn / world;
  const size_t act = (size_t)cfg.tokens * cfg.hidden;
  const int threads = 256;
  CUDACHECK(cudaMemcpyAsync(y, x, act * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  for (int l = 0; l < cfg.layers; ++l) {
    const float* w1 = w.w1 + (size_t)l * cfg.hidden * ffn_local;
    const float* w2 = w.w2 + (size_t)l * ffn_local * cfg.hidden;
    gemm(blas, cfg.tokens, ffn_local, cfg.hidden, y, w1, h);
    bias_gelu_kernel<<<(cfg.tokens * ffn_local + threads - 1) / threads, threads, 0, stream>>>(
        h, w.b1 + (size_t)l * ffn_local, cfg.tokens, ffn_local);
    gemm(blas, cfg.tokens, cfg.hidden, ffn_local, h, w2, z);
    NCCLCHECK(ncclAllReduce(z, z, act, ncclFloat, ncclSum, comm, stream));
    bias_residual_kernel<<<(act + threads - 1) / threads, threads, 0, stream>>>(
        y, z, w.b2 + (size_t)l * cfg.hidden, cfg.tokens, cfg.hidden);
  }
}
