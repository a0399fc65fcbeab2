// Habit of ring code in C style (written here, not copied): each pass sends the block it holds to
// the next rank and receives the previous rank's into a second buffer, folds the block it holds into
// a running sum meanwhile, and then swaps the two buffers by hand through a temporary
// (`float *tmp = cur; cur = nxt; nxt = tmp;`), as ring-attention benchmarks do with their K/V blocks.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); exit(1); } } while (0)

__global__ void init_block(float* x, int n, int seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = (float)((i * 13 + seed * 7) % 23) / 23.0f - 0.5f;
}

__global__ void fold(float* acc, const float* block, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc[i] = 0.5f * acc[i] + block[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_CUDA(cudaSetDevice(rank));
  ncclUniqueId id;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, size, id, rank));

  const int n = argc > 1 ? atoi(argv[1]) : (1 << 22);
  const int iters = 40;
  float *current_kv, *next_kv, *acc;
  CHECK_CUDA(cudaMalloc(&current_kv, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&next_kv, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&acc, n * sizeof(float)));
  init_block<<<256, 256>>>(current_kv, n, rank);
  CHECK_CUDA(cudaMemset(acc, 0, n * sizeof(float)));
  CHECK_CUDA(cudaDeviceSynchronize());

  cudaStream_t compute_stream, comm_stream;
  CHECK_CUDA(cudaStreamCreate(&compute_stream));
  CHECK_CUDA(cudaStreamCreate(&comm_stream));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;

  CHECK_CUDA(cudaEventRecord(start, compute_stream));
  for (int step = 0; step < iters; ++step) {
    CHECK_NCCL(ncclGroupStart());
    CHECK_NCCL(ncclSend(current_kv, n, ncclFloat, next, comm, comm_stream));
    CHECK_NCCL(ncclRecv(next_kv, n, ncclFloat, prev, comm, comm_stream));
    CHECK_NCCL(ncclGroupEnd());
    fold<<<256, 256, 0, compute_stream>>>(acc, current_kv, n);
    CHECK_CUDA(cudaStreamSynchronize(comm_stream));
    CHECK_CUDA(cudaStreamSynchronize(compute_stream));

    float *tmp = current_kv;
    current_kv = next_kv;
    next_kv    = tmp;
  }
  CHECK_CUDA(cudaEventRecord(stop, compute_stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  if (rank == 0) printf("ring step: %.3f ms\n", ms / iters);

  cudaFree(current_kv);
  cudaFree(next_kv);
  cudaFree(acc);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
