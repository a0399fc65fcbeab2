// gemm_reducescatter, program mode: a standalone MPI program in the style of CUCo's programs.
//
// Row-parallel linear layer on W ranks: rank r holds A_r (M x K/W) and B_r (K/W x N), row-major
// bf16, and produces rows [r M/W, (r+1) M/W) of C = sum_q A_q B_q as bf16 (M/W x N). Baseline:
// cuBLASLt GEMM into an M x N bf16 partial, then ncclReduceScatter.
//
// The program checks itself and prints, on rank 0:
//   Verification: PASS        (or FAIL)
//   Time: <ms> ms             (the largest over ranks of each rank's median of --iters iterations)
// In program mode cuco can only parse these lines: the figures are UNTRUSTED (see the harness-mode
// workload gemm_reducescatter for trusted ones).
//
// Build (Open MPI; mpicc --showme:compile / --showme:link give the MPI flags):
//   nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I$NCCL/include program.cu -o program
//        $(mpicc --showme:compile) $(mpicc --showme:link) -L$NCCL/lib -l:libnccl.so.2
//        -Xlinker -rpath=$NCCL/lib -lcublasLt                                             (one line)
//   (flags nvcc does not know, such as -pthread or -Wl,..., go through -Xcompiler / -Xlinker)
// Run:  mpirun -np 2 ./program [--m 8192] [--n 8192] [--k 8192] [--warmup 5] [--iters 20]
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CUDA_CHECK(x)                                                                                  \
  do {                                                                                                 \
    cudaError_t e_ = (x);                                                                              \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, \
                   #x);                                                                                \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
    }                                                                                                  \
  } while (0)
#define NCCL_CHECK(x)                                                                                  \
  do {                                                                                                 \
    ncclResult_t r_ = (x);                                                                             \
    if (r_ != ncclSuccess) {                                                                           \
      std::fprintf(stderr, "NCCL error %s at %s:%d: %s\n", ncclGetErrorString(r_), __FILE__, __LINE__, \
                   #x);                                                                                \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
    }                                                                                                  \
  } while (0)
#define CUBLAS_CHECK(x)                                                                                \
  do {                                                                                                 \
    cublasStatus_t s_ = (x);                                                                           \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                 \
      std::fprintf(stderr, "cuBLAS error %s at %s:%d: %s\n", cublasLtGetStatusString(s_), __FILE__,    \
                   __LINE__, #x);                                                                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
    }                                                                                                  \
  } while (0)

// ---- Inputs: A ~ U(-1,1), B ~ U(-1,1) * sqrt(3/K), bf16; element = hash(seed, tensor, rank, index).
__host__ __device__ inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
__host__ __device__ inline uint64_t stream_key(uint64_t seed, uint64_t tensor, uint64_t rank) {
  return mix64(seed ^ mix64((tensor << 32) ^ rank ^ 0x5DEECE66Dull));
}
__device__ inline float uniform_pm1(uint64_t key, uint64_t i) {
  const int32_t v = static_cast<int32_t>(mix64(key + (i + 1) * 0x9E3779B97F4A7C15ull) >> 32);
  return static_cast<float>(v) * 4.656612873077392578125e-10f;
}
__device__ inline float a_value(uint64_t key, uint64_t i) { return __bfloat162float(__float2bfloat16_rn(uniform_pm1(key, i))); }
__device__ inline float b_value(uint64_t key, uint64_t i, float scale) {
  return __bfloat162float(__float2bfloat16_rn(uniform_pm1(key, i) * scale));
}

__global__ void fill_inputs(__nv_bfloat16* A, int64_t n_a, uint64_t key_a, __nv_bfloat16* B, int64_t n_b, uint64_t key_b,
                            float scale) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n_a + n_b;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (i < n_a) A[i] = __float2bfloat16_rn(a_value(key_a, i));
    else B[i - n_a] = __float2bfloat16_rn(b_value(key_b, i - n_a, scale));
  }
}

struct Dims {
  int64_t m, n, k, m_local, k_local;
  int rank, world;
};

// EVOLVE-BLOCK-START
// The GEMM + reduce-scatter strategy. Baseline: cuBLASLt bf16 GEMM (fp32 compute) of the local
// partial product into an M x N bf16 buffer, then ncclReduceScatter of the partials.
constexpr int kWorkspaceMiB = 32;

struct Strategy {
  void* partial = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulAlgo_t algo{};
};

void strategy_setup(Strategy& s, const Dims& d) {
  CUDA_CHECK(cudaMalloc(&s.partial, static_cast<size_t>(d.m * d.n) * sizeof(__nv_bfloat16)));
  s.workspace_bytes = static_cast<size_t>(kWorkspaceMiB) << 20;
  CUDA_CHECK(cudaMalloc(&s.workspace, s.workspace_bytes));
  CUBLAS_CHECK(cublasLtCreate(&s.lt));
  // Row-major C = A B as column-major C^T = B^T A^T.
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t nt = CUBLAS_OP_N;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &nt, sizeof nt));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof nt));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.la, CUDA_R_16BF, d.n, d.k_local, d.n));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lb, CUDA_R_16BF, d.k_local, d.m, d.k_local));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lc, CUDA_R_16BF, d.n, d.m, d.n));
  cublasLtMatmulPreference_t pref = nullptr;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &s.workspace_bytes,
                                                    sizeof s.workspace_bytes));
  cublasLtMatmulHeuristicResult_t h{};
  int found = 0;
  CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(s.lt, s.op, s.la, s.lb, s.lc, s.lc, pref, 1, &h, &found));
  CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
  if (found < 1) {
    std::fprintf(stderr, "cuBLASLt found no algorithm\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  s.algo = h.algo;
}

void strategy_run(Strategy& s, const Dims& d, const void* A, const void* B, void* C, ncclComm_t comm,
                  cudaStream_t stream) {
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasLtMatmul(s.lt, s.op, &alpha, B, s.la, A, s.lb, &beta, s.partial, s.lc, s.partial, s.lc, &s.algo,
                              s.workspace, s.workspace_bytes, stream));
  NCCL_CHECK(ncclReduceScatter(s.partial, C, static_cast<size_t>(d.m_local * d.n), ncclBfloat16, ncclSum, comm, stream));
}

void strategy_teardown(Strategy& s) {
  cublasLtMatrixLayoutDestroy(s.lc);
  cublasLtMatrixLayoutDestroy(s.lb);
  cublasLtMatrixLayoutDestroy(s.la);
  cublasLtMatmulDescDestroy(s.op);
  cublasLtDestroy(s.lt);
  cudaFree(s.workspace);
  cudaFree(s.partial);
}
// EVOLVE-BLOCK-END

// ---- Self-check: sampled rows against an fp64 reference regenerated from the seed.
__global__ void check_rows(const __nv_bfloat16* C, const int64_t* rows, const uint64_t* keys, Dims d, float scale,
                           double* out /* per row: d2, r2, max_abs, nonfinite */) {
  const int64_t row_local = rows[blockIdx.y];
  const int64_t g = static_cast<int64_t>(d.rank) * d.m_local + row_local;
  const int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (j >= d.n) return;
  double acc = 0;
  for (int q = 0; q < d.world; ++q)
    for (int64_t kk = 0; kk < d.k_local; ++kk)
      acc += static_cast<double>(a_value(keys[q], g * d.k_local + kk)) *
             static_cast<double>(b_value(keys[d.world + q], kk * d.n + j, scale));
  const float o = __bfloat162float(C[row_local * d.n + j]);
  double* r = out + 4 * blockIdx.y;
  if (!isfinite(o)) {
    atomicAdd(&r[3], 1.0);
  } else {
    const double e = static_cast<double>(o) - acc;
    atomicAdd(&r[0], e * e);
    // max |e| of non-negative doubles via their bit patterns
    atomicMax(reinterpret_cast<unsigned long long*>(&r[2]), static_cast<unsigned long long>(__double_as_longlong(fabs(e))));
  }
  atomicAdd(&r[1], acc * acc);
}

static int64_t arg_value(int argc, char** argv, const char* name, int64_t fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  return fallback;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1, local_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank);
  MPI_Comm_free(&local);
  CUDA_CHECK(cudaSetDevice(local_rank));

  Dims d;
  d.m = arg_value(argc, argv, "--m", 8192);
  d.n = arg_value(argc, argv, "--n", 8192);
  d.k = arg_value(argc, argv, "--k", 8192);
  const int warmup = static_cast<int>(arg_value(argc, argv, "--warmup", 5));
  const int iters = static_cast<int>(std::max<int64_t>(1, arg_value(argc, argv, "--iters", 20)));
  d.rank = rank;
  d.world = world;
  if (d.m <= 0 || d.n <= 0 || d.k <= 0 || d.m % world != 0 || d.k % world != 0) {
    if (rank == 0) std::fprintf(stderr, "M, N, K must be > 0 and M, K divisible by %d\n", world);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  d.m_local = d.m / world;
  d.k_local = d.k / world;

  ncclUniqueId id;
  if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_CHECK(ncclCommInitRank(&comm, world, id, rank));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const int64_t n_a = d.m * d.k_local, n_b = d.k_local * d.n, n_c = d.m_local * d.n;
  __nv_bfloat16 *A = nullptr, *B = nullptr, *C = nullptr;
  CUDA_CHECK(cudaMalloc(&A, n_a * sizeof(__nv_bfloat16)));
  CUDA_CHECK(cudaMalloc(&B, n_b * sizeof(__nv_bfloat16)));
  CUDA_CHECK(cudaMalloc(&C, n_c * sizeof(__nv_bfloat16)));
  uint64_t seed = 0x5EED0000ull + 977;
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  const float scale = static_cast<float>(std::sqrt(3.0 / static_cast<double>(d.k)));
  fill_inputs<<<1024, 256, 0, stream>>>(A, n_a, stream_key(seed, 1, rank), B, n_b, stream_key(seed, 2, rank), scale);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemsetAsync(C, 0xFF, n_c * sizeof(__nv_bfloat16), stream));  // NaN until written
  CUDA_CHECK(cudaStreamSynchronize(stream));

  Strategy s;
  strategy_setup(s, d);
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int it = 0; it < warmup + iters; ++it) {
    CUDA_CHECK(cudaStreamSynchronize(stream));
    MPI_Barrier(MPI_COMM_WORLD);
    CUDA_CHECK(cudaEventRecord(start, stream));
    strategy_run(s, d, A, B, C, comm, stream);
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (it >= warmup) times.push_back(ms);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::sort(times.begin(), times.end());
  const double median = times.size() % 2 ? times[times.size() / 2]
                                         : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);

  // Check 16 rows spread over this rank's output (the last iteration's result).
  const int n_rows = static_cast<int>(std::min<int64_t>(16, d.m_local));
  std::vector<int64_t> rows(n_rows);
  for (int i = 0; i < n_rows; ++i) rows[i] = (i * d.m_local) / n_rows + (i * 7919) % std::max<int64_t>(1, d.m_local / n_rows);
  std::vector<uint64_t> keys(2 * world);
  for (int q = 0; q < world; ++q) {
    keys[q] = stream_key(seed, 1, q);
    keys[world + q] = stream_key(seed, 2, q);
  }
  int64_t* d_rows = nullptr;
  uint64_t* d_keys = nullptr;
  double* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_rows, n_rows * sizeof(int64_t)));
  CUDA_CHECK(cudaMalloc(&d_keys, keys.size() * sizeof(uint64_t)));
  CUDA_CHECK(cudaMalloc(&d_out, 4 * n_rows * sizeof(double)));
  CUDA_CHECK(cudaMemcpy(d_rows, rows.data(), n_rows * sizeof(int64_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_keys, keys.data(), keys.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_out, 0, 4 * n_rows * sizeof(double)));
  check_rows<<<dim3(static_cast<unsigned>((d.n + 255) / 256), n_rows), 256>>>(C, d_rows, d_keys, d, scale, d_out);
  CUDA_CHECK(cudaGetLastError());
  std::vector<double> out(4 * n_rows);
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double d2 = 0, r2 = 0, max_abs = 0, nonfinite = 0;
  for (int i = 0; i < n_rows; ++i) {
    d2 += out[4 * i];
    r2 += out[4 * i + 1];
    max_abs = std::max(max_abs, out[4 * i + 2]);
    nonfinite += out[4 * i + 3];
  }
  const double rel_l2 = r2 > 0 ? std::sqrt(d2 / r2) : 1.0;
  int ok = (nonfinite == 0 && rel_l2 <= 0.01 && max_abs <= 0.0625) ? 1 : 0;
  int all_ok = 0;
  double worst_median = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&median, &worst_median, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::fprintf(stderr, "rank %d: rel_l2 %.3e max_abs %.3e nonfinite %.0f median %.4f ms\n", rank, rel_l2, max_abs,
               nonfinite, median);
  if (rank == 0) {
    std::printf("Verification: %s\n", all_ok ? "PASS" : "FAIL");
    std::printf("Time: %.4f ms\n", worst_median);
    std::fflush(stdout);
  }

  strategy_teardown(s);
  cudaFree(d_rows);
  cudaFree(d_keys);
  cudaFree(d_out);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
