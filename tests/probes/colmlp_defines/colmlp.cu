// Column-parallel MLP layer (tensor parallel), one process per GPU under MPI.
// x_local [TOKENS_LOCAL x HIDDEN] is all-gathered to x_full [TOKENS x HIDDEN],
// then h = x_full * W1_shard  (W1_shard: HIDDEN x FFN_LOCAL), then bias+GELU.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>
#include <mpi.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <nccl.h>

#define TOKENS_LOCAL 512
#define HIDDEN 2048
#define FFN 8192
#define WARMUP 5
#define ITERS 50

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "CUDA %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)
#define NCCL_CHECK(x) do { ncclResult_t r = (x); if (r != ncclSuccess) { \
  fprintf(stderr, "NCCL %s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r)); exit(1);} } while (0)
#define CUBLAS_CHECK(x) do { cublasStatus_t s = (x); if (s != CUBLAS_STATUS_SUCCESS) { \
  fprintf(stderr, "cuBLAS %s:%d %d\n", __FILE__, __LINE__, (int)s); exit(1);} } while (0)

__global__ void bias_gelu(float* __restrict__ h, const float* __restrict__ bias, int rows, int cols) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < rows * cols) {
    int c = idx % cols;
    float v = h[idx] + bias[c];
    h[idx] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}

__global__ void init_rand(float* p, size_t n, unsigned seed, float scale) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned x = (unsigned)i * 2654435761u + seed * 97u;
    x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    p[i] = ((x & 0xffff) / 65535.f - 0.5f) * scale;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, world;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  int ndev; CUDA_CHECK(cudaGetDeviceCount(&ndev));
  CUDA_CHECK(cudaSetDevice(rank % ndev));

  ncclUniqueId id;
  if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_CHECK(ncclCommInitRank(&comm, world, id, rank));

  const int tokens = TOKENS_LOCAL * world;
  const int ffn_local = FFN / world;

  float *x_local, *x_full, *w1, *b1, *h;
  CUDA_CHECK(cudaMalloc(&x_local, sizeof(float) * TOKENS_LOCAL * HIDDEN));
  CUDA_CHECK(cudaMalloc(&x_full, sizeof(float) * tokens * HIDDEN));
  CUDA_CHECK(cudaMalloc(&w1, sizeof(float) * HIDDEN * ffn_local));
  CUDA_CHECK(cudaMalloc(&b1, sizeof(float) * ffn_local));
  CUDA_CHECK(cudaMalloc(&h, sizeof(float) * tokens * ffn_local));

  init_rand<<<(TOKENS_LOCAL * HIDDEN + 255) / 256, 256>>>(x_local, (size_t)TOKENS_LOCAL * HIDDEN, 1 + rank, 1.f);
  init_rand<<<(HIDDEN * ffn_local + 255) / 256, 256>>>(w1, (size_t)HIDDEN * ffn_local, 100 + rank, 0.05f);
  std::vector<float> hb(ffn_local);
  for (int i = 0; i < ffn_local; ++i) hb[i] = 0.01f * (i % 7);
  CUDA_CHECK(cudaMemcpy(b1, hb.data(), sizeof(float) * ffn_local, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());

  cudaStream_t compute, comm_stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking));
  cudaEvent_t gathered, t0, t1;
  CUDA_CHECK(cudaEventCreateWithFlags(&gathered, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));

  cublasHandle_t blas;
  CUBLAS_CHECK(cublasCreate(&blas));
  CUBLAS_CHECK(cublasSetStream(blas, compute));
  const float alpha = 1.f, beta = 0.f;

  auto step = [&]() {
    NCCL_CHECK(ncclAllGather(x_local, x_full, (size_t)TOKENS_LOCAL * HIDDEN, ncclFloat, comm, comm_stream));
    CUDA_CHECK(cudaEventRecord(gathered, comm_stream));
    CUDA_CHECK(cudaStreamWaitEvent(compute, gathered, 0));
    // row-major h[tokens x ffn_local] = x_full[tokens x HIDDEN] * w1[HIDDEN x ffn_local]
    CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, ffn_local, tokens, HIDDEN,
                             &alpha, w1, ffn_local, x_full, HIDDEN, &beta, h, ffn_local));
    int n = tokens * ffn_local;
    bias_gelu<<<(n + 255) / 256, 256, 0, compute>>>(h, b1, tokens, ffn_local);
  };

  for (int i = 0; i < WARMUP; ++i) step();
  CUDA_CHECK(cudaStreamSynchronize(compute));
  MPI_Barrier(MPI_COMM_WORLD);

  CUDA_CHECK(cudaEventRecord(t0, compute));
  for (int it = 0; it < ITERS; ++it) {
    NCCL_CHECK(ncclAllGather(x_local, x_full, (size_t)TOKENS_LOCAL * HIDDEN, ncclFloat, comm, comm_stream));
    CUDA_CHECK(cudaEventRecord(gathered, comm_stream));
    CUDA_CHECK(cudaStreamWaitEvent(compute, gathered, 0));
    CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, ffn_local, tokens, HIDDEN,
                             &alpha, w1, ffn_local, x_full, HIDDEN, &beta, h, ffn_local));
    int n = tokens * ffn_local;
    bias_gelu<<<(n + 255) / 256, 256, 0, compute>>>(h, b1, tokens, ffn_local);
  }
  CUDA_CHECK(cudaEventRecord(t1, compute));
  CUDA_CHECK(cudaEventSynchronize(t1));
  float ms; CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));

  std::vector<float> out((size_t)tokens * ffn_local);
  CUDA_CHECK(cudaMemcpy(out.data(), h, sizeof(float) * out.size(), cudaMemcpyDeviceToHost));
  double sum = 0; for (float v : out) sum += v;
  if (rank == 0) printf("colmlp: world=%d %.3f ms/iter\n", world, ms / ITERS);
  printf("rank %d checksum %.6e\n", rank, sum);

  cublasDestroy(blas);
  cudaFree(x_local); cudaFree(x_full); cudaFree(w1); cudaFree(b1); cudaFree(h);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
