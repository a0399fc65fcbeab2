// Habit of tensor-parallel programs whose GEMM is a helper of their own header (written here, not
// copied): a row-parallel layer's matmul (gemm.h), then the all-reduce of its output, in a timed loop.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include "gemm.h"

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void fill(float* v, size_t n, int seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v[i] = static_cast<float>((i * 5 + seed) % 9) / 9.0f - 0.5f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CUDA_OK(cudaSetDevice(rank));
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, ranks, id, rank);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, stream);
  const int tokens = 2048, hidden = 2048, shard = 8192 / ranks;
  float *act, *weight, *out;
  CUDA_OK(cudaMalloc(&act, sizeof(float) * tokens * shard));
  CUDA_OK(cudaMalloc(&weight, sizeof(float) * shard * hidden));
  CUDA_OK(cudaMalloc(&out, sizeof(float) * tokens * hidden));
  fill<<<128, 256, 0, stream>>>(act, static_cast<size_t>(tokens) * shard, rank);
  fill<<<128, 256, 0, stream>>>(weight, static_cast<size_t>(shard) * hidden, rank + 1);
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  CUDA_OK(cudaEventRecord(start, stream));
  for (int it = 0; it < 20; ++it) {
    matmul(blas, act, weight, out, tokens, hidden, shard);
    ncclAllReduce(out, out, static_cast<size_t>(tokens) * hidden, ncclFloat, ncclSum, comm, stream);
  }
  CUDA_OK(cudaEventRecord(stop, stream));
  CUDA_OK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
  if (rank == 0) std::printf("Time: %.3f ms\n", ms / 20);
  cublasDestroy(blas);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
