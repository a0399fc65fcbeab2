// bench/gemm_algo_sweep.cu: how much of a GEMM workload's time is the cuBLASLt heuristic's first
// choice leaving on the table? For each shape the GEMM workloads run (whole products and the
// chunks the overlapped variants cut them into), this times every algorithm the heuristic offers
// (up to 16) on fresh random bf16 data and prints the first choice's time next to the best one.
// Row-major D = A B (+ C) as codesign/gemm.h lays it out (cuBLASLt sees B first), 32 MiB workspace.
//
// Build and run on one GPU (repo root):
//   nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a bench/gemm_algo_sweep.cu -o /tmp/sweep -lcublasLt
//   /tmp/sweep
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#define CHECK_CUDA(x)                                                                            \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)
#define CHECK_LT(x)                                                                           \
  do {                                                                                        \
    cublasStatus_t s_ = (x);                                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace {

__global__ void fill(__nv_bfloat16* p, int64_t n, uint64_t seed, float scale) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint64_t x = (uint64_t(i) + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    p[i] = __float2bfloat16(scale * (float(x >> 40) / float(1 << 24) * 2.0f - 1.0f));
  }
}

struct Shape {
  const char* what;
  int64_t m, n, k;
  bool with_c;
};

struct Result {
  float first_ms = 0, best_ms = 0;
  int offered = 0, best_index = 0;
};

float time_algo(cublasLtHandle_t h, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
                cublasLtMatrixLayout_t ld, const cublasLtMatmulAlgo_t& algo, const void* A, const void* B, void* C,
                void* D, bool with_c, void* ws, size_t ws_bytes) {
  const float alpha = 1.0f, beta = with_c ? 1.0f : 0.0f;
  auto once = [&] {
    return cublasLtMatmul(h, op, &alpha, B, la, A, lb, &beta, with_c ? C : D, ld, D, ld, &algo, ws, ws_bytes, 0);
  };
  for (int i = 0; i < 3; ++i)
    if (once() != CUBLAS_STATUS_SUCCESS) return -1.0f;
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int i = 0; i < 20; ++i) {
    CHECK_CUDA(cudaEventRecord(e0));
    CHECK_LT(once());
    CHECK_CUDA(cudaEventRecord(e1));
    CHECK_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

Result sweep(cublasLtHandle_t h, const Shape& s, void* ws, size_t ws_bytes) {
  __nv_bfloat16 *A, *B, *C, *D;
  CHECK_CUDA(cudaMalloc(&A, s.m * s.k * 2));
  CHECK_CUDA(cudaMalloc(&B, s.k * s.n * 2));
  CHECK_CUDA(cudaMalloc(&C, s.m * s.n * 2));
  CHECK_CUDA(cudaMalloc(&D, s.m * s.n * 2));
  fill<<<1024, 256>>>(A, s.m * s.k, 11, 1.0f);
  fill<<<1024, 256>>>(B, s.k * s.n, 12, 0.02f);
  fill<<<1024, 256>>>(C, s.m * s.n, 13, 1.0f);
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, ld;
  CHECK_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t no = CUBLAS_OP_N;
  CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &no, sizeof no));
  CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &no, sizeof no));
  CHECK_LT(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, s.n, s.k, s.n));
  CHECK_LT(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, s.k, s.m, s.k));
  CHECK_LT(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, s.n, s.m, s.n));
  cublasLtMatmulPreference_t pref;
  CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
  CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                                sizeof ws_bytes));
  cublasLtMatmulHeuristicResult_t heur[16];
  int found = 0;
  CHECK_LT(cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, ld, ld, pref, 16, heur, &found));
  Result r;
  r.offered = found;
  for (int i = 0; i < found; ++i) {
    const float ms = time_algo(h, op, la, lb, ld, heur[i].algo, A, B, C, D, s.with_c, ws, ws_bytes);
    if (i == 0) r.first_ms = ms;
    if (ms > 0 && (r.best_ms == 0 || ms < r.best_ms)) {
      r.best_ms = ms;
      r.best_index = i;
    }
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(D);
  return r;
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  cublasLtHandle_t h;
  CHECK_LT(cublasLtCreate(&h));
  const size_t ws_bytes = size_t(32) << 20;
  void* ws;
  CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
  const Shape shapes[] = {
      {"AG whole (W=1 of 8192^3)", 8192, 8192, 8192, false},
      {"AG W=2 shard", 4096, 8192, 8192, false},
      {"AG W=4 shard / W=2 shard in 2 chunks", 2048, 8192, 8192, false},
      {"AG W=2 shard in 4 chunks", 1024, 8192, 8192, false},
      {"RS W=2 partial whole", 8192, 8192, 4096, false},
      {"RS W=2 ring block", 4096, 8192, 4096, true},
      {"RS W=2 ring block in 2 chunks", 2048, 8192, 4096, true},
      {"RS W=2 ring block in 4 chunks", 1024, 8192, 4096, true},
      {"RS W=4 partial whole", 8192, 8192, 2048, false},
      {"RS W=4 ring block", 2048, 8192, 2048, true},
      {"MoE gate/up, 8192 rows", 8192, 4096, 7168, false},
      {"MoE down, 8192 rows", 8192, 7168, 2048, false},
      {"MoE gate/up, 4096 rows (one W=2 block)", 4096, 4096, 7168, false},
      {"MoE down, 4096 rows (one W=2 block)", 4096, 7168, 2048, false},
      {"MoE gate/up, 2048 rows", 2048, 4096, 7168, false},
      {"MoE down, 2048 rows", 2048, 7168, 2048, false},
  };
  std::printf("device: %s, %d SMs; cuBLASLt %zu\n", prop.name, prop.multiProcessorCount, cublasLtGetVersion());
  std::printf("| shape | m x n x k | C | algorithms offered | heuristic first ms | best ms (index) | first / best | best TFLOP/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Shape& s : shapes) {
    const Result r = sweep(h, s, ws, ws_bytes);
    const double tflops = 2.0 * s.m * s.n * s.k / (r.best_ms * 1e-3) / 1e12;
    std::printf("| %s | %lld x %lld x %lld | %s | %d | %.4f | %.4f (%d) | %.3f | %.0f |\n", s.what, (long long)s.m,
                (long long)s.n, (long long)s.k, s.with_c ? "yes" : "no", r.offered, r.first_ms, r.best_ms, r.best_index,
                r.first_ms / r.best_ms, tflops);
  }
  cudaFree(ws);
  cublasLtDestroy(h);
  return 0;
}
