// Tensor-parallel transformer block tail: attention output projection (row-parallel)
// followed by an MLP (column-parallel up, row-parallel down), Megatron style.
// fp16 weights/activations, fp32 accumulation. One MPI rank per GPU.
//
//   mpirun -np 2 ./tp_block [tokens] [hidden] [ffn] [iters]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cublas_v2.h>
#include <nccl.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err__ = (call);                                                  \
    if (err__ != cudaSuccess) {                                                  \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err__),     \
              __FILE__, __LINE__);                                               \
      MPI_Abort(MPI_COMM_WORLD, 1);                                              \
    }                                                                            \
  } while (0)

#define CHECK_CUBLAS(call)                                                       \
  do {                                                                           \
    cublasStatus_t st__ = (call);                                                \
    if (st__ != CUBLAS_STATUS_SUCCESS) {                                         \
      fprintf(stderr, "cuBLAS error %d at %s:%d\n", (int)st__, __FILE__,         \
              __LINE__);                                                         \
      MPI_Abort(MPI_COMM_WORLD, 1);                                              \
    }                                                                            \
  } while (0)

#define CHECK_NCCL(call)                                                         \
  do {                                                                           \
    ncclResult_t r__ = (call);                                                   \
    if (r__ != ncclSuccess) {                                                    \
      fprintf(stderr, "NCCL error %s at %s:%d\n", ncclGetErrorString(r__),       \
              __FILE__, __LINE__);                                               \
      MPI_Abort(MPI_COMM_WORLD, 1);                                              \
    }                                                                            \
  } while (0)

struct Config {
  int tokens;
  int hidden;
  int ffn;
  int iters;
  int warmup;
  float eps;
};

static Config parse_args(int argc, char** argv) {
  Config c;
  c.tokens = argc > 1 ? atoi(argv[1]) : 4096;
  c.hidden = argc > 2 ? atoi(argv[2]) : 4096;
  c.ffn    = argc > 3 ? atoi(argv[3]) : 16384;
  c.iters  = argc > 4 ? atoi(argv[4]) : 50;
  c.warmup = 5;
  c.eps    = 1e-5f;
  return c;
}

// ---------------------------------------------------------------------------
// kernels

__global__ void init_half(__half* p, size_t n, unsigned seed, float scale) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i < n; i += stride) {
    unsigned h = (unsigned)(i * 2654435761u) ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    float v = ((h & 0xffff) / 65535.0f - 0.5f) * scale;
    p[i] = __float2half(v);
  }
}

__global__ void fill_half(__half* p, size_t n, float v) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] = __float2half(v);
}

// out = LayerNorm(x + residual) * gamma + beta ; one block per row.
// Also writes the pre-norm sum back into residual (it is the next residual stream).
template <int BLOCK>
__global__ void fused_residual_layernorm(const __half* __restrict__ x,
                                         __half* __restrict__ residual,
                                         const __half* __restrict__ gamma,
                                         const __half* __restrict__ beta,
                                         __half* __restrict__ out,
                                         int hidden, float eps) {
  const int row = blockIdx.x;
  const __half* xr = x + (size_t)row * hidden;
  __half* rr = residual + (size_t)row * hidden;
  __half* orow = out + (size_t)row * hidden;

  __shared__ float s_sum[BLOCK / 32];
  __shared__ float s_sq[BLOCK / 32];
  __shared__ float s_mean, s_rstd;

  float sum = 0.f, sq = 0.f;
  for (int i = threadIdx.x; i < hidden; i += BLOCK) {
    float v = __half2float(xr[i]) + __half2float(rr[i]);
    rr[i] = __float2half(v);
    sum += v;
    sq += v * v;
  }
  for (int off = 16; off > 0; off >>= 1) {
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
    sq  += __shfl_xor_sync(0xffffffffu, sq, off);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) { s_sum[warp] = sum; s_sq[warp] = sq; }
  __syncthreads();
  if (warp == 0) {
    sum = lane < BLOCK / 32 ? s_sum[lane] : 0.f;
    sq  = lane < BLOCK / 32 ? s_sq[lane] : 0.f;
    for (int off = 16; off > 0; off >>= 1) {
      sum += __shfl_xor_sync(0xffffffffu, sum, off);
      sq  += __shfl_xor_sync(0xffffffffu, sq, off);
    }
    if (lane == 0) {
      float mean = sum / hidden;
      float var = sq / hidden - mean * mean;
      s_mean = mean;
      s_rstd = rsqrtf(var + eps);
    }
  }
  __syncthreads();
  const float mean = s_mean, rstd = s_rstd;
  for (int i = threadIdx.x; i < hidden; i += BLOCK) {
    float v = (__half2float(rr[i]) - mean) * rstd;
    orow[i] = __float2half(v * __half2float(gamma[i]) + __half2float(beta[i]));
  }
}

__global__ void gelu_inplace(__half* p, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) {
    float x = __half2float(p[i]);
    float y = 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    p[i] = __float2half(y);
  }
}

// ---------------------------------------------------------------------------
// cuBLAS is column-major; we keep row-major [rows x cols] activations and compute
// C[M,N] = A[M,K] * B[K,N]  as  C^T = B^T * A^T.
static void gemm_rowmajor(cublasHandle_t h, int M, int N, int K,
                          const __half* A, const __half* B, __half* C) {
  const float alpha = 1.f, beta = 0.f;
  CHECK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha,
                            B, CUDA_R_16F, N, A, CUDA_R_16F, K, &beta,
                            C, CUDA_R_16F, N, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT_TENSOR_OP));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, world;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);

  Config cfg = parse_args(argc, argv);
  if (cfg.hidden % world != 0 || cfg.ffn % world != 0) {
    if (rank == 0) fprintf(stderr, "hidden and ffn must divide the world size\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int hidden_local = cfg.hidden / world;  // attention heads owned by this rank
  const int ffn_local = cfg.ffn / world;

  int ndev = 0;
  CHECK(cudaGetDeviceCount(&ndev));
  CHECK(cudaSetDevice(rank % ndev));

  ncclUniqueId id;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, world, id, rank));

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t blas;
  CHECK_CUBLAS(cublasCreate(&blas));
  CHECK_CUBLAS(cublasSetStream(blas, stream));
  CHECK_CUBLAS(cublasSetMathMode(blas, CUBLAS_TENSOR_OP_MATH));

  const size_t T = cfg.tokens, H = cfg.hidden;
  // activations
  __half *attn_ctx, *proj_out, *residual, *ln_out, *mlp_hidden, *mlp_out;
  // weights (this rank's shard)
  __half *w_o, *w_up, *w_down, *ln1_g, *ln1_b, *ln2_g, *ln2_b;
  CHECK(cudaMalloc(&attn_ctx,   T * hidden_local * sizeof(__half)));
  CHECK(cudaMalloc(&proj_out,   T * H * sizeof(__half)));
  CHECK(cudaMalloc(&residual,   T * H * sizeof(__half)));
  CHECK(cudaMalloc(&ln_out,     T * H * sizeof(__half)));
  CHECK(cudaMalloc(&mlp_hidden, T * ffn_local * sizeof(__half)));
  CHECK(cudaMalloc(&mlp_out,    T * H * sizeof(__half)));
  CHECK(cudaMalloc(&w_o,    (size_t)hidden_local * H * sizeof(__half)));
  CHECK(cudaMalloc(&w_up,   H * ffn_local * sizeof(__half)));
  CHECK(cudaMalloc(&w_down, (size_t)ffn_local * H * sizeof(__half)));
  CHECK(cudaMalloc(&ln1_g, H * sizeof(__half)));
  CHECK(cudaMalloc(&ln1_b, H * sizeof(__half)));
  CHECK(cudaMalloc(&ln2_g, H * sizeof(__half)));
  CHECK(cudaMalloc(&ln2_b, H * sizeof(__half)));

  const int tpb = 256, nblk = 1024;
  const unsigned seed = 1234u + 97u * rank;
  init_half<<<nblk, tpb, 0, stream>>>(attn_ctx, T * hidden_local, seed + 1, 1.0f);
  init_half<<<nblk, tpb, 0, stream>>>(residual, T * H, 77u, 1.0f);  // same on all ranks
  init_half<<<nblk, tpb, 0, stream>>>(w_o, (size_t)hidden_local * H, seed + 2, 2.0f / sqrtf((float)H));
  init_half<<<nblk, tpb, 0, stream>>>(w_up, H * ffn_local, seed + 3, 2.0f / sqrtf((float)H));
  init_half<<<nblk, tpb, 0, stream>>>(w_down, (size_t)ffn_local * H, seed + 4, 2.0f / sqrtf((float)cfg.ffn));
  fill_half<<<(H + tpb - 1) / tpb, tpb, 0, stream>>>(ln1_g, H, 1.f);
  fill_half<<<(H + tpb - 1) / tpb, tpb, 0, stream>>>(ln1_b, H, 0.f);
  fill_half<<<(H + tpb - 1) / tpb, tpb, 0, stream>>>(ln2_g, H, 1.f);
  fill_half<<<(H + tpb - 1) / tpb, tpb, 0, stream>>>(ln2_b, H, 0.f);
  CHECK(cudaStreamSynchronize(stream));

  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));

  float total_ms = 0.f;
  for (int it = 0; it < cfg.warmup + cfg.iters; ++it) {
    if (it == cfg.warmup) CHECK(cudaEventRecord(t0, stream));

    // attention output projection, row-parallel: partial sums then all-reduce
    gemm_rowmajor(blas, cfg.tokens, cfg.hidden, hidden_local, attn_ctx, w_o, proj_out);
    CHECK_NCCL(ncclAllReduce(proj_out, proj_out, T * H, ncclHalf, ncclSum, comm, stream));
    fused_residual_layernorm<256><<<cfg.tokens, 256, 0, stream>>>(
        proj_out, residual, ln1_g, ln1_b, ln_out, cfg.hidden, cfg.eps);

    // MLP: column-parallel up projection, GELU, row-parallel down projection
    gemm_rowmajor(blas, cfg.tokens, ffn_local, cfg.hidden, ln_out, w_up, mlp_hidden);
    gelu_inplace<<<(T * ffn_local + tpb - 1) / tpb, tpb, 0, stream>>>(mlp_hidden, T * ffn_local);
    gemm_rowmajor(blas, cfg.tokens, cfg.hidden, ffn_local, mlp_hidden, w_down, mlp_out);
    CHECK_NCCL(ncclAllReduce(mlp_out, mlp_out, T * H, ncclHalf, ncclSum, comm, stream));
    fused_residual_layernorm<256><<<cfg.tokens, 256, 0, stream>>>(
        mlp_out, residual, ln2_g, ln2_b, ln_out, cfg.hidden, cfg.eps);
  }
  CHECK(cudaEventRecord(t1, stream));
  CHECK(cudaEventSynchronize(t1));
  CHECK(cudaEventElapsedTime(&total_ms, t0, t1));

  std::vector<__half> host(T * H);
  CHECK(cudaMemcpy(host.data(), ln_out, T * H * sizeof(__half), cudaMemcpyDeviceToHost));
  double checksum = 0.0;
  for (size_t i = 0; i < host.size(); ++i) checksum += __half2float(host[i]);

  const double flops = 2.0 * T * H * (hidden_local + 2.0 * ffn_local) * cfg.iters;
  if (rank == 0) {
    printf("tp_block: world=%d tokens=%d hidden=%d ffn=%d\n", world, cfg.tokens, cfg.hidden, cfg.ffn);
    printf("avg iter %.3f ms, %.1f TFLOP/s per GPU\n", total_ms / cfg.iters,
           flops / (total_ms * 1e-3) / 1e12);
  }
  printf("rank %d checksum %.6f\n", rank, checksum);

  cudaFree(attn_ctx); cudaFree(proj_out); cudaFree(residual); cudaFree(ln_out);
  cudaFree(mlp_hidden); cudaFree(mlp_out); cudaFree(w_o); cudaFree(w_up); cudaFree(w_down);
  cudaFree(ln1_g); cudaFree(ln1_b); cudaFree(ln2_g); cudaFree(ln2_b);
  cublasDestroy(blas);
  cudaStreamDestroy(stream);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
